"""Searches under a placement: allowed links (a maximum length on a grid) and
the packaging's resources (the physical objective), against independent
computations: networkx distances, flows.physical's resource matrix, and the
physical flow's certified capacity."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.errors import SpecError
from candidates.placement import block_placement
from candidates.search import search_graph
from candidates.search.layout import box_layout, grid_layout, max_length_allowed
from flows import Demands, solve
from flows.physical import (Packaging, Technology, link_lengths, link_resources, physical_model,
                            physical_problem)

BGL = ("compute_card", "node_card", "midplane")


def _placed_torus(shape=(4, 4, 2), blocks=((1, 1, 2), (2, 2, 2), (4, 4, 2))):
    return block_placement(cd.torus(shape), [list(b) for b in blocks], BGL)


def test_grid_max_length_links_and_spec():
    lay = grid_layout(5, 4)
    r = search_graph(20, 4, moves=4000, seed=2, regular=False, layout=lay, max_length=1.5)
    t = r.topology
    xy = t.coords.astype(float)
    lengths = np.hypot(*(xy[t.links[:, 0]] - xy[t.links[:, 1]]).T)
    assert lengths.max() <= math.sqrt(2) + 1e-12
    assert t.degree.max() <= 4
    assert nx.is_connected(t.to_networkx())
    # the figures are the graph's (networkx's distances)
    assert r.aspl == pytest.approx(nx.average_shortest_path_length(t.to_networkx()))
    assert t.spec == "search:n=20:d=4:moves=4000:seed=2:grid=5x4:max_length=1.5:regular=0"
    again = cd.from_spec(t.spec)
    assert again.links.tolist() == t.links.tolist() and again.coords.tolist() == t.coords.tolist()


def test_max_length_matrix_closed_form():
    ok = max_length_allowed(grid_layout(5, 4).coords, 1.0)
    # the 5 x 4 mesh's links: 4*4 + 5*3 = 31 pairs
    assert int(ok.sum()) // 2 == 31
    # Manhattan 2 adds two steps along a row (3 per row x 4), along a column (5 x 2) and the diagonals (4 x 3 x 2)
    assert int(max_length_allowed(grid_layout(5, 4).coords, 2.0, "manhattan").sum()) // 2 == 31 + 12 + 10 + 24


def test_fixed_link_outside_the_rule_is_refused():
    mesh = cd.mesh((5, 4))   # column-major on the 5 x 4 grid: router i - i + 4 is 4 apart
    with pytest.raises(SpecError, match="not allowed by the placement"):
        search_graph(20, 4, moves=100, layout=grid_layout(5, 4), max_length=1.0, regular=False, fixed=mesh)


def test_symmetry_refused_under_a_placement():
    with pytest.raises(SpecError, match="use symmetry 1"):
        search_graph(20, 4, moves=100, layout=grid_layout(5, 4), max_length=1.5, regular=False, symmetry=4)


def test_physical_objective_needs_a_packaging():
    with pytest.raises(SpecError, match="packaging"):
        search_graph(32, 4, objective="physical", moves=100)


def test_link_resources_match_the_physical_model():
    t = _placed_torus()
    pk = Packaging.bluegene_l()
    m = physical_model(t, Technology(), pk)
    res = link_resources(t.placement, pk)
    R = m.R.tocsc()
    for a in range(t.num_arcs):
        rows = R.indices[R.indptr[a]:R.indptr[a + 1]]
        want = sorted(m.resource_names[r] for r in rows)
        got = sorted(res.resources_of(int(t.arc_src[a]), int(t.arc_dst[a])))
        assert got == want, a
    # capacities in wires: the model's capacity over its coefficient
    for r, name in enumerate(m.resource_names):
        coef = float(m.R[r].data[0])
        assert res.capacity[res.names.index(name)] == pytest.approx(m.capacity[r] / coef)
    assert np.allclose(link_lengths(t.placement, pk, t.arc_src, t.arc_dst), m.length)


def _even_split_loads(t, demands):
    """Each arc's load when every demand is split evenly over its shortest
    paths (path counting by networkx, independent of the kernel)."""
    G = t.to_networkx()
    index = {(int(u), int(v)): a for a, (u, v) in enumerate(zip(t.arc_src, t.arc_dst))}
    load = np.zeros(t.num_arcs)
    for s, d, amt in zip(demands.src, demands.dst, demands.amount):
        paths = list(nx.all_shortest_paths(G, int(s), int(d)))
        for p in paths:
            for x, y in zip(p, p[1:]):
                load[index[(x, y)]] += amt / len(paths)
    return load


@pytest.mark.parametrize("wiring", ["flexible", "uniform"])
def test_physical_score_is_a_feasible_flow(wiring):
    """The search's split_physical equals an independent even split priced by
    flows.physical's matrix, and is at most the certified capacity."""
    base = _placed_torus()
    pk = Packaging.bluegene_l()
    res = link_resources(base.placement, pk, wiring)
    lay = box_layout((4, 4, 2), base.placement)
    demands = Demands.random(32, 96, seed=3)
    r = search_graph(32, 5, objective="physical", moves=600, seed=1, regular=False, layout=lay, resources=res,
                     demands=demands)
    t = r.topology
    assert t.placement is not None and t.coords.tolist() == lay.coords.tolist()
    m = physical_model(t, Technology(), pk)
    load = _even_split_loads(t, demands)
    if wiring == "flexible":
        lam = 1.0 / np.max((m.R @ load) / m.capacity)
    else:
        cap = m.uniform_capacity()
        lam = 1.0 / np.max(load / cap)
    assert r.split_physical == pytest.approx(lam, rel=1e-9)
    certified = solve(physical_problem(t, demands, Technology(), pk, wiring=wiring), eps=0.02)
    assert r.split_physical <= certified.upper_bound * (1 + 1e-9)


@pytest.mark.parametrize("wiring", ["flexible", "uniform"])
def test_physical_score_of_a_lift(wiring):
    """Uniform traffic on a graph lifted over Z_4 (shift by a node card's 16 routers): the orbit sums of the
    split priced link by link equal the independent even split of every ordered pair."""
    base = block_placement(cd.torus((4, 4, 4)), [[1, 1, 2], [1, 4, 4], [4, 4, 4]], BGL)
    assert (base.placement.unit[16:32, 1] != base.placement.unit[:16, 1]).all()
    res = link_resources(base.placement, Packaging.bluegene_l(), wiring)
    r = search_graph(64, 4, objective="physical", moves=400, seed=3, symmetry=4,
                     layout=box_layout((4, 4, 4), base.placement), resources=res)
    assert r.symmetry == 4
    t = r.topology
    n = 64
    src, dst = np.nonzero(~np.eye(n, dtype=bool))
    load = _even_split_loads(t, Demands(src, dst, np.ones(len(src))))
    m = physical_model(t, Technology(), Packaging.bluegene_l())
    lam = 1.0 / (np.max((m.R @ load) / m.capacity) if wiring == "flexible" else np.max(load / m.uniform_capacity()))
    assert r.split_physical == pytest.approx(lam, rel=1e-9)
    with pytest.raises(SpecError, match="not symmetric"):
        search_graph(64, 4, objective="physical", moves=10, symmetry=4, layout=box_layout((4, 4, 4), base.placement),
                     resources=res, demands=Demands.random(64, 10, seed=1))


def test_physical_latency_share():
    """With a technology the split's average latency is the physical model's (router delay at each tail's
    radix, wire delay by length) weighted by an independent even split; a weight trades it against capacity."""
    base = _placed_torus()
    pk = Packaging.bluegene_l()
    res = link_resources(base.placement, pk, "flexible", technology=Technology(), pes=1, max_degree=5)
    lay = box_layout((4, 4, 2), base.placement)
    demands = Demands.random(32, 96, seed=5)
    out = {}
    for w in (0.0, 0.9):
        r = search_graph(32, 5, objective="physical", weight=w, moves=800, seed=1, regular=False, layout=lay,
                         resources=res, demands=demands)
        t = r.topology
        m = physical_model(t, Technology(), pk)
        load = _even_split_loads(t, demands)
        assert r.split_latency == pytest.approx(float(load @ m.latency) / demands.amount.sum(), rel=1e-9)
        assert t.params["weight"] == w
        out[w] = r
    assert out[0.9].split_latency < out[0.0].split_latency
