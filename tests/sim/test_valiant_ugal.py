"""Valiant and UGAL-L routing on the simple router, and the dragonfly's
adversarial pattern ``groupshift`` (Kim, Dally, Scott, Abts, ISCA 2008)."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import sim
from candidates.generators.dragonfly import minimal_table, valiant_intermediates
from flows import Demands, FlowProblem, solve_lp
from sim import SimConfig, simulate
from sim.cli import main as sim_main
from sim.errors import SimError
from traffic import TrafficError

DF = "dragonfly:a=4:p=2:h=2"   # g = 9 groups, 36 routers, 72 PEs, diameter 3


def _dist(t) -> np.ndarray:
    return np.asarray(nx.floyd_warshall_numpy(t.to_networkx()), dtype=np.float64)


def _valiant_points(t) -> tuple[np.ndarray, list[np.ndarray]]:
    """Distances the routing takes and every router's intermediate points,
    equally likely: all routers and the graph's distances, or for the
    dragonfly (Kim et al.) its local-global-local hops and the router where
    the source group's global link enters each group (itself for its own
    group) -- tests/candidates/test_family_routes.py checks both against
    networkx."""
    if t.family != "dragonfly":
        return _dist(t), [np.arange(t.n)] * t.n
    return minimal_table(t).dist.astype(np.float64), list(valiant_intermediates(t))


def _valiant_hops_moments(t, pattern: str) -> tuple[float, float]:
    """Mean and variance of a packet's hops d(s, m) + d(m, d) under
    ``pattern`` (router pairs weighted by its demand), m uniform over the
    source's intermediate points; networkx distances, independent of the
    simulator."""
    D, pts = _valiant_points(t)
    W = sim.traffic(pattern).demand_matrix(t)
    W = W / W.sum()
    m1 = m2 = 0.0
    for s in range(t.n):
        X = D[s, pts[s]][None, :] + D[pts[s]].T      # [d, m]
        m1 += (W[s] * X.mean(axis=1)).sum()
        m2 += (W[s] * (X ** 2).mean(axis=1)).sum()
    return float(m1), float(m2 - m1 ** 2)


@pytest.mark.parametrize("spec,vcs,load,measure", [(DF, 6, 0.05, 3000), ("torus:4x4", 8, 0.1, 8000)])
def test_valiant_mean_hops_is_the_expectation_over_uniform_intermediates(spec, vcs, load, measure):
    t = cd.from_spec(spec)
    mean, var = _valiant_hops_moments(t, "uniform")
    r = simulate(t, SimConfig(routing="valiant", vcs=vcs, packet_length=1, warmup=500, measure=measure), "uniform",
                 load, seed=2)
    assert r.drained and not r.deadlock and r.conservation
    # the packets draw (destination, intermediate) independently, so their
    # mean hops has standard error sqrt(var / packets); 4.5 of them is a
    # false alarm about once in 150,000 runs (the seed is fixed anyway)
    se = (var / r.packets) ** 0.5
    assert r.packets > 5000 and se < 0.02
    assert abs(r.hops - mean) < 4.5 * se
    # and the minimal hops of the same packets: Valiant's detour is real
    D = _valiant_points(t)[0]
    W = sim.traffic("uniform").demand_matrix(t)
    assert r.min_hops == pytest.approx((W * D).sum() / W.sum(), abs=4.5 * se)
    assert r.hops > 1.3 * r.min_hops


def test_ugal_at_low_load_is_nearly_minimal():
    # empty queues: q_min * H_min = 0 <= q_val * H_val, so minimal unless a
    # first hop is busy
    t = cd.from_spec(DF)
    r = simulate(t, SimConfig(routing="ugal", vcs=6, packet_length=1, warmup=500, measure=3000), "uniform", 0.02,
                 seed=1)
    assert r.drained and r.hops < 1.05 * r.min_hops


@pytest.mark.parametrize("spec,diameter", [(DF, 3), ("slimfly:q=5:p=2", 2), ("torus:4x4", 4),
                                           ("hyperx:4x4:t=2", 2), ("fattree:k=4", 4)])
@pytest.mark.parametrize("routing", ["valiant", "ugal"])
def test_no_deadlock_at_and_past_saturation(spec, diameter, routing):
    t = cd.from_spec(spec)
    assert int(_dist(t).max()) == diameter
    cfg = SimConfig(routing=routing, vcs=2 * diameter, packet_length=(1, 4), warmup=500, measure=1500, drain=3000,
                    watchdog=200, check=True)
    for pattern, load in (("uniform", 0.6), ("uniform", 1.0), ("randperm", 1.0)):
        r = simulate(t, cfg, pattern, load, seed=5)
        assert not r.deadlock and r.conservation, (pattern, load, r.deadlock_kind)
        assert r.accepted > 0.15
    with pytest.raises(SimError, match=f"--vcs {2 * diameter} or more"):
        simulate(t, cfg.replace(vcs=2 * diameter - 1), "uniform", 0.1)


def test_wormhole_valiant_delivers_with_the_same_hops():
    t = cd.from_spec("torus:4x4")
    mean, var = _valiant_hops_moments(t, "uniform")
    r = simulate(t, SimConfig(routing="valiant", vcs=8, switching="wormhole", packet_length=4, buffer_flits=8,
                              warmup=500, measure=6000), "uniform", 0.1, seed=3)
    assert r.drained and not r.deadlock and r.conservation
    assert abs(r.hops - mean) < 4.5 * (var / r.packets) ** 0.5


def test_same_seed_same_numbers():
    t = cd.from_spec(DF)
    cfg = SimConfig(routing="ugal", vcs=6, packet_length=1, warmup=300, measure=1000)

    def key(r):
        return (r.accepted, r.latency, r.hops, r.packets, r.cycles, r.channel_utilisation.tolist())

    a = simulate(t, cfg, "groupshift", 0.3, seed=7)
    assert key(a) == key(simulate(t, cfg, "groupshift", 0.3, seed=7))
    assert key(a) != key(simulate(t, cfg, "groupshift", 0.3, seed=8))
    v = cfg.replace(routing="valiant")
    assert key(simulate(t, v, "uniform", 0.3, seed=7)) == key(simulate(t, v, "uniform", 0.3, seed=7))


# ---------------------------------------------------------------- groupshift
def test_groupshift_destinations_and_flow_optimum():
    t = cd.from_spec(DF)
    grp = t.coords[:, 0]
    M = sim.traffic("groupshift").demand_matrix(t, level="router")
    # every router of group i sends its p = 2 PEs' unit each evenly to the a = 4 routers of group i+1
    want = np.where((grp[None, :] - grp[:, None]) % 9 == 1, 2 / 4, 0.0)
    assert np.allclose(M, want)
    Tm = sim.traffic("groupshift").demand_matrix(t, level="terminal")
    assert np.allclose(Tm.sum(axis=1), 1.0) and np.count_nonzero(Tm[0]) == 8
    # the routing-free optimum of tests/candidates/test_dragonfly.py: 9/16 per PE
    lam = solve_lp(FlowProblem.from_topology(t, Demands.from_matrix(M))).lam
    assert lam == pytest.approx(9 / 16, rel=1e-7)


def test_groupshift_needs_groups():
    with pytest.raises(TrafficError, match="groupshift traffic needs a topology whose routers form groups "
                                       r"\(dragonfly\); .* is family 'torus'"):
        sim.traffic("groupshift").destinations(cd.from_spec("torus:4x4"))
    assert cd.capabilities.capabilities(cd.from_spec(DF)).groups


# ---------------------------------------------------------------- the ISCA 2008 figures
def _sat(routing: str, pattern: str, buffer: int = 4) -> float:
    """BookSim2's saturation (the accepted load at the highest offered load
    whose run stays under the latency threshold), single-flit packets,
    ``buffer`` phits a VC."""
    cfg = SimConfig(routing=routing, vcs=6, packet_length=1, buffer_packets=buffer, warmup=1000, measure=2000)
    return sim.saturation(cd.from_spec(DF), cfg, pattern, step=0.05, resolution=0.01, definition="stable",
                          seed=1).saturation


def test_groupshift_minimal_valiant_ugal():
    a, p = 4, 2
    dist, val, ugal = (_sat(r, "groupshift") for r in ("distance", "valiant", "ugal"))
    # The dragonfly's minimal routing (local, the one direct global channel,
    # local; candidates.generators.dragonfly.minimal_table) gives the ISCA figure
    # 1/(a p) = 0.125: the a p PEs of a group share one global channel.
    # Measured 0.1250.
    assert dist == pytest.approx(1 / (a * p), rel=0.05)
    # Valiant through a random group: measured 0.411, 3.66 hops a packet;
    # short of the paper's 0.5 and the LP's 9/16 because the single-flit
    # input-queued router fills its channels to about 70% at saturation
    # (global 0.73 on average at load 0.4)
    assert 0.35 < val < 9 / 16
    # UGAL-L with 4-phit VCs (measured 0.320): well above minimal, below
    # Valiant. With 4-phit VCs the next router holds a few phits at most for
    # any channel, a short queue to read congestion from: the minimal path's
    # 4 phits x 3 hops weigh no more than a Valiant path's 2-3 x 5, so the
    # direct global channel saturates while the other global channels carry
    # less than half (docs/results/simulator.md, "Dragonfly routings")
    assert 2 * dist < ugal < val


def test_ugal_with_16_phit_buffers_follows_the_better_routing():
    # deeper VCs let the local queues show the congestion: under groupshift
    # UGAL-L comes within 5% of Valiant (measured 0.406 vs 0.417), under
    # uniform traffic it stays minimal (0.585 vs 0.586) -- the ISCA 2008
    # behaviour. Deciding where the two paths part matters here: at the
    # source router alone it reached 0.314 (a router without the direct
    # channel reaches both the direct channel and the Valiant paths through
    # the same gateway for some intermediate groups, and there the two first
    # hops tie and minimal won)
    val, ugal = _sat("valiant", "groupshift", 16), _sat("ugal", "groupshift", 16)
    assert ugal > 0.95 * val and val > 0.4
    dist, ugal_u = _sat("distance", "uniform", 16), _sat("ugal", "uniform", 16)
    assert ugal_u > 0.98 * dist


def test_uniform_minimal_valiant_ugal_against_the_flow_optimum():
    t = cd.from_spec(DF)
    # the simulator's own uniform pattern (any other PE, those of the source
    # router included) as flows demands: its routing-free optimum per PE
    lam = solve_lp(FlowProblem.from_topology(t, Demands.from_matrix(sim.traffic("uniform").demand_matrix(t)))).lam
    assert lam == pytest.approx(1.069, abs=0.001)
    dist, val, ugal = (_sat(r, "uniform") for r in ("distance", "valiant", "ugal"))
    # minimal and UGAL reach about 0.55 of the LP optimum (measured 0.586 and
    # 0.584): the router's input queues -- head-of-line blocking caps a
    # single-flit input-queued switch near 0.59 of its capacity under uniform
    # traffic -- not the channels. Valiant (0.406) about 0.7 x minimal: its
    # 3.88 hops a packet against 2.34
    assert 0.5 * lam < dist < 0.7 * lam
    assert 0.5 * lam < ugal < 0.7 * lam and ugal > 0.95 * dist
    assert 0.6 * dist < val < 0.8 * dist
    # Valiant is oblivious: the adversarial pattern costs it nothing
    assert val == pytest.approx(_sat("valiant", "groupshift"), abs=0.02)


# ---------------------------------------------------------------- interfaces
def test_cli_ugal_groupshift_saturation(capsys):
    argv = ["simulate", DF, "--routing", "ugal", "--traffic", "groupshift", "--saturation", "--packet", "1",
            "--step", "0.1", "--warmup", "500", "--measure", "1500", "--json"]
    # without --vcs: the 6 VCs ugal needs on a dragonfly (the preset has 3), said in one note
    assert sim_main(argv) == 0
    out = capsys.readouterr()
    d = json.loads(out.out)
    assert 0.3 < d["saturation"] < 0.5 and d["points"][0]["routing"] == "ugal"
    assert d["points"][0]["config"]["vcs"] == 6
    assert "toposynth: note: routing ugal uses a VC class per hop of its longest route: 6" in out.err
    # an explicit --vcs too small: one line saying how many
    assert sim_main(argv + ["--vcs", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "routing ugal needs" in err[0] and "--vcs 6" in err[0]
    from sim.routing import class_vcs
    assert class_vcs(cd.from_spec("torus:4x4"), "valiant") == 8 and class_vcs(cd.from_spec(DF), "distance") == 3


def test_router_iq_keeps_booksims_valiant_on_lattices():
    with pytest.raises(SimError, match="routing 'valiant' needs routing records"):
        simulate(cd.from_spec(DF), sim.preset("booksim", routing="valiant", vcs=4), "uniform", 0.1)
    r = simulate(cd.from_spec("mesh:4x4"), sim.preset("booksim", routing="valiant", vcs=2), "uniform", 0.05, seed=1)
    assert r.routing == "valiant (BookSim2)" and not r.deadlock
    with pytest.raises(SimError, match="--router iq"):
        simulate(cd.from_spec("mesh:4x4"), SimConfig(routing="min_adapt"), "uniform", 0.1)
    with pytest.raises(SimError, match="router iq supports routings"):
        simulate(cd.from_spec("mesh:4x4"), sim.preset("booksim", routing="ugal", vcs=4), "uniform", 0.1)
