"""nDT twin torus ('5d-twin-torus-extoll'): structure against Definition 2.2,
distances against networkx BFS and a closed form, the paper's 3D vs 5DT
cases, and the DORT / TS-DOR paths with the paper's tie rule."""

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from candidates.generators.twin import card_of_port, twin_route, twin_torus

# Table I of the paper: 3D torus and 5DT torus with the same number of PEs.
PAPER_CASES = [
    ((8, 8, 4), (4, 4, 2, 2, 2), 256),
    ((8, 8, 8), (4, 4, 2, 4, 2), 512),
    ((16, 8, 8), (4, 4, 2, 4, 4), 1024),
]


def twin_distances(shape):
    """All-pairs card distances of an nDT in closed form (no graph search).

    Dimensions other than the middle one m cost their ring distance and
    only need the packet to be on their card at some moment (A: a nonzero
    dimension below m, needs card 0; B: above m, needs card 1). The middle
    one is crossed t times in one direction: a d_m^+ hop leaves card 1 and
    enters card 0, so t plus-hops need t - 1 internal hops between them,
    one before them if the packet starts on card 0 and one after them if it
    ends on card 1 (the minus direction mirrors this); the card-0 and
    card-1 stretches this creates host A and B for free. With t = 0 the
    internal hops are the card changes of the shortest tour from the source
    card to the destination card through the cards A and B need.
    """
    s = np.asarray(shape)
    n = len(s)
    m = (n - 1) // 2
    N = int(np.prod(s))
    node = np.stack(np.unravel_index(np.arange(N), shape), axis=1)
    x = np.repeat(node, 2, axis=0)
    card = np.tile([0, 1], N)
    delta = (x[None, :, :] - x[:, None, :]) % s
    ring = np.minimum(delta, s - delta)
    ext = ring.sum(axis=2) - ring[:, :, m]
    A = (delta[:, :, :m] != 0).any(axis=2)
    B = (delta[:, :, m + 1:] != 0).any(axis=2)
    ca, cb = card[:, None], card[None, :]
    o = delta[:, :, m]
    tour = np.where(
        A & B,
        np.where(ca != cb, 1, 2),
        np.where(A, (ca == 1).astype(int) + (cb == 1), np.where(B, (ca == 0).astype(int) + (cb == 0), ca != cb)),
    )
    plus = 2 * o - 1 + (ca == 0) + (cb == 1)
    minus = 2 * (s[m] - o) - 1 + (ca == 1) + (cb == 0)
    return ext + np.where(o == 0, tour, np.minimum(plus, minus))


def nx_distances(t):
    G = nx.Graph(t.to_networkx())
    D = np.full((t.n, t.n), -1)
    for v, row in nx.all_pairs_shortest_path_length(G):
        D[v, list(row)] = list(row.values())
    return D


def internal_arc(t, v):
    """The channel leaving router v over its node's internal link."""
    return 2 * (t.num_links - t.n // 2 + v // 2) + v % 2


def walk_end(t, src, path):
    cur = src
    for a in path:
        assert t.arc_src[a] == cur, "consecutive channels must chain"
        cur = int(t.arc_dst[a])
    return cur


def dims_of(t, path):
    return [t.dims[t.arc_dim[a]] for a in path]


# ------------------------------------------------------------- Definition 2.2
def test_card_of_port_definition_2_2():
    # 3DT (Fig. 2a): X and Y^- on card 0, Y^+ and Z on card 1
    assert [card_of_port(3, k, -1) for k in range(3)] == [0, 0, 1]
    assert [card_of_port(3, k, +1) for k in range(3)] == [0, 1, 1]
    # 7DT: d0..d2 on card 0, d4..d6 on card 1, d3 split
    assert [card_of_port(7, k, -1) for k in range(7)] == [0, 0, 0, 0, 1, 1, 1]
    assert [card_of_port(7, k, +1) for k in range(7)] == [0, 0, 0, 1, 1, 1, 1]
    # each card has n + 1 ports: n external (2 per owned dimension + 1 of d_m) plus the internal one
    for n in (3, 5, 7, 9):
        for card in (0, 1):
            ext = sum(card_of_port(n, k, sg) == card for k in range(n) for sg in (1, -1))
            assert ext + 1 == n + 1


@pytest.mark.parametrize(
    "shape", [(3, 3, 3), (4, 2, 3), (2, 2, 2), (2, 5, 2), (4, 4, 2, 2, 2), (3, 2, 4, 2, 3), (2,) * 7]
)
def test_structure(shape):
    t = twin_torus(shape)
    n = len(shape)
    m = (n - 1) // 2
    N = math.prod(shape)
    assert (t.n, t.num_terminals, t.num_links) == (2 * N, 2 * N, (n + 1) * N)
    assert t.family == "ndt" and t.spec == "ndt:" + "x".join(map(str, shape))
    assert t.params == {"shape": list(shape), "n": n}
    assert t.dims == tuple(f"d{k}" for k in range(n)) + ("internal",) and cd.INTERNAL == "internal"
    assert t.shape == tuple(shape) + (2,)
    # router index = 2 * node + card = C-order index of (node coordinate, card)
    assert t.coords.shape == (2 * N, n + 1)
    assert np.array_equal(np.ravel_multi_index(tuple(t.coords.T), t.shape), np.arange(2 * N))
    assert np.array_equal(t.coords[:, n], np.arange(2 * N) % 2)
    # (n+1)-port cards for every radix, 2 included (parallel links counted)
    assert t.degree.tolist() == [n + 1] * (2 * N)
    # N links per dimension class, one internal link per node joining its two cards
    assert np.bincount(t.link_dim, minlength=n + 1).tolist() == [N] * (n + 1)
    internal = t.links[t.link_dim == n]
    assert sorted(map(tuple, np.sort(internal, axis=1).tolist())) == [(2 * v, 2 * v + 1) for v in range(N)]
    # ports per card and class: card 0 owns d0..d(m-1) (2 ends each) and one end of d_m
    ends = np.zeros((2, n + 1), dtype=int)
    np.add.at(ends, (t.links % 2, t.link_dim[:, None]), 1)
    want0 = [2 * N] * m + [N] + [0] * m + [N]
    assert ends[0].tolist() == want0 and ends[1].tolist() == want0[:n][::-1] + [N]
    assert nx.is_connected(nx.Graph(t.to_networkx()))


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 2), (4, 4, 2, 2, 2), (2, 2, 3, 2, 2)])
def test_every_link_joins_the_plus_port_to_the_minus_port(shape):
    t = twin_torus(shape)
    n, N = len(shape), math.prod(shape)
    s = np.asarray(shape)
    for i, ((u, v), k) in enumerate(zip(t.links.tolist(), t.link_dim.tolist())):
        if k == n:
            assert (u, v) == (2 * (i - n * N), 2 * (i - n * N) + 1)  # documented numbering
            continue
        x, y = t.coords[u, :n], t.coords[v, :n]
        step = np.zeros(n, dtype=int)
        step[k] = 1
        assert np.array_equal(y, (x + step) % s)
        assert u % 2 == card_of_port(n, k, +1) and v % 2 == card_of_port(n, k, -1)
        assert i == k * N + u // 2  # link k*N + node leaves node through d_k^+


@pytest.mark.parametrize("shape", [(2, 3, 3), (3, 2, 3), (3, 3, 2), (2, 2, 2), (4, 2, 2, 2, 4)])
def test_size_two_dimension_has_two_distinct_links_per_node_pair(shape):
    t = twin_torus(shape)
    n = len(shape)
    m = (n - 1) // 2
    N = math.prod(shape)
    for k in (k for k in range(n) if shape[k] == 2):
        L = t.links[t.link_dim == k]
        pairs = np.sort(L // 2, axis=1)
        uniq, mult = np.unique(pairs, axis=0, return_counts=True)
        assert len(uniq) == N // 2 and set(mult.tolist()) == {2}
        cards = {tuple(c) for c in (L % 2).tolist()}
        if k == m:
            # one from each card: card 1 (d_m^+) of each node to card 0 (d_m^-) of the other
            assert cards == {(1, 0)}
        else:
            assert cards == {(card_of_port(n, k, 1),) * 2}  # parallel links between the same cards
    assert t.has_parallel_links == any(shape[k] == 2 for k in range(n) if k != m)


@pytest.mark.parametrize("shape", [(3, 4, 5), (3, 3, 3, 3, 3), (2, 3, 4), (4, 2, 2, 3, 2)])
def test_node_quotient_is_the_nd_torus(shape):
    """Contracting each node's two cards leaves the n-D torus of the nodes."""
    t = twin_torus(shape)
    n = len(shape)
    ext = t.link_dim < n
    Q = nx.MultiGraph()
    Q.add_nodes_from(tuple(c) for c in t.coords[::2, :n].tolist())
    Q.add_edges_from((tuple(t.coords[u, :n].tolist()), tuple(t.coords[v, :n].tolist())) for u, v in t.links[ext].tolist())
    grid = nx.grid_graph(dim=list(shape)[::-1], periodic=True)  # nodes are coordinate tuples in shape order
    assert set(Q.nodes()) == set(grid.nodes())
    if min(shape) >= 3:
        assert not any(Q.number_of_edges(u, v) > 1 for u, v in Q.edges())
        assert {frozenset(e) for e in Q.edges()} == {frozenset(e) for e in grid.edges()}
    dq = dict(nx.all_pairs_shortest_path_length(Q))
    dg = dict(nx.all_pairs_shortest_path_length(grid))
    assert dq == dg


# ------------------------------------------------------------------ distances
@pytest.mark.parametrize(
    "shape", [(3, 3, 3), (2, 2, 2), (4, 2, 3), (2, 4, 2), (5, 3, 4), (4, 4, 2, 2, 2), (3, 2, 4, 2, 3), (2, 3, 2, 3, 2)]
)
def test_closed_form_distances_match_networkx_bfs(shape):
    t = twin_torus(shape)
    assert np.array_equal(nx_distances(t), twin_distances(shape))


@pytest.mark.parametrize("torus3, twin5, pes", PAPER_CASES)
def test_paper_cases_5dt_beats_3d_torus_with_the_same_cards(torus3, twin5, pes):
    """Table I: same PE count; the 5DT has the smaller diameter and average
    distance (networkx BFS on the card graph, an internal hop is a hop)."""
    a, b = cd.torus(torus3), twin_torus(twin5)
    assert a.num_terminals == b.num_terminals == pes == a.n == b.n
    Da, Db = nx_distances(a), nx_distances(b)
    off = ~np.eye(pes, dtype=bool)
    diam_a, diam_b = Da.max(), Db.max()
    avg_a, avg_b = Da[off].mean(), Db[off].mean()
    # the 3D torus: closed forms (ring of even k: diameter k/2, mean distance k/4 over all k targets)
    assert diam_a == sum(k // 2 for k in torus3)
    assert avg_a == pytest.approx(sum(k / 4 for k in torus3) * pes / (pes - 1))
    # the 5DT: the closed form above, independently of the graph search
    Dc = twin_distances(twin5)
    assert np.array_equal(Db, Dc)
    assert diam_b < diam_a and avg_b < avg_a
    # the library's analytics agree with both
    sa, sb = cd.distance_stats(a), cd.distance_stats(b)
    assert (sa.diameter, sb.diameter) == (diam_a, diam_b)
    assert (sa.average_distance, sb.average_distance) == pytest.approx((avg_a, avg_b))


def test_paper_cases_exact_figures():
    """Diameters 10/8, 12/9, 16/10 and average distance cut by 11.6%, 17.4%
    and 31.6% (the paper measures zero-load latency cuts of 10, 15, 30%)."""
    figures = []
    for torus3, twin5, pes in PAPER_CASES:
        Dc = twin_distances(twin5)
        avg3 = sum(k / 4 for k in torus3) * pes / (pes - 1)
        avg5 = Dc.sum() / (pes * (pes - 1))
        figures.append((sum(k // 2 for k in torus3), int(Dc.max()), round(1 - avg5 / avg3, 3)))
    assert figures == [(10, 8, 0.116), (12, 9, 0.174), (16, 10, 0.316)]
    assert twin_distances((4, 4, 2, 2, 2)).sum() == 289792


# ---------------------------------------------------------------- the routes
@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 2, 3), (2, 2, 2), (2, 4, 2), (4, 2, 2, 2, 2), (3, 4, 2, 2, 3)])
@pytest.mark.parametrize("algorithm", ["tsdor", "dort"])
def test_routes_are_walks_from_src_to_dst(shape, algorithm):
    t = twin_torus(shape)
    n = len(shape)
    D = twin_distances(shape)
    for s, d in itertools.product(range(t.n), repeat=2):
        p = twin_route(t, s, d, algorithm)
        assert walk_end(t, s, p) == d
        assert len(p) >= D[s, d]
        assert (len(p) == 0) == (s == d)
        # dimension order: external hops never go back to a dimension already left
        ext = [int(t.arc_dim[a]) for a in p if t.arc_dim[a] < n]
        descending = algorithm == "tsdor" and s % 2 == 1
        assert ext == sorted(ext, reverse=descending)
        # minimal direction in every dimension: as many hops as the ring distance
        dx = (t.coords[d, :n] - t.coords[s, :n]) % np.asarray(shape)
        ring = np.minimum(dx, np.asarray(shape) - dx)
        assert np.bincount(ext, minlength=n).tolist() == ring.tolist()


@pytest.mark.parametrize("shape", [(4, 4, 2, 2, 2), (2, 2, 2), (4, 2, 5), (3, 2, 2, 2, 4)])
def test_tsdor_is_minimal_when_the_middle_dimension_has_two_nodes(shape):
    """With |d_m| = 2 every d_m hop is a tie, so PE0 packets leave card 0
    by d_m^- straight onto card 1 and PE1 packets by d_m^+ onto card 0:
    TS-DOR then crosses the internal link only when it must, and its paths
    are shortest paths for every pair (all three cases of Table I have
    |d2| = 2). DORT is not: PE1 packets cross to card 0 for d0 first."""
    t = twin_torus(shape)
    D = twin_distances(shape)
    ts = np.array([[len(twin_route(t, s, d)) for d in range(t.n)] for s in range(t.n)])
    assert np.array_equal(ts, D)
    dort = np.array([[len(twin_route(t, s, d, "dort")) for d in range(t.n)] for s in range(1, t.n, 2)])
    assert (dort >= D[1::2]).all() and (dort > D[1::2]).any()


def test_tsdor_is_dort_for_pe0_packets():
    t = twin_torus((3, 4, 3))
    for s, d in itertools.product(range(0, t.n, 2), range(t.n)):
        assert twin_route(t, s, d, "tsdor") == twin_route(t, s, d, "dort")


def test_pe1_packets_start_with_the_card_1_dimensions_under_tsdor():
    """The paper's motivation for TS-DOR: a PE1 packet needing d0 and d2 of
    a 3DT and ending on card 0 takes 5 hops with DORT, 3 with TS-DOR."""
    t = twin_torus((4, 2, 4))
    src = t.node_index((0, 0, 0, 1))
    dst = t.node_index((1, 0, 1, 0))
    assert dims_of(t, twin_route(t, src, dst, "dort")) == ["internal", "d0", "internal", "d2", "internal"]
    assert dims_of(t, twin_route(t, src, dst, "tsdor")) == ["d2", "internal", "d0"]


def test_middle_dimension_hops_alternate_cards():
    """Case iii) of the paper: travelling in d_m uses the internal link, and
    TS-DOR keeps its fixed order even when another order would be shorter."""
    t = twin_torus((3, 3, 3))
    src = t.node_index((0, 0, 0, 0))
    dst = t.node_index((0, 1, 1, 0))
    p = twin_route(t, src, dst)
    assert dims_of(t, p) == ["internal", "d1", "internal", "d2", "internal"]
    assert twin_distances((3, 3, 3))[src, dst] == 3  # internal, Z+, then Y+ from card 1
    # three Y+ hops in a 7-ring cost two internal hops between them
    t = twin_torus((2, 7, 2))
    p = twin_route(t, t.node_index((0, 0, 0, 1)), t.node_index((0, 3, 0, 0)))
    assert dims_of(t, p) == ["d1", "internal", "d1", "internal", "d1"]
    assert all(a % 2 == 0 for a in p if t.arc_dim[a] == 1)  # plus direction: forward arcs


def test_tie_rule_of_the_paper_fig_4():
    """A PE0-sourced packet in a 3DT with 2 nodes in Y: Y^- reaches card 1
    of the other node in one hop, Y^+ needs three (internal, Y^+, internal)."""
    t = twin_torus((4, 2, 4))
    src = t.node_index((1, 0, 2, 0))  # PE0 of node (1, 0, 2)
    goal = t.node_index((1, 1, 2, 1))  # card 1 of the other Y node, where Z starts
    p = twin_route(t, src, goal)
    assert dims_of(t, p) == ["d1"] and walk_end(t, src, p) == goal
    assert p[0] % 2 == 1  # Y^-: the plus link of the other node, backwards
    # the wrong decision, built from the documented link numbering: three hops
    N = t.n // 2
    other = t.node_index((1, 1, 2, 0)) // 2
    wrong = [internal_arc(t, src), 2 * (1 * N + src // 2), internal_arc(t, 2 * other)]
    assert walk_end(t, src, wrong) == goal and len(wrong) == 3
    # continuing in Z after the tie: no internal hop at all
    far = t.node_index((1, 1, 3, 1))
    assert dims_of(t, twin_route(t, src, far)) == ["d1", "d2"]
    # PE1-sourced packets take Y^+ (on card 1) onto card 0 of the other node
    p1 = twin_route(t, src + 1, t.node_index((0, 1, 2, 0)))
    assert dims_of(t, p1) == ["d1", "d0"] and p1[0] % 2 == 0


@pytest.mark.parametrize("algorithm", ["tsdor", "dort"])
def test_tie_rule_in_an_even_middle_ring(algorithm):
    """|d1| = 4, offset 2: PE0 packets take Y^- (backward arcs), PE1 packets
    (on card 1) Y^+ (forward arcs)."""
    t = twin_torus((3, 4, 3))
    for pe, backward in ((0, 1), (1, 0)):
        p = twin_route(t, t.node_index((0, 0, 0, pe)), t.node_index((0, 2, 0, pe)), algorithm)
        ys = [a for a in p if t.arc_dim[a] == 1]
        assert len(ys) == 2 and {a % 2 for a in ys} == {backward}
    # DORT, PE1 packet that crossed to card 0 for d0: Y^- from there (our rule, see twin_route)
    p = twin_route(t, t.node_index((0, 0, 0, 1)), t.node_index((1, 2, 0, 1)), "dort")
    assert dims_of(t, p) == ["internal", "d0", "d1", "internal", "d1"]
    assert {a % 2 for a in p if t.arc_dim[a] == 1} == {1}
    if algorithm == "tsdor":
        # the same packet under TS-DOR: Y^+ from card 1, then d0 on card 0, then home
        p = twin_route(t, t.node_index((0, 0, 0, 1)), t.node_index((1, 2, 0, 1)))
        assert dims_of(t, p) == ["d1", "internal", "d1", "d0", "internal"]


def test_tie_in_other_dimensions_goes_plus():
    t = twin_torus((4, 3, 4))
    p = twin_route(t, 0, t.node_index((2, 0, 0, 0)))
    assert dims_of(t, p) == ["d0", "d0"] and all(a % 2 == 0 for a in p)
    p = twin_route(t, 1, t.node_index((0, 0, 2, 1)))
    assert dims_of(t, p) == ["d2", "d2"] and all(a % 2 == 0 for a in p)


@settings(max_examples=30, deadline=None)
@given(
    n=st.sampled_from([3, 5]),
    data=st.data(),
)
def test_random_shapes_structure_and_routes(n, data):
    shape = tuple(data.draw(st.lists(st.integers(2, 4), min_size=n, max_size=n)))
    t = twin_torus(shape)
    N = math.prod(shape)
    assert t.degree.tolist() == [n + 1] * (2 * N)
    assert np.bincount(t.link_dim).tolist() == [N] * (n + 1)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, 2 * N - 1), st.integers(0, 2 * N - 1)), min_size=1, max_size=20))
    G = nx.Graph(t.to_networkx())
    for s, d in pairs:
        for alg in ("tsdor", "dort"):
            p = twin_route(t, s, d, alg)
            assert walk_end(t, s, p) == d
            bfs = nx.shortest_path_length(G, s, d)
            assert len(p) >= bfs
            if alg == "tsdor" and shape[(n - 1) // 2] == 2:
                assert len(p) == bfs


# ---------------------------------------------------------------- interop
def test_spec_and_serialisation_round_trip():
    t = twin_torus((4, 4, 2, 2, 2))
    u = cd.from_spec("ndt:4x4x2x2x2")
    assert np.array_equal(t.links, u.links) and np.array_equal(t.coords, u.coords)
    back = cd.Topology.from_dict(t.to_dict())
    assert twin_route(back, 3, 200) == twin_route(t, 3, 200)


# ------------------------------------------------------------------ errors
def test_errors():
    with pytest.raises(cd.SpecError, match=r"^nDT needs an odd number of dimensions >= 3 \(e\.g\. ndt:4x4x2x2x2\), got 4$"):
        twin_torus((4, 4, 2, 2))
    with pytest.raises(cd.SpecError, match="got 1$"):
        twin_torus((4,))
    with pytest.raises(cd.SpecError, match=r"^nDT sizes must be integers >= 2, got 4x1x4$"):
        twin_torus((4, 1, 4))
    with pytest.raises(cd.SpecError, match="sequence of integers"):
        twin_torus((4, 2.5, 4))
    with pytest.raises(cd.SpecError, match="sequence of integers"):
        twin_torus("4x4x2")
    with pytest.raises(cd.SpecError, match="odd number"):
        card_of_port(4, 0, 1)
    with pytest.raises(cd.SpecError, match="out of range"):
        card_of_port(3, 3, 1)
    with pytest.raises(cd.SpecError, match="sign"):
        card_of_port(3, 1, 0)
    t = twin_torus((2, 2, 2))
    with pytest.raises(cd.TopologyError, match="nDT twin torus"):
        twin_route(cd.ring(4), 0, 1)
    with pytest.raises(cd.SpecError, match="'tsdor' or 'dort'"):
        twin_route(t, 0, 1, "dor")
    with pytest.raises(cd.TopologyError, match="0..15"):
        twin_route(t, 0, 16)
    with pytest.raises(cd.TopologyError, match="link layout"):
        twin_route(t.replace(links=t.links[:-1], link_dim=t.link_dim[:-1]), 0, 1)
