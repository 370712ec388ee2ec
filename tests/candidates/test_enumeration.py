"""Enumeration counts against networkx's graph atlas and published sequences."""

import itertools

import networkx as nx
import pynauty
import pytest

from candidates import SpecError, from_graph6
from candidates.enumeration import count_graphs, iter_graph6, iter_graphs

ATLAS = nx.graph_atlas_g()  # every graph on 0..7 vertices (independent source)


def atlas_count(n, d, *, mn=0, exact=False, regular=False, connected=True):
    c = 0
    for G in ATLAS:
        if G.number_of_nodes() != n:
            continue
        degs = [x for _, x in G.degree()]
        if max(degs) > d or min(degs) < mn or (exact and max(degs) != d):
            continue
        if regular and set(degs) != {d}:
            continue
        if connected and not nx.is_connected(G):
            continue
        c += 1
    return c


@pytest.mark.parametrize("n", range(1, 8))
def test_counts_equal_graph_atlas(n):
    for d, mn, exact, regular, connected in itertools.product(range(0, 5), (0, 1, 2), (False, True), (False, True), (True, False)):
        if mn > d:
            continue
        if d > n - 1 and (exact or regular):
            continue
        assert count_graphs(n, d, min_degree=mn, exact_max_degree=exact, regular=regular, connected=connected) == \
            atlas_count(n, min(d, n - 1), mn=max(mn, d if regular else mn), exact=exact or regular,
                        regular=regular, connected=connected), (n, d, mn, exact, regular, connected)


def test_published_sequences():
    # OEIS A112410: connected graphs with maximum degree at most 3
    assert [count_graphs(n, 3) for n in range(1, 11)] == [1, 1, 2, 6, 10, 29, 64, 194, 531, 1733]
    # OEIS A002851: connected cubic graphs on 4, 6, ..., 12 vertices
    assert [count_graphs(n, 3, regular=True) for n in (4, 6, 8, 10, 12)] == [1, 2, 5, 19, 85]
    # OEIS A005965 / connected 4-regular graphs on 5..9 vertices
    assert [count_graphs(n, 4, regular=True) for n in range(5, 10)] == [1, 1, 2, 6, 16]


def test_the_papers_192():
    """'topology-synthesis-mcf-bgl': 192 isomorph-free 8-node topologies of
    degree no more than 3 = connected, maximum degree exactly 3."""
    assert count_graphs(8, 3, exact_max_degree=True) == 192
    assert count_graphs(8, 3) == 194  # plus the path and the cycle


@pytest.mark.parametrize("n, d, kw", [(7, 3, {}), (8, 3, {"exact_max_degree": True}), (6, 4, {"connected": False}),
                                      (9, 3, {"min_degree": 2})])
def test_output_is_valid_and_pairwise_non_isomorphic(n, d, kw):
    certs = set()
    for g6 in iter_graph6(n, d, **kw):
        G = nx.from_graph6_bytes(g6.encode())
        degs = [x for _, x in G.degree()]
        assert G.number_of_nodes() == n and max(degs) <= d
        assert min(degs) >= kw.get("min_degree", 0)
        if kw.get("connected", True):
            assert nx.is_connected(G)
        cert = pynauty.certificate(pynauty.Graph(n, adjacency_dict={v: list(G[v]) for v in G}))
        assert cert not in certs
        certs.add(cert)


def test_iter_graphs_are_topologies_with_specs():
    ts = list(iter_graphs(5, 2))  # the path P5 and the cycle C5
    assert sorted(t.num_links for t in ts) == [4, 5]
    for t in ts:
        assert t.spec.startswith("g6:") and from_graph6(t.spec[3:]).num_links == t.num_links


@pytest.mark.parametrize("kw, message", [({"n": 0, "max_degree": 3}, "at least 1"),
                                         ({"n": 5, "max_degree": -1}, "non-negative"),
                                         ({"n": 5, "max_degree": 2, "min_degree": 3}, "exceeds")])
def test_bad_parameters(kw, message):
    with pytest.raises(SpecError, match=message):
        count_graphs(kw.pop("n"), kw.pop("max_degree"), **kw)
