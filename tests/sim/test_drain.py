"""The drain's latency threshold: a run past saturation stops at BookSim2's
rule (mean latency of the measured packets, the ones still out counted at
their age, above ``latency_threshold`` at a check every DRAIN_CHECK cycles)
instead of draining to the limit; runs below it are untouched."""

from __future__ import annotations

import math

import numpy as np
import pytest

import candidates as cd
from sim import preset, simulate
from sim.routers import _core as K
from sim.routers import simple as driver
from sim.config import DRAIN_CHECK
from sim.engine import resolve
from sim.routers.simple import tables_for
from traffic import traffic

OVERLOAD = dict(warmup=500, measure=2000, drain=20000)


def _build(topo, cfg, load, seed):
    routing, deadlock = resolve(topo, cfg)
    dests = traffic("uniform").destinations(topo)
    rate = load * dests.weight / cfg.mean_packet_length
    return driver.build(topo, cfg, tables_for(topo, cfg, routing), deadlock, dests, rate, warmup=cfg.warmup,
                        measure=cfg.measure, drain=cfg.drain, seed=seed)


def _ages_from_packets(run) -> tuple[int, int]:
    """(measured packets still out, the sum of their generation cycles) read from the packet pool and the
    source queues themselves -- independent of the counters the rule uses."""
    trf, buf = run.trf, run.buf
    w, e = int(trf.warmup), int(trf.end_measure)
    live = np.ones(buf.pk_tgen.shape[0], bool)
    live[buf.free[: int(run.ctl[K.C_NFREE])]] = False
    tg = buf.pk_tgen[live]
    gens = [tg[(tg >= w) & (tg < e)]]
    cap = trf.src_t.shape[1]
    for t in range(trf.src_cnt.shape[0]):
        c = int(trf.src_cnt[t])
        if c:
            q = trf.src_t[t, (int(trf.src_head[t]) + np.arange(c)) % cap]
            gens.append(q[(q >= w) & (q < e)])
    g = np.concatenate(gens)
    return int(g.size), int(g.sum())


def test_outstanding_generation_sum_matches_the_packets():
    """At the first drain check of an overloaded run the counters behind the
    rule equal the packets actually out (pool + source queues), and the rule
    stops the run exactly when their mean latency is above the threshold."""
    topo = cd.torus((4, 4))
    cfg = preset("singleflit", latency_threshold=math.inf, **OVERLOAD)
    run = _build(topo, cfg, 1.0, seed=3)
    check = cfg.warmup + cfg.measure + DRAIN_CHECK
    assert not run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(check))
    st = run.out.stats
    out, gen_sum = _ages_from_packets(run)
    assert out == st[K.S_TAG_GENERATED] - st[K.S_TAG_DELIVERED] > 0
    assert gen_sum == st[K.S_TGEN_OUT]
    mean_age = (st[K.S_SUM_LAT_GEN] + out * check - gen_sum) / st[K.S_TAG_GENERATED]
    assert mean_age > 200
    below = simulate(topo, cfg.replace(latency_threshold=mean_age - 0.5), "uniform", 1.0, seed=3)
    above = simulate(topo, cfg.replace(latency_threshold=mean_age + 0.5), "uniform", 1.0, seed=3)
    assert below.cycles == check and not below.stable and not below.drained
    assert above.cycles > check


def test_drain_stops_past_saturation_and_keeps_the_window():
    topo = cd.torus((4, 4))
    cfg = preset("singleflit", **OVERLOAD)
    cut = simulate(topo, cfg, "uniform", 1.0, seed=2)
    full = simulate(topo, cfg.replace(latency_threshold=math.inf), "uniform", 1.0, seed=2)
    end = cfg.warmup + cfg.measure
    assert not cut.stable and not cut.drained
    assert cut.cycles > end and (cut.cycles - end) % DRAIN_CHECK == 0
    assert full.cycles > cut.cycles and full.latency_generation > cfg.latency_threshold
    # the window's figures do not depend on when the drain stopped
    assert (cut.offered, cut.accepted, cut.injected_rate) == (full.offered, full.accepted, full.injected_rate)
    assert np.array_equal(cut.channel_utilisation, full.channel_utilisation)


@pytest.mark.parametrize("name,load", [("singleflit", 0.2), ("tpds2010", 0.3)])
def test_stable_runs_are_untouched(name, load):
    topo = cd.from_spec("rtt:a=4")
    cfg = preset(name, warmup=500, measure=2000)
    a = simulate(topo, cfg, "uniform", load, seed=5).to_dict(channels=True)
    b = simulate(topo, cfg.replace(latency_threshold=math.inf), "uniform", load, seed=5).to_dict(channels=True)
    for d in (a, b):
        for k in ("seconds", "cpu_seconds", "compile_seconds", "router_cycles_per_second", "config"):
            d.pop(k, None)
    assert a == b and a["stable"] and a["drained"]


def test_iq_fixed_measurement_is_stable_only_when_drained():
    topo = cd.torus((4, 4))
    cfg = preset("booksim", measurement="fixed", **OVERLOAD)
    over = simulate(topo, cfg, "uniform", 0.9, seed=1)
    under = simulate(topo, cfg, "uniform", 0.2, seed=1)
    assert not over.stable and not over.drained and (over.cycles - OVERLOAD["warmup"] - OVERLOAD["measure"]) % DRAIN_CHECK == 0
    assert under.stable and under.drained
