"""TS-DOR and DORT on nDT twin tori ('5d-twin-torus-extoll')."""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, simulate
from sim.routing import build_tables, twin_path

VCS = {"tsdor": 4, "dort": 2}


def one_pair(T, s, d):
    M = np.zeros((T, T))
    M[s, d] = 1.0
    return sim.demand(M)


# 4x4x4 (3.7 s each) adds no case 3x3x3 lacks (both have a middle dimension longer than 2): slow
@pytest.mark.parametrize("spec", ["ndt:2x2x2", "ndt:3x3x3", pytest.param("ndt:4x4x4", marks=pytest.mark.slow),
                                  pytest.param("ndt:3x4x5x2x3", marks=pytest.mark.slow)])
@pytest.mark.parametrize("alg", ["tsdor", "dort"])
def test_tables_reproduce_twin_route(spec, alg):
    """Walking the kernel's next-hop tables from a source (traffic class =
    source card under TS-DOR) gives candidates.twin_route's path exactly."""
    t = cd.from_spec(spec)
    tabs = build_tables(t, alg, vcs=VCS[alg])
    step = 1 if t.n <= 128 else 11
    for s in range(0, t.n, step):
        for d in range(t.n):
            assert [a for a, _ in twin_path(tabs, t, s, d)] == cd.twin_route(t, s, d, alg)


def _cdg(t, tabs) -> nx.DiGraph:
    G = nx.DiGraph()
    for s in range(t.n):
        for d in range(t.n):
            prev = None
            for a, vs in twin_path(tabs, t, s, d):
                cur = [(a, v) for v in vs]
                if prev:
                    G.add_edges_from((x, y) for x in prev for y in cur)
                prev = cur
    return G


# 4x4x4 (6-10 s) has the controls' cases of 3x3x3 (a middle dimension longer than 2): slow
@pytest.mark.parametrize("spec", ["ndt:3x3x3", pytest.param("ndt:4x4x4", marks=pytest.mark.slow),
                                  pytest.param("ndt:4x4x2x2x2", marks=pytest.mark.slow)])
@pytest.mark.parametrize("alg", ["tsdor", "dort"])
def test_channel_dependency_graph_is_acyclic(spec, alg):
    """Dally-Seitz: no cycle among (channel, VC) dependencies. Controls: one
    VC for the internal hops before and after the middle dimension closes a
    cycle when that dimension has more than 2 nodes; DORT's first-hop class
    cannot share with the after-middle class (4 internal VCs, as the paper
    says)."""
    t = cd.from_spec(spec)
    tabs = build_tables(t, alg, vcs=VCS[alg])
    assert nx.is_directed_acyclic_graph(_cdg(t, tabs))
    f, c = tabs.tw_first.copy(), tabs.tw_count.copy()
    f[:, 2], c[:, 2] = f[:, 0], 1
    merged = _cdg(t, dataclasses.replace(tabs, tw_first=f, tw_count=c))
    middle = t.params["shape"][(len(t.params["shape"]) - 1) // 2]
    assert nx.is_directed_acyclic_graph(merged) == (middle == 2)
    if alg == "dort":
        f, c = tabs.tw_first.copy(), tabs.tw_count.copy()
        f[:, 3], c[:, 3] = f[:, 2], c[:, 2]
        assert not nx.is_directed_acyclic_graph(_cdg(t, dataclasses.replace(tabs, tw_first=f, tw_count=c)))


def test_vc_counts():
    """DORT: 4 VCs on the internal link where the middle dimension is longer
    than 2 (2 external + 2 internal-only); the paper's 5DT shapes fit in the
    external VCs."""
    assert build_tables(cd.from_spec("ndt:4x4x4"), "dort", vcs=2).vcs == 4
    assert build_tables(cd.from_spec("ndt:4x4x4"), "tsdor", vcs=4).vcs == 6
    for spec in ("ndt:4x4x2x2x2", "ndt:4x4x2x4x2", "ndt:4x4x2x4x4"):
        t = cd.from_spec(spec)
        assert build_tables(t, "tsdor", vcs=4).vcs == 4 and build_tables(t, "dort", vcs=2).vcs == 2


@pytest.mark.parametrize("alg", ["tsdor", "dort"])
def test_zero_load_hops_equal_twin_route(alg):
    t = cd.from_spec("ndt:4x4x2x2x2")
    cfg = SimConfig(routing=alg, vcs=VCS[alg], packet_length=4, warmup=0, measure=6000)
    rng = np.random.default_rng(1)
    for s, d in rng.integers(0, t.n, size=(6, 2)).tolist() + [[1, 0], [0, 255], [255, 1]]:
        if s == d:
            continue
        H = len(cd.twin_route(t, s, d, alg))
        r = simulate(t, cfg, one_pair(t.n, s, d), 0.01 * 4 / t.n, seed=2)
        assert r.hops == H
        assert r.latency_percentiles["p50"] == (H + 1) + H + 4
    # uniform low load: the mean over the packets equals the mean of twin_route over their pairs
    r = simulate(t, cfg.replace(measure=20000), "uniform", 0.002, seed=3)
    assert abs(r.latency - (2 * r.hops + 1 + 4)) < 0.05
    all_h = np.mean([len(cd.twin_route(t, s, d, alg)) for s in range(0, t.n, 3) for d in range(t.n) if s != d])
    assert abs(r.hops - all_h) < 0.1


def test_tsdor_is_minimal_on_the_papers_5dt_and_dort_is_not():
    t = cd.from_spec("ndt:4x4x2x2x2")
    dist = cd.shortest_path_table(t).dist
    ts = np.array([[len(cd.twin_route(t, s, d, "tsdor")) for d in range(t.n)] for s in range(0, t.n, 15)])
    do = np.array([[len(cd.twin_route(t, s, d, "dort")) for d in range(t.n)] for s in range(0, t.n, 15)])
    assert np.array_equal(ts, dist[::15])
    assert (do >= dist[::15]).all() and (do > dist[::15]).any()


@pytest.mark.parametrize("spec,alg", [("ndt:4x4x2x2x2", "tsdor"), ("ndt:2x2x2x2x2", "dort"),
                                      ("ndt:4x4x4", "tsdor"), ("ndt:3x3x3", "dort")])
def test_deadlock_free_far_past_saturation(spec, alg):
    _overload(spec, alg, 3000)


@pytest.mark.slow
@pytest.mark.parametrize("spec,alg", [("ndt:4x4x2x2x2", "tsdor"), ("ndt:4x4x2x2x2", "dort"),
                                      ("ndt:4x4x4", "tsdor"), ("ndt:4x4x4", "dort"), ("ndt:3x5x3", "tsdor")])
def test_deadlock_free_far_past_saturation_long(spec, alg):
    _overload(spec, alg, 60000)


def _overload(spec, alg, cycles):
    t = cd.from_spec(spec)
    for tp, seed in ((True, 1), (False, 2)):
        cfg = SimConfig(routing=alg, vcs=VCS[alg], packet_length=(1, 8), warmup=500, measure=cycles, drain=0,
                        watchdog=2000, transit_priority=tp, check=True)
        r = simulate(t, cfg, "uniform", 1.0, seed=seed)
        assert not r.deadlock and r.conservation
        assert r.accepted > 0.2


def test_twin_routing_errors():
    with pytest.raises(SimError, match="multiple of 4"):
        simulate(cd.from_spec("ndt:2x2x2"), SimConfig(routing="tsdor", vcs=2), "uniform", 0.1)
    with pytest.raises(SimError, match="nDT twin tori"):
        simulate(cd.torus((4, 4)), SimConfig(routing="dort"), "uniform", 0.1)
    with pytest.raises(SimError, match="applies to routing dor"):
        simulate(cd.from_spec("ndt:2x2x2"), SimConfig(routing="dort", vcs=2, deadlock="bubble"), "uniform", 0.1)


def test_twin_routing_runs_traces():
    r = sim.run_trace(cd.from_spec("ndt:4x4x2x2x2"), SimConfig(routing="tsdor", vcs=4, packet_length=16),
                      sim.nas("cg", 256, "S", iterations=1))
    assert r.completed and not r.deadlock and r.hops == r.min_hops
