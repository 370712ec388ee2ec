"""benchmarks/repro_tpds2010_nas.py: its placements and a run against the injection bound."""

import sys
from pathlib import Path

import numpy as np

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
