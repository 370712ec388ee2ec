"""Parallel sweeps (``jobs``) give the serial run's numbers; progress reports change none;
``toposynth simulate --sweep --jobs`` prints each point as it finishes and stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

import candidates as cd
import sim
from sim import preset
from sim.routers import iq
from sim.routers import simple as driver
from sim.cli import main
from sim.search import DEADLOCK, OK, SATURATED, UNSTABLE, LoadSearch, SearchState, SweepProgress

SRC = str(Path(sim.__file__).resolve().parents[1])
ENV = {**os.environ, "PYTHONPATH": SRC}
TIMINGS = ("seconds", "cpu_seconds", "compile_seconds", "router_cycles_per_second")


def strip(d: dict) -> dict:
    """A SweepResult's dict without its timings (the only fields that differ between two equal runs)."""
    return {**d, "points": [{k: v for k, v in p.items() if k not in TIMINGS} for p in d["points"]]}


# ------------------------------------------------------------------ the decision rules, without simulating
def serial_accepted(f, step, max_load, tolerance=0.95):
    """The accepted-definition loop as it was written before the search became a state machine."""
    points, seen, x = [], 0, step
    while x <= max_load + 1e-12:
        r = f(x)
        points.append(r)
        if r.deadlock or r.accepted < tolerance * r.offered:
            seen += 1
            if seen >= 3 or r.deadlock:
                break
        x = round(x + step, 10)
    return points


def serial_stable(f, step, max_load, resolution):
    points, lo, hi, x = [], 0.0, None, step
    while x <= max_load + 1e-12:
        r = f(x)
        points.append(r)
        if not r.stable:
            hi = x
            break
        lo = x
        x = round(x + step, 10)
    if hi is not None:
        while hi - lo > resolution + 1e-12:
            mid = round((lo + hi) / 2, 10)
            r = f(mid)
            points.append(r)
            if r.stable:
                lo = mid
            else:
                hi = mid
    return points


def fake(knee: float, dead: float = 9.0):
    """A network that accepts everything below ``knee`` and deadlocks from ``dead`` on."""
    def f(x):
        return SimpleNamespace(load=x, offered=x, accepted=min(x, knee), deadlock=x >= dead,
                               stable=x <= knee and x < dead)
    return f


def drive(search: LoadSearch, f, jobs: int, rng: random.Random) -> tuple[list, int]:
    """run_search's loop with the workers finishing in a random order; the path and how many points ran."""
    st, running, ran = SearchState(search), [], 0
    while not st.done:
        running += st.wanted(jobs - len(running), running)
        x = running.pop(rng.randrange(len(running)))
        ran += 1
        st.add(x, f(x))
    return st.path, ran


@pytest.mark.parametrize("jobs", [1, 2, 3, 5])
@pytest.mark.parametrize("knee,dead", [(0.42, 9.0), (0.05, 9.0), (0.97, 9.0), (2.0, 9.0), (0.42, 0.6), (0.3, 0.3)])
def test_speculative_search_walks_the_serial_path(jobs, knee, dead):
    rng = random.Random(jobs * 1000 + int(knee * 100))
    f = fake(knee, dead)
    cases = [(LoadSearch.accepted(0.05, 1.0), serial_accepted(f, 0.05, 1.0)),
             (LoadSearch.accepted(0.1, 0.55, tolerance=0.9), serial_accepted(f, 0.1, 0.55, 0.9)),
             (LoadSearch.stable(0.05, 1.0, 0.005), serial_stable(f, 0.05, 1.0, 0.005)),
             (LoadSearch.stable(0.25, 1.0, 0.01), serial_stable(f, 0.25, 1.0, 0.01)),
             (LoadSearch.of_loads([0.3, 0.1, 0.1, 0.9]), [f(x) for x in (0.3, 0.1, 0.1, 0.9)])]
    for search, ref in cases:
        for _ in range(5):
            path, ran = drive(search, f, jobs, rng)
            assert [p.load for p in path] == [p.load for p in ref]
            assert ran <= len(ref) + 2 * (jobs - 1) * len(ref)      # speculation is bounded
            if jobs == 1:
                assert ran == len(set(p.load for p in ref))       # serially, nothing speculative


def test_next_serial_load_first_then_the_likely_ones():
    st = SearchState(LoadSearch.stable(0.1, 1.0, 0.01))
    assert st.wanted(3, ()) == [0.1, 0.2, 0.3]
    st.add(0.1, fake(0.15)(0.1))
    st.add(0.2, fake(0.15)(0.2))                 # unstable: the bisection of [0.1, 0.2] starts
    assert [p.load for p in st.path] == [0.1, 0.2] and st.outcomes == [OK, UNSTABLE]
    assert st.wanted(3, ()) == [0.15, 0.175, 0.125]   # mid, then its upper and lower halves
    assert st.wanted(2, (0.15,)) == [0.175, 0.125]
    acc = SearchState(LoadSearch.accepted(0.25, 1.0))
    acc.outcomes = [OK, SATURATED, DEADLOCK]
    assert acc.done


# ------------------------------------------------------------------ real simulations, serial == parallel
CFG = preset("default", routing="dor", vcs=2, warmup=300, measure=1500)


@pytest.mark.parametrize("kind", ["sweep", "accepted", "stable"])
def test_parallel_equals_serial(kind):
    t = cd.from_spec("torus:4x4")
    if kind == "sweep":
        run = lambda jobs: sim.sweep(t, CFG, "uniform", [0.2, 0.5, 0.8, 0.35], seed=4, jobs=jobs)
    elif kind == "accepted":
        run = lambda jobs: sim.saturation(t, CFG, "uniform", step=0.1, seed=4, jobs=jobs)
    else:
        cfg = preset("booksim", routing="dor")
        run = lambda jobs: sim.saturation(t, cfg, "uniform", step=0.2, resolution=0.02, seed=4,
                                          definition="stable", jobs=jobs)
    a, b = run(1), run(2)
    assert strip(a.to_dict()) == strip(b.to_dict())
    assert len(a.points) >= 4 and a.saturation > 0
    if kind == "sweep":
        assert [p.load for p in b.points] == [0.2, 0.5, 0.8, 0.35]


def test_progress_events_in_serial_order():
    t = cd.from_spec("ring:8")
    seen: list = []
    res = sim.saturation(t, "singleflit", "uniform", step=0.1, seed=1, jobs=2, progress=seen.append)
    pts = [e.point for e in seen if isinstance(e, SweepProgress) and e.point is not None]
    assert [p.load for p in pts] == [p.load for p in res.points]
    assert all(len(e.running) <= 2 for e in seen) and seen[-1].finished == len(res.points)


def test_progress_changes_no_number(monkeypatch):
    """Reporting splits the run into many short kernel calls (here 16 cycles each): same numbers."""
    t = cd.from_spec("torus:8x8")
    runs = [(CFG, 0.3), (preset("default", routing="adaptive", warmup=200, measure=1000, drain=50), 0.9),
            (preset("booksim", measurement="fixed", warmup=300, measure=1500), 0.3), (preset("booksim"), 0.3)]
    for cfg, load in runs:
        ref = sim.simulate(t, cfg, "uniform", load, seed=2).to_dict()
        monkeypatch.setattr(driver, "PROGRESS_SECONDS", 1e-9)
        monkeypatch.setattr(iq, "PROGRESS_SECONDS", 1e-9)
        seen: list = []
        got = sim.simulate(t, cfg, "uniform", load, seed=2, progress=seen.append).to_dict()
        monkeypatch.undo()
        assert {k: v for k, v in got.items() if k not in TIMINGS} == {k: v for k, v in ref.items() if k not in TIMINGS}
        assert len(seen) >= 20 and [p.cycles for p in seen] == sorted(p.cycles for p in seen)
        assert seen[-1].cycles == got["cycles"]
        last = seen[-1]
        if cfg.measurement == "fixed":     # the accepted load so far is the run's, once the window is over
            assert last.phase == "drain" and last.accepted == pytest.approx(got["accepted"])


# ------------------------------------------------------------------ the command line
def cli(capsys, *argv):
    code = main(["simulate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_jobs_output_equals_serial(capsys):
    args = ["torus:4x4", "--routing", "dor", "--vcs", "2", "--warmup", "300", "--measure", "1500", "--seed", "3"]
    for mode in (["--sweep", "--loads", "0.2,0.6,0.9"], ["--saturation", "--step", "0.15"]):
        c1, text1, _ = cli(capsys, *args, *mode)
        c2, text2, err2 = cli(capsys, *args, *mode, "--jobs", "2")
        assert c1 == c2 == 0 and text1 == text2 and "saturation throughput" in text1 and err2 == ""
        _, j1, _ = cli(capsys, *args, *mode, "--json")
        _, j2, _ = cli(capsys, *args, *mode, "--json", "--jobs", "2")
        assert strip(json.loads(j1)) == strip(json.loads(j2))
    # with --progress, the loads running are said on stderr
    c, _, err = cli(capsys, *args, "--sweep", "--loads", "0.2,0.6,0.9", "--jobs", "2", "--progress")
    assert c == 0 and err.startswith("toposynth: running loads 0.2, 0.6 (0 points done)\n")


@pytest.mark.parametrize("argv,msg", [
    (["--sweep", "--jobs", "-1"], "--jobs must be >= 0"),
    (["--jobs", "2"], "--jobs runs the loads of --sweep or --saturation"),
    (["--progress", "0"], "--progress takes the seconds"),
])
def test_cli_errors(capsys, argv, msg):
    code, out, err = cli(capsys, "ring:8", *argv)
    assert code == 2 and out == "" and err.startswith("toposynth: error: ") and msg in err and err.count("\n") == 1


def test_progress_lines_of_a_long_run():
    """A run of a few seconds (2 s on an idle core): cycle lines on stderr with --progress, none without (stderr is a pipe)."""
    argv = [sys.executable, "-m", "synth.cli", "simulate", "torus:16x16", "--load", "0.3", "--measure", "120000",
            "--drain", "2000"]
    with_p = patience.run(argv + ["--progress", "0.2"], cpu=300, env=ENV, capture_output=True, text=True)
    assert with_p.returncode == 0, with_p.stderr
    lines = [x for x in with_p.stderr.splitlines() if x.startswith("toposynth: load 0.3: cycle ")]
    assert len(lines) >= 2 and "of 122000 planned (measurement), accepted 0.3" in "\n".join(lines)
    without = patience.run(argv, cpu=300, env=ENV, capture_output=True, text=True)
    assert without.returncode == 0 and "cycle" not in without.stderr
    assert without.stdout == with_p.stdout.replace(_seconds_row(with_p.stdout), _seconds_row(without.stdout))


def _seconds_row(text: str) -> str:
    return next(x for x in text.splitlines() if x.startswith("cycles "))


def test_ctrl_c_stops_the_pool_and_keeps_the_printed_points(tmp_path):
    out, err = tmp_path / "out", tmp_path / "err"
    argv = [sys.executable, "-m", "synth.cli", "simulate", "torus:16x16", "--sweep", "--loads", "0.1:0.9:0.1",
            "--measure", "40000", "--jobs", "2"]
    with out.open("w") as fo, err.open("w") as fe:
        # SIGINT back to its default in the child: a test run started in the background by a shell without
        # job control inherits it ignored, and Python would then never raise KeyboardInterrupt
        p = subprocess.Popen(argv, env=ENV, stdout=fo, stderr=fe, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # the heading, the columns and one point
        patience.wait_for(lambda: out.read_text().count("\n") >= 3, "a point printed", cpu=300, proc=p)
        kids = patience.descendants(p.pid)
        assert len(kids) >= 2                          # the workers (and loky's helper)
        os.killpg(p.pid, signal.SIGINT)                # Ctrl-C in a terminal: the whole foreground group
        assert p.wait(60) == 130
    finally:
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
    patience.wait_for(lambda: not patience.alive(kids), "the workers to end", wall=15)
    text, errs = out.read_text(), err.read_text()
    rows = text.splitlines()[2:]
    assert rows and float(rows[0].split()[0]) == pytest.approx(0.1, abs=0.01)
    assert "saturation throughput" not in text
    assert "Traceback" not in errs and errs.rstrip().endswith("toposynth: interrupted")
