"""The record logs and output paths: damaged logs never crash a resume, never
make it trust an impossible record, never lose good records; output paths
are refused in one line before any work."""

import errno
import json
import math

import pytest

from candidates.enumeration.graphs import count_graphs
from synth.cli import main
from synth.record_log import read_log, rejected_path
from synth.records import CandidateRecord, validate_simulation
from synth.runner import run
from synth.study import study_from_dict

TINY = {"candidates": {"specs": ["ring:6", "complete:6"]}, "ranking": {"objective": "capacity"},
        "cross_check": {"top": 0}}
SPECS = TINY["candidates"]["specs"]


def strip(records):
    """The records without their timings (a recomputed record is otherwise identical)."""
    out = []
    for r in records:
        d = r.to_dict()
        d.pop("seconds"), d.pop("compile_seconds")
        if "capacity" in d:
            d["capacity"] = {k: v for k, v in d["capacity"].items() if k != "seconds"}
        out.append(d)
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A clean run: its result and its log lines by spec."""
    out = tmp_path_factory.mktemp("clean")
    res = run(study_from_dict(TINY), out)
    lines = {json.loads(x)["spec"]: x for x in (out / "records.jsonl").read_text().splitlines()}
    assert list(lines) == SPECS or sorted(lines) == sorted(SPECS)
    # the capacities the cases below tamper with: K6 carries 5 units per PE, the ring about 10/9
    assert res.ranking == ["complete:6", "ring:6"]
    assert res.record("ring:6").capacity.lam <= 10 / 9 <= res.record("ring:6").capacity.upper_bound * (1 + 1e-9)
    return res, lines


def _edit(line, **changes):
    """The JSON line with ``changes`` (dotted keys reach into capacity; None deletes)."""
    d = json.loads(line)
    for k, v in changes.items():
        where, key = (d["capacity"], k.split(".")[1]) if k.startswith("capacity.") else (d, k)
        if v is None:
            del where[key]
        else:
            where[key] = v
    return json.dumps(d).encode()


def _log(lines, *middle, tail=b"\n"):
    """ring's line, the damaged ``middle`` lines, complete's line."""
    return lines["ring:6"].encode() + b"\n" + b"".join(m + b"\n" for m in middle) + lines["complete:6"].encode() + tail


# each case: the log as bytes (from the clean lines), the warning substring (None: no warning),
# how many candidates are evaluated again, how many lines are set aside
CASES = {
    "json int": (lambda L: _log(L, b"42"), "line 2: not a record (a JSON int)", 0, 1),
    "json list, str, empty object": (lambda L: _log(L, b"[]", b'"x"', b"{}"),
                                     "3 damaged or invalid records set aside", 0, 3),
    "not utf-8": (lambda L: _log(L, b'{"spec": "\xff\xfe"}'), "line 2: not UTF-8 text", 0, 1),
    "not json": (lambda L: _log(L, b"{spec: ring:6"), "line 2: not JSON", 0, 1),
    "no fingerprint": (lambda L: _log(L, _edit(L["ring:6"], fingerprint=None)), "no study fingerprint", 0, 1),
    # the ring's own record replaced by an impossible one: set aside and evaluated again
    "lambda above its bound": (lambda L: _edit(L["ring:6"], **{"capacity.lambda": 99}) + b"\n"
                               + L["complete:6"].encode() + b"\n", "lambda 99 above its upper bound 1.11", 1, 1),
    "negative lambda": (lambda L: _edit(L["ring:6"], **{"capacity.lambda": -1.0}) + b"\n"
                        + L["complete:6"].encode() + b"\n", "lambda -1 is negative", 1, 1),
    "nan lambda": (lambda L: _edit(L["ring:6"], **{"capacity.lambda": math.nan}) + b"\n"
                   + L["complete:6"].encode() + b"\n", "lambda is nan, not a finite number", 1, 1),
    "infinite upper bound": (lambda L: _edit(L["ring:6"], **{"capacity.upper_bound": math.inf}) + b"\n"
                             + L["complete:6"].encode() + b"\n", "upper bound is inf", 1, 1),
    "latency below its bound": (lambda L: _edit(L["ring:6"], latency=[{"scale": 1.0, "status": "ok",
                                "average_latency": 1.0, "latency_bound": 2.0}]) + b"\n" + L["complete:6"].encode()
                                + b"\n", "latency 1 at scale 1 below its lower bound 2", 1, 1),
    "negative seconds": (lambda L: _edit(L["ring:6"], seconds=-3.0) + b"\n" + L["complete:6"].encode() + b"\n",
                         "seconds -3 is negative", 1, 1),
    "unknown status": (lambda L: _edit(L["ring:6"], status="great") + b"\n" + L["complete:6"].encode() + b"\n",
                       "status 'great' is not one of ok, pruned, failed", 1, 1),
    "no capacity": (lambda L: _edit(L["ring:6"], capacity=None) + b"\n" + L["complete:6"].encode() + b"\n",
                    "status ok without its capacity", 1, 1),
    "lambda a string": (lambda L: _edit(L["ring:6"], **{"capacity.lambda": "1.1"}) + b"\n"
                        + L["complete:6"].encode() + b"\n", "field 'capacity.lambda' must be a number, got '1.1'",
                        1, 1),
    "spec missing": (lambda L: _edit(L["ring:6"], spec=None) + b"\n" + L["complete:6"].encode() + b"\n",
                     "missing field 'spec'", 1, 1),
    "spec a number": (lambda L: _edit(L["ring:6"], spec=6) + b"\n" + L["complete:6"].encode() + b"\n",
                      "field 'spec' must be a string", 1, 1),
    "cost a list": (lambda L: _edit(L["ring:6"], cost=[6]) + b"\n" + L["complete:6"].encode() + b"\n",
                    "field 'cost' must be an object", 1, 1),
    # an interrupted run: the last line cut short; set aside quietly
    "last line cut short": (lambda L: L["ring:6"].encode() + b"\n" + L["complete:6"].encode()[:40], None, 1, 1),
    # a last line that is whole but has lost its newline is kept (and the next append does not join it)
    "no final newline": (lambda L: _log(L, tail=b""), None, 0, 0),
    "blank lines": (lambda L: b"\n\n" + _log(L, b"", b"   "), None, 0, 0),
}


@pytest.fixture
def no_report(monkeypatch):
    """Runs without the report (1.5 s of figures each): these tests are about the logs."""
    import synth.report

    monkeypatch.setattr(synth.report, "write_outputs", lambda res, out: None)


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_log_is_set_aside_and_recomputed(case, clean, tmp_path, capsys, no_report):
    res, lines = clean
    make, warning, recomputed, rejected = CASES[case]
    (tmp_path / "records.jsonl").write_bytes(make(lines))
    again = run(study_from_dict(TINY), tmp_path)
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("toposynth: warning")]
    if warning is None:
        assert err == []
    else:
        assert len(err) == 1 and warning in err[0] and "will be recomputed" in err[0]
    assert len(SPECS) - again.resumed == recomputed
    # the final records are a clean run's: the impossible record was not trusted (the ring is not first)
    assert strip(again.records) == strip(res.records) and again.ranking == res.ranking == ["complete:6", "ring:6"]
    # the log is clean now: one record per candidate, and the rerun warns no more and evaluates nothing
    log = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines() if x.strip()]
    assert sorted(x["spec"] for x in log) == sorted(SPECS)
    rej = rejected_path(tmp_path / "records.jsonl")
    got = [json.loads(x) for x in rej.read_text().splitlines()] if rej.exists() else []
    assert len(got) == rejected
    assert all(x["log"] == "records.jsonl" and x["reason"] and x["quiet"] == (warning is None) for x in got)
    third = run(study_from_dict(TINY), tmp_path)
    assert third.resumed == len(SPECS) and "warning" not in capsys.readouterr().err


def test_the_rejected_file_keeps_the_line_and_the_reason(clean, tmp_path):
    _, lines = clean
    bad = _edit(lines["ring:6"], **{"capacity.lambda": 99})
    (tmp_path / "records.jsonl").write_bytes(bad + b"\n" + b"\xff\n" + lines["complete:6"].encode() + b"\n")
    fp = json.loads(lines["ring:6"])["fingerprint"]
    got = read_log(tmp_path / "records.jsonl", fp, lambda d: CandidateRecord.from_dict(d).validate(), warn=False)
    assert sorted(got.records) == ["complete:6"] and [x.line for x in got.set_aside] == [1, 2]
    rows = [json.loads(x) for x in (tmp_path / "records.rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 2]
    assert rows[0]["text"].encode() == bad and rows[0]["reason"].startswith("lambda 99 above its upper bound 1.11")
    # the undecodable byte survives as an escape: the original bytes come back
    assert rows[1]["reason"] == "not UTF-8 text" and rows[1]["text"].encode("utf-8", "surrogateescape") == b"\xff"
    assert (tmp_path / "records.jsonl").read_text() == lines["complete:6"] + "\n"


def test_records_of_another_study_are_kept_untouched(clean, tmp_path, capsys, no_report):
    res, lines = clean
    # the same directory used by an edited study: its records (not ours to judge, even an odd one) stay byte for byte
    other = [_edit(lines["ring:6"], fingerprint="0123456789abcdef", **{"capacity.lambda": 99}),
             _edit(lines["complete:6"], fingerprint="0123456789abcdef")]
    content = other[0] + b"\n" + lines["ring:6"].encode() + b"\n" + other[1] + b"\n42\n"
    (tmp_path / "records.jsonl").write_bytes(content)
    again = run(study_from_dict(TINY), tmp_path)
    assert "1 damaged or invalid record set aside" in capsys.readouterr().err
    assert again.resumed == 1 and strip(again.records) == strip(res.records)
    log = (tmp_path / "records.jsonl").read_bytes().splitlines()
    assert log[:3] == [other[0], lines["ring:6"].encode(), other[1]] and len(log) == 4


def test_a_damaged_simulation_log_is_recomputed(tmp_path, capsys, no_report):
    d = TINY | {"simulation": {"top": 1, "step": 0.5, "max_load": 1.0}}
    res = run(study_from_dict(d), tmp_path)
    sim = res.simulation[0]
    assert sim["status"] == "ok" and 0 < sim["saturation"] <= max(p["accepted"] for p in sim["points"])
    path = tmp_path / "simulation.jsonl"
    line = json.loads(path.read_text())
    path.write_text(json.dumps(line | {"saturation": 99.0}) + "\n")
    again = run(study_from_dict(d), tmp_path)
    err = capsys.readouterr().err
    assert "simulation.jsonl: 1 damaged or invalid record set aside in simulation.rejected.jsonl" in err
    assert "saturation 99 above the highest accepted load of its points" in err
    assert again.simulation[0]["saturation"] == sim["saturation"]        # simulated again, same seed, same figure


def test_record_validation_messages():
    ok = {"spec": "ring:6", "status": "ok", "cost": {"routers": 6, "pes": 6, "radix": 3, "ports": 18, "links": 6},
          "capacity": {"lambda": 1.1, "upper_bound": 1.12, "gap": 0.02}, "seconds": 1.0}
    r = CandidateRecord.from_dict(ok).validate()
    assert r.capacity.lam == 1.1 and r.cost.links == 6
    # lambda a hair above its bound by rounding is accepted
    assert CandidateRecord.from_dict(ok | {"capacity": ok["capacity"] | {"lambda": 1.12 * (1 + 1e-12)}}).validate()
    for bad, msg in [([], "a record must be a JSON object, got list"),
                     (ok | {"status": True}, "field 'status' must be a string, got True"),
                     (ok | {"routers": 6.5}, "field 'routers' must be an integer"),
                     (ok | {"cost": ok["cost"] | {"links": None}}, "missing field 'cost.links'"),
                     (ok | {"capacity": ok["capacity"] | {"upper_bound": True}}, "'capacity.upper_bound' must be a number"),
                     (ok | {"latency": [{"scale": 1.0}]}, "missing field 'latency.status'"),
                     (ok | {"average_distance": -1.0}, "average distance -1 is negative")]:
        with pytest.raises(Exception, match=msg) as e:
            CandidateRecord.from_dict(bad).validate()
        assert type(e.value).__name__ == "RecordError" and "\n" not in str(e.value)
    s = {"spec": "ring:6", "status": "ok", "saturation": 0.5, "routing": "dor", "seconds": 1.0,
         "points": [{"offered": 0.5, "accepted": 0.5, "latency": 9.0, "hops": 1.5, "deadlock": False, "load": 0.5}]}
    assert validate_simulation(s, 1.0) is s
    for bad, msg in [(s | {"saturation": -0.1}, "saturation -0.1 is negative"),
                     (s | {"points": [s["points"][0] | {"load": 2.0}]}, "load 2 above the study's max_load 1"),
                     (s | {"points": [s["points"][0] | {"deadlock": 0}]}, "deadlock' must be true or false"),
                     (s | {"status": "fine"}, "simulation status 'fine' is not one of ok, failed")]:
        with pytest.raises(Exception, match=msg):
            validate_simulation(bad, 1.0)


# ------------------------------------------------------------------- output paths
def _one_error(capsys, *needles):
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("toposynth: error: "), err
    for n in needles:
        assert n in err[0], err[0]
    return err[0]


def _study_file(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text('[candidates]\nspecs = ["ring:6", "complete:6"]\n[ranking]\nobjective = "capacity"\n'
                 '[cross_check]\ntop = 0\n')
    return str(p)


def test_run_out_refused_before_any_work(tmp_path, capsys, monkeypatch):
    from synth import runner as R

    def boom(*a, **k):  # evaluate must not be reached
        raise AssertionError("a candidate was evaluated")

    monkeypatch.setattr(R, "evaluate", boom)
    study = _study_file(tmp_path)
    f = tmp_path / "afile"
    f.write_text("x")
    assert main(["run", study, "--out", str(f), "--quiet"]) == 2
    # the path is quoted whole up to 80 characters, else cut in the middle: the temporary folder's name is as long
    # as the machine makes it, so only the path's end is looked for
    _one_error(capsys, "--out ", "afile is a file; give a directory")
    assert main(["run", study, "--out", str(f / "sub"), "--quiet"]) == 2
    _one_error(capsys, "cannot create ", "afile/sub", "choose another --out")
    assert main(["run", study, "--out", "/proc/no/such", "--quiet"]) == 2
    _one_error(capsys, "cannot create /proc/no/such: No such file or directory; choose another --out")
    for name in ("records.jsonl", "results.json", "report.html"):
        d = tmp_path / f"with-{name}"
        (d / name).mkdir(parents=True)
        assert main(["run", study, "--out", str(d), "--quiet"]) == 2
        _one_error(capsys, f"{d / name} is a directory where a file is written; remove it or choose another --out")
        assert not (d / "records.jsonl").is_file() and not (d / "study.json").exists()
    # an unwritable directory (root writes everywhere: the probe's failure is simulated)
    import common.paths as P

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(P.tempfile, "mkstemp", denied)
    (tmp_path / "ro").mkdir()
    assert main(["run", study, "--out", str(tmp_path / "ro"), "--quiet"]) == 2
    _one_error(capsys, f"cannot write to {tmp_path / 'ro'}: Permission denied; choose another --out")
    assert list((tmp_path / "ro").iterdir()) == []


def test_run_out_creates_missing_parents(tmp_path, capsys):
    out = tmp_path / "a" / "b" / "c"
    assert main(["run", _study_file(tmp_path), "--out", str(out), "--quiet"]) == 0
    assert len((out / "records.jsonl").read_text().splitlines()) == 2 and (out / "report.html").is_file()


def test_a_failed_results_write_keeps_the_records(tmp_path, capsys, monkeypatch):
    import synth.report as report

    def full(res, out):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "results.json"))

    monkeypatch.setattr(report, "write_outputs", full)
    out = tmp_path / "out"
    assert main(["run", _study_file(tmp_path), "--out", str(out), "--quiet"]) == 2
    _one_error(capsys, f"cannot write {out / 'results.json'}: No space left on device",
               f"the 2 records are kept in {out / 'records.jsonl'}", "rerun the same command")
    assert sorted(json.loads(x)["spec"] for x in (out / "records.jsonl").read_text().splitlines()) == sorted(SPECS)
    monkeypatch.undo()
    res = run(study_from_dict(TINY), out)
    assert res.resumed == 2 and (out / "results.json").is_file()


def test_enumerate_out(tmp_path, capsys):
    assert main(["enumerate", "--nodes", "5", "--max-degree", "3", "--out", str(tmp_path)]) == 2
    _one_error(capsys, f"--out {tmp_path} is a directory; give a file name")
    f = tmp_path / "f"
    f.write_text("x")
    assert main(["enumerate", "--nodes", "5", "--max-degree", "3", "--out", str(f / "g6")]) == 2
    _one_error(capsys, f"--out {f / 'g6'}: {f} is a file, not a directory")
    # a missing parent is created, as for run --out
    path = tmp_path / "new" / "graphs.g6"
    assert main(["enumerate", "--nodes", "5", "--max-degree", "3", "--out", str(path)]) == 0
    # the connected graphs of 5 nodes and degree <= 3 in networkx's atlas of all small graphs: 10
    assert len(path.read_text().splitlines()) == count_graphs(5, 3) == 10


def test_simulate_output_files_checked_before_simulating(tmp_path, capsys, monkeypatch):
    import sim.engine

    def boom(*a, **k):
        raise AssertionError("simulated")

    monkeypatch.setattr(sim.engine, "saturation", boom)
    base = ["simulate", "ring:6", "--saturation"]
    assert main(base + ["--plot", str(tmp_path)]) == 2
    _one_error(capsys, f"--plot {tmp_path} is a directory; give a file name")
    assert main(base + ["--plot", str(tmp_path / "p.xyz")]) == 2
    _one_error(capsys, "unknown image format 'xyz'; use one of", "png")
    assert main(base + ["--plot", "/proc/no/p.png"]) == 2
    _one_error(capsys, "cannot create /proc/no: No such file or directory; choose another --plot")
    assert main(["simulate", "ring:4", "--trace", "nas:cg:4:S:1", "--write-trace", str(tmp_path)]) == 2
    _one_error(capsys, f"--write-trace {tmp_path} is a directory; give a file name")


def test_report_command_paths(clean, tmp_path, capsys):
    res, lines = clean
    assert main(["report", str(tmp_path / "missing")]) == 2
    _one_error(capsys, "does not exist; give the --out directory")
    assert main(["report", str(tmp_path)]) == 2
    _one_error(capsys, f"{tmp_path} holds no results.json")
    good = res.to_dict()
    for content, needle in [("{not json", "not JSON"), ("[1, 2]", "not a results object (a JSON list)"),
                            (json.dumps({k: v for k, v in good.items() if k != "records"}), "'records' missing"),
                            (json.dumps(good | {"records": [good["records"][0] | {"capacity": good["records"][0]
                             ["capacity"] | {"lambda": 99}}, good["records"][1]]}), "record 1: lambda 99 above"),
                            (json.dumps(good | {"ranking": ["torus:9x9"]}), "ranked 'torus:9x9' has no record")]:
        (tmp_path / "results.json").write_text(content)
        assert main(["report", str(tmp_path)]) == 2
        _one_error(capsys, f"{tmp_path / 'results.json'}", needle)
    (tmp_path / "results.json").write_text(json.dumps(good))
    (tmp_path / "report.html").mkdir()
    assert main(["report", str(tmp_path)]) == 2
    _one_error(capsys, f"cannot write {tmp_path / 'report.html'}", "results.json is intact")
    (tmp_path / "report.html").rmdir()
    assert main(["report", str(tmp_path)]) == 0
    assert "complete:6" in (tmp_path / "report.html").read_text()


def test_a_sweep_checks_every_variant_directory_first(tmp_path, capsys):
    d = {"candidates": {"specs": ["ring:6", "complete:6"]}, "ranking": {"objective": "capacity"},
         "cross_check": {"top": 0}, "traffic": {"pattern": "random", "count": [8, 12]}}
    (tmp_path / "count=12").write_text("not a directory")
    with pytest.raises(Exception, match=r"--out .*count=12 is a file; give a directory") as e:
        run(study_from_dict(d), tmp_path)
    assert type(e.value).__name__ == "OutputPathError"
    # refused before the first variant evaluated anything
    assert not (tmp_path / "count=8" / "records.jsonl").exists()


def test_a_log_another_run_has_open_is_not_rewritten(clean, tmp_path):
    from synth.record_log import open_log

    _, lines = clean
    fp = json.loads(lines["ring:6"])["fingerprint"]
    path = tmp_path / "records.jsonl"
    content = lines["ring:6"].encode() + b"\n42\n" + lines["complete:6"].encode()[:30]
    path.write_bytes(content)
    parse = lambda d: CandidateRecord.from_dict(d).validate()    # noqa: E731
    other = open_log(path)              # another run appending to the same log
    got = read_log(path, fp, parse, warn=False)
    assert sorted(got.records) == ["ring:6"] and not got.repaired
    assert "1 damaged or invalid record ignored (another run has the log open" in got.warning()
    assert path.read_bytes().startswith(content) and not rejected_path(path).exists()
    # that run's next record is not glued to the line cut short: it started with a newline
    other.append(json.loads(lines["complete:6"]))
    other.close()
    got = read_log(path, fp, parse, warn=False)
    assert sorted(got.records) == sorted(SPECS) and got.repaired
    assert [(x.line, x.quiet) for x in got.set_aside] == [(2, False), (3, False)]
    assert path.read_text().splitlines() == [lines["ring:6"], lines["complete:6"]]
