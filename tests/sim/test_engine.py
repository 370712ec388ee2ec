"""The simulator against closed forms, invariants and the papers' figures."""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, simulate
from traffic import TrafficError


def one_pair(T: int, s: int, d: int) -> sim.TrafficPattern:
    M = np.zeros((T, T))
    M[s, d] = 1.0
    return sim.demand(M)


# ------------------------------------------------------------ zero-load latency
@pytest.mark.parametrize("router_delay,link_latency,length", [(1, 1, 1), (0, 1, 16), (3, 2, 5), (2, 4, 32)])
def test_zero_load_latency_is_analytic(router_delay, link_latency, length):
    """One source, one destination, packets far apart: every packet takes
    (H + 1) * router_delay + H * link_latency + L cycles."""
    t = cd.torus((8, 8))
    s, d = t.node_index((1, 2)), t.node_index((6, 3))
    H = 3 + 1  # x: 1 -> 6 is 3 hops the negative way; y: 1 hop
    cfg = SimConfig(routing="dor", router_delay=router_delay, link_latency=link_latency,
                    packet_length=length, warmup=0, measure=20000)
    load = 0.002 * length / t.n  # one packet per 500 cycles at the source (load averages over PEs)
    r = simulate(t, cfg, one_pair(t.n, s, d), load, seed=4)
    expected = (H + 1) * router_delay + H * link_latency + length
    assert r.packets > 20
    assert r.hops == H and r.min_hops == H
    # a packet generated while its predecessor still leaves waits behind it
    # (serialisation at the source): the typical packet has the exact value
    assert r.latency_percentiles["p50"] == expected
    assert expected <= r.latency < expected + 0.05 * length


@pytest.mark.parametrize("spec,routing", [("torus:4x4x4", "dor"), ("rtt:a=4", "adaptive"),
                                          ("ndt:4x4x2x2x2", "table"), ("ring:9", "updown")])
def test_low_load_mean_latency_matches_hops(spec, routing):
    """At very low uniform load, mean latency = 2 * hops + 1 + L exactly as
    long as no two packets meet; allow the rare meeting a tiny slack."""
    t = cd.from_spec(spec)
    cfg = SimConfig(routing=routing, packet_length=4, warmup=0, measure=20000)
    r = simulate(t, cfg, "uniform", 0.0005 * 4, seed=2)
    assert r.packets > 50
    analytic = 2 * r.hops + 1 + 4
    assert analytic <= r.latency <= analytic + 0.05
    if routing != "updown":
        assert r.hops == r.min_hops  # minimal routings take shortest paths


@pytest.mark.parametrize("spec,routing", [("torus:8x8x4", "dor"), ("ndt:4x4x2x2x2", "tsdor")])
def test_packet_phits_takes_out_each_packets_serialisation(spec, routing):
    """Packets of 1..32 phits at very low load: the mean measured length lies near
    the uniform mean 16.5, and latency - (packet_phits - 1) is 2 * hops + 2, the
    arrival of the first phit, whatever the lengths drawn."""
    t = cd.from_spec(spec)
    cfg = sim.preset("extoll").replace(routing=routing, vcs=4 if routing == "tsdor" else 2, warmup=0, measure=20000)
    r = simulate(t, cfg, "uniform", 0.002, seed=3)
    assert r.packets > 300
    assert abs(r.packet_phits - 16.5) < 4 * 9.23 / np.sqrt(r.packets)   # sd of U{1..32} = 9.23
    head = r.latency - (r.packet_phits - 1)
    assert 2 * r.hops + 2 <= head + 1e-9 <= 2 * r.hops + 2 + 0.2   # + the rare meeting
    fixed = simulate(t, cfg.replace(packet_length=8), "uniform", 0.002, seed=3)
    assert fixed.packet_phits == 8


def test_updown_takes_longer_legal_routes_on_a_ring():
    t = cd.ring(6)
    ud = cd.updown(t)
    cfg = SimConfig(routing="updown", vcs=1, packet_length=1, warmup=0, measure=20000)
    pair = one_pair(6, 2, 4)  # the short way 2-3-4 goes down then up: illegal
    r = simulate(t, cfg, pair, 0.01 / 6, seed=0)
    assert r.hops == int(ud.dist[2, 4]) == 4
    assert r.min_hops == 2


# ------------------------------------------------------- throughput / invariants
@pytest.mark.parametrize("spec,preset,load", [("torus:4x4", "singleflit", 0.4), ("rtt:a=4", "tpds2010", 0.5),
                                              ("torus:4x4:c=2", "default", 0.2), ("hypercube:5", "extoll", 0.4)])
def test_accepted_equals_offered_below_saturation(spec, preset, load):
    t = cd.from_spec(spec)
    r = simulate(t, sim.preset(preset, measure=8000), "uniform", load, seed=5)
    assert not r.deadlock and r.drained and r.conservation
    assert abs(r.offered - load) < 0.04 * load + 0.01
    assert abs(r.accepted - r.offered) < 0.02 * load + 0.003


def test_mean_channel_utilisation_is_load_times_distance():
    """Each phit crosses `hops` channels: sum of channel utilisation =
    accepted x PEs x hops (exact up to packets straddling the window)."""
    t = cd.torus((4, 4, 4))
    r = simulate(t, SimConfig(routing="dor", packet_length=1, measure=20000), "uniform", 0.3, seed=1)
    total = r.channel_utilisation.sum()
    assert total == pytest.approx(r.accepted * t.num_terminals * r.hops, rel=0.01)
    # symmetric torus: every dimension carries the same share
    means = [r.utilisation[k]["mean"] for k in "xyz"]
    assert max(means) - min(means) < 0.02


@pytest.mark.parametrize("routing,spec,vcs", [("dor", "torus:4x4", 2), ("adaptive", "rtt:a=4", 3),
                                              ("table", "ndt:4x4x2x2x2", 2), ("updown", "mesh:4x4", 2),
                                              ("dor", "ring:8", 1)])
def test_conservation_every_cycle_under_overload(routing, spec, vcs):
    t = cd.from_spec(spec)
    cfg = SimConfig(routing=routing, vcs=vcs, packet_length=(1, 8), check=True, warmup=500, measure=2000, drain=500)
    r = simulate(t, cfg, "uniform", 0.9, seed=3)
    assert r.conservation
    assert r.injected == r.delivered + r.in_flight
    assert not r.deadlock


def test_percentiles_ordered_and_generation_latency_includes_queueing():
    r = simulate(cd.torus((4, 4)), "default", "uniform", 0.8, seed=2)  # past saturation
    p = r.latency_percentiles
    assert p["p50"] <= p["p95"] <= p["p99"] <= r.latency_max
    assert r.latency_generation > r.latency  # sources queue past saturation
    assert r.accepted < r.offered


# -------------------------------------------------------------------- deadlock
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ring_dor_one_vc_without_avoidance_deadlocks(seed):
    """Without a dateline or bubble (and without in-transit priority, which
    on a ring acts almost like a bubble) DOR on a ring deadlocks."""
    t = cd.ring(8)
    cfg = SimConfig(routing="dor", vcs=1, deadlock="none", packet_length=4, buffer_packets=1,
                    warmup=0, measure=20000, watchdog=500, transit_priority=False)
    r = simulate(t, cfg, "uniform", 0.8, seed=seed)
    assert r.deadlock and r.deadlock_kind == "no progress"
    assert r.cycles < 5000  # the watchdog stopped the run
    assert r.conservation and r.in_flight > 0
    assert r.to_dict()["deadlock"] is True


@pytest.mark.parametrize("seed", [0, 3])
def test_partial_deadlock_found_as_a_knot(seed):
    """DOR with one VC and no avoidance on a 4x4 torus (with in-transit
    priority): some rings lock while others still move; the wait-for
    analysis finds the knot."""
    cfg = SimConfig(routing="dor", vcs=1, deadlock="none", packet_length=4, buffer_packets=2,
                    warmup=0, measure=20000, watchdog=500)
    r = simulate(cd.torus((4, 4)), cfg, "uniform", 0.8, seed=seed)
    assert r.deadlock and r.deadlock_kind == "knot"
    assert r.cycles < 5000


def test_minimal_table_without_escape_deadlocks_on_a_ring():
    cfg = SimConfig(routing="minimal", vcs=1, packet_length=4, buffer_packets=1, warmup=0, measure=20000,
                    watchdog=500, transit_priority=False)
    r = simulate(cd.ring(6), cfg, "uniform", 0.9, seed=1)
    assert r.deadlock


DEADLOCK_FREE = [
    ("dor", "ring:8", 1, "bubble", 0.55, 30000),
    ("dor", "torus:4x4", 2, "dateline", 0.7, 30000),
    ("adaptive", "rt:a=4", 3, "auto", 0.67, 30000),
    ("adaptive", "pdtt:a=2", 2, "auto", 0.8, 20000),
    ("table", "ndt:4x4x2x2x2", 2, "auto", 0.4, 6000),
    ("updown", "torus:4x4", 2, "auto", 0.5, 30000),
    ("distance", "torus:4x4", 4, "auto", 0.85, 30000),
]


@pytest.mark.parametrize("routing,spec,vcs,deadlock,sat,cycles", DEADLOCK_FREE)
def test_deadlock_free_at_twice_saturation(routing, spec, vcs, deadlock, sat, cycles):
    """The avoidance mechanisms hold at twice the saturation load, without
    in-transit priority too: no watchdog fire over a long run, packets keep
    arriving."""
    _run_overloaded(routing, spec, vcs, deadlock, sat, cycles, seed=9, transit_priority=True)
    _run_overloaded(routing, spec, vcs, deadlock, sat, cycles // 3, seed=10, transit_priority=False)


@pytest.mark.slow
@pytest.mark.parametrize("routing,spec,vcs,deadlock,sat,cycles", DEADLOCK_FREE)
def test_deadlock_free_at_twice_saturation_long(routing, spec, vcs, deadlock, sat, cycles):
    for seed in range(3):
        _run_overloaded(routing, spec, vcs, deadlock, sat, 200000 if cycles >= 20000 else 60000, seed=seed,
                        transit_priority=bool(seed % 2),
                        length=(1, 8))


def _run_overloaded(routing, spec, vcs, deadlock, sat, cycles, seed, transit_priority, length=4):
    t = cd.from_spec(spec)
    cfg = SimConfig(routing=routing, vcs=vcs, deadlock=deadlock, packet_length=length, warmup=1000,
                    measure=cycles, drain=0, watchdog=2000, transit_priority=transit_priority)
    r = simulate(t, cfg, "uniform", min(2 * sat, 1.0), seed=seed)
    assert not r.deadlock, r.deadlock_kind
    assert r.conservation
    assert r.accepted > 0.25 * sat  # still flowing (table+up*/down* collapses to ~0.35 sat without priority)


# ------------------------------------------------------- papers' throughput
def test_rt_vs_rtt_saturation_under_uniform_traffic():
    """'twisted-tori-tpds2010': the RTT accepts about 50% more than the RT,
    both a large fraction of their bounds 4/a and 6/a; at saturation the
    RT's X channels are busy and its Y channels about half as busy, while
    the RTT uses both dimensions alike."""
    a = 8
    cfg = sim.preset("tpds2010", warmup=2000, measure=4000, drain=2000)
    rt = simulate(cd.rt(a), cfg, "uniform", 0.8, seed=1)
    rtt = simulate(cd.rtt(a), cfg, "uniform", 0.9, seed=1)
    assert 0.7 * 4 / a < rt.accepted <= 4 / a
    assert 0.7 * 6 / a < rtt.accepted <= 6 / a
    assert 1.3 < rtt.accepted / rt.accepted < 1.6
    ux, uy = rt.utilisation["x"]["mean"], rt.utilisation["y"]["mean"]
    assert ux > 0.7 and 0.4 < uy / ux < 0.6
    vx, vy = rtt.utilisation["x"]["mean"], rtt.utilisation["y"]["mean"]
    assert min(vx, vy) > 0.65 and abs(vx - vy) < 0.05
    assert not rt.deadlock and not rtt.deadlock


def test_twin_torus_beats_3d_torus_256_pe():
    """'5d-twin-torus-extoll': the 5DT 4x4x2x2x2 (256 cards) has lower
    zero-load latency and higher throughput than the 3D torus 8x8x4."""
    cfg = sim.preset("extoll", routing="table", warmup=1000, measure=4000, drain=2000)
    t3, t5 = cd.from_spec("torus:8x8x4"), cd.from_spec("ndt:4x4x2x2x2")
    z3 = simulate(t3, cfg, "uniform", 0.02, seed=1)
    z5 = simulate(t5, cfg, "uniform", 0.02, seed=1)
    assert z5.latency < z3.latency and z5.hops < z3.hops
    s3 = simulate(t3, cfg, "uniform", 0.9, seed=1)
    s5 = simulate(t5, cfg, "uniform", 0.9, seed=1)
    assert s5.accepted > s3.accepted


# ------------------------------------------------------------ sweep / errors
def test_sweep_and_saturation_report_highest_accepted():
    t = cd.ring(8)
    s = sim.sweep(t, "singleflit", "uniform", [0.2, 0.6, 0.9], seed=1)
    assert [p.load for p in s.points] == [0.2, 0.6, 0.9]
    assert s.saturation == max(p.accepted for p in s.points)
    d = s.to_dict()
    assert set(d) == {"points", "saturation", "saturation_load"}
    for key in ("offered", "accepted", "latency", "hops", "deadlock", "cycles", "seconds"):
        assert key in d["points"][0]
    sat = sim.saturation(t, "singleflit", "uniform", step=0.15, seed=1)
    assert 0.45 < sat.saturation <= 0.7  # the DOR bound on ring(8) is 0.7
    assert sat.points[-1].accepted < 0.95 * sat.points[-1].offered


@pytest.mark.parametrize("kwargs,match", [
    (dict(config=SimConfig(routing="dor", vcs=1, deadlock="dateline")), "2 virtual channels"),
    (dict(config=SimConfig(routing="bogus")), "unknown routing"),
    (dict(config=SimConfig(routing="adaptive", buffer_packets=1)), "at least 2 packets"),
    (dict(config=SimConfig(routing="table", deadlock="bubble")), "applies to routing dor"),
    (dict(config=SimConfig(packet_length=1), load=1.5), "more than one packet per cycle"),
    (dict(config="nope"), "unknown preset"),
])
def test_errors_are_sim_errors(kwargs, match):
    args = dict(config=None, traffic_pattern="uniform", load=0.1)
    args.update(kwargs)
    with pytest.raises(SimError, match=match):
        simulate(cd.ring(8), **args)


def test_traffic_errors_come_from_the_shared_registry():
    # the simulator and the flow solvers read one registry of patterns: its errors are TrafficErrors
    with pytest.raises(TrafficError, match="unknown traffic pattern 'nope'; valid: bitcomplement"):
        simulate(cd.ring(8), None, "nope", 0.1)


def test_records_routing_needs_a_lattice():
    with pytest.raises(SimError, match="routing records"):
        simulate(cd.from_spec("ndt:4x4x2x2x2"), SimConfig(routing="dor"), "uniform", 0.1)


def test_config_validation():
    with pytest.raises(SimError):
        SimConfig(packet_length=(5, 2))
    with pytest.raises(SimError):
        SimConfig(vcs=0)
    with pytest.raises(SimError):
        sim.preset("default", bogus=1)
    assert SimConfig(packet_length=(4, 4)).packet_length == 4


def test_latency_confidence_interval_shrinks_with_the_window():
    """Batch means over 1000-cycle sample periods: a window 16 times longer
    gives an interval about 4 times narrower (1/sqrt(batches)); a short run at
    a low load shows a wide one."""
    t = cd.torus((8, 8))
    short = simulate(t, SimConfig(routing="dor", measure=4000), "uniform", 0.05, seed=1)
    long = simulate(t, SimConfig(routing="dor", measure=64000), "uniform", 0.05, seed=1)
    assert short.latency_ci95 is not None and long.latency_ci95 is not None
    assert long.latency_ci95 < short.latency_ci95 / 2
    assert abs(long.latency_generation - short.latency_generation) < 3 * short.latency_ci95
    assert short.cpu_seconds > 0 and short.stable
