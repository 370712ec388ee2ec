"""Routing records: their length is the BFS distance for every pair."""

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.analytics._kernels import all_pairs_bfs
from candidates.analytics.records import lattice_record, record_table, routing_records, rt_record, rtt_record, torus_record


def all_pairs_records_ok(t):
    n = t.n
    src = np.repeat(np.arange(n), n)
    dst = np.tile(np.arange(n), n)
    rec = routing_records(t, src, dst)
    dist = all_pairs_bfs(t.indptr, t.indices).reshape(-1)
    # the record is a walk that reaches dst: coords + record == dst mod lattice
    return np.array_equal(np.abs(rec).sum(axis=1), dist), rec, src, dst


@pytest.mark.parametrize("a", range(2, 11))
def test_rtt_record_length_is_bfs_distance_every_pair(a):
    ok, rec, src, dst = all_pairs_records_ok(cd.rtt(a))
    assert ok


@pytest.mark.parametrize("fam", ["rt", "pt", "ptt", "pdtt"])
@pytest.mark.parametrize("a", [2, 3, 4, 5])
def test_records_minimal_for_every_pair(fam, a):
    t = cd.from_spec(f"{fam}:a={a}")
    ok, rec, src, dst = all_pairs_records_ok(t)
    assert ok
    # and the record really leads from src to dst
    from candidates.generators.lattice import reduce_to_box

    end = reduce_to_box(t.coords[src] + rec, t.shape, t.lattice)
    assert np.array_equal(end, t.coords[dst])


def test_algorithm_values():
    # Algorithm 1 of 'rtt-mapping-concentration': RT(4), displacement (5, 3)
    assert rt_record(4, 5, 3).tolist() == [-3, -1]
    # Algorithm 2: RTT(4), (4, 0) is 4 hops along -Y through the twist
    assert rtt_record(4, 4, 0).tolist() == [0, -4]
    assert rtt_record(4, 1, 1).tolist() == [1, 1]
    assert torus_record((8, 8), [[5, 4]]).tolist() == [[-3, -4]]


def test_general_twisted_records_against_bfs():
    rng = np.random.default_rng(7)
    for _ in range(15):
        D = int(rng.integers(2, 4))
        shape = tuple(int(x) for x in rng.integers(2, 7, size=D))
        twists = {k: [int(rng.integers(0, shape[j])) if j < k else 0 for j in range(D) if j != k] for k in range(1, D)}
        t = cd.twisted_torus(shape, twists)
        tab = record_table(t)
        d0 = nx.single_source_shortest_path_length(t.to_networkx(), 0)
        assert np.array_equal(np.abs(tab).sum(axis=1), [d0[v] for v in range(t.n)])


def test_mesh_and_hypercube_records():
    m = cd.mesh((3, 4))
    assert routing_records(m, [0], [m.n - 1]).tolist() == [[2, 3]]
    h = cd.hypercube(3)
    assert np.abs(routing_records(h, [0], [7])).sum() == 3


def test_lattice_record_tie_prefers_home_tile():
    assert lattice_record((8, 4, 4), [[8, 0, 0], [4, 4, 0], [4, 0, 4]], [[4, 0, 0]]).tolist() == [[4, 0, 0]]


def test_no_records_for_arbitrary_graphs():
    t = cd.Topology.from_networkx(nx.petersen_graph())
    with pytest.raises(cd.TopologyError, match="shortest_path_table"):
        routing_records(t, [0], [1])
