"""The published 20-router interposer designs: the mesh and the folded torus against networkx's own
graphs, every design within its length class and port count, the link-length make-up of the source files."""

import math
from collections import Counter

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.generators.interposer import INTERPOSER_DESIGNS, LENGTH_CLASSES, interposer


def _lengths(t):
    d = (t.coords[t.links[:, 0]] - t.coords[t.links[:, 1]]).astype(float)
    return np.sqrt((d ** 2).sum(axis=1))


def test_mesh_is_networkx_grid_graph():
    grid = nx.relabel_nodes(nx.grid_2d_graph(5, 4), {(x, y): y * 5 + x for x in range(5) for y in range(4)})
    t = interposer("mesh")
    assert sorted(map(tuple, np.sort(t.links, axis=1).tolist())) == sorted(tuple(sorted(e)) for e in grid.edges())


def test_folded_torus_is_the_5x4_torus():
    torus = nx.cartesian_product(nx.cycle_graph(5), nx.cycle_graph(4))
    assert nx.is_isomorphic(interposer("folded_torus").to_networkx(), torus)


@pytest.mark.parametrize("name", sorted(INTERPOSER_DESIGNS))
def test_within_class_and_ports(name):
    t = cd.from_spec(f"interposer:{name}")
    assert t.n == 20 and t.degree.max() <= 4 and nx.is_connected(t.to_networkx())
    assert _lengths(t).max() <= LENGTH_CLASSES[t.params["length_class"]] + 1e-12
    assert t.coords.tolist() == [[i % 5, i // 5] for i in range(20)]


@pytest.mark.parametrize("name, make_up", [
    # links of length 1, sqrt 2, 2, sqrt 5 in the source's adjacency matrices
    ("kite_small", (14, 24, 0, 0)),
    ("kite_medium", (12, 8, 20, 0)),
    ("kite_large", (12, 0, 0, 24)),
    ("butter_donut", (8, 8, 12, 8)),
])
def test_link_length_make_up(name, make_up):
    c = Counter(np.round(_lengths(interposer(name)) ** 2).astype(int).tolist())
    assert (c[1], c[2], c[4], c[5]) == make_up


def test_unknown_design_is_one_line():
    with pytest.raises(cd.SpecError, match="unknown design 'kite'; valid: mesh"):
        cd.from_spec("interposer:kite")
    assert math.isclose(interposer("kite_large").params["longest_link"], math.sqrt(5), rel_tol=1e-6)
