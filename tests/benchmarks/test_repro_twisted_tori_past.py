"""benchmarks/repro_twisted_tori.py --past-saturation: the accepted load past saturation under uniform traffic
(the paper's Fig. 8 text: it stabilises in some networks and drops before stabilising in others)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import repro_twisted_tori as T  # noqa: E402


def test_past_loads_are_the_multiples_of_the_bound_capped_at_one():
    assert T.past_loads(0.25) == [0.225, 0.3, 0.5, 1.0]
    assert T.past_loads(0.5) == [0.45, 0.6, 1.0]                 # 2 and 4 x the bound both capped at 1
    assert T.past_loads(6 / 7) == [round(0.9 * 6 / 7, 6), 1.0]


def test_past_reading_tells_a_drop_from_a_plateau():
    assert T.past_reading([0.30, 0.31, 0.305, 0.306])[2] == "stabilises at its peak"
    peak, drop, reading = T.past_reading([0.22, 0.21, 0.18, 0.179])
    assert (peak, reading) == (0.22, "drops, then stabilises") and drop == pytest.approx(1 - 0.179 / 0.22)
    assert T.past_reading([0.22, 0.21, 0.19, 0.15])[2] == "still falling at the highest load"


def _run(fam: str, a: int) -> dict:
    return T.past_saturation([(fam, a)], drain=20000)[0]


def test_rt8_past_saturation_as_recorded():
    # the quick record: RT(8) 0.4089 / 0.4009 / 0.3975 at 0.45 / 0.6 / 1 phits/cycle/PE, under the 4/a = 0.5 bound
    r = _run("rt", 8)
    assert r["loads"] == [0.45, 0.6, 1.0]
    assert r["accepted"] == pytest.approx([0.4089, 0.4009, 0.3975], abs=0.002)
    assert all(acc < 4 / 8 for acc in r["accepted"]) and not any(r["deadlock"])
    assert r["reading"] == "stabilises at its peak"


def test_pt8_drops_then_stabilises_as_recorded():
    # PT(8) (16 x 8 x 8) falls 9% below its peak and stays there (recorded 0.3802 / 0.3526 / 0.3462)
    r = _run("pt", 8)
    assert r["accepted"] == pytest.approx([0.3802, 0.3526, 0.3462], abs=0.002)
    assert r["reading"] == "drops, then stabilises"
