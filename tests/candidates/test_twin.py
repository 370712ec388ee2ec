"""nDT twin torus: structure, the paper's cases, DORT / TS-DOR paths."""

import itertools

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.twin import card_of_port, twin_route, twin_torus

CASES = [((8, 8, 4), (4, 4, 2, 2, 2), 256), ((8, 8, 8), (4, 4, 2, 4, 2), 512), ((16, 8, 8), (4, 4, 2, 4, 4), 1024)]


@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 2, 3), (2, 2, 2), (4, 4, 2, 2, 2), (3, 2, 4, 2, 3)])
def test_structure(shape):
    t = twin_torus(shape)
    n = len(shape)
    N = int(np.prod(shape))
    assert t.n == 2 * N and t.num_terminals == 2 * N
    assert set(t.degree.tolist()) == {n + 1}  # (n+1)-port cards, parallel links counted
    counts = np.bincount(t.link_dim, minlength=n + 1)
    assert counts[:n].tolist() == [N] * n  # one link per node per dimension (two per pair if size 2)
    internal = t.links[t.link_dim == n]
    assert len(internal) == N and np.all(internal[:, 1] == internal[:, 0] + 1) and np.all(internal[:, 0] % 2 == 0)
    # the ports of each card are the ones Definition 2.2 puts there
    for i, ((u, v), k) in enumerate(zip(t.links.tolist(), t.link_dim.tolist())):
        if k < n:
            assert u % 2 == card_of_port(n, k, +1) and v % 2 == card_of_port(n, k, -1)
    # contracting each node's two cards gives the n-D torus
    Q = nx.MultiGraph()
    Q.add_nodes_from(range(N))
    Q.add_edges_from((u // 2, v // 2) for (u, v), k in zip(t.links.tolist(), t.link_dim.tolist()) if k < n)
    T = nx.MultiGraph(cd.torus(shape).to_networkx())
    assert nx.is_isomorphic(nx.Graph(Q), nx.Graph(T))
    assert sorted(d for _, d in Q.degree()) == sorted(d for _, d in T.degree())


def test_size_two_dimension_has_two_links_per_pair():
    t = twin_torus((2, 3, 3))
    d0 = t.links[t.link_dim == 0] // 2
    pairs = {tuple(sorted(p)) for p in d0.tolist()}
    assert len(d0) == 2 * len(pairs)


@pytest.mark.parametrize("torus3, twin5, pes", CASES)
def test_paper_cases_5dt_shorter_than_3d(torus3, twin5, pes):
    """Same cards: 5DT has smaller diameter and average distance than 3D."""
    a, b = cd.torus(torus3), twin_torus(twin5)
    assert a.num_terminals == b.num_terminals == pes
    sa, sb = cd.distance_stats(a), cd.distance_stats(b)
    assert sb.diameter < sa.diameter
    assert sb.average_distance < sa.average_distance


def test_distances_match_networkx():
    t = twin_torus((4, 3, 2))
    G = nx.Graph(t.to_networkx())
    lengths = [d for _, row in nx.all_pairs_shortest_path_length(G) for d in row.values()]
    s = cd.distance_stats(t)
    assert s.diameter == max(lengths)
    assert s.average_distance_with_self == pytest.approx(np.mean(lengths))


@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 2, 2), (2, 2, 2), (4, 2, 2, 2, 2), (3, 4, 2, 2, 3)])
@pytest.mark.parametrize("algorithm", ["tsdor", "dort"])
def test_routes_are_walks_to_the_destination(shape, algorithm):
    t = twin_torus(shape)
    G = nx.Graph(t.to_networkx())
    dist = dict(nx.all_pairs_shortest_path_length(G))
    for s, d in itertools.product(range(t.n), repeat=2):
        p = twin_route(t, s, d, algorithm)
        cur = s
        for a in p:
            assert t.arc_src[a] == cur
            cur = int(t.arc_dst[a])
        assert cur == d
        assert len(p) >= dist[s][d]


def test_tie_rule_of_the_paper():
    """A PE0-sourced packet in a 3DT with 2 nodes in Y: Y- reaches card 1 of
    the other node in one hop, Y+ would need three."""
    t = twin_torus((2, 2, 2))
    src = 0  # node (0,0,0), card 0 (PE0)
    other = t.node_index((0, 1, 0, 1))  # node (0,1,0), card 1
    p = twin_route(t, src, other)
    assert len(p) == 1
    # TS-DOR: a PE1 packet starts with the highest dimension
    p1 = twin_route(t, 1, t.node_index((1, 0, 1, 1)))
    assert [t.dims[t.arc_dim[a]] for a in p1][0] == "d2"


def test_errors():
    with pytest.raises(cd.SpecError, match="odd number of dimensions"):
        twin_torus((4, 4))
    with pytest.raises(cd.SpecError, match=">= 2"):
        twin_torus((4, 1, 4))
    with pytest.raises(cd.TopologyError, match="nDT"):
        twin_route(cd.ring(4), 0, 1)
