"""The simulator's limits, from the accepted side: an idle network is not a
deadlock, and the values just inside every bound still run and give the
right numbers (the refusals are rows of tests/test_bad_inputs.py)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

import candidates as cd
import sim
from common.errors import MAX_SEED, ToposynthError, check_seed, seed_arg
from common.textfile import read_text
from sim import SimConfig, SimError
from sim.cli import _loads
from sim.config import MAX_CYCLES, preset
from sim.engine import MAX_POISSON_RATE, check_load
from sim.nas import min_events, nas
from sim.search import MAX_LOAD_POINTS
from sim.trace import MAX_TRACE_INT, Trace, TraceBuilder


# ------------------------------------------------------------------ the watchdog and an idle network
@pytest.mark.parametrize("changes,load", [(dict(), 2.62e-7), (dict(switching="wormhole", routing="dor", vcs=2), 2.62e-7),
                                          (dict(router="iq", routing="dor", vcs=2, buffer_flits=32), 1.5e-3)])
def test_one_packet_after_a_long_idle_stretch_is_delivered_not_a_deadlock(changes, load):
    # at these loads the first packet is generated after more than the watchdog's 5,000 idle cycles
    # (cycle 6,987 at seed 1 under tpds2010; router iq draws from the terminals' own streams: cycle 5,986):
    # it used to trip the watchdog at once
    cfg = preset("tpds2010", **changes)
    r = sim.simulate(cd.ring(6), cfg, "uniform", load, seed=1)
    assert not r.deadlock
    assert r.delivered == r.injected >= 1
    if not changes:
        # 3 hops: (3 + 1) * router_delay + 3 * link_latency + 16 phits
        assert (r.latency, r.latency_max, r.hops) == (23.0, 23, 3.0)


def test_a_saturation_search_with_a_tiny_step_is_not_zero_from_an_idle_network():
    s = sim.saturation(cd.ring(6), preset("tpds2010", warmup=0, measure=7000), "uniform", step=2.62e-7,
                       max_load=3 * 2.62e-7, seed=1)
    assert not any(p.deadlock for p in s.points)
    assert s.saturation > 0


def test_a_real_deadlock_is_still_one():
    r = sim.simulate(cd.torus((8, 8)), SimConfig(routing="dor", deadlock="none", vcs=1, buffer_packets=1,
                                                 packet_length=8), "tornado", 0.9, seed=0)
    assert r.deadlock


# ------------------------------------------------------------------ integer fields at their bounds
def test_cycle_counts_up_to_the_bound_are_accepted():
    cfg = SimConfig(warmup=MAX_CYCLES, measure=MAX_CYCLES, drain=MAX_CYCLES, watchdog=MAX_CYCLES)
    assert (cfg.measure, cfg.watchdog) == (10**12, 10**12)
    with pytest.raises(SimError, match=r"measure must be at most 1e\+12 cycles"):
        SimConfig(measure=MAX_CYCLES + 1)


def test_seeds_share_one_rule():
    assert check_seed(MAX_SEED) == seed_arg(str(MAX_SEED)) == 2**32 - 1
    with pytest.raises(ToposynthError, match=r"0\.\.4294967295"):
        check_seed(MAX_SEED + 1)
    with pytest.raises(argparse.ArgumentTypeError, match="must be an integer in"):
        seed_arg("1.5")
    # the largest seed runs (the kernels take it as numba's 32-bit seed)
    r = sim.simulate(cd.ring(8), "singleflit", "uniform", 0.1, seed=MAX_SEED)
    assert r.seed == MAX_SEED and not r.deadlock


# ------------------------------------------------------------------ loads
def test_load_ranges_follow_the_arrival_process():
    t = cd.ring(8)
    dests = sim.traffic("uniform").destinations(t)
    cfg = SimConfig(packet_length=4, injection="poisson")
    # Poisson: up to MAX_POISSON_RATE packets a cycle at a terminal, i.e. load 64 * 4 phits here
    assert check_load(MAX_POISSON_RATE * 4, cfg, dests).max() == MAX_POISSON_RATE
    with pytest.raises(SimError, match="Poisson arrivals take loads 0 to 256 here"):
        check_load(MAX_POISSON_RATE * 4 * 1.001, cfg, dests)
    # Bernoulli: one packet a cycle
    assert check_load(4.0, cfg.replace(injection="bernoulli"), dests).max() == 1.0
    with pytest.raises(SimError, match="Bernoulli arrivals: loads 0 to 4 here"):
        check_load(4.01, cfg.replace(injection="bernoulli"), dests)


def test_load_lists_and_ranges_parse_to_their_loads():
    assert _loads("0.1:0.3:0.1") == [0.1, 0.2, 0.3]
    assert _loads("0.25,0.5") == [0.25, 0.5]
    assert _loads("0.5:0.1:0.1") == []          # refused later: a sweep needs at least one load
    top = 1e-4 * (MAX_LOAD_POINTS - 1)
    assert len(_loads(f"0:{top}:1e-4")) == MAX_LOAD_POINTS
    with pytest.raises(SimError, match="more than 10000"):
        _loads(f"0:{top + 2e-4}:1e-4")


def test_a_sweep_refuses_a_bad_last_load_before_its_first_point():
    calls = []
    with pytest.raises(SimError, match="load must be non-negative and finite"):
        sim.sweep(cd.ring(8), "singleflit", "uniform", [0.1, float("inf")], progress=calls.append)
    assert calls == []


# ------------------------------------------------------------------ traces
def test_trace_integers_at_the_bound_are_kept_exactly():
    b = TraceBuilder(2)
    b.compute(0, MAX_TRACE_INT)
    b.send(0, 1, MAX_TRACE_INT, tag=MAX_TRACE_INT)
    b.recv(1, 0, tag=MAX_TRACE_INT)
    t = b.build()
    assert t.events(0) == [("compute", 2**62), ("send", 1, 2**62, 2**62)]
    assert t.total_bytes == 2**62
    t2 = Trace.from_text(t.to_text())
    assert t2.events(0) == t.events(0) and t2.match()[1].tolist() == [-1, -1, 0]
    with pytest.raises(SimError, match="computes for 9.22e"):
        b.compute(0, 1)
        b.compute(0, MAX_TRACE_INT)
        b.build()
    with pytest.raises(SimError, match="tags must be in 0..2"):
        TraceBuilder(2).send(0, 1, 8, tag=-1)


def test_a_trace_completes_when_its_compute_is_large_but_within_the_bound():
    # 2^39 cycles of compute are fast-forwarded (the network is idle), not simulated cycle by cycle
    b = TraceBuilder(2)
    b.compute(0, 2**39)
    b.send(0, 1, 64)
    b.recv(1, 0)
    r = sim.run_trace(cd.ring(4), SimConfig(routing="dor", packet_length=16), b.build(), max_cycles=MAX_CYCLES)
    assert r.completed and r.cycles == 2**39 + 2 + 1 + 16   # 1 hop: 2 router delays, 1 link, 16 phits


def test_trace_processes_are_checked_against_the_topology_before_building(tmp_path):
    p = tmp_path / "t.trace"
    p.write_text("processes 4\n0 send 3 8\n3 recv 0\n")
    assert Trace.read(p, max_processes=4).processes == 4
    with pytest.raises(SimError, match="trace line 1: the trace has 4 processes but the topology has only 3"):
        Trace.read(p, max_processes=3)


def test_read_text_bounded_reads_up_to_the_bound(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(b"x" * 3_000_000)
    assert len(read_text(p, "trace", max_bytes=3_000_000)) == 3_000_000
    with pytest.raises(ToposynthError, match="trace .* is longer than 3.0 MB"):
        read_text(p, "trace", max_bytes=2_999_999)


@pytest.mark.parametrize("kernel,P", [("cg", 8), ("mg", 8), ("ft", 4), ("is", 8), ("lu", 4), ("bt", 4), ("sp", 9)])
def test_nas_size_guard_counts_no_more_events_than_the_skeleton_has(kernel, P):
    for it in (1, 2):
        assert 0 < min_events(kernel, P, it) <= nas(kernel, P, "S", iterations=it).num_events


def test_nas_size_guard_refuses_before_building(monkeypatch):
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")
    with pytest.raises(ToposynthError, match=r"NAS IS with 65,536 processes .* needs about"):
        nas("is", 65536, "S")
    assert np.isfinite(min_events("is", 65536, 10))


def test_a_trace_declaring_more_processes_than_fit_is_refused_at_its_line(monkeypatch):
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")
    with pytest.raises(ToposynthError, match=r"trace line 2: a trace of 1e\+11 processes needs about 12 TB"):
        Trace.from_text("# a header\nprocesses 100000000000\n0 send 1 8\n")
