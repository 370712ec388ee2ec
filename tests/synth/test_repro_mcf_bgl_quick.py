"""The core of ``benchmarks/repro_mcf_bgl.py --quick`` on a smaller pool, with real checks.

Slow (a few minutes on 2 cores): ``pytest -m slow tests/synth/test_repro_mcf_bgl_quick.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def repro():
    sys.path.insert(0, str(BENCH))
    try:
        import repro_mcf_bgl
    finally:
        sys.path.remove(str(BENCH))
    return repro_mcf_bgl


def test_locations_are_the_same_machine_for_torus_and_compositions(repro):
    from synth.study import study_from_dict

    s = study_from_dict(repro._base_study(1))
    t = repro.build_topology(repro.TORUS, s)
    b = repro.build_topology("bgl:ring:8*ring:4*ring:4*ring:4", s)
    lt, lb = repro.locations(t), repro.locations(b)
    for topo, loc in ((t, lt), (b, lb)):
        assert sorted(loc.tolist()) == list(range(512))
        # location // 2 is the compute card, location // 32 the node card, whatever the family
        cards = topo.placement.unit[:, 0]
        assert all(len(set(cards[loc // 2 == k].tolist())) == 1 for k in range(256))
        ncs = topo.placement.unit[:, 1]
        assert all(len(set(ncs[loc // 32 == k].tolist())) == 1 for k in range(16))
    D = repro.location_distance()
    assert D[0, 1] == 1 and D[0, 2] == 2 and D[0, 32] == 3 and D[0, 511] == 2 + 6


@pytest.mark.slow
def test_table2_quick_core(repro, tmp_path, monkeypatch):
    monkeypatch.setattr(repro, "FIGS", tmp_path)   # the repository's figures stay those of the recorded runs
    data = repro.table2_data(3, 2, None, apps=("bt", "cg"), fig6=())
    rows = data["rows"][data["fractions"][0]]
    for app in ("bt", "cg"):
        r = rows[app]
        info = data["info"][app]
        assert info["processes"] == repro.APPS[app] and info["anneal_cost"] <= info["anneal_start"]
        assert r["optimal_latency"] is not None and r["torus_latency"] is not None
        # the torus (uniform wiring, the real machine) is never better than the best candidate's latency
        # (up to the PTAS's eps); the loads are fractions of its capacity
        assert r["torus_latency"] >= r["optimal_latency"] * (1 - 0.05)
        # the aggregate's optimum is one of the pool: on each app it is no better than the app's own
        assert r["aggregate_latency"] >= r["optimal_latency"] - 1e-9
        assert r["aggregate_capacity"] <= r["best_capacity"] + 1e-9
        # uniform wiring fixes every channel's wires: it never carries more than the flexible optimum
        assert r["best_uniform_capacity"] <= r["best_capacity"] * 1.05
        assert r["torus_capacity"] <= r["torus_flexible_capacity"] * 1.05
        assert r["scale"] == pytest.approx(data["fractions"][0] * r["torus_capacity"], rel=1e-3)
    text = repro.table2_text(data, 3)
    assert "Table II" in text and "BT" in text
    assert (tmp_path / "mcf_bgl_table2_quick.png").exists()
    notes = repro.table2_notes(data, 3)
    assert "Pool: the first 3 row graphs" in notes and "x the 3D torus's capacity" in notes


@pytest.mark.slow
def test_sensitivity_quick_core(repro):
    sens = repro.sensitivity_data(3, 2, None, ("ours (baseline)", "node-card pins 400", "node-card pins 800",
                                                "all pins x4 (480 / 800)", "wire delay 14.2 ns/m"))
    by = {s["setting"]: s for s in sens}
    base, p400, p800 = by["ours (baseline)"], by["node-card pins 400"], by["node-card pins 800"]
    x4 = by["all pins x4 (480 / 800)"]
    # more node-card pins: the torus carries more (its node-card connectors bind in our baseline) until its
    # compute-card pins bind (+6%);
    # the first row graphs (trees) are bound by their compute-card pins and need those raised too
    assert base["torus_bottleneck"] == "node-card pins"
    assert base["torus_capacity"] * 1.03 < p400["torus_capacity"] <= p800["torus_capacity"] * 1.05
    assert base["best_capacity"] <= p400["best_capacity"] * 1.05 and p400["best_capacity"] <= p800["best_capacity"] * 1.05
    assert x4["best_capacity"] > 1.3 * base["best_capacity"] and x4["torus_capacity"] > 1.3 * base["torus_capacity"]
    # the wire delay changes latencies, not capacities
    slow = by["wire delay 14.2 ns/m"]
    assert slow["torus_capacity"] == pytest.approx(base["torus_capacity"], rel=1e-9)
    assert slow["torus_latency"] > base["torus_latency"]
    for s in sens:
        assert s["best_latency"] <= s["torus_latency"] * 1.05
        assert np.all(np.diff(s["capacities"]) >= 0)


def test_load_model_reaches_every_study_and_keeps_its_own_figures(repro, monkeypatch):
    d = repro._base_study(1)
    assert repro._study(d).latency_model == "linear"
    assert repro._figname("pins", 8) == "mcf_bgl_pins_quick.png"
    assert repro._title("table1") == repro.PART_TITLES["table1"]
    monkeypatch.setattr(repro, "LOAD_MODEL", "queueing")
    s = repro._study(d)
    assert s.latency_model == "queueing" and s.queueing is not None
    assert "latency_model" not in d["ranking"]          # the dict itself is left as it was
    assert repro._figname("pins", 8) == "mcf_bgl_pins_queueing_quick.png"
    assert repro._title("table2") == "Table II and Fig. 6 under the queueing model"


def test_recorded_linear_reads_the_linear_subsection_of_the_same_mode(repro, tmp_path, monkeypatch):
    results = tmp_path / "topology-synthesis-mcf-bgl.md"
    results.write_text(
        "# Topology synthesis for Blue Gene/L\n\n## Reproduction: topology-synthesis-mcf-bgl\n\nRecorded part by part.\n\n"
        "### Table I, Fig. 3 and the pins sweep (Figs. 4/5)\n\n_`python repro_mcf_bgl.py` — 2026-01-02 03:04 UTC_\n\n"
        "Table I.\n\n| T | best latency | torus latency |\n|---|---|---|\n| 2048 | 9.67 | 11.73 |\n\n"
        "Curve.\n\n| T | best latency per scale |\n|---|---|\n| 2048 | 9.67 / 9.68 / - |\n\n"
        "### Table I, Fig. 3 and the pins sweep (Figs. 4/5) under the queueing model\n\n"
        "| T | best latency |\n|---|---|\n| 2048 | 430 |\n\n"
        "## Reproduction: topology-synthesis-mcf-bgl (quick)\n\n### Table II and Fig. 6\n\n| app |\n|---|\n| BT |\n")
    monkeypatch.setattr(sys.modules["_record"], "BOOK", tmp_path)     # the results book, a page of it
    lin = repro.recorded_linear("table1", False)
    assert lin["date"] == "2026-01-02 03:04 UTC" and len(lin["tables"]) == 2
    assert lin["tables"][0] == [{"T": "2048", "best latency": "9.67", "torus latency": "11.73"}]
    curve = repro._linear_table(lin, "best latency per scale")[0]["best latency per scale"]
    assert repro._nums(curve) == [9.67, 9.68, None]
    assert repro.recorded_linear("table2", False) == {}
    assert repro.recorded_linear("table2", True)["tables"] == [[{"app": "BT"}]]
