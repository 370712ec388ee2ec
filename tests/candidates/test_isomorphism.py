"""Isomorphism classes of topologies, against networkx's own isomorphism test."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.isomorphism import NAUTY_MAX_VERTICES, canonical_key, isomorphism_classes, labelled_key, same_network


def _from_nx(g: nx.Graph, spec: str) -> cd.Topology:
    return cd.Topology(n=g.number_of_nodes(), links=np.array(list(g.edges()), dtype=np.int64).reshape(-1, 2),
                       family="graph", spec=spec)


def _nx_multi(t: cd.Topology) -> nx.MultiGraph:
    g = nx.MultiGraph()
    g.add_nodes_from((v, {"pes": int(t.terminals[v])}) for v in range(t.n))
    g.add_edges_from(map(tuple, t.links.tolist()))
    return g


def test_classes_agree_with_networkx_on_random_regular_graphs():
    rng = np.random.default_rng(3)
    topos = []
    for k in range(12):
        g = nx.random_regular_graph(3, 12, seed=int(rng.integers(1 << 30)))
        topos.append(_from_nx(g, f"g{k}"))
        # a relabelled copy of every other graph: the same network
        if k % 2 == 0:
            perm = rng.permutation(12)
            topos.append(_from_nx(nx.relabel_nodes(g, dict(enumerate(perm.tolist()))), f"g{k}r"))
    groups = isomorphism_classes(topos)
    owner = {i: g[0] for g in groups for i in g}
    for i, j in itertools.combinations(range(len(topos)), 2):
        iso = nx.is_isomorphic(_nx_multi(topos[i]), _nx_multi(topos[j]))
        assert (owner[i] == owner[j]) == iso, (topos[i].spec, topos[j].spec)
    assert sum(len(g) > 1 for g in groups) >= 6      # every relabelled copy found its original


def test_known_pairs():
    assert same_network(cd.from_spec("torus:4x4x4"), cd.from_spec("hypercube:6"))
    assert same_network(cd.from_spec("rt:a=4"), cd.from_spec("torus:8x4"))
    # a size-2 ring is a double link: the 4x4x2 torus has 96 links, the 5-cube 80
    assert not same_network(cd.from_spec("torus:4x4x2"), cd.from_spec("hypercube:5"))
    # PEs count: the same graph with other concentrations is another machine
    assert not same_network(cd.from_spec("torus:4x4"), cd.from_spec("torus:4x4:c=2"))
    assert same_network(cd.from_spec("torus:4x4"), cd.from_spec("torus:4x4:c=1"))
    # parallel links count: a ring of 4 against a 2x2 torus (each of its rings a double link)
    assert not same_network(cd.from_spec("ring:4"), cd.from_spec("torus:2x2"))


def test_pes_on_corresponding_routers():
    # a path of 3 with PEs on an end router vs on the middle router: same graph, other machines
    a = cd.Topology(n=3, links=np.array([[0, 1], [1, 2]]), terminals=np.array([2, 1, 1]))
    b = cd.Topology(n=3, links=np.array([[0, 1], [1, 2]]), terminals=np.array([1, 2, 1]))
    c = cd.Topology(n=3, links=np.array([[1, 2], [0, 1]]), terminals=np.array([1, 1, 2]))
    assert not same_network(a, b) and same_network(a, c)
    assert canonical_key(a) == canonical_key(c) != canonical_key(b)


def test_large_topologies_compare_without_relabelling():
    big = cd.from_spec("torus:16x16x16")
    assert big.n + big.num_links > NAUTY_MAX_VERTICES
    assert isomorphism_classes([big, cd.from_spec("torus:16x16x16:c=1"), cd.from_spec("torus:16x16x16:c=2")]) \
        == [[0, 1], [2]]
    assert labelled_key(big) == labelled_key(big.replace(links=big.links[::-1, ::-1]))


@pytest.mark.parametrize("spec", ["dragonfly:a=4:p=2:h=2", "slimfly:q=5", "fattree:k=4", "ndt:4x2x2"])
def test_every_family_is_its_own_class_and_equals_a_relabelling(spec):
    t = cd.from_spec(spec)
    perm = np.random.default_rng(1).permutation(t.n)
    inv = np.argsort(perm)
    r = t.replace(links=perm[t.links], terminals=t.terminals[inv], coords=None, shape=None, lattice=None,
                  placement=None, spec=spec + "-relabelled")
    assert same_network(t, r)
