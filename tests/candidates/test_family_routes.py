"""The families' own routing rules (capability ``routes``): HyperX's dimension order and the dragonfly's
local-global-local minimal routing, with Valiant's group intermediates -- against networkx and the rules as
published, computed here independently of :mod:`candidates`."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.capabilities import capabilities
from candidates.generators.dragonfly import minimal_table, valiant_intermediates
from candidates.generators.hyperx import dor_table
from candidates.errors import SpecError


def _next_routers(t, tab, u, d) -> list[int]:
    return [int(x) for x in t.arc_dst[tab.next_arcs(u, d)]]


def _routes(t, tab, s, d, limit=8):
    """Every route the table allows from s to d (lists of routers)."""
    out, todo = [], [[s]]
    while todo:
        path = todo.pop()
        if path[-1] == d:
            out.append(path)
            continue
        assert len(path) <= limit
        todo.extend(path + [v] for v in _next_routers(t, tab, path[-1], d))
    return out


def _cdg(t, tab) -> nx.DiGraph:
    """Channel dependencies of every route of the table between routers."""
    g = nx.DiGraph()
    for s in range(t.n):
        for d in range(t.n):
            if s != d:
                for path in _routes(t, tab, s, d):
                    chans = list(zip(path, path[1:]))
                    g.add_nodes_from(chans)
                    g.add_edges_from(zip(chans, chans[1:]))
    return g


# ---------------------------------------------------------------- HyperX dimension order
@pytest.mark.parametrize("spec", ["hyperx:3x4x2", "flatfly:k=3:n=3", "hyperx:5"])
def test_hyperx_dor_is_one_hop_per_differing_coordinate_lowest_first(spec):
    t = cd.from_spec(spec)
    tab = dor_table(t)
    D = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    c = t.coords
    for u in range(t.n):
        for d in range(t.n):
            assert tab.dist[u, d] == D[u][d] == int((c[u] != c[d]).sum())
            if u == d:
                assert tab.next_mask[u, d] == 0
                continue
            (v,) = _next_routers(t, tab, u, d)          # deterministic: one next hop
            k = int(np.flatnonzero(c[u] != c[d])[0])
            want = c[u].copy()
            want[k] = c[d][k]
            assert c[v].tolist() == want.tolist()


def test_hyperx_dor_channel_dependencies_are_acyclic_and_minimal_ones_are_not():
    t = cd.from_spec("hyperx:3x3x3")
    assert nx.is_directed_acyclic_graph(_cdg(t, dor_table(t)))
    # control: minimal routing over every dimension order closes cycles
    assert not nx.is_directed_acyclic_graph(_cdg(t, cd.shortest_path_table(t)))
    assert capabilities(t).routes.keys() == {"dor"} and capabilities(cd.from_spec("flatfly:k=3:n=3")).routes


def test_dor_table_refuses_other_families():
    with pytest.raises(SpecError, match="needs a hyperx or flatfly topology"):
        dor_table(cd.from_spec("torus:4x4"))


# ---------------------------------------------------------------- the dragonfly
def _lgl_dist(t) -> np.ndarray:
    """Minimal local-global-local hops from networkx's simple paths of up to 3 links: inside a group the
    direct link; else the shortest path whose only global link enters the destination's group."""
    G = t.to_networkx()
    grp = t.coords[:, 0]
    glob = {frozenset((int(u), int(v))) for (u, v), k in zip(t.links, t.link_dim) if k == 1}
    D = np.zeros((t.n, t.n), dtype=np.int64)
    for s in range(t.n):
        for d in range(t.n):
            if s == d:
                continue
            best = 9
            for path in nx.all_simple_paths(G, s, d, cutoff=3):
                hops = list(zip(path, path[1:]))
                gl = [i for i, h in enumerate(hops) if frozenset(h) in glob]
                local_only = not gl
                one_global_in = len(gl) == 1 and grp[hops[gl[0]][1]] == grp[d]
                if (local_only if grp[s] == grp[d] else one_global_in):
                    best = min(best, len(hops))
            D[s, d] = best
    return D


@pytest.mark.parametrize("spec", ["dragonfly:a=4:p=2:h=2", "dragonfly:a=3:p=1:h=2:g=4",
                                  "dragonfly:a=4:p=2:h=2:arrangement=palmtree", "dragonfly:a=2:p=1:h=2"])
def test_dragonfly_minimal_is_local_global_local(spec):
    t = cd.from_spec(spec)
    tab = minimal_table(t)
    assert np.array_equal(tab.dist, _lgl_dist(t))
    grp = t.coords[:, 0]
    glob = {(int(u), int(v)) for (u, v), k in zip(t.links, t.link_dim) if k == 1}
    glob |= {(v, u) for u, v in glob}
    for s in range(t.n):
        for d in range(t.n):
            if s == d:
                continue
            routes = _routes(t, tab, s, d)
            assert routes and all(len(r) - 1 == tab.dist[s, d] for r in routes)
            for r in routes:
                hops = list(zip(r, r[1:]))
                gl = [h for h in hops if h in glob]
                assert len(gl) == (grp[s] != grp[d]) and all(grp[h[1]] == grp[d] for h in gl)
    # not the graph's shortest paths: a route through a third group can be shorter
    D = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    assert all(tab.dist[s, d] >= D[s][d] for s in range(t.n) for d in range(t.n))


def test_graph_shortest_paths_differ_from_the_dragonflys_minimal():
    # control: on the balanced a=4 dragonfly 3 of 16 router pairs of the worst group pair have a shortest
    # path through a third group, so the graph's minimal next hops are a different table
    t = cd.from_spec("dragonfly:a=4:p=2:h=2")
    assert not np.array_equal(cd.shortest_path_table(t).next_mask, minimal_table(t).next_mask)


@pytest.mark.parametrize("spec", ["dragonfly:a=4:p=2:h=2", "dragonfly:a=3:p=1:h=2:g=4"])
def test_valiant_intermediates_enter_each_group_once(spec):
    t = cd.from_spec(spec)
    mid = valiant_intermediates(t)
    grp = t.coords[:, 0]
    g = int(grp.max()) + 1
    own = {}
    for (u, v), k in zip(t.links, t.link_dim):
        if k == 1:
            own.setdefault(int(u), set()).add(int(v))
            own.setdefault(int(v), set()).add(int(u))
    assert mid.shape == (t.n, g)
    for u in range(t.n):
        assert grp[mid[u]].tolist() == list(range(g)) and mid[u, grp[u]] == u
        for H in range(g):
            if H == grp[u]:
                continue
            e = int(mid[u, H])
            # the far end of a global link from u's group; u's own link when it has one into H
            assert any(grp[x] == grp[u] for x in own.get(e, ()))
            mine = [v for v in own.get(u, ()) if grp[v] == H]
            if mine:
                assert e in mine


def test_dragonfly_capabilities():
    c = capabilities(cd.from_spec("dragonfly:a=4:p=2:h=2"))
    assert c.routes.keys() == {"minimal"} and c.intermediates is not None and c.auto_routing == "ugal"
    assert capabilities(cd.from_spec("fattree:k=4")).auto_routing == "minimal"
