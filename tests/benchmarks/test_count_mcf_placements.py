"""benchmarks/count_mcf_placements.py: counting mirror images apart, and the bandwidth."""

import math
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.enumeration.linear import linear_placements

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import count_mcf_placements as C  # noqa: E402


@pytest.mark.parametrize("G", [nx.path_graph(5), nx.cycle_graph(6), nx.star_graph(4), nx.complete_graph(4),
                               nx.lollipop_graph(3, 2)], ids=["P5", "C6", "star", "K4", "lollipop"])
def test_mirrors_apart_counts_placements_up_to_automorphism(G):
    # up to automorphism only there are n! / |Aut| placements (orbit-stabiliser)
    t = cd.Topology.from_networkx(G)
    aut = sum(1 for _ in nx.algorithms.isomorphism.GraphMatcher(G, G).isomorphisms_iter())
    ps = linear_placements(t)
    twice = sum(1 if C._self_mirror(t, p.order) else 2 for p in ps)
    assert twice == math.factorial(G.number_of_nodes()) // aut


def test_bandwidth_of_a_path_in_order_and_folded():
    t = cd.path(5)
    assert C._bandwidth(t, np.arange(5)) == 1
    assert C._bandwidth(t, np.array([1, 0, 2, 3, 4])) == 2      # link 1-2 spans two slots
    assert C._bandwidth(t, np.array([0, 2, 4, 3, 1])) == 4      # link 0-1 spans the row
