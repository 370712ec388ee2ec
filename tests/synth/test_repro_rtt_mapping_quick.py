"""The quick mode of benchmarks/repro_rtt_mapping.py ('rtt-mapping-concentration'): the analytic model
of synth.mapping against the simulator, and RTT against RT where the paper says the RTT wins.

Slow (about a minute): run with ``pytest -m slow``.
"""

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import repro_rtt_mapping as repro  # noqa: E402

pytestmark = pytest.mark.slow
ALPHAS = [0.0, 0.5, 1.0]


def by_case(rows):
    return {(r["fam"], r["mapping"], r["alpha"]): r for r in rows}


@pytest.fixture(scope="module")
def c1():
    return by_case(repro.synthetic(4, 1, ALPHAS, quick=True))


@pytest.fixture(scope="module")
def c2():
    return by_case(repro.synthetic(4, 2, ALPHAS, quick=True))


def test_exact_model_is_close_to_the_papers_closed_forms(c1, c2):
    for rows in (c1, c2):
        for r in rows.values():
            assert r["tau"] == pytest.approx(r["paper_tau"], rel=0.04)
            assert r["th"] == pytest.approx(r["paper_th"], rel=0.04)


def test_simulated_hops_match_the_model_latency(c1, c2):
    # tau is the mean hop count of the mapped traffic; minimal adaptive routing realises it
    for rows in (c1, c2):
        for r in rows.values():
            assert r["sim_hops"] == pytest.approx(r["tau"], rel=0.03, abs=0.02)
            # 1-phit packets, router delay = link latency = 1: latency = 2 hops + 2 at (near) zero load
            assert r["sim_latency"] == pytest.approx(2 * r["tau"] + 2, rel=0.03)


def test_simulated_throughput_against_the_model(c1, c2):
    for rows in (c1, c2):
        for r in rows.values():
            assert r["sim_th"] <= 1.03 * r["th"]  # the model is an upper bound
            if r["alpha"] < 1.0:  # a network-bound regime: within 25% of the model
                assert r["sim_th"] >= 0.75 * r["th"], r
            else:  # neighbour traffic: injection head-of-line blocking caps it near 65% of 4 phits/cycle
                assert 0.55 * r["th"] <= r["sim_th"], r


def test_rtt_beats_rt_where_the_paper_says(c1, c2):
    # c = 1, global traffic: the RTT's throughput gain is about 50% (model 1.5), latency ~11% lower
    rt, rtt = c1[("rt", "id", 0.0)], c1[("rtt", "id", 0.0)]
    assert rtt["th"] / rt["th"] == pytest.approx(1.5, rel=0.05)
    assert 1.35 < rtt["sim_th"] / rt["sim_th"] < 1.65
    assert rtt["sim_hops"] < 0.92 * rt["sim_hops"]
    # c = 1, local traffic: the RT wins (the crossover is a/(a+3) = 0.57)
    assert c1[("rtt", "id", 1.0)]["sim_th"] < c1[("rt", "id", 1.0)]["sim_th"]
    assert c1[("rtt", "fd", 1.0)]["sim_hops"] > c1[("rtt", "id", 1.0)]["sim_hops"]  # fd dilates vertical hops
    # c = 2: RTT with the twisted concentration ft2 at least as good as the RT for every alpha
    for al in ALPHAS:
        assert c2[("rtt", "ft2", al)]["sim_th"] >= 0.97 * c2[("rt", "fv2", al)]["sim_th"]
    assert c2[("rtt", "ft2", 0.5)]["sim_th"] > 1.1 * c2[("rt", "fv2", 0.5)]["sim_th"]


def test_nas_ft_runs_faster_on_the_rtt():
    rows = repro.nas_runs("W", cases=[(32, 1, ("rt", "id"), [("rtt", "id")], ["ft"])], log=lambda *_: None)
    (r,) = rows
    assert r["cycles"]["rt id"] > 0
    assert r["saving"]["rtt id"] > 5.0  # all-to-all: global traffic, the RTT's shorter distances pay
