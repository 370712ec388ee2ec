"""What the rows of tests/test_bad_inputs.py cannot show about hostile input:
that the values just inside each new limit are accepted with the right
meaning, where a run's output goes, what a page says about an edited
file, and how a record log with conflicting records is repaired.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _memory_limit(monkeypatch):
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")


# ---------------------------------------------------------------- demand files
def test_demand_amounts_at_the_ends_of_the_range_are_read_and_solved_right(tmp_path):
    import candidates as cd
    from flows import Demands, FlowProblem, solve

    p = tmp_path / "d.csv"
    p.write_text("src,dst,amount\n0,1,1e6\n2,5,1e6\n")
    d = Demands.read_csv(p)
    assert d.amount.tolist() == [1e6, 1e6]
    # the same demands at 1 carry lambda 3 (exact LP); at 1e6, 3e-6: the range is where the LP stays right
    r = solve(FlowProblem.from_topology(cd.from_spec("torus:4x4"), d), eps=0.0, solver="lp")
    assert r.lam == pytest.approx(3e-6, rel=1e-6)
    p.write_text("src,dst,amount\n0,1,1e-6\n2,5,0\n")
    assert Demands.read_csv(p).amount.tolist() == [1e-6, 0.0]   # 0 is no demand, not out of range


# ---------------------------------------------------------------- concentration
def test_a_concentration_at_the_limit_is_accepted_and_its_pes_counted():
    from candidates import from_spec
    from candidates.registry import MAX_CONCENTRATION, spec_size

    s = spec_size(f"torus:4x4:c={MAX_CONCENTRATION}")
    assert (s.routers, s.pes) == (16, 16 * MAX_CONCENTRATION)
    assert s.nbytes > 16.0 * 16 * MAX_CONCENTRATION   # the PEs' bytes are in the estimate
    assert spec_size("torus:4x4").pes is None
    assert from_spec("torus:4x4:c=4").num_terminals == 64


# ---------------------------------------------------------------- graph files
def test_node_link_with_every_node_declared_and_a_one_graph_g6_file_are_read(tmp_path):
    from candidates.io import read_topology

    g = {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
         "links": [{"source": "a", "target": "b"}, {"source": "b", "target": "c"}]}
    (tmp_path / "g.json").write_text(json.dumps(g))
    t = read_topology(tmp_path / "g.json")
    assert (t.n, t.num_links) == (3, 2)
    (tmp_path / "one.g6").write_text("Bw\n\n")   # a trailing blank line is not a second graph
    assert read_topology(tmp_path / "one.g6").num_links == 3


# ---------------------------------------------------------------- studies
def test_study_fields_just_inside_the_new_limits_are_accepted():
    from synth.study import MAX_SIM_SEEDS, study_from_dict

    s = study_from_dict({"candidates": {"enumerate": {"nodes": 6, "max_degree": 3, "regular": True}},
                         "simulation": {"top": 1, "seeds": MAX_SIM_SEEDS}, "dask": {"workers": 4}})
    assert s.enumerate["regular"] is True and s.sim_seeds == MAX_SIM_SEEDS and s.dask == {"workers": 4}
    # swept values given once each: one variant per value, labels one path component
    s = study_from_dict({"candidates": {"specs": ["ring:8"]}, "traffic": {"pattern": ["uniform", "tornado"]}})
    assert [label for label, _ in s.variants()] == ["pattern=uniform", "pattern=tornado"]


def test_a_routing_every_candidate_supports_passes_the_check():
    from synth.check import check_study
    from synth.study import study_from_dict

    s = study_from_dict({"candidates": {"specs": ["torus:4x2", "ring:8"]}, "simulation": {"top": 2, "routing": "dor"}})
    assert check_study(s).variants[0].candidates == 2


def test_a_study_name_cannot_move_the_output_out_of_the_working_directory(tmp_path, monkeypatch, capsys):
    from synth.cli import main

    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (work / "s.toml").write_text("name = 'x/../../escaped'\n[candidates]\nspecs = ['ring:8', 'complete:8']\n")
    monkeypatch.chdir(work)
    assert main(["run", "s.toml", "--quiet"]) == 0
    assert sorted(os.listdir(work)) == ["s.toml", "toposynth-x-..-..-escaped"]
    assert sorted(os.listdir(tmp_path / "a")) == ["b"] and sorted(os.listdir(tmp_path)) == ["a"]
    assert (work / "toposynth-x-..-..-escaped" / "report.html").is_file()
    capsys.readouterr()


# ---------------------------------------------------------------- record logs
def _small_run(out: Path):
    from synth.runner import run
    from synth.study import study_from_dict

    s = study_from_dict({"candidates": {"specs": ["ring:8", "complete:8"]}, "cross_check": {"top": 0}})
    return s, run(s, out)


def test_a_repeated_record_is_kept_once_and_conflicting_ones_are_recomputed(tmp_path, capsys):
    from synth.record_log import read_log, rejected_path
    from synth.records import CandidateRecord

    out = tmp_path / "o"
    study, first = _small_run(out)
    path = out / "records.jsonl"
    lines = path.read_text().splitlines()
    ring = next(json.loads(x) for x in lines if json.loads(x)["spec"] == "ring:8")
    parse = lambda d: CandidateRecord.from_dict(d).validate()   # noqa: E731

    # the same record again, its timings aside: no warning, read once
    path.write_text("\n".join(lines + [json.dumps({**ring, "seconds": 99.0})]) + "\n")
    log = read_log(path, study.fingerprint(), parse, warn=False)
    assert sorted(log.records) == ["complete:8", "ring:8"] and not log.set_aside

    # a different record of ring:8 (an edit that would flip the ranking): both set aside, recomputed
    edited = {**ring, "capacity": {**ring["capacity"], "lambda": 100.0, "upper_bound": 100.0}}
    path.write_text("\n".join(lines + [json.dumps(edited)]) + "\n")
    _, again = _small_run(out)
    err = capsys.readouterr().err
    assert "two different records of ring:8, neither trusted" in err
    rejected = [json.loads(x) for x in rejected_path(path).read_text().splitlines()]
    assert sorted(x["line"] for x in rejected) == sorted([lines.index(json.dumps(ring)) + 1, len(lines) + 1])
    assert again.resumed == 1 and again.ranking == first.ranking == ["complete:8", "ring:8"]
    ring_lines = [json.loads(x) for x in path.read_text().splitlines() if json.loads(x)["spec"] == "ring:8"]
    assert len(ring_lines) == 1 and ring_lines[0]["capacity"]["lambda"] == pytest.approx(ring["capacity"]["lambda"])


def test_a_record_line_nested_too_deeply_is_set_aside(tmp_path):
    from synth.record_log import read_log

    path = tmp_path / "records.jsonl"
    path.write_text('{"spec": "a", "fingerprint": "f"}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    log = read_log(path, "f", lambda d: d, warn=False)
    assert sorted(log.records) == ["a"]
    assert [(x.line, x.reason) for x in log.set_aside] == [(2, "JSON nested too deeply to be a record")]


# ---------------------------------------------------------------- report
def test_every_value_of_an_edited_results_file_is_escaped_in_the_report(tmp_path):
    from synth.report import render_report

    out = tmp_path / "o"
    _small_run(out)
    d = json.loads((out / "results.json").read_text())
    d["fingerprint"] = "<script>alert(1)</script>"
    d["resumed"] = "<b>resumed</b>"
    d["pes"] = "<i>pes</i>"
    d.pop("classes", None)
    (out / "results.json").write_text(json.dumps(d))
    page = render_report(out).read_text()
    for raw in ("<script>", "<b>resumed", "<i>pes"):
        assert raw not in page
    for shown in ("&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;resumed&lt;/b&gt;", "&lt;i&gt;pes&lt;/i&gt;"):
        assert shown in page


# ---------------------------------------------------------------- flow estimates
def test_a_sparse_column_generation_is_estimated_by_its_graph_not_its_demands():
    from flows.size import LARGE_SECONDS, flow_cost, large_problem_note

    # 100 random demands on torus:60x60x60 took 88 s with no note: the demand-linear model said 0.9 s
    c = flow_cost(216_000, 1_296_000, 100, 100, solver="colgen")
    assert 44 <= c.seconds <= 176 and c.seconds > LARGE_SECONDS
    assert large_problem_note(c).startswith("large problem: 216,000 routers, 100 demands in 100 source groups; "
                                            "roughly 62 s")
    # the calibration point (4 demands per router, 4096 routers: 13 s) is unchanged
    assert flow_cost(4096, 24_576, 16_384, 4096, solver="colgen").seconds == pytest.approx(13.0)
