"""Products and the hierarchical (Blue Gene/L) composition."""

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.compose import bgl_midplane, hierarchical, product


def test_product_matches_networkx():
    a, b = nx.petersen_graph(), nx.path_graph(3)
    t = product(a, b)
    P = nx.cartesian_product(a, b)
    assert t.num_links == P.number_of_edges()
    assert nx.is_isomorphic(t.to_networkx(), P)
    # product distances are sums of factor distances
    s = cd.distance_stats(t)
    da = dict(nx.all_pairs_shortest_path_length(a))
    db = dict(nx.all_pairs_shortest_path_length(b))
    assert s.diameter == nx.diameter(a) + nx.diameter(b)
    total = sum(da[i][j] + db[k][l] for i in a for j in a for k in b for l in b)
    assert s.average_distance_with_self == pytest.approx(total / t.n**2)


def test_product_of_rings_is_a_torus():
    t = cd.from_spec("product:ring:4*ring:5")
    assert nx.is_isomorphic(t.to_networkx(), cd.torus((4, 5)).to_networkx())
    assert t.vertex_transitive


def test_bgl_midplane_placement():
    t = bgl_midplane("g6:Gr`HOk", "ring:4", "ring:4", "path:4")
    assert t.n == 512
    assert t.placement.levels == ("compute_card", "node_card", "midplane")
    u = t.placement.unit
    assert np.bincount(u[:, 0]).tolist() == [2] * 256  # 2 routers per compute card
    assert np.bincount(u[:, 1]).tolist() == [32] * 16  # 32 per node card
    assert np.bincount(u[:, 2]).tolist() == [512]
    # routers of one compute card are row neighbours on their node card
    pos = t.placement.position
    for card in range(256):
        a, b = np.flatnonzero(u[:, 0] == card)
        assert u[a, 1] == u[b, 1] and pos[a, 0] == pos[b, 0] and abs(pos[a, 1] - pos[b, 1]) == 1
    # degrees add up: cube 3 + ring 2 + ring 2 + path (1 or 2)
    assert sorted(set(t.degree.tolist())) == [8, 9]
    classes = {name: int(c) for name, c in zip(t.dims, np.bincount(t.link_dim))}
    assert classes == {"L0.row": 12 * 64, "L0.col": 4 * 128, "L1.row": 4 * 128, "L1.col": 3 * 128}


def test_hierarchy_distances_are_sums():
    row, col = nx.cycle_graph(4), nx.path_graph(2)
    t = hierarchical([(row, col), (nx.path_graph(2), nx.path_graph(2))])
    assert t.n == 4 * 2 * 2 * 2
    assert cd.distance_stats(t).diameter == 2 + 1 + 1 + 1


def test_errors():
    with pytest.raises(cd.SpecError, match="needs 8 nodes"):
        bgl_midplane("ring:6", "ring:4", "ring:4", "ring:4")
    with pytest.raises(cd.SpecError, match="do not tile"):
        hierarchical([(nx.cycle_graph(5), nx.path_graph(4))], card=("row", 2))
    with pytest.raises(cd.SpecError, match="at least one factor"):
        product()
