"""tsdor-adaptive: the EXTOLL router of '5d-twin-torus-extoll' (deterministic and adaptive traffic classes)."""

from __future__ import annotations

import dataclasses
import sys

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, simulate
from sim.routing import build_tables, twin_adaptive_choices


def _reachable(t, d: int, tc: int, choices) -> dict:
    """Every router a packet of source PE ``tc``'s adaptive class for router ``d`` can reach from a
    source router of its class by any of its choices, with those choices (``choices(u)``)."""
    seen, stack = {}, [u for u in range(tc, t.n, 2) if u != d]
    while stack:
        u = stack.pop()
        if u in seen or u == d:
            continue
        seen[u] = choices(u)
        adaptive, a, _ = seen[u]
        stack.extend(int(t.arc_dst[b]) for b in set(adaptive) | {a})
    return seen


def _extended_cdg(t, tabs) -> nx.DiGraph:
    """Duato's extended channel dependency graph of the escape VCs: an escape (channel, VC)
    depends on every escape (channel, VC) the packet may request next, at the router it leads
    to or after any run of adaptive hops from there."""
    sys.setrecursionlimit(10000)
    G = nx.DiGraph()
    dst = t.arc_dst
    for tc in (0, 1):
        for d in range(t.n):
            memo = {}

            def ch(u):
                if u not in memo:
                    memo[u] = twin_adaptive_choices(tabs, t, u, d, tc)
                return memo[u]

            reach: dict[int, frozenset] = {}

            def after(w):
                # the routers where a packet at w may request its next escape VC
                if w == d:
                    return frozenset()
                if w not in reach:
                    r = {w}
                    for b in ch(w)[0]:
                        r |= after(int(dst[b]))
                    reach[w] = frozenset(r)
                return reach[w]

            for u in _reachable(t, d, tc, ch):
                _, a, vcs = ch(u)
                for w in after(int(dst[a])):
                    _, a2, vcs2 = ch(w)
                    G.add_edges_from(((a, v), (a2, v2)) for v in vcs for v2 in vcs2)
    return G


@pytest.mark.parametrize("spec", ["ndt:3x3x3", "ndt:4x4x4", "ndt:2x2x2x2x2",
                                  pytest.param("ndt:4x4x2x2x2", marks=pytest.mark.slow)])
def test_escape_vcs_extended_dependency_graph_is_acyclic(spec):
    """Duato's condition: acyclic with the dateline class taken from where the packet is.
    Control: one escape VC per ring (classes 0 and 1 merged) closes a ring's cycle where a minimal
    route can take two hops in one ring (rings of 4 or more)."""
    t = cd.from_spec(spec)
    tabs = build_tables(t, "tsdor-adaptive", vcs=8)
    G = _extended_cdg(t, tabs)
    assert G.number_of_edges() > 0 and nx.is_directed_acyclic_graph(G)
    f = tabs.tw_first.copy()
    f[2:, 1] = f[2:, 0]
    merged = _extended_cdg(t, dataclasses.replace(tabs, tw_first=f))
    assert nx.is_directed_acyclic_graph(merged) == (max(t.params["shape"]) < 4)


def test_adaptive_choices_are_shortest_paths_on_the_card():
    """At every router a packet of either adaptive class can reach (from a source PE of its class,
    by any of its choices), every choice starts a shortest path, and only TS-DOR's own hop may
    change card."""
    t = cd.from_spec("ndt:4x4x2x2x2")
    tabs = build_tables(t, "tsdor-adaptive", vcs=8)
    dist = cd.shortest_path_table(t).dist
    rng = np.random.default_rng(5)
    checked = 0
    for d in rng.choice(t.n, size=12, replace=False).tolist():
        for tc in (0, 1):
            seen = _reachable(t, d, tc, lambda u: twin_adaptive_choices(tabs, t, u, d, tc))  # noqa: B023
            for u, (adaptive, a, vcs) in seen.items():
                assert adaptive[0] == a                                  # TS-DOR's hop, on the adaptive VC too
                for b in adaptive:
                    assert dist[t.arc_dst[b], d] == dist[u, d] - 1      # a shortest path
                    if b != a:
                        assert t.arc_dst[b] % 2 == u % 2                 # only TS-DOR's own hops change card
                # the escape VCs of this adaptive class's block (internal classes fit in it: middle ring of 2)
                assert vcs and set(vcs) <= {4 + 2 * tc, 5 + 2 * tc}
                checked += 1
    assert checked > 12 * 2 * 100


def test_vcs_and_switching_are_checked():
    t = cd.from_spec("ndt:4x4x2x2x2")
    assert build_tables(t, "tsdor-adaptive", vcs=8).vcs == 10            # 8 + the 2 adaptive VCs
    with pytest.raises(SimError, match="multiple of 8"):
        simulate(t, SimConfig(routing="tsdor-adaptive", vcs=4), "uniform", 0.1)
    with pytest.raises(SimError, match="virtual cut-through"):
        simulate(t, SimConfig(routing="tsdor-adaptive", vcs=8, switching="wormhole"), "uniform", 0.1)


def test_minimal_and_no_deadlock_far_past_saturation():
    """Every packet takes a shortest path (the paper's 5DT); offered 1.0 (far past saturation) on the paper's 256-PE 5DT and
    on a 3DT with rings of 4 nothing deadlocks and phits are conserved; the adaptive classes carry
    more than TS-DOR alone (same VCs for the deterministic part)."""
    base = sim.preset("extoll", warmup=1000, measure=3000, drain=3000)
    for spec in ("ndt:4x4x2x2x2", "ndt:4x4x4"):
        t = cd.from_spec(spec)
        low = simulate(t, base.replace(routing="tsdor-adaptive", vcs=8), "uniform", 0.05, seed=1)
        if spec == "ndt:4x4x2x2x2":          # TS-DOR itself is minimal on the paper's 5DT shapes only
            assert low.hops == low.min_hops
        acc = {}
        for routing, vcs in (("tsdor-adaptive", 8), ("tsdor", 4)):
            r = simulate(t, base.replace(routing=routing, vcs=vcs), "uniform", 1.0, seed=2)
            assert not r.deadlock and r.conservation
            acc[routing] = r.accepted
        assert acc["tsdor-adaptive"] > 1.1 * acc["tsdor"]


def test_same_seed_same_numbers():
    t = cd.from_spec("ndt:4x4x2x2x2")
    cfg = sim.preset("extoll", warmup=500, measure=1500).replace(routing="tsdor-adaptive", vcs=8)
    a, b = (simulate(t, cfg, "uniform", 0.6, seed=9) for _ in range(2))
    assert a.accepted == b.accepted and a.latency == b.latency and a.escape_fraction == b.escape_fraction
