"""Fat trees and k-ary n-trees: every shortest path between routers with PEs climbs and then descends, so
minimal routing over all of them (up/down multipath) has an acyclic channel dependency graph (Dally-Seitz; built here with networkx
from the distances alone) and does not deadlock past saturation."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import sim
from candidates.capabilities import capabilities, families_with


def minimal_cdg(t: cd.Topology) -> nx.DiGraph:
    """Channel dependencies of adaptive minimal routing between the routers with PEs: a packet from s to d
    holding (w, u) may ask for any (u, v) on a shortest s-d path (traffic only runs between PEs)."""
    G = t.to_networkx()
    dist = dict(nx.all_pairs_shortest_path_length(G))
    pe = [r for r in G if t.terminals[r] > 0]
    cdg = nx.DiGraph()
    for s in pe:
        for d in pe:
            if s == d:
                continue
            for u in G:
                if u in (s, d) or dist[s][u] + dist[u][d] != dist[s][d]:
                    continue
                prev = [w for w in G[u] if dist[s][w] == dist[s][u] - 1]
                nxt = [v for v in G[u] if dist[v][d] == dist[u][d] - 1]
                for w in prev:
                    for v in nxt:
                        cdg.add_edge((w, u), (u, v))
    return cdg


@pytest.mark.parametrize("spec", ["fattree:k=4", "fattree:k=6", "ktree:k=2:n=3", "ktree:k=3:n=3", "ktree:k=2:n=4"])
def test_minimal_routing_on_trees_is_deadlock_free(spec):
    t = cd.from_spec(spec)
    assert capabilities(t).updown_minimal
    assert nx.is_directed_acyclic_graph(minimal_cdg(t))


def test_the_check_can_fail():
    """Control: on a ring or a torus minimal routing's dependencies close cycles."""
    for spec in ("ring:6", "torus:4x4", "dragonfly:a=2:p=1:h=1"):
        t = cd.from_spec(spec)
        assert not capabilities(t).updown_minimal
        assert not nx.is_directed_acyclic_graph(minimal_cdg(t))
    assert set(families_with("updown_minimal")) == {"fattree", "ktree"}


def test_minimal_on_a_fat_tree_spreads_and_does_not_deadlock_past_saturation():
    t = cd.from_spec("fattree:k=4")
    cfg = sim.preset("default", routing="minimal", warmup=500, measure=3000, drain=3000)
    for load in (0.5, 1.0):
        r = sim.simulate(t, cfg, "uniform", load, seed=3)
        assert not r.deadlock and r.conservation and r.routing == "minimal"
    r = sim.simulate(t, cfg, "uniform", 0.5, seed=3)
    assert abs(r.accepted - 0.5) < 0.03
    # ties between equally good next hops are broken at random: an edge switch's two up channels (to the two
    # aggregation switches of its pod) carry the same share within sampling; the first-index rule gave 0.69
    # and 0.22 here
    util = np.asarray(r.channel_utilisation)
    up = np.array([[a for a in range(t.num_arcs) if t.arc_src[a] == edge] for edge in range(8)])
    first, second = util[up[:, 0]], util[up[:, 1]]
    assert np.all(np.abs(first - second) < 0.3 * (first + second) / 2)      # the first-index rule: ~100%
    assert abs(first.sum() - second.sum()) < 0.05 * (first.sum() + second.sum()) / 2
