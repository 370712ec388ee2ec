"""benchmarks/repro_rtt_mapping.py --mg-grid: MG at 32 tasks (the paper's Fig. 10) under NPB's process grid.

NPB's grid (2 x 4 x 4, rank = x + 2 y + 8 z) with the ranks filling the 8 x 4 task grid x fastest puts MG's
z ring on the rows; on RT(4) with the identity mapping it closes on the vertical wraparound (distances by
networkx), and the run takes the same cycles on the RT and the RTT (recorded: -0.02% and -0.01%).
"""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import sim

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import repro_rtt_mapping as R  # noqa: E402


def _nx_weighted_distance(tr, fam: str, mapping: str) -> float:
    topo, terms = R.rank_terminals(fam, 4, mapping)
    router = np.repeat(np.arange(topo.n), topo.terminals)[terms]
    G = nx.Graph()
    G.add_edges_from(map(tuple, topo.links))
    d = dict(nx.all_pairs_shortest_path_length(G))
    M = tr.byte_matrix()
    src, dst = np.nonzero(M)
    return sum(M[i, j] * d[router[i]][router[j]] for i, j in zip(src, dst)) / M.sum()


def test_mg_distances_under_both_grids_by_networkx():
    recorded = {"npb": (1.394, 1.601, 1.807), "x-first": (2.815, 2.412, 3.037)}   # RT ID / RTT ID / RTT FD
    for order, want in recorded.items():
        tr = sim.nas("mg", 32, "A", iterations=1, mg_order=order)
        for (fam, mp), w in zip([("rt", "id"), ("rtt", "id"), ("rtt", "fd")], want):
            got = R.weighted_distance(tr, fam, 4, mp)
            assert got == pytest.approx(_nx_weighted_distance(tr, fam, mp), rel=1e-12)
            assert got == pytest.approx(w, abs=5e-4)
    # the z ring's wraparound (rank 0 <-> rank 24) is one hop on RT ID, more on the RTT
    for fam, hops in (("rt", 1), ("rtt", 3)):
        topo, terms = R.rank_terminals(fam, 4, "id")
        G = nx.Graph()
        G.add_edges_from(map(tuple, topo.links))
        router = np.repeat(np.arange(topo.n), topo.terminals)[terms]
        assert nx.shortest_path_length(G, router[0], router[24]) == hops


def test_mg_with_npbs_grid_gains_nothing_on_the_rtt():
    rows = R.mg_grid_study("A", scales=(0.0,), log=lambda *_: None)
    npb = next(r for r in rows if r["order"] == "npb")
    xf = next(r for r in rows if r["order"] == "x-first")
    for n in ("rtt id", "rtt fd"):
        assert -0.1 < npb["saving"][n] <= 0.0          # the paper: no improvement, a loss under 0.1%
    assert npb["cycles"]["rt id"] == pytest.approx(474894, rel=0.02)
    assert xf["saving"]["rtt id"] > 10                 # the default grid: recorded +24.2%
    # no run injects a rank's phits faster than its one port allows
    inj = R.rank_phits(sim.nas("mg", 32, "A", iterations=1, mg_order="npb"))
    assert inj == 340312 and min(npb["cycles"].values()) >= inj
    assert "loss under 0.1%" in R.mg_grid_report(rows)
