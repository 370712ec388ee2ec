"""Drawings of searched machines: a chip's graph at its grid coordinates, a packaged graph on its cards."""

import numpy as np

import candidates as cd
from candidates.placement import block_placement
from candidates.search import search_graph
from candidates.search.layout import box_layout
from synth.drawing import draw_topology


def test_chip_graph_drawn_at_its_coordinates():
    d = draw_topology(cd.from_spec("interposer:kite_large"))
    assert d.kind == "grid" and d.nodes == 20 and d.links == 36 and d.hidden == 0
    assert "longest 2.24" in d.caption


def test_packaged_graph_drawn_on_its_cards():
    base = block_placement(cd.torus((4, 4, 2)), [[1, 1, 2], [2, 2, 2], [4, 4, 2]],
                           ("compute_card", "node_card", "midplane"))
    t = search_graph(32, 5, moves=500, seed=2, regular=False, layout=box_layout((4, 4, 2), base.placement),
                     symmetry=1).topology
    d = draw_topology(t, "searched")
    assert d.kind == "placement"
    pl = t.placement
    same = pl.unit[t.links[:, 0]] == pl.unit[t.links[:, 1]]
    lvl = np.where(same.any(axis=1), np.argmax(same, axis=1), 3)
    for k, name in enumerate(("compute card", "node card", "midplane")):
        if (lvl == k).any():
            assert f"{int((lvl == k).sum())} inside a {name}" in d.caption
    # drawn: node card 0's inside links, one line per pair of node cards joined; the other node cards' hidden
    card0 = pl.unit[:, 1] == pl.unit[0, 1]
    inside0 = card0[t.links[:, 0]] & card0[t.links[:, 1]]
    across = lvl == 2
    pairs = {tuple(sorted(p)) for p in pl.unit[t.links[across]][:, :, 1].tolist()}
    assert d.links == int(inside0.sum()) + len(pairs)
    assert d.hidden == len(t.links) - int(inside0.sum()) - int(across.sum())
