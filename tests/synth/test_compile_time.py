"""A first run's compile time is reported apart from the run time, and announced once.

The command-line checks run in fresh interpreters with numba's cache in a folder of the test (cold,
then warm); the record check compiles a fresh function inside an evaluation, in this process.
"""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from numba import njit

import synth.evaluate as ev
from common import compiletime
from synth.cli import main
from synth.records import CandidateRecord
from synth.study import study_from_dict

SRC = str(Path(__file__).resolve().parents[2] / "src")
NOTICE = "compiling the PTAS's kernels (first run only, about"


def _cli(args: list[str], cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "synth.cli", *args], env=env, capture_output=True, text=True,
                          check=True)


def test_a_cold_compile_is_announced_once_and_kept_out_of_the_time(tmp_path):
    cache = tmp_path / "numba-cache"
    cold = _cli(["flow", "ring:6", "--solver", "ptas"], cache)
    assert cold.stderr.count(NOTICE) == 1
    assert "s compiling, first run)" in cold.stdout          # "[ptas] ...  (0.4 s; +7.1 s compiling, first run)"
    warm = _cli(["flow", "ring:6", "--solver", "ptas", "--json"], cache)
    assert "compiling" not in warm.stderr
    d = json.loads(warm.stdout)
    assert d["compile_seconds"] < 0.05 and d["seconds"] >= 0.0


def test_describe_announces_its_kernels_once(tmp_path):
    cache = tmp_path / "numba-cache"
    note = "compiling the analytics' kernels (first run only, about"
    assert _cli(["describe", "ring:6"], cache).stderr.count(note) == 1
    assert note not in _cli(["describe", "ring:6"], cache).stderr


def test_json_and_quiet_silence_the_notices(capsys):
    try:
        main(["describe", "ring:4", "--json"])
        assert not compiletime.notices_enabled()
        main(["describe", "ring:4"])
        assert compiletime.notices_enabled()
        main(["run", "--check", "--quiet"])
        assert not compiletime.notices_enabled()
    finally:
        compiletime.set_notices(True)
    capsys.readouterr()


def test_a_records_time_leaves_its_compile_out(monkeypatch):
    real = ev.distance_stats

    def compiling_first(topo):
        @njit
        def fresh(x):          # a new function every call: it compiles inside the evaluation
            return x + 1

        fresh(1)
        return real(topo)

    monkeypatch.setattr(ev, "distance_stats", compiling_first)
    study = study_from_dict({"candidates": {"specs": ["ring:6"]}, "ranking": {"objective": "capacity"}})
    t = time.perf_counter()
    r = ev.evaluate("ring:6", study)
    wall = time.perf_counter() - t
    assert r.status == "ok" and r.compile_seconds > 0.0
    assert r.seconds + r.compile_seconds == pytest.approx(wall, abs=0.05)
    d = r.to_dict()
    assert d["compile_seconds"] == r.compile_seconds and d["seconds"] == r.seconds
    assert CandidateRecord.from_dict(d).validate() == r
    old = {k: v for k, v in d.items() if k != "compile_seconds"}        # a record written before the field
    assert CandidateRecord.from_dict(old).compile_seconds == 0.0


PARALLEL = textwrap.dedent("""
    import json, time
    from synth.runner import run
    from synth.study import study_from_dict
    s = study_from_dict({"candidates": {"specs": ["ring:8", "torus:4x2", "hypercube:3", "mesh:4x2"]},
                         "ranking": {"objective": "capacity", "prune": False}, "cross_check": {"top": 0}})
    t = time.perf_counter()
    res = run(s, jobs=2, progress=True)
    wall = time.perf_counter() - t
    print(json.dumps({"records": [[r.seconds, r.compile_seconds] for r in res.records],
                      "seconds": res.seconds, "compile": res.compile_seconds, "wall": wall}))
""")


@pytest.mark.slow
def test_workers_measure_their_own_compile(tmp_path):
    env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    out = subprocess.run([sys.executable, "-c", PARALLEL], env=env, capture_output=True, text=True, check=True)
    d = json.loads(out.stdout.strip().splitlines()[-1])
    # each loky worker compiles the PTAS on its first candidate: that record says so, its time does not
    assert any(c > 0.5 for _, c in d["records"])
    assert all(s < c for s, c in d["records"] if c > 0.5)
    # the run's compile is the wall time some process compiled: both workers at once count once
    assert 0.5 < d["compile"] < d["wall"]
    assert d["seconds"] + d["compile"] <= d["wall"] + 0.05
    assert out.stderr.count(NOTICE) == 1          # the parent's; the workers stay silent
