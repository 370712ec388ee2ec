"""Block placement of lattices and the default slot grid."""

import collections

import numpy as np
import pytest

import candidates as cd
from candidates import Placement, SpecError, TopologyError
from candidates.placement import block_placement


def test_bluegene_torus_blocks():
    t = block_placement(cd.torus((8, 8, 8)), [(1, 1, 2), (4, 4, 2), (8, 8, 8)], ("compute_card", "node_card", "midplane"))
    pl = t.placement
    # units hold exactly the routers of their coordinate block
    for l, b in enumerate([(1, 1, 2), (4, 4, 2), (8, 8, 8)]):
        key = [tuple(c) for c in t.coords // np.array(b)]
        assert len(set(zip(key, pl.unit[:, l].tolist()))) == len(set(key)) == len(set(pl.unit[:, l].tolist()))
    counts = collections.Counter(pl.unit[:, 1].tolist())
    assert set(counts.values()) == {32}
    # children of a unit occupy distinct slots
    for l in range(3):
        child = np.arange(t.n) if l == 0 else pl.unit[:, l - 1]
        seen = collections.defaultdict(set)
        for v in range(t.n):
            seen[(pl.unit[v, l], tuple(pl.slots[v, l]))].add(int(child[v]))
        assert all(len(c) == 1 for c in seen.values())


def test_default_slot_grid_is_one_row_in_index_order():
    unit = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [2, 0], [2, 0]])
    g = Placement(("card", "board"), unit, np.zeros((6, 2))).slot_grid()
    assert g[:, 0, 1].tolist() == [0, 1, 0, 1, 0, 1]
    assert g[:, 1, 1].tolist() == [0, 0, 1, 1, 2, 2]
    assert g[:, :, 0].max() == 0


def test_placement_round_trip_keeps_slots():
    t = block_placement(cd.torus((4, 4)), [(2, 2), (4, 4)])
    back = cd.Topology.from_dict(t.to_dict())
    assert np.array_equal(back.placement.slots, t.placement.slots)


@pytest.mark.parametrize("blocks,message", [
    ([(3, 2)], "does not tile"),
    ([(2, 2), (3, 4)], "not a multiple"),
    ([(2, 2, 2)], "must have 2 positive sizes"),
    ([], "list of block shapes"),
])
def test_block_errors(blocks, message):
    with pytest.raises(SpecError, match=message):
        block_placement(cd.torus((4, 4)), blocks)


def test_needs_coordinates_and_valid_slots():
    import networkx as nx

    with pytest.raises(SpecError, match="lattice coordinates"):
        block_placement(cd.Topology.from_networkx(nx.petersen_graph()), [(2,)])
    with pytest.raises(TopologyError, match="slots must have shape"):
        Placement(("a",), np.zeros((3, 1)), np.zeros((3, 2)), np.zeros((3, 2, 2)))
