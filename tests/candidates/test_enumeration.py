"""Graph enumeration against independent sources.

(a) brute force: networkx's graph atlas (every graph on up to 7 vertices),
    filtered by the same conditions and compared by nauty certificate;
(b) published counts, cited next to each list;
(c) the output itself: constraints hold, graphs pairwise non-isomorphic,
    graph6 identical to networkx's encoder.
"""

import itertools
import tracemalloc

import networkx as nx
import pynauty
import pytest

from candidates import SpecError, Topology, from_spec
from candidates.enumeration.graphs import count_graphs, iter_graph6, iter_graphs


def certificate(G):
    return pynauty.certificate(pynauty.Graph(G.number_of_nodes(), adjacency_dict={v: list(G[v]) for v in G}))


def graph(g6):
    return nx.from_graph6_bytes(g6.encode("ascii"))


@pytest.fixture(scope="module")
def atlas():
    """(n, certificate, min degree, max degree, connected) of every atlas graph."""
    out = []
    for G in nx.graph_atlas_g()[1:]:  # [0] is the null graph
        degs = [x for _, x in G.degree()]
        out.append((G.number_of_nodes(), certificate(G), min(degs), max(degs), nx.is_connected(G)))
    return out


# --------------------------------------------------------- (a) brute force
@pytest.mark.parametrize("n", range(1, 8))
def test_every_option_equals_the_graph_atlas(atlas, n):
    """Same isomorphism classes as the filtered atlas, for every max degree
    0..6, min degree, exact/regular flag and connectivity."""
    for d in range(0, 7):
        for mn in range(0, d + 1):
            for exact, regular, connected in itertools.product((False, True), repeat=3):
                lo = d if regular else mn
                want = {
                    c for m, c, dmin, dmax, conn in atlas
                    if m == n and dmax <= d and dmin >= lo and (dmax == d or not (exact or regular))
                    and (conn or not connected)
                }
                got = [certificate(graph(g)) for g in iter_graph6(
                    n, d, min_degree=mn, exact_max_degree=exact, regular=regular, connected=connected)]
                assert len(got) == len(set(got)), "a graph was output twice"
                assert set(got) == want, (n, d, mn, exact, regular, connected)


# ------------------------------------------------------ (b) published counts
def test_connected_max_degree_3():
    # S. Wolfram, A New Kind of Science (2002), notes to ch. 9 sec. 7,
    # "Trivalent networks": connected simple graphs of maximum degree <= 3.
    # (OEIS A112410 is NOT this sequence: it counts connected graphs with
    # n+1 edges and degrees <= 4.)
    assert [count_graphs(n, 3) for n in range(1, 11)] == [1, 1, 2, 6, 10, 29, 64, 194, 531, 1733]


def test_connected_cubic():
    # OEIS A002851: connected cubic graphs on 2n nodes, n = 2..7
    assert [count_graphs(n, 3, regular=True) for n in (4, 6, 8, 10, 12, 14)] == [1, 2, 5, 19, 85, 509]
    assert [count_graphs(n, 3, regular=True) for n in (5, 7, 9)] == [0, 0, 0]  # odd degree sum


def test_cubic_not_necessarily_connected():
    # OEIS A005638: cubic graphs on 2n nodes, n = 1..6
    assert [count_graphs(n, 3, regular=True, connected=False) for n in (2, 4, 6, 8, 10, 12)] == [0, 1, 2, 6, 21, 94]


def test_connected_max_degree_4():
    # OEIS A121941: connected graphs with all degrees <= 4, n = 1..9
    assert [count_graphs(n, 4) for n in range(1, 10)] == [1, 1, 2, 6, 21, 78, 353, 1929, 12207]
    # connected 4-regular graphs, n = 5..9: A006820 = A121941 - A287424
    # (A287424: the same without the 4-regular graphs: 20, 77, 351, 1923, 12191)
    assert [count_graphs(n, 4, regular=True) for n in range(5, 10)] == [21 - 20, 78 - 77, 353 - 351, 1929 - 1923,
                                                                        12207 - 12191]


def test_all_graphs_when_the_degree_is_unbounded():
    # OEIS A000088 (all graphs) and A001349 (connected graphs), n = 1..8
    assert [count_graphs(n, n - 1, connected=False) for n in range(1, 9)] == [1, 2, 4, 11, 34, 156, 1044, 12346]
    assert [count_graphs(n, n - 1) for n in range(1, 9)] == [1, 1, 2, 6, 21, 112, 853, 11117]


def test_max_degree_exactly_2_and_degrees_1_or_2():
    # OEIS A324740: graphs (not necessarily connected) of maximum degree exactly 2
    assert [count_graphs(n, 2, exact_max_degree=True, connected=False) for n in range(1, 11)] == \
        [0, 0, 2, 4, 8, 15, 25, 41, 65, 100]
    # OEIS A186417: graphs whose degrees are all 1 or 2
    assert [count_graphs(n, 2, min_degree=1, connected=False) for n in range(1, 11)] == \
        [0, 1, 2, 3, 4, 8, 10, 17, 24, 36]


def euler_transform(c):
    """Counts of multisets of components from counts c[1..] of connected ones."""
    N = len(c) - 1
    b = [0] + [sum(k * c[k] for k in range(1, m + 1) if m % k == 0) for m in range(1, N + 1)]
    a = [1] + [0] * N
    for m in range(1, N + 1):
        a[m] = sum(b[k] * a[m - k] for k in range(1, m + 1)) // m
    return a


def test_disconnected_counts_are_the_euler_transform_of_connected_ones():
    """A graph is a multiset of connected components, so the counts with
    connected=False follow from the published connected ones."""
    connected3 = [0, 1, 1, 2, 6, 10, 29, 64, 194, 531, 1733]  # Wolfram, above
    connected2 = [0, 1, 1] + [2] * 8  # path and cycle for n >= 3
    all3, all2 = euler_transform(connected3), euler_transform(connected2)
    assert [count_graphs(n, 3, connected=False) for n in range(1, 11)] == all3[1:]
    assert [count_graphs(n, 2, connected=False) for n in range(1, 11)] == all2[1:]
    assert [count_graphs(n, 3, connected=False, exact_max_degree=True) for n in range(1, 11)] == \
        [x - y for x, y in zip(all3[1:], all2[1:])]


# ------------------------------------------------ the paper's 192 topologies
def test_the_papers_192_topologies():
    """'topology-synthesis-mcf-bgl' Sec. IV: "all topologies of 8 nodes ...
    degree of each node no more than 3 ... 192 isomorph-free topologies".
    192 = connected graphs on 8 vertices of maximum degree exactly 3; the
    194 of maximum degree <= 3 add the path and the cycle."""
    assert count_graphs(8, 3, exact_max_degree=True) == 192
    within = list(iter_graph6(8, 3))
    assert len(within) == 194
    low = [graph(g) for g in within if max(x for _, x in graph(g).degree()) < 3]
    assert len(low) == 2
    assert any(nx.is_isomorphic(G, nx.path_graph(8)) for G in low)
    assert any(nx.is_isomorphic(G, nx.cycle_graph(8)) for G in low)
    # the other readings give other numbers
    assert count_graphs(8, 3, connected=False) == 424
    assert count_graphs(8, 3, exact_max_degree=True, connected=False) == 378


# --------------------------------------------------------- (c) the output
@pytest.mark.parametrize("n, d, options", [
    (8, 3, {}),
    (9, 3, {"min_degree": 2}),
    (10, 3, {"exact_max_degree": True}),
    (12, 3, {"regular": True}),
    (7, 4, {"connected": False}),
    (8, 5, {"min_degree": 3}),
    (9, 2, {"connected": False}),
])
def test_output_satisfies_constraints_and_is_isomorph_free(n, d, options):
    certs = set()
    count = 0
    mn = d if options.get("regular") else options.get("min_degree", 0)
    for g6 in iter_graph6(n, d, **options):
        G = graph(g6)
        degs = [x for _, x in G.degree()]
        assert G.number_of_nodes() == n
        assert mn <= min(degs) and max(degs) <= d
        if options.get("exact_max_degree") or options.get("regular"):
            assert max(degs) == d
        if options.get("connected", True):
            assert nx.is_connected(G)
        certs.add(certificate(G))
        count += 1
    assert count == len(certs) > 0


def test_graph6_is_networkx_format():
    for g6 in itertools.chain(iter_graph6(9, 3, connected=False), iter_graph6(1, 0), iter_graph6(2, 1)):
        assert nx.to_graph6_bytes(graph(g6), header=False) == g6.encode("ascii") + b"\n"


def test_construction_order_keeps_prefixes_connected():
    for g6 in iter_graph6(9, 3):
        G = graph(g6)
        assert all(nx.is_connected(G.subgraph(range(i))) for i in range(1, 10))


def test_constrained_output_is_a_subset_in_the_same_labelling():
    """Options only prune the search tree: the same strings come out."""
    every = set(iter_graph6(10, 3))
    assert set(iter_graph6(10, 3, regular=True)) <= every
    assert set(iter_graph6(10, 3, min_degree=2)) <= every
    assert list(iter_graph6(10, 3)) == list(iter_graph6(10, 3))  # deterministic


def test_small_and_degenerate_cases():
    assert list(iter_graph6(1, 0)) == ["@"]
    assert list(iter_graph6(1, 3)) == ["@"]
    assert list(iter_graph6(1, 3, exact_max_degree=True)) == []
    assert list(iter_graph6(2, 0)) == []  # two isolated vertices are not connected
    assert list(iter_graph6(2, 0, connected=False)) == ["A?"]
    assert list(iter_graph6(4, 3, regular=True)) == ["C~"]  # K4
    assert count_graphs(5, 9) == count_graphs(5, 4) == 21  # degrees above n-1 change nothing
    assert count_graphs(5, 9, exact_max_degree=True) == 0
    assert count_graphs(4, 3, min_degree=3, connected=False) == 1


def test_streams_in_constant_memory():
    """A generator; the first graph of a huge family comes at once, and
    traced memory does not grow with the number of graphs output."""
    it = iter_graph6(24, 3)
    assert iter(it) is it
    assert graph(next(it)).number_of_nodes() == 24
    list(iter_graph6(6, 3))  # compile outside the measurement
    tracemalloc.start()
    try:
        marks = []
        for i, _ in enumerate(iter_graph6(11, 3)):
            if i in (500, 5000):
                marks.append(tracemalloc.get_traced_memory()[0])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert i + 1 == 5524
    assert marks[1] - marks[0] < 100_000  # 4500 graphs later; a leak of 56 B/graph adds 250 kB
    assert peak < 1_000_000


def test_iter_graphs_gives_topologies():
    ts = list(iter_graphs(5, 2))  # P5 and C5
    assert sorted(t.num_links for t in ts) == [4, 5]
    for t, g6 in zip(ts, iter_graph6(5, 2)):
        assert isinstance(t, Topology) and t.n == 5
        assert t.family == "enumerated"
        assert t.spec == f"g6:{g6}"
        assert t.params == {"graph6": g6, "n": 5}
        assert sorted(map(sorted, from_spec(t.spec).links.tolist())) == sorted(map(sorted, t.links.tolist()))
        assert nx.is_isomorphic(t.to_networkx(), graph(g6))


@pytest.mark.parametrize("args, kwargs, message", [
    ((0, 3), {}, "n must be at least 1"),
    ((63, 3), {}, "at most 62 vertices"),
    ((5, -1), {}, "max_degree must be >= 0"),
    ((5, 3), {"min_degree": -1}, "min_degree must be >= 0"),
    ((5, 2), {"min_degree": 3}, "min_degree=3 exceeds max_degree=2"),
    (("8", 3), {}, "n must be an integer"),
    ((8, 2.5), {}, "max_degree must be an integer"),
    ((8, True), {}, "max_degree must be an integer"),
])
def test_bad_parameters_raise_spec_error_at_call(args, kwargs, message):
    for fn in (iter_graph6, iter_graphs, count_graphs):
        with pytest.raises(SpecError, match=message):
            fn(*args, **kwargs)  # raised before iteration starts


@pytest.mark.slow
def test_connected_cubic_16():
    # OEIS A002851: 4060 connected cubic graphs on 16 nodes
    assert count_graphs(16, 3, regular=True) == 4060


@pytest.mark.slow
def test_all_graphs_on_9_vertices():
    # OEIS A000088 and A001349 at n = 9
    assert count_graphs(9, 8, connected=False) == 274668
    assert count_graphs(9, 8) == 261080
