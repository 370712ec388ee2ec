"""benchmarks/repro_twin_torus.py --hol: its baseline runs reproduce the book's record.

With one injection queue and 4-packet VCs a run of ``hol_run`` is the configuration of the book's
'3D torus vs 5DT with the same cards, simulated' part (``bench_sim.py --twin``), run by the current simulator:
at 256 PEs it must give the baseline saturations that the part 'Injection queues, buffer depth and the 5DT's
saturation' records, to the last printed digit (slow: a cold simulator compiles for about 30 s).
"""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import repro_twin_torus as R  # noqa: E402


def _recorded(pes: int, net: str) -> float:
    """The saturation the book's --hol part records at ``pes`` PEs, 1 injection queue, 4-packet VCs, for
    ``net`` (the column's title)."""
    page = (ROOT / "docs" / "results" / "5d-twin-torus-extoll.md").read_text()
    part = re.split(r"^### ", page.split(f"### {R.HOL_TITLE}\n", 1)[1], flags=re.M)[0]
    lines = [[c.strip() for c in x.strip().strip("|").split("|")] for x in part.splitlines() if x.startswith("|")]
    head = next(cells for cells in lines if cells[:2] == ["PEs", "injectors"])
    for cells in lines:
        if cells[:3] == [str(pes), "1", "4"]:
            return float(cells[head.index(net)])
    raise AssertionError(f"no --hol row for {pes} PEs")


@pytest.mark.slow
@pytest.mark.parametrize("spec,routing,vcs,net", [("ndt:4x4x2x2x2", "tsdor-adaptive", 8, "5DT 8+2 VCs"),
                                                  ("torus:8x8x4", "dor", 2, "3D DOR 2 VCs")])
def test_hol_baseline_reproduces_recorded_saturation(spec, routing, vcs, net):
    r = R.hol_run(spec, routing, vcs, injectors=1, buffer_packets=4)
    assert r["saturation"] == _recorded(256, net)
    assert 0 < r["util_mean"] <= r["util_max"] <= 1


def test_hol_tables_cover_the_baseline():
    # the baseline (1 queue, 4 packets) is the first variant and the first change: every gain is against it
    assert R.HOL_VARIANTS[0] == R.HOL_CHANGES[0] == (1, 4)
    assert ("5DT", "tsdor-adaptive", 8) in R.HOL_NETS and ("3D", "dor", 2) in R.HOL_NETS
    assert re.match(r"Reproduction: 5d-twin-torus-extoll", R.SECTION)
