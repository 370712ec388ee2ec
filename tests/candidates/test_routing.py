"""Minimal and up*/down* routing tables against networkx and brute force."""

import json
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from candidates import Topology
from candidates.errors import TopologyError
from candidates.analytics.routing import MAX_MASK_DEGREE, NextHopTable, UpDownRouting, shortest_path_table, updown


# ------------------------------------------------------------ graph makers
def _graph(kind, n, seed, p, extra):
    """A networkx (multi)graph on 0..n-1; ``extra`` parallel copies of random
    links for the multigraph kinds."""
    rng = random.Random(seed)
    if kind == "regular":
        d = min(3, n - 1) if (n * min(3, n - 1)) % 2 == 0 else min(2, n - 1)
        G = nx.random_regular_graph(d, n, seed=seed)
    elif kind == "tree+":
        # random spanning tree plus chords: connected by construction
        order = list(range(n))
        rng.shuffle(order)
        G = nx.Graph()
        G.add_nodes_from(range(n))
        for i in range(1, n):
            G.add_edge(order[i], order[rng.randrange(i)])
        for u in range(n):
            for v in range(u + 1, n):
                if rng.random() < p:
                    G.add_edge(u, v)
    else:
        G = nx.gnp_random_graph(n, p, seed=seed)
    if extra:
        G = nx.MultiGraph(G)
        edges = list(G.edges())
        for _ in range(extra if edges else 0):
            G.add_edge(*rng.choice(edges))
    G.add_nodes_from(range(n))
    return nx.convert_node_labels_to_integers(G, ordering="sorted")


@st.composite
def any_graphs(draw, max_n=12):
    kind = draw(st.sampled_from(["regular", "gnp", "tree+"]))
    n = draw(st.integers(2, max_n))
    return _graph(kind, n, draw(st.integers(0, 2**31)), draw(st.floats(0.05, 0.6)), draw(st.integers(0, 3)))


@st.composite
def connected_graphs(draw, max_n=8):
    n = draw(st.integers(2, max_n))
    kind = draw(st.sampled_from(["tree+", "tree+", "regular"]))
    G = _graph(kind, n, draw(st.integers(0, 2**31)), draw(st.floats(0.0, 0.5)), draw(st.integers(0, 2)))
    if not nx.is_connected(G):  # a random regular graph may fall apart
        G = _graph("tree+", n, 0, 0.3, 0)
    return G


def topo_of(G):
    t = Topology.from_networkx(G)
    assert t.n == G.number_of_nodes() and t.num_links == G.number_of_edges()
    return t


def nx_dist(G):
    n = G.number_of_nodes()
    D = np.full((n, n), -1, dtype=np.int64)
    for s, row in nx.all_pairs_shortest_path_length(G):
        for t, d in row.items():
            D[s, t] = d
    return D


# ----------------------------------------------------- shortest-path table
@settings(max_examples=60, deadline=None)
@given(any_graphs())
def test_minimal_table_equals_networkx(G):
    topo = topo_of(G)
    tab = shortest_path_table(topo)
    D = nx_dist(G)
    assert tab.dist.dtype == np.int32 and tab.next_mask.dtype == np.uint64 and tab.first_hop.dtype == np.int64
    assert np.array_equal(tab.dist, D)
    n = topo.n
    for u in range(n):
        out = [a for a in range(topo.num_arcs) if topo.arc_src[a] == u]
        for t in range(n):
            got = tab.next_arcs(u, t)
            if u == t or D[u, t] < 0:
                assert len(got) == 0 and tab.next_mask[u, t] == 0 and tab.first_hop[u, t] == -1
                continue
            # every channel out of u to a neighbour one hop closer, parallel links included
            want = [a for a in out if D[topo.arc_dst[a], t] == D[u, t] - 1]
            assert got.tolist() == want
            heads = {v for v in G[u] if D[v, t] == D[u, t] - 1}
            assert set(topo.arc_dst[got].tolist()) == heads
            assert tab.first_hop[u, t] == min(want)
            # no bit beyond the router's degree
            assert int(tab.next_mask[u, t]) >> int(topo.degree[u]) == 0


@settings(max_examples=30, deadline=None)
@given(any_graphs(max_n=20))
def test_first_hop_routes_reach_every_destination_in_dist_hops(G):
    topo = topo_of(G)
    tab = shortest_path_table(topo)
    for s in range(topo.n):
        for t in range(topo.n):
            if tab.dist[s, t] < 0:
                continue
            u, hops = s, 0
            while u != t:
                a = tab.first_hop[u, t]
                assert topo.arc_src[a] == u
                u = int(topo.arc_dst[a])
                hops += 1
            assert hops == tab.dist[s, t]


def test_minimal_table_values_on_a_mesh_and_a_ring():
    m = cd.mesh((3, 3))
    tab = shortest_path_table(m)
    a, b = m.node_index((0, 0)), m.node_index((2, 2))
    assert tab.dist[a, b] == 4
    assert sorted(m.arc_dst[tab.next_arcs(a, b)].tolist()) == sorted([m.node_index((0, 1)), m.node_index((1, 0))])
    r = shortest_path_table(cd.ring(7))  # odd ring: the shortest path is unique
    assert r.dist[0].tolist() == [0, 1, 2, 3, 3, 2, 1]
    assert all(bin(int(r.next_mask[u, t])).count("1") == (u != t) for u in range(7) for t in range(7))


def test_disconnected_and_single_router():
    topo = Topology(5, np.array([[0, 1], [2, 3], [3, 4]]))
    tab = shortest_path_table(topo)
    assert tab.dist[0].tolist() == [0, 1, -1, -1, -1]
    assert tab.dist[2].tolist() == [-1, -1, 0, 1, 2]
    assert tab.next_mask[0, 3] == 0 and tab.first_hop[0, 3] == -1 and len(tab.next_arcs(0, 3)) == 0
    assert tab.next_arcs(2, 4).tolist() == [2]
    one = shortest_path_table(Topology(1, np.zeros((0, 2), dtype=np.int64)))
    assert one.dist.tolist() == [[0]] and one.first_hop.tolist() == [[-1]]


def test_parallel_links_give_parallel_next_hops():
    topo = Topology(3, np.array([[0, 1], [1, 0], [1, 2], [0, 1]]))
    tab = shortest_path_table(topo)
    assert tab.next_arcs(0, 2).tolist() == [0, 3, 6]  # three channels 0 -> 1
    assert tab.first_hop[0, 2] == 0
    assert tab.next_arcs(2, 0).tolist() == [5]


def test_mask_degree_limit():
    star = Topology(MAX_MASK_DEGREE + 1, np.array([[0, v] for v in range(1, MAX_MASK_DEGREE + 1)]))
    tab = shortest_path_table(star)  # degree exactly 64: the top bit is used
    assert int(tab.next_mask[0, MAX_MASK_DEGREE]) == 1 << 63
    assert tab.next_arcs(0, MAX_MASK_DEGREE).tolist() == [2 * (MAX_MASK_DEGREE - 1)]
    assert updown(star).dist[1, 2] == 2
    big = Topology(66, np.array([[0, v] for v in range(1, 66)]))
    with pytest.raises(TopologyError, match="router 0 has degree 65"):
        shortest_path_table(big)
    with pytest.raises(TopologyError, match="degree 65"):
        updown(big)
    multi = Topology(2, np.array([[0, 1]] * 65))  # parallel links count
    with pytest.raises(TopologyError, match="degree 65"):
        shortest_path_table(multi)


def test_bad_arguments():
    with pytest.raises(TopologyError, match="expected a candidates.Topology"):
        shortest_path_table(nx.path_graph(3))
    with pytest.raises(TopologyError, match="root 3 is not a router"):
        updown(cd.path(3), root=3)
    with pytest.raises(TopologyError, match="root must be a router index"):
        updown(cd.path(3), root=1.0)
    with pytest.raises(TopologyError, match="router 2 cannot be reached from root 0"):
        updown(Topology(3, np.array([[0, 1]])))


def test_to_dict_is_json():
    tab = shortest_path_table(cd.ring(5))
    d = json.loads(json.dumps(tab.to_dict()))
    assert d["dist"][0] == [0, 1, 2, 2, 1] and d["routing"] == "minimal"
    ud = updown(cd.ring(5))
    d = json.loads(json.dumps(ud.to_dict()))
    assert d["level"] == [0, 1, 2, 2, 1] and d["root"] == 0
    assert isinstance(tab, NextHopTable) and isinstance(ud, UpDownRouting)


# ----------------------------------------------------------- up*/down*
def up_end_rule(G, root):
    """Independent up*/down* orientation: (level dict, is_up(x, y))."""
    level = nx.single_source_shortest_path_length(G, root)

    def is_up(x, y):
        return level[y] < level[x] or (level[y] == level[x] and y < x)

    return level, is_up


def legal(path, is_up):
    went_down = False
    for x, y in zip(path, path[1:]):
        if is_up(x, y):
            if went_down:
                return False
        else:
            went_down = True
    return True


def down_only(path, is_up):
    return all(not is_up(x, y) for x, y in zip(path, path[1:]))


def mask_routes(ud, topo, s, t):
    """Every route obtained by following the masks, as (node list, arc list);
    asserts that a packet never meets an empty mask before t."""
    routes = []

    def walk(u, down, nodes, arcs):
        if u == t:
            routes.append((nodes, arcs))
            return
        nxt = ud.next_arcs(u, t, down=down)
        assert len(nxt), (s, t, nodes, down)
        for a in nxt.tolist():
            v = int(topo.arc_dst[a])
            walk(v, down or not ud.arc_up[a], nodes + [v], arcs + [a])

    walk(s, False, [s], [])
    return routes


def test_updown_ring_example_values():
    ud = updown(cd.ring(6))
    assert ud.level.tolist() == [0, 1, 2, 3, 2, 1]
    assert ud.tree_parent.tolist() == [-1, 0, 1, 2, 5, 0]
    # links 0..5 join (i, i+1 mod 6); the up end is the lower level, ties impossible here
    assert ud.arc_up.tolist() == [False, True, False, True, False, True, True, False, True, False, True, False]
    assert ud.dist[2, 4] == 4 and ud.dist[4, 2] == 4 and ud.dist[2, 3] == 1
    topo = cd.ring(6)
    assert [r for r, _ in mask_routes(ud, topo, 2, 4)] == [[2, 1, 0, 5, 4]]
    assert ud.dist_down[2, 4] == -1 and ud.mask_down[2, 4] == 0
    # from 3 (the bottom) everything is reachable upwards then downwards
    assert ud.dist[3].tolist() == [3, 2, 1, 0, 1, 2]
    # another root changes the levels and thus the routes
    ud3 = updown(topo, root=3)
    assert ud3.level.tolist() == [3, 2, 1, 0, 1, 2]
    assert ud3.dist[2, 4] == 2 and ud3.dist[5, 1] == 4


def test_updown_same_level_links_point_up_to_the_lower_index():
    # 4-cycle 0-1-3-2-0 rooted at 0: 1 and 2 are at level 1; chord 1-2 has up end 1
    topo = Topology(4, np.array([[0, 1], [1, 3], [3, 2], [2, 0], [2, 1]]))
    ud = updown(topo)
    assert ud.level.tolist() == [0, 1, 1, 2]
    assert ud.arc_up[8] and not ud.arc_up[9]  # arc 8 is 2 -> 1
    assert ud.tree_parent.tolist() == [-1, 0, 0, 1]  # 3 has parents 1 and 2: the lower wins
    # 1 -> 3 -> 2 would go down then up: the legal shortest route 1 -> 2 is the chord (down)
    assert ud.dist[1, 2] == 1 and ud.next_arcs(1, 2).tolist() == [9]


@settings(max_examples=60, deadline=None)
@given(connected_graphs(max_n=14), st.data())
def test_updown_orientation_levels_and_tree(G, data):
    topo = topo_of(G)
    root = data.draw(st.integers(0, topo.n - 1))
    ud = updown(topo, root=root)
    level, is_up = up_end_rule(G, root)
    assert ud.root == root
    assert ud.level.tolist() == [level[v] for v in range(topo.n)]
    expect_up = [is_up(int(x), int(y)) for x, y in zip(topo.arc_src, topo.arc_dst)]
    assert ud.arc_up.tolist() == expect_up
    assert np.all(ud.arc_up[0::2] != ud.arc_up[1::2])  # each link: exactly one end is up
    D = nx.DiGraph()
    D.add_nodes_from(range(topo.n))
    D.add_edges_from((int(topo.arc_src[a]), int(topo.arc_dst[a])) for a in np.flatnonzero(ud.arc_up))
    assert nx.is_directed_acyclic_graph(D)
    for v in range(topo.n):
        if v == root:
            assert ud.tree_parent[v] == -1
        else:
            assert ud.tree_parent[v] == min(u for u in G[v] if level[u] == level[v] - 1)
    T = nx.Graph((v, int(ud.tree_parent[v])) for v in range(topo.n) if v != root)
    T.add_nodes_from(range(topo.n))
    assert nx.is_tree(T)


@settings(max_examples=100, deadline=None)
@given(connected_graphs(max_n=8), st.data())
def test_updown_equals_brute_force_over_simple_paths(G, data):
    """dist and dist_down are the minimum over all legal (down-only) simple
    paths, and following the masks yields exactly the shortest legal simple
    paths, each legal and of length dist."""
    topo = topo_of(G)
    root = data.draw(st.integers(0, topo.n - 1))
    ud = updown(topo, root=root)
    _, is_up = up_end_rule(G, root)
    D = nx_dist(G)
    simple = nx.Graph(G)
    for s in range(topo.n):
        for t in range(topo.n):
            if s == t:
                assert ud.dist[s, t] == 0 and ud.dist_down[s, t] == 0
                continue
            paths = [tuple(p) for p in nx.all_simple_paths(simple, s, t)]
            ok = [p for p in paths if legal(p, is_up)]
            assert ok, "a connected graph always has a legal route"
            best = min(len(p) - 1 for p in ok)
            assert ud.dist[s, t] == best >= D[s, t]
            shortest = {p for p in ok if len(p) - 1 == best}
            routes = mask_routes(ud, topo, s, t)
            for nodes, arcs in routes:
                assert legal(nodes, is_up) and len(arcs) == best
            assert {tuple(nodes) for nodes, _ in routes} == shortest
            # each route once per choice of parallel link
            assert len(routes) == sum(
                np.prod([G.number_of_edges(x, y) for x, y in zip(p, p[1:])]) for p in shortest
            )
            downs = [p for p in paths if down_only(p, is_up)]
            assert ud.dist_down[s, t] == (min(len(p) - 1 for p in downs) if downs else -1)
    assert np.array_equal(ud.dist, ud.dist.T)


@settings(max_examples=25, deadline=None)
@given(connected_graphs(max_n=40), st.data())
def test_updown_masks_on_larger_graphs(G, data):
    topo = topo_of(G)
    root = data.draw(st.integers(0, topo.n - 1))
    ud = updown(topo, root=root)
    _, is_up = up_end_rule(G, root)
    D = nx_dist(G)
    assert np.array_equal(ud.dist, ud.dist.T)
    assert np.all(ud.dist >= D)
    rng = random.Random(root)
    for s in range(topo.n):
        for t in range(topo.n):
            # one random masked route per pair: legal and of length dist
            u, down, nodes = s, False, [s]
            while u != t:
                choices = ud.next_arcs(u, t, down=down).tolist()
                assert choices
                a = rng.choice(choices)
                down = down or not ud.arc_up[a]
                u = int(topo.arc_dst[a])
                nodes.append(u)
            assert legal(nodes, is_up) and len(nodes) - 1 == ud.dist[s, t]
            # a packet that already went down keeps to down arcs only
            if ud.dist_down[s, t] > 0:
                u, hops = s, 0
                while u != t:
                    a = int(ud.next_arcs(u, t, down=True)[0])
                    assert not ud.arc_up[a]
                    u, hops = int(topo.arc_dst[a]), hops + 1
                assert hops == ud.dist_down[s, t]
            elif s != t:
                assert ud.dist_down[s, t] == -1 and ud.mask_down[s, t] == 0


def test_updown_is_minimal_on_a_tree():
    G = nx.random_labeled_tree(15, seed=3) if hasattr(nx, "random_labeled_tree") else nx.random_tree(15, seed=3)
    topo = topo_of(G)
    for root in (0, 7):
        assert np.array_equal(updown(topo, root=root).dist, nx_dist(G))
