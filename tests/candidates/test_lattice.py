"""Lattice families against their definitions, networkx BFS and closed forms."""

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from candidates.analytics.measures import distance_stats
from candidates.generators.lattice import reduce_to_box


def edge_set(t):
    return {tuple(sorted(e)) for e in t.links.tolist()}


# ---------------------------------------------------------- definitions
@pytest.mark.parametrize("a", [2, 3, 4, 5, 8])
def test_rtt_matches_definition_5(a):
    """Def. 5 of 'twisted-tori-tpds2010', built independently here."""
    t = cd.rtt(a)
    idx = {tuple(c): i for i, c in enumerate(t.coords.tolist())}
    expect = set()
    for x, y in itertools.product(range(2 * a), range(a)):
        if x + 1 < 2 * a:
            expect.add(tuple(sorted((idx[x, y], idx[x + 1, y]))))
        if y + 1 < a:
            expect.add(tuple(sorted((idx[x, y], idx[x, y + 1]))))
        expect.add(tuple(sorted((idx[0, y], idx[2 * a - 1, y]))))
    for x in range(a):
        expect.add(tuple(sorted((idx[x, 0], idx[x + a, a - 1]))))
    for x in range(a, 2 * a):
        expect.add(tuple(sorted((idx[x, 0], idx[x - a, a - 1]))))
    assert edge_set(t) == expect
    assert t.num_links == 4 * a * a  # 2a^2 nodes of degree 4
    assert set(t.degree.tolist()) == {4}


@pytest.mark.parametrize("a", [2, 3, 4])
def test_ptt_is_rtt_times_ring(a):
    t = cd.ptt(a)
    G = nx.cartesian_product(cd.rtt(a).to_networkx(), nx.cycle_graph(a) if a > 2 else nx.MultiGraph([(0, 1), (0, 1)]))
    assert nx.is_isomorphic(nx.Graph(t.to_networkx()), nx.Graph(G))


@pytest.mark.parametrize("a", [2, 3, 4])
def test_pdtt_planes_are_rtts(a):
    """Def. 10: every XY plane and every XZ plane is an RTT(a)."""
    t = cd.pdtt(a)
    G = t.to_networkx()
    rtt = nx.Graph(cd.rtt(a).to_networkx())
    c = t.coords
    for z in range(a):
        plane = [v for v in range(t.n) if c[v, 2] == z]
        H = G.subgraph(plane).copy()
        H.remove_edges_from([(u, v) for u, v, d in G.subgraph(plane).edges(data=True) if d["dim"] == "z"])
        assert nx.is_isomorphic(nx.Graph(H), rtt)
    for y in range(a):
        plane = [v for v in range(t.n) if c[v, 1] == y]
        H = nx.Graph([(u, v) for u, v, d in G.subgraph(plane).edges(data=True) if d["dim"] != "y"])
        assert nx.is_isomorphic(H, rtt)


def test_torus_and_mesh_match_networkx_grid():
    for shape in [(3,), (4, 5), (3, 4, 5), (6, 3)]:
        t = cd.torus(shape)
        assert nx.is_isomorphic(t.to_networkx(), nx.grid_graph(dim=list(shape)[::-1], periodic=True))
        m = cd.mesh(shape)
        assert nx.is_isomorphic(m.to_networkx(), nx.grid_graph(dim=list(shape)[::-1]))


def test_size_two_dimensions_have_two_parallel_links():
    t = cd.torus((4, 2))
    assert t.has_parallel_links
    assert set(t.degree.tolist()) == {4}
    assert t.num_links == 16  # 8 in x, 8 in y (two per column)
    h = cd.hypercube(3)
    assert not h.has_parallel_links and h.num_links == 12
    assert nx.is_isomorphic(h.to_networkx(), nx.hypercube_graph(3))


def test_reduce_to_box_rtt():
    lat = np.array([[8, 0], [4, 4]])
    assert reduce_to_box(np.array([[3, 4]]), (8, 4), lat).tolist() == [[7, 0]]
    assert reduce_to_box(np.array([[-1, -1]]), (8, 4), lat).tolist() == [[3, 3]]


# ------------------------------------------------------ general twisted tori
@st.composite
def twisted_shapes(draw):
    D = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(2, 6)) for _ in range(D))
    # a random acyclic twist pattern: dimension k may shift dimensions j < k
    twists = {}
    for k in range(1, D):
        offs = [draw(st.integers(0, shape[j] - 1)) if j < k else 0 for j in range(D) if j != k]
        if any(offs):
            twists[k] = offs
    return shape, twists


def min_l1_distance(shape, lattice, target, reach=3):
    """Independent distance in the Cayley graph Z^D/L: the shortest lattice
    representative of the target, by brute force over coefficients."""
    L = np.asarray(lattice)
    best = None
    for c in itertools.product(range(-reach, reach + 1), repeat=len(shape)):
        v = np.asarray(target) - np.asarray(c) @ L
        d = int(np.abs(v).sum())
        best = d if best is None else min(best, d)
    return best


@settings(max_examples=40, deadline=None)
@given(twisted_shapes())
def test_twisted_torus_distances_match_networkx_and_lattice(arg):
    shape, twists = arg
    t = cd.twisted_torus(shape, twists)
    G = t.to_networkx()
    # networkx all-pairs BFS on the built graph vs the one-source shortcut
    counts = np.zeros(t.n + 1, dtype=np.int64)
    for s, lengths in nx.all_pairs_shortest_path_length(G):
        for d in lengths.values():
            counts[d] += 1
    ds = distance_stats(t)
    assert ds.connected
    assert ds.distribution == counts[: len(ds.distribution)].tolist()
    assert counts[len(ds.distribution):].sum() == 0
    # distances from router 0 equal the shortest lattice representative
    d0 = nx.single_source_shortest_path_length(G, 0)
    for v in range(t.n):
        assert d0[v] == min_l1_distance(shape, t.lattice, t.coords[v])


def test_twisted_spec_round_trip_and_zero_twist_is_torus():
    t = cd.from_spec("twisted:16x8:t1=8")
    assert edge_set(t) == edge_set(cd.rtt(8))
    z = cd.twisted_torus((6, 4), {1: [0]})
    assert edge_set(z) == edge_set(cd.torus((6, 4)))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: cd.twisted_torus((8, 4), {1: [8]}), "not a valid offset"),
        (lambda: cd.twisted_torus((8, 4), {1: [-1]}), "not a valid offset"),
        (lambda: cd.twisted_torus((4, 4), {0: [1], 1: [1]}), "cyclic"),
        (lambda: cd.twisted_torus((4, 4), {2: [1, 0]}), "dimension 2"),
        (lambda: cd.twisted_torus((4, 4, 4), {1: [1]}), "needs 2 offsets"),
        (lambda: cd.torus((4, 0)), "positive"),
        (lambda: cd.rtt(1), "a >= 2"),
        (lambda: cd.hypercube(0), "positive"),
        (lambda: cd.ring(2), "at least 3"),
    ],
)
def test_bad_parameters_raise_one_clear_error(call, message):
    with pytest.raises(cd.SpecError, match=message):
        call()
