"""Wormhole switching (``SimConfig(switching="wormhole")``, sim.routers._wormhole):
closed forms at zero load, throughput, deadlock, conservation, determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, Trace, run_trace, simulate
from sim.cli import main


def one_pair(T: int, s: int, d: int) -> sim.TrafficPattern:
    M = np.zeros((T, T))
    M[s, d] = 1.0
    return sim.demand(M)


def wh(**kw) -> SimConfig:
    base = dict(routing="dor", vcs=2, deadlock="dateline", switching="wormhole")
    base.update(kw)
    return SimConfig(**base)


def throttled(formula: int, length: int, buf: int, router_delay: int, link_latency: int) -> int:
    """Zero-load latency when the VC buffer is shorter than the credit round
    trip 2 * link_latency + router_delay + 1: flit i leaves every buffer at
    (i // buf) * rtt + i % buf after the header instead of i."""
    rtt = 2 * link_latency + router_delay + 1
    if buf >= rtt:
        return formula
    last = length - 1
    return formula + (last // buf) * rtt + last % buf - last


# ------------------------------------------------------------ zero-load latency
@pytest.mark.parametrize("router_delay,link_latency,length", [(1, 1, 1), (0, 1, 16), (3, 2, 5), (2, 4, 32)])
def test_zero_load_latency_torus_one_pair(router_delay, link_latency, length):
    """(H + 1) * router_delay + H * link_latency + L, as under VCT."""
    t = cd.torus((8, 8))
    s, d = t.node_index((1, 2)), t.node_index((6, 3))
    H = 4
    cfg = wh(router_delay=router_delay, link_latency=link_latency, packet_length=length, warmup=0, measure=20000,
             check=True)
    r = simulate(t, cfg, one_pair(t.n, s, d), 0.002 * length / t.n, seed=4)
    expected = (H + 1) * router_delay + H * link_latency + length
    assert r.packets > 20 and r.hops == H
    assert r.latency_percentiles["p50"] == expected
    assert expected <= r.latency < expected + 0.05 * length
    assert r.conservation and not r.deadlock
    vct = simulate(t, cfg.replace(switching="vct"), one_pair(t.n, s, d), 0.002 * length / t.n, seed=4)
    assert vct.latency_percentiles["p50"] == expected


@pytest.mark.parametrize("length", [1, 4, 16])
def test_zero_load_latency_ring_uniform(length):
    """Uniform traffic at a tiny load on ring(8): mean = 2 * hops + 1 + L."""
    cfg = wh(packet_length=length, warmup=0, measure=40000)
    r = simulate(cd.ring(8), cfg, "uniform", 0.0003 * length, seed=2)
    assert r.packets > 50
    analytic = 2 * r.hops + 1 + length
    assert analytic <= r.latency <= analytic + 0.02 * length


@pytest.mark.parametrize("buf,router_delay,link_latency", [(4, 1, 1), (2, 1, 1), (3, 2, 3), (3, 0, 1), (8, 4, 1)])
def test_packet_spans_several_routers(buf, router_delay, link_latency):
    """16-flit packets in buffers of a few flits (a packet spans 16 / buf
    routers): the VCT formula when the buffer covers the credit round trip,
    else the closed form of the credit-throttled stream."""
    t = cd.torus((8, 8))
    s, d = t.node_index((1, 2)), t.node_index((6, 3))
    H, L = 4, 16
    cfg = wh(buffer_flits=buf, router_delay=router_delay, link_latency=link_latency, packet_length=L,
             warmup=0, measure=20000, check=True)
    r = simulate(t, cfg, one_pair(t.n, s, d), 0.002 * L / t.n, seed=4)
    formula = (H + 1) * router_delay + H * link_latency + L
    assert r.latency_percentiles["p50"] == throttled(formula, L, buf, router_delay, link_latency)
    assert r.conservation and not r.deadlock


def test_throttled_closed_form_values():
    # buffer 2, round trip 4: 16 flits need 7 round trips + 1 cycle instead of 15 cycles
    assert throttled(25, 16, 2, 1, 1) == 39
    assert throttled(25, 16, 4, 1, 1) == 25


def test_pair_latency_is_the_formula_per_pair():
    t = cd.ring(6)
    cfg = wh(packet_length=8, warmup=0, measure=40000)
    res = simulate(t, cfg, "uniform", 0.002, seed=3, pair_latency=True)
    lat, cnt = res.pair_latency, res.pair_packets
    assert cnt.sum() == res.packets and cnt.sum() > 50
    for s in range(6):
        for d in range(6):
            if s != d and cnt[s, d] > 0:
                h = min((d - s) % 6, (s - d) % 6)
                assert lat[s, d] >= 2 * h + 1 + 8
                assert lat[s, d] < 2 * h + 1 + 8 + 1.0


# ------------------------------------------------------- throughput / invariants
@pytest.mark.parametrize("spec,routing,vcs,length,load", [
    ("torus:4x4", "dor", 2, 1, 0.4),
    ("torus:4x4", "dor", 2, 16, 0.3),
    ("torus:4x4:c=2", "dor", 2, (1, 8), 0.2),
    ("hypercube:4", "distance", 4, 4, 0.4),
    ("mesh:4x4", "updown", 2, 8, 0.2),
    ("ring:9", "minimal", 2, 4, 0.2),
])
def test_accepted_equals_offered_below_saturation(spec, routing, vcs, length, load):
    t = cd.from_spec(spec)
    cfg = SimConfig(routing=routing, vcs=vcs, switching="wormhole", packet_length=length, measure=8000)
    r = simulate(t, cfg, "uniform", load, seed=5)
    assert not r.deadlock and r.drained and r.conservation
    assert abs(r.offered - load) < 0.04 * load + 0.01
    assert abs(r.accepted - r.offered) < 0.02 * load + 0.003
    assert r.hops == r.min_hops or routing == "updown"


@pytest.mark.parametrize("spec,routing,vcs", [("ndt:4x4x2x2x2", "table", 2), ("ndt:4x4x2x2x2", "tsdor", 4),
                                              ("ndt:4x4x2x2x2", "dort", 4)])
def test_twin_and_table_routings(spec, routing, vcs):
    t = cd.from_spec(spec)
    cfg = SimConfig(routing=routing, vcs=vcs, switching="wormhole", packet_length=(1, 8), warmup=500,
                    measure=2000, drain=2000)
    r = simulate(t, cfg, "uniform", 0.2, seed=2)
    assert not r.deadlock and r.drained and r.conservation
    assert abs(r.accepted - r.offered) < 0.01
    if routing == "table":
        assert 0.0 < r.escape_fraction < 0.5


def test_channel_utilisation_is_load_times_distance():
    t = cd.torus((4, 4, 4))
    r = simulate(t, wh(packet_length=4, measure=20000), "uniform", 0.3, seed=1)
    assert r.channel_utilisation.sum() == pytest.approx(r.accepted * t.num_terminals * r.hops, rel=0.01)


@pytest.mark.parametrize("spec,routing,vcs,buf", [("torus:4x4", "dor", 2, 2), ("ring:8", "dor", 2, 3),
                                                  ("mesh:4x4", "updown", 2, 4), ("hypercube:4", "distance", 4, 1)])
def test_conservation_every_cycle_under_overload(spec, routing, vcs, buf):
    t = cd.from_spec(spec)
    cfg = SimConfig(routing=routing, vcs=vcs, switching="wormhole", buffer_flits=buf, packet_length=(1, 8),
                    check=True, warmup=500, measure=2000, drain=500)
    r = simulate(t, cfg, "uniform", 0.9, seed=3)
    assert r.conservation and not r.deadlock
    assert r.injected == r.delivered + r.in_flight and r.in_flight > 0


def test_injectors_and_ejectors_are_honoured():
    """Two terminals of one router (no link between them): one injection
    queue and one reception port pass 1 flit/cycle; two of each pass 1.6."""
    t = cd.from_spec("torus:4x4:c=2")
    T = t.num_terminals
    got = {}
    for inj, ej in ((1, 1), (2, 1), (2, 2)):
        cfg = wh(packet_length=4, injectors=inj, ejectors=ej, measure=4000, drain=0)
        r = simulate(t, cfg, one_pair(T, 0, 1), 1.6 / T, seed=1)
        got[inj, ej] = r.accepted * T
    assert got[1, 1] == pytest.approx(1.0, abs=0.01)
    assert got[2, 1] == pytest.approx(1.0, abs=0.01)
    assert got[2, 2] == pytest.approx(1.6, abs=0.05)


def test_small_buffers_saturate_lower_than_vct_on_a_torus():
    """8x8 torus, DOR + dateline, 2 VCs, 16-phit packets, offered 0.9: VCT
    with 4-packet buffers accepts ~0.52 phits/cycle/PE, wormhole with the
    same buffers ~0.50, wormhole with 4-flit buffers (a packet spans four
    routers and blocks the channels behind it) only ~0.29."""
    t = cd.torus((8, 8))
    base = dict(routing="dor", vcs=2, deadlock="dateline", packet_length=16, warmup=1000, measure=4000, drain=2000)
    vct = simulate(t, SimConfig(**base, buffer_packets=4), "uniform", 0.9, seed=1)
    big = simulate(t, SimConfig(**base, switching="wormhole", buffer_packets=4), "uniform", 0.9, seed=1)
    small = simulate(t, SimConfig(**base, switching="wormhole", buffer_flits=4), "uniform", 0.9, seed=1)
    for r in (vct, big, small):
        assert not r.deadlock and r.conservation
    assert 0.47 < vct.accepted < 0.57
    assert 0.44 < big.accepted <= vct.accepted
    assert 0.24 < small.accepted < 0.34
    assert small.accepted < 0.7 * vct.accepted
    # and below saturation all three carry the load
    low = simulate(t, SimConfig(**base, switching="wormhole", buffer_flits=4), "uniform", 0.2, seed=1)
    assert abs(low.accepted - low.offered) < 0.01


# -------------------------------------------------------------------- deadlock
@pytest.mark.parametrize("seed,transit_priority", [(0, False), (1, False), (0, True), (2, True)])
def test_ring_dor_one_vc_without_avoidance_deadlocks(seed, transit_priority):
    """Wormhole with one VC and no dateline on a ring: the cyclic channel
    dependency locks (with in-transit priority too, unlike VCT)."""
    cfg = wh(vcs=1, deadlock="none", packet_length=4, buffer_flits=2, warmup=0, measure=20000, watchdog=500,
             transit_priority=transit_priority)
    r = simulate(cd.ring(8), cfg, "uniform", 0.8, seed=seed)
    assert r.deadlock and r.deadlock_kind in ("no progress", "knot")
    assert r.cycles < 8000
    assert r.conservation and r.in_flight > 0


@pytest.mark.parametrize("transit_priority", [True, False])
def test_dateline_ring_does_not_deadlock_at_twice_saturation(transit_priority):
    """ring(8), DOR + dateline on 2 VCs, 8-flit packets in 4-flit buffers,
    offered 1.0 (saturation ~0.45 with priority, ~0.32 without): 60000
    cycles without a watchdog fire, packets keep arriving."""
    cfg = wh(packet_length=8, buffer_flits=4, warmup=1000, measure=60000, drain=0, watchdog=2000,
             transit_priority=transit_priority)
    r = simulate(cd.ring(8), cfg, "uniform", 1.0, seed=9)
    assert not r.deadlock and r.conservation
    assert r.accepted > (0.4 if transit_priority else 0.28)


@pytest.mark.parametrize("spec,routing,vcs", [("torus:4x4", "dor", 2), ("mesh:4x4", "updown", 2),
                                              ("hypercube:4", "distance", 4)])
def test_deadlock_free_routings_hold_under_overload(spec, routing, vcs):
    cfg = SimConfig(routing=routing, vcs=vcs, switching="wormhole", buffer_flits=2, packet_length=(1, 8),
                    warmup=1000, measure=20000, drain=0, watchdog=2000, transit_priority=False)
    r = simulate(cd.from_spec(spec), cfg, "uniform", 1.0, seed=4)
    assert not r.deadlock and r.conservation and r.accepted > 0.1


# ------------------------------------------------------------ trace / cli / errors
def test_trace_driven_ping_pong():
    """The run_trace doctest under wormhole: (3 + 1) + 3 + 16 = 23 cycles each way."""
    t = Trace.from_text("0 send 3 64\n0 recv 3\n3 recv 0\n3 send 0 64\n")
    r = run_trace(cd.ring(8), wh(packet_length=16), t)
    assert (r.cycles, r.finish[:4], r.hops, r.completed, r.conservation) == (46, [46, 0, 0, 23], 3.0, True, True)


@pytest.mark.parametrize("config", [
    SimConfig(switching="wormhole"),                                   # auto -> adaptive (bubble escape)
    SimConfig(switching="wormhole", routing="adaptive"),
    SimConfig(switching="wormhole", routing="dor", vcs=1),             # auto -> bubble with one VC
    SimConfig(switching="wormhole", routing="dor", deadlock="bubble"),
])
def test_bubble_routings_need_vct(config):
    with pytest.raises(SimError, match="bubble flow control needs virtual cut-through"):
        simulate(cd.torus((4, 4)), config, "uniform", 0.1)


def test_config_validation():
    with pytest.raises(SimError, match="switching must be vct or wormhole"):
        SimConfig(switching="store-and-forward")
    with pytest.raises(SimError, match="buffer_flits"):
        SimConfig(buffer_flits=-1)
    assert SimConfig().switching == "vct" and SimConfig().buffer_flits == 0
    assert SimConfig(switching="wormhole", buffer_flits=3).to_dict()["buffer_flits"] == 3


def test_cli_switching_options(capsys):
    code = main(["simulate", "ring:8", "--routing", "dor", "--vcs", "2", "--switching", "wormhole",
                 "--buffer-flits", "3", "--packet", "8", "--load", "0.1", "--measure", "3000", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0
    assert d["config"]["switching"] == "wormhole" and d["config"]["buffer_flits"] == 3
    assert d["deadlock"] is False and abs(d["accepted"] - 0.1) < 0.02
    code = main(["simulate", "torus:4x4", "--switching", "wormhole", "--load", "0.1"])
    assert code == 2
    assert "bubble flow control needs virtual cut-through" in capsys.readouterr().err
