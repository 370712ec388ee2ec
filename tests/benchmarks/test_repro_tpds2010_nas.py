"""benchmarks/repro_tpds2010_nas.py: its placements and a run against the injection bound."""

import sys
from pathlib import Path

import numpy as np
import pytest

import candidates as cd
import sim
from sim.trace import SEND

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import repro_tpds2010_nas as N  # noqa: E402


def test_placements_are_permutations_and_x_fastest_is_the_authors_numbering():
    t = cd.from_spec("rt:a=8")
    for kind in ("x-fastest", "x-slowest", "random"):
        assert sorted(N.placement(kind, 3).tolist()) == list(range(N.P))
    c = t.coords[N.placement("x-fastest")]
    i = np.arange(N.P)
    assert (c[:, 0] == i % 16).all() and (c[:, 1] == i // 16).all()   # task i at (i mod 16, i div 16)
    assert not np.array_equal(N.placement("random", 0), N.placement("random", 1))


def test_a_run_is_no_faster_than_the_rtts_uniform_capacity_allows():
    # FT's exchanges are all-to-all with equal shares: uniform traffic, which the RTT(8) carries at most at
    # 6 / a = 0.75 phits/cycle per PE ('twisted-tori-tpds2010' section 5): no run of B phits per PE can take
    # fewer than B / 0.75 cycles (4-byte phits)
    tr = sim.nas("ft", N.P, N.CLASS["ft"], iterations=N.ITERATIONS["ft"])
    sent = np.zeros(N.P)
    for r in range(N.P):
        ev = slice(tr.ptr[r], tr.ptr[r + 1])
        sent[r] = tr.nbytes[ev][tr.kind[ev] == SEND].sum()
    cycles = N.run("ft", "rtt", "x-fastest")
    assert np.ptp(sent) <= 0.001 * sent.max()                    # equal shares
    assert cycles >= sent.max() / 4 / (6 / 8)


def _nx_distances(fam: str):
    import networkx as nx

    t = cd.from_spec(f"{fam}:a={N.A}")
    G = nx.Graph()
    G.add_edges_from(map(tuple, t.links))
    return dict(nx.all_pairs_shortest_path_length(G))


def test_mg_weighted_distance_by_networkx_and_the_wraparound_that_sets_it():
    # NPB's grid (4 x 4 x 8, rank = x + 4 y + 16 z) numbered x fastest: MG's z ring lies on the 8 rows; its
    # wraparound (rank 0 <-> rank 112) is the RT's vertical wraparound link, 1 hop, and 7 hops on the RTT
    tr = sim.nas("mg", N.P, N.CLASS["mg"], iterations=N.ITERATIONS["mg"], mg_order="npb")
    M = tr.byte_matrix()
    pl = N.placement("x-fastest")
    src, dst = np.nonzero(M)
    want = {}
    for fam in ("rt", "rtt"):
        d = _nx_distances(fam)
        hops = np.array([d[pl[i]][pl[j]] for i, j in zip(src, dst)])
        want[fam] = (M[src, dst] * hops).sum() / M.sum()
        assert N.weighted_distance("mg", fam, "x-fastest", mg_order="npb") == pytest.approx(want[fam], rel=1e-12)
        assert M[0, 112] > 0 and d[pl[0]][pl[112]] == {"rt": 1, "rtt": 7}[fam]
    assert want["rt"] == pytest.approx(1.858, abs=5e-4) and want["rtt"] == pytest.approx(2.246, abs=5e-4)
    # the skeleton's default grid on the same numbering: equal distances on the two networks (recorded 3.557, 3.570)
    assert N.weighted_distance("mg", "rt", "x-fastest") == pytest.approx(3.557, abs=5e-4)
    assert N.weighted_distance("mg", "rtt", "x-fastest") == pytest.approx(3.570, abs=5e-4)


def test_mg_with_npbs_grid_placed_consecutively_is_slower_on_the_rtt():
    # the recorded run (section "NAS MG: process grid and placement"): 308686 / 331198 cycles, -7.3%
    rt = N.run("mg", "rt", "x-fastest", mg_order="npb")
    rtt = N.run("mg", "rtt", "x-fastest", mg_order="npb")
    assert rt == pytest.approx(308686, rel=0.02) and rtt == pytest.approx(331198, rel=0.02)
    assert 100 * (1 - rtt / rt) < -4
