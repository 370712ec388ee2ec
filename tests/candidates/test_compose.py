"""Cartesian products and the hierarchical (Blue Gene/L) composition of
'topology-synthesis-mcf-bgl': against networkx's cartesian_product and BFS,
the product's degree and distance sums, and the placement of every router."""

import itertools
import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from candidates.generators.compose import bgl_midplane, hierarchical, product
from candidates.enumeration.linear import linear_placements

CUBE8 = "Gr`HOk"  # a connected cubic graph on 8 nodes (graph6)


def bfs_matrix(G, nodes=None):
    """All-pairs hop counts of a networkx graph, rows/columns in ``nodes`` order."""
    nodes = list(G.nodes()) if nodes is None else nodes
    pos = {v: i for i, v in enumerate(nodes)}
    D = np.full((len(nodes), len(nodes)), -1)
    for v, row in nx.all_pairs_shortest_path_length(G):
        for w, d in row.items():
            D[pos[v], pos[w]] = d
    return D


def topo_distances(t):
    return bfs_matrix(nx.Graph(t.to_networkx()), list(range(t.n)))


def factor_sum(mats, coords):
    """sum_i D_i[coords[u, i], coords[v, i]] for all router pairs (u, v)."""
    total = 0
    for i, D in enumerate(mats):
        c = coords[:, i]
        total = total + D[np.ix_(c, c)]
    return total


def flatten(v):
    """networkx nests product nodes: ((a, b), c) -> a, b, c."""
    for x in v:
        if isinstance(x, tuple):
            yield from flatten(x)
        else:
            yield x


def multiset(t):
    return Counter(tuple(sorted(e)) for e in t.links.tolist())


# ------------------------------------------------------------------- product
@pytest.mark.parametrize(
    "graphs",
    [
        (nx.petersen_graph(), nx.path_graph(3)),
        (nx.cycle_graph(5), nx.complete_graph(3), nx.path_graph(2)),
        (nx.star_graph(3), nx.cycle_graph(4)),
    ],
)
def test_product_matches_networkx_cartesian_product(graphs):
    t = product(*graphs)
    P = graphs[0]
    for g in graphs[1:]:
        P = nx.cartesian_product(P, g)
    assert t.n == P.number_of_nodes() == math.prod(g.number_of_nodes() for g in graphs)
    assert t.num_links == P.number_of_edges()
    assert nx.is_isomorphic(t.to_networkx(), P)
    # not just isomorphic: the router with coordinates c is networkx's node c
    flat = {v: tuple(flatten(v)) for v in P.nodes()}
    assert {frozenset(tuple(t.coords[u].tolist()) for u in e) for e in t.links.tolist()} == {
        frozenset((flat[a], flat[b])) for a, b in P.edges()}


def test_product_layout_classes_and_degrees():
    A, B = nx.petersen_graph(), nx.path_graph(4)
    t = product(A, B, names=("pet", "line"))
    assert (t.dims, t.shape, t.family) == (("pet", "line"), (10, 4), "product")
    # router index = C-order ravel of the factor coordinates
    assert np.array_equal(np.ravel_multi_index(tuple(t.coords.T), t.shape), np.arange(40))
    # a link of class i changes coordinate i only, along an edge of factor i
    for (u, v), k in zip(t.links.tolist(), t.link_dim.tolist()):
        cu, cv = t.coords[u], t.coords[v]
        assert cu[1 - k] == cv[1 - k]
        assert (A if k == 0 else B).has_edge(int(cu[k]), int(cv[k]))
    # class counts |E_i| * N / n_i; degrees add up
    assert np.bincount(t.link_dim).tolist() == [15 * 4, 3 * 10]
    dA, dB = dict(A.degree()), dict(B.degree())
    assert t.degree.tolist() == [dA[a] + dB[b] for a, b in t.coords.tolist()]


@pytest.mark.parametrize(
    "factors",
    [
        ("ring:5", "path:4"),
        ("ring:4", "ring:3", "path:3"),
        (CUBE8, "path:2"),
        ("g6:" + CUBE8, nx.star_graph(3)),
    ],
)
def test_product_distances_are_sums_of_factor_distances(factors):
    fs = [cd.from_graph6(f) if f == CUBE8 else f for f in factors]
    t = product(*fs)
    as_nx = [cd.from_spec(f).to_networkx() if isinstance(f, str) else
             f.to_networkx() if isinstance(f, cd.Topology) else f for f in fs]
    mats = [bfs_matrix(G, list(range(G.number_of_nodes()))) for G in as_nx]
    assert np.array_equal(topo_distances(t), factor_sum(mats, t.coords))
    s = cd.distance_stats(t)
    assert s.diameter == sum(int(D.max()) for D in mats)


def test_product_keeps_parallel_links():
    double = nx.MultiGraph([(0, 1), (0, 1)])  # the two ports of a size-2 torus dimension
    t = product("ring:3", double)
    assert t.has_parallel_links and t.degree.tolist() == [4] * 6 and t.num_links == 3 * 2 + 2 * 3
    assert multiset(t) == multiset(cd.torus((3, 2)))
    assert product(cd.torus((2,)), "ring:3").num_links == 2 * 3 + 3 * 2  # a Topology factor keeps its pair too
    edge_list = product([(0, 1), (0, 1), (1, 2)], [(0, 1)])
    assert edge_list.n == 6 and Counter(edge_list.link_dim.tolist()) == {0: 6, 1: 3}


def test_product_of_rings_is_the_torus_router_for_router():
    t = product("ring:4", "ring:5", "ring:3")
    assert multiset(t) == multiset(cd.torus((4, 5, 3)))
    assert np.array_equal(t.coords, cd.torus((4, 5, 3)).coords)
    assert t.vertex_transitive
    assert not product("ring:4", "path:3").vertex_transitive


def test_networkx_factor_vertex_order():
    # integer labels 0..n-1 are positions even when the iteration order is permuted
    G = nx.Graph()
    G.add_nodes_from([2, 0, 1])
    G.add_edges_from([(2, 0), (0, 1)])
    t = product(G, nx.path_graph(2))
    row_links = t.links[t.link_dim == 0]
    assert {frozenset(t.coords[e, 0].tolist()) for e in row_links.tolist()} == {frozenset({0, 2}), frozenset({0, 1})}
    # other labels: the iteration order
    H = nx.Graph([("b", "a"), ("a", "c")])  # nodes b, a, c -> 0, 1, 2
    t = product(H, nx.path_graph(2))
    assert {frozenset(t.coords[e, 0].tolist()) for e in t.links[t.link_dim == 0].tolist()} == {
        frozenset({0, 1}), frozenset({1, 2})}


def test_enumerated_graph_with_a_linear_placement():
    """An 8-node enumerated graph placed in a line is passed relabelled by
    its placement order: every row of every board then carries the graph
    with vertex order[i] in column i."""
    g = cd.from_graph6(CUBE8)
    placement = linear_placements(g)[-1]  # the widest one: far from the identity
    order = placement.order
    assert list(order) != sorted(order)
    G = g.to_networkx()
    placed = nx.relabel_nodes(G, {v: i for i, v in enumerate(order)})
    t = hierarchical([(placed, "path:4")])
    pos = {v: i for i, v in enumerate(order)}
    want = {frozenset((pos[a], pos[b])) for a, b in G.edges()}
    col = t.placement.position[:, 1].astype(int)
    row = t.placement.position[:, 0].astype(int)
    for r in range(4):
        got = {frozenset(col[e].tolist()) for e in t.links[t.dims.index("L0.row") == t.link_dim].tolist()
               if row[e[0]] == r}
        assert got == want
    # its cut width is what one row's wiring channel holds
    gaps = [sum(1 for e in want if min(e) <= x < max(e)) for x in range(7)]
    assert max(gaps) == placement.cutwidth


def test_product_spec_round_trips_through_the_registry():
    t = product("ring:8", "path:4", "hypercube:2")
    assert t.spec == "product:ring:8*path:4*hypercube:2"
    u = cd.from_spec(t.spec)
    assert np.array_equal(t.links, u.links) and u.dims == ("f0", "f1", "f2")
    assert product("ring:4", nx.path_graph(3)).spec == ""
    # specs that would not survive the '*' join are dropped
    assert product(product("ring:3", "ring:4"), "path:2").spec == ""
    assert product("ring:3", cd.ring(4).with_concentration(2)).spec == ""
    assert product("ring:3", "ring:4").num_terminals == 12


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(2, 5), st.floats(0.3, 1.0), st.integers(0, 10**6)), min_size=1, max_size=3))
def test_random_products(specs):
    graphs = []
    for n, p, seed in specs:
        G = nx.gnp_random_graph(n, p, seed=seed)
        if not nx.is_connected(G):
            G = nx.path_graph(n)
        graphs.append(G)
    t = product(*graphs)
    degs = [dict(G.degree()) for G in graphs]
    assert t.degree.tolist() == [sum(d[c] for d, c in zip(degs, row)) for row in t.coords.tolist()]
    mats = [bfs_matrix(G, list(range(G.number_of_nodes()))) for G in graphs]
    assert np.array_equal(topo_distances(t), factor_sum(mats, t.coords))


# -------------------------------------------------------------- hierarchical
def test_hierarchical_layout_and_link_classes():
    row0, col0 = nx.cycle_graph(5), nx.path_graph(3)  # boards of 3 rows x 5 columns
    row1, col1 = nx.path_graph(2), nx.cycle_graph(3)  # boards on a 3 x 2 grid
    t = hierarchical([(row0, col0), (row1, col1)])
    assert t.n == 90 and t.family == "hierarchical" and t.spec == ""
    assert t.dims == ("L1.col", "L1.row", "L0.col", "L0.row") and t.shape == (3, 2, 3, 5)
    assert t.placement.levels == ("board0", "board1")
    v = np.arange(90)
    # board-major, row-major inside a board
    assert np.array_equal(t.placement.unit[:, 0], v // 15) and set(t.placement.unit[:, 1].tolist()) == {0}
    assert np.array_equal(t.placement.position, np.stack([v % 15 // 5, v % 5], axis=1))
    board_row, board_col = t.coords[:, 0], t.coords[:, 1]
    assert np.array_equal(t.placement.unit[:, 0], board_row * 2 + board_col)
    graph = {"L0.row": row0, "L0.col": col0, "L1.row": row1, "L1.col": col1}
    moves = {"L0.row": 3, "L0.col": 2, "L1.row": 1, "L1.col": 0}  # the coordinate each class changes
    for (a, b), k in zip(t.links.tolist(), t.link_dim.tolist()):
        name = t.dims[k]
        j = moves[name]
        same = [i for i in range(4) if i != j]
        assert np.array_equal(t.coords[a, same], t.coords[b, same])
        assert graph[name].has_edge(int(t.coords[a, j]), int(t.coords[b, j]))
    # L0 links stay on their board; L1 links join the same position of two boards
    u0 = t.placement.unit[:, 0]
    for (a, b), k in zip(t.links.tolist(), t.link_dim.tolist()):
        on_board = u0[a] == u0[b]
        assert on_board == t.dims[k].startswith("L0")
        if not on_board:
            assert np.array_equal(t.placement.position[a], t.placement.position[b])
    counts = dict(zip(t.dims, np.bincount(t.link_dim).tolist()))
    assert counts == {"L0.row": 5 * 3 * 6, "L0.col": 2 * 5 * 6, "L1.row": 1 * 3 * 15, "L1.col": 3 * 2 * 15}


def test_three_level_hierarchy_placement_and_distances():
    levels = [(nx.path_graph(4), nx.path_graph(2)), ("ring:3", "path:2"), (nx.path_graph(2), nx.path_graph(1))]
    t = hierarchical(levels, level_names=("card", "board", "shelf", "rack"), card=("row", 2))
    assert t.n == 8 * 6 * 2
    u = t.placement.unit
    assert [len(set(u[:, l].tolist())) for l in range(4)] == [48, 12, 2, 1]
    assert [set(np.bincount(u[:, l]).tolist()) for l in range(4)] == [{2}, {8}, {48}, {96}]
    D = topo_distances(t)
    factors = [nx.path_graph(1), nx.path_graph(2), nx.path_graph(2), nx.cycle_graph(3), nx.path_graph(2), nx.path_graph(4)]
    mats = [bfs_matrix(G, list(range(G.number_of_nodes()))) for G in factors]
    assert np.array_equal(D, factor_sum(mats, t.coords))


# ---------------------------------------------------------------- Blue Gene/L
def test_bgl_midplane_with_rings_everywhere():
    t = bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4")
    assert t.n == 512 and t.degree.tolist() == [8] * 512
    assert (t.family, t.spec) == ("bgl", "bgl:ring:8*ring:4*ring:4*ring:4")
    assert dict(zip(t.dims, np.bincount(t.link_dim).tolist())) == {
        "L1.col": 512, "L1.row": 512, "L0.col": 512, "L0.row": 512}
    # the product of four rings is the 4 x 4 x 4 x 8 torus, router for router
    assert multiset(t) == multiset(cd.torus((4, 4, 4, 8)))
    s = cd.distance_stats(t)
    assert (s.diameter, s.average_distance_with_self) == (2 + 2 + 2 + 4, pytest.approx(1 + 1 + 1 + 2))
    u = cd.from_spec(t.spec)
    assert np.array_equal(u.links, t.links) and np.array_equal(u.placement.unit, t.placement.unit)


@pytest.mark.parametrize("card_axis", ["col", "row"])
def test_bgl_midplane_placement(card_axis):
    t = bgl_midplane("g6:" + CUBE8, "path:4", "ring:4", "path:4", card_axis=card_axis)
    assert t.placement.levels == ("compute_card", "node_card", "midplane")
    u, pos = t.placement.unit, t.placement.position
    # 2 routers per compute card, 16 compute cards and 32 routers per node card, 512 per midplane
    assert np.bincount(u[:, 0]).tolist() == [2] * 256
    assert np.bincount(u[:, 1]).tolist() == [32] * 16
    assert u[:, 2].tolist() == [0] * 512
    assert np.array_equal(u[:, 1], np.arange(512) // 32)
    for c in range(256):
        a, b = np.flatnonzero(u[:, 0] == c)
        assert u[a, 1] == u[b, 1] == c // 16  # a compute card lies on one node card
        if card_axis == "col":  # same column, neighbouring rows (two rows of eight cards)
            assert pos[a, 1] == pos[b, 1] and abs(pos[a, 0] - pos[b, 0]) == 1 and pos[a, 0] // 2 == c % 16 // 8
        else:
            assert pos[a, 0] == pos[b, 0] and abs(pos[a, 1] - pos[b, 1]) == 1
    assert set(map(tuple, pos.tolist())) == set(itertools.product(range(4), range(8)))
    # the bgl spec rebuilds the default (column) compute cards only
    assert t.spec == ("bgl:g6:" + CUBE8 + "*path:4*ring:4*path:4" if card_axis == "col" else "")
    if t.spec:
        assert np.array_equal(cd.from_spec(t.spec).placement.unit, u)


def test_bgl_midplane_degrees_distances_and_classes():
    """Cubic row graph, path columns, ring and star upper graphs: degrees and
    distances are the sums over the four factors (networkx BFS on 512 routers)."""
    row8 = cd.from_graph6(CUBE8)
    star = nx.star_graph(3)  # centre 0, leaves 1..3
    t = bgl_midplane(row8, "path:4", "ring:4", star)
    factors = {"L0.row": row8.to_networkx(), "L0.col": nx.path_graph(4), "L1.row": nx.cycle_graph(4), "L1.col": star}
    order = [factors[name] for name in t.dims]
    degs = [dict(G.degree()) for G in order]
    assert t.degree.tolist() == [sum(d[c] for d, c in zip(degs, row)) for row in t.coords.tolist()]
    assert sorted(set(t.degree.tolist())) == [7, 8, 9, 10]  # cubic 3 + path {1,2} + ring 2 + star {1,3}
    mats = [bfs_matrix(G, list(range(G.number_of_nodes()))) for G in order]
    assert np.array_equal(topo_distances(t), factor_sum(mats, t.coords))
    # link classes: 12 cube links on each of 64 rows, 3 path links on each of 128 columns,
    # 4 ring links and 3 star links for each of the 32 in-card positions x 4 board rows/columns
    assert dict(zip(t.dims, np.bincount(t.link_dim).tolist())) == {
        "L1.col": 3 * 32 * 4, "L1.row": 4 * 32 * 4, "L0.col": 3 * 8 * 16, "L0.row": 12 * 4 * 16}
    assert t.spec == "" and t.params["card"] == ["col", 2]


def test_placement_survives_serialisation():
    t = bgl_midplane("ring:8", "path:4", "ring:4", "ring:4")
    back = cd.Topology.from_dict(t.to_dict())
    assert back.placement.levels == t.placement.levels
    assert np.array_equal(back.placement.unit, t.placement.unit)
    assert np.array_equal(back.placement.position, t.placement.position)


# ------------------------------------------------------------------- errors
def test_errors():
    with pytest.raises(cd.SpecError, match="at least one factor"):
        product()
    with pytest.raises(cd.SpecError, match="one link class name per factor"):
        product("ring:3", "ring:4", names=("x",))
    with pytest.raises(cd.SpecError, match="distinct"):
        product("ring:3", "ring:4", names=("x", "x"))
    with pytest.raises(cd.SpecError, match="factor 1 must be a Topology"):
        product("ring:3", 7)
    with pytest.raises(cd.SpecError, match="directed"):
        product(nx.DiGraph([(0, 1)]))
    with pytest.raises(cd.SpecError, match="self-loop"):
        product(nx.Graph([(0, 1), (1, 1)]))
    with pytest.raises(cd.SpecError, match="no vertices"):
        product(nx.Graph())
    with pytest.raises(cd.SpecError, match="unknown topology family"):
        product("nosuch:3")
    with pytest.raises(cd.SpecError, match="needs 8 nodes, got 6"):
        bgl_midplane("ring:6", "ring:4", "ring:4", "ring:4")
    with pytest.raises(cd.SpecError, match="upper column graph needs 4 nodes, got 5"):
        bgl_midplane("ring:8", "ring:4", "ring:4", "ring:5")
    with pytest.raises(cd.SpecError, match="card_axis"):
        bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4", card_axis="z")
    with pytest.raises(cd.SpecError, match="do not tile a level-0 row of 5 positions"):
        hierarchical([(nx.cycle_graph(5), nx.path_graph(4))], card=("row", 2))
    with pytest.raises(cd.SpecError, match="do not tile a level-0 column of 3"):
        hierarchical([(nx.cycle_graph(4), nx.path_graph(3))], card=("col", 2))
    with pytest.raises(cd.SpecError, match="axis must be 'row'"):
        hierarchical([(nx.cycle_graph(4), nx.path_graph(4))], card=("diagonal", 2))
    with pytest.raises(cd.SpecError, match="level_names needs 2 names"):
        hierarchical([(nx.cycle_graph(4), nx.path_graph(4))], level_names=("a", "b", "c"), card=("row", 2))
    with pytest.raises(cd.SpecError, match="distinct"):
        hierarchical([(nx.cycle_graph(4), nx.path_graph(4))], level_names=("a", "a"), card=("row", 2))
    with pytest.raises(cd.SpecError, match="level 1 must be a"):
        hierarchical([(nx.cycle_graph(4), nx.path_graph(4)), (nx.path_graph(2),)])
    with pytest.raises(cd.SpecError, match="list of"):
        hierarchical([])


def test_bgl_slots_give_every_child_its_own_slot():
    import collections

    t = bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4")
    pl = t.placement
    grids = []
    for l in range(3):
        child = np.arange(t.n) if l == 0 else pl.unit[:, l - 1]
        seen = collections.defaultdict(set)
        for v in range(t.n):
            seen[(pl.unit[v, l], tuple(pl.slots[v, l]))].add(int(child[v]))
        assert all(len(c) == 1 for c in seen.values())
        grids.append((pl.slots[:, l].max(axis=0) + 1).tolist())
    # compute card: 2 routers in a column; node card: 2 rows of 8 compute cards; midplane: 4 x 4 node cards
    assert grids == [[2, 1], [2, 8], [4, 4]]
