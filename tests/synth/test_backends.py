"""Parallel backends of `toposynth run`: one executor per run; a real dask cluster
(scheduler and workers as separate processes) losing a worker mid-run gives the
same numbers as loky; worker processes die with their parent; Ctrl-C keeps every
finished evaluation and the rerun resumes from it."""

import concurrent.futures
import importlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import synth
from patience import alive, descendants, finish, wait_for
from candidates import iter_graph6
from synth.backends import Executor, check_scheduler
from synth.cli import main
from synth.runner import backend_settings, run
from synth.study import StudyError, study_from_dict
from synth.toml_out import dumps

#: the source tree under test, for the subprocesses (the venv's editable install may point elsewhere)
SRC = str(Path(synth.__file__).resolve().parents[1])
ENV = {**os.environ, "PYTHONPATH": SRC}
ENV.pop("TOPOSYNTH_VERBOSE", None)


def products(n: int, count: int = 256, name: str = "products") -> dict:
    """n candidates of 64 routers (an 8-node graph of degree <= 3 times a ring of 8), capacity
    under random demands: 0.05-0.15 s per evaluation; more than one wave of 16 when n > 16."""
    graphs = list(iter_graph6(8, 3))[:n]
    return {"name": name, "seed": 5, "candidates": {"specs": [f"product:g6:{g}*ring:8" for g in graphs]},
            "traffic": {"pattern": "random", "count": count}, "ranking": {"objective": "capacity", "eps": 0.05},
            "cross_check": {"top": 0}}


def strip(records: list[dict]) -> list[dict]:
    """Records without their timings: what must not depend on the backend."""
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in ("seconds", "compile_seconds")}
        if "capacity" in r:
            r["capacity"] = {k: v for k, v in r["capacity"].items() if k != "seconds"}
        out.append(r)
    return out


def lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip().endswith("}")]


def kill_all(procs) -> None:
    """Clean up what a test started (its own processes only, by pid)."""
    for pid in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "synth.cli", *args]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The products study run in-process, one job, no pool: the numbers every backend must give."""
    d = products(40)
    res = run(study_from_dict(d), tmp_path_factory.mktemp("ref"), jobs=1)
    return d, res


# -------------------------------------------------------------------- the executor
def test_inline_loky_and_dask_executors_give_every_result():
    with Executor("loky", jobs=1) as ex:
        assert ex.inline
        for x in range(5):
            ex.submit(abs, -x)
        assert [f.result() for f in ex.as_completed()] == [0, 1, 2, 3, 4]      # inline: in order
    with Executor("loky", jobs=2) as ex:
        for x in range(6):
            ex.submit(abs, -x)
        assert len(ex.pending) == 3                                             # jobs + 1 in the pool
        assert sorted(f.result() for f in ex.as_completed()) == [0, 1, 2, 3, 4, 5]
        assert ex.pending == () and ex.finished() == []
    pytest.importorskip("distributed")
    from distributed import wait

    with Executor("dask", jobs=1) as ex:
        for x in range(4):
            ex.submit(abs, -x)
        assert len(ex.pending) == 4                                             # dask: all at once
        it = ex.as_completed()
        first = next(it).result()
        wait(list(ex.pending))
        # what an interrupted run keeps: every finished task not yet handed out
        assert sorted([first] + [f.result() for f in ex.finished()]) == [0, 1, 2, 3] and ex.pending == ()


def test_one_pool_serves_every_wave_variant_and_simulation(monkeypatch):
    loky = importlib.import_module("joblib.externals.loky")   # synth.backends imports it when a pool starts
    calls = []
    real = loky.get_reusable_executor

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(loky, "get_reusable_executor", counted)
    d = products(20, count=32)                                      # 2 waves
    d["traffic"]["count"] = [24, 32]                                # 2 variants
    d["simulation"] = {"top": 1, "step": 0.2, "max_load": 0.4}      # and the winners' simulations
    res = run(study_from_dict(d), None, jobs=2)
    assert len(res.variants) == 2 and all(len(r.simulation) == 1 for _, r in res.variants)
    assert len(calls) == 1


def test_a_killed_loky_worker_breaks_the_pool_and_finished_results_are_kept():
    from joblib.externals.loky.process_executor import BrokenProcessPool

    with Executor("loky", jobs=2) as ex:
        ex.submit(abs, -7)
        concurrent.futures.wait(ex.pending)               # finished before the pool breaks
        ex.submit(os._exit, 3)                            # a worker dies as if killed
        got = []
        with pytest.raises(BrokenProcessPool):
            for f in ex.as_completed():
                got.append(f.result())
        # the finished task is handed out before the broken one, or kept by finished(): never lost
        got += [f.result() for f in ex.finished()]
        assert got == [7]


_SLOW_MANAGER = """
import sys, time
from joblib.externals.loky import process_executor as pe
from synth.backends import Executor

woken = pe._ExecutorManagerThread.wait_result_broken_or_wakeup
def late(self):                      # loky's manager thread, slow to take up new work as on a busy machine
    out = woken(self)
    time.sleep(0.2)
    return out
pe._ExecutorManagerThread.wait_result_broken_or_wakeup = late

for _ in range(3):
    ex = Executor("loky", jobs=2)
    for i in range(5):
        ex.submit(abs, -i)
    for fut in ex.as_completed():    # the next task is handed to loky as this one is handed out
        break
    ex.close(abort=True)             # as a full disk or Ctrl-C stops the run at once
print("closed")
"""


def test_an_abort_just_after_a_hand_over_is_silent():
    """loky's manager thread fails with a KeyError traceback when the pool is shut down with
    ``kill_workers`` before it has taken a newly submitted task; the executor waits for that first.
    The thread is slowed down here so that the abort always comes in that moment."""
    r = subprocess.run([sys.executable, "-c", _SLOW_MANAGER], capture_output=True, text=True, env=ENV)
    assert (r.returncode, r.stdout, r.stderr) == (0, "closed\n", "")


def test_executor_rejects_bad_settings():
    with pytest.raises(StudyError, match="unknown backend 'mpi'"):
        Executor("mpi")
    with pytest.raises(StudyError, match="jobs must be a positive integer"):
        Executor("loky", jobs=0)
    with pytest.raises(StudyError, match="needs the dask backend"):
        Executor("loky", scheduler="tcp://127.0.0.1:8786")
    assert check_scheduler(" tcp://10.1.2.3:8786 ") == "tcp://10.1.2.3:8786"
    assert check_scheduler("head-node:8786") == "head-node:8786"
    for bad in ("tcp://head", "http://head:8786", "tcp://head:99999", "", 8786):
        with pytest.raises(StudyError, match="scheduler"):
            check_scheduler(bad)


# ----------------------------------------------------------- the [dask] section
def test_dask_section_is_validated_and_does_not_change_the_fingerprint():
    d = products(3)
    plain = study_from_dict(d)
    s = study_from_dict({**d, "dask": {"scheduler": "tcp://10.0.0.5:8786", "workers": 4}})
    assert s.dask == {"scheduler": "tcp://10.0.0.5:8786", "workers": 4}
    assert s.fingerprint() == plain.fingerprint()
    assert s.to_dict()["dask"] == s.dask and "dask" not in plain.to_dict()
    # the command line wins; a [dask] section makes dask the default backend
    assert backend_settings(s) == ("dask", 4, "tcp://10.0.0.5:8786")
    assert backend_settings(s, jobs=2, scheduler="tcp://other:1") == ("dask", 2, "tcp://other:1")
    assert backend_settings(s, backend="loky") == ("loky", 1, None)
    assert backend_settings(plain) == ("loky", 1, None)
    assert backend_settings(plain, scheduler="tcp://h:1") == ("dask", 1, "tcp://h:1")
    for bad, msg in (({"schedular": "tcp://h:1"}, "study field dask.schedular: unknown field; valid fields of "
                                                  "[dask]: scheduler, workers"),
                     ({"scheduler": "tcp://h"}, "study field dask.scheduler: 'tcp://h' is not a dask scheduler "
                                                "address"),
                     ({"workers": 0}, "study field dask.workers: must be an integer >= 1, got 0"),
                     ("tcp://h:1", "study field dask: must be a table")):
        with pytest.raises(StudyError) as exc:
            study_from_dict({**d, "dask": bad})
        assert str(exc.value).startswith(msg) and "\n" not in str(exc.value)


def test_cli_scheduler_errors_are_one_line(tmp_path, capsys, monkeypatch):
    f = tmp_path / "s.toml"
    f.write_text(dumps(products(2)))
    assert main(["run", str(f), "--out", str(tmp_path / "o"), "--scheduler", "localhost"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toposynth: error: --scheduler: 'localhost' is not a dask scheduler address") \
        and err.count("\n") == 1
    assert main(["run", str(f), "--out", str(tmp_path / "o"), "--backend", "loky", "--scheduler",
                 "tcp://127.0.0.1:8786"]) == 2
    assert "needs the dask backend" in capsys.readouterr().err
    pytest.importorskip("distributed")
    monkeypatch.setattr(importlib.import_module("synth.backends"), "CONNECT_TIMEOUT", 1)
    with socket.socket() as s:                 # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["run", str(f), "--out", str(tmp_path / "o"), "--quiet", "--scheduler",
                 f"tcp://127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toposynth: error: cannot reach the dask scheduler at tcp://127.0.0.1:{port}") \
        and err.count("\n") == 1


# ------------------------------------------------------ Ctrl-C keeps finished work
def test_an_interrupt_writes_every_finished_result_first(tmp_path, monkeypatch):
    """Deterministic: one result has been written, the other tasks in the
    pool have finished too, then Ctrl-C: they are written before the run stops."""
    from synth import runner as R
    seen: list = []

    class Interrupted(R.Executor):
        def as_completed(self):
            it = super().as_completed()
            yield next(it)
            seen.extend(self.pending)
            concurrent.futures.wait(seen)
            raise KeyboardInterrupt

    monkeypatch.setattr(R, "Executor", Interrupted)
    d = products(20)
    with pytest.raises(KeyboardInterrupt):
        run(study_from_dict(d), tmp_path, jobs=2)
    recs = lines(tmp_path / "records.jsonl")
    assert len(seen) == 3                       # jobs + 1 in the pool (the handed-out one replaced)
    assert len(recs) == 4 and {x.spec for f in seen for x in f.result()} < {r["spec"] for r in recs}


def test_ctrl_c_keeps_finished_candidates_and_the_rerun_resumes(tmp_path, reference, capsys):
    d, ref = reference
    f = tmp_path / "s.toml"
    f.write_text(dumps(d))
    out = tmp_path / "o"
    log = tmp_path / "err"
    with log.open("w") as err:
        # SIGINT back to its default first: a test run started in the background by a shell without job
        # control inherits it ignored, and Python then never raises KeyboardInterrupt (as it should not)
        p = subprocess.Popen(cli("run", str(f), "--out", str(out), "--jobs", "2"), env=ENV, stdout=subprocess.DEVNULL,
                             stderr=err, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(lambda: len(lines(out / "records.jsonl")) >= 3, "3 records", cpu=300, proc=p)
        kids = descendants(p.pid)
        os.killpg(p.pid, signal.SIGINT)          # Ctrl-C in a terminal: the whole foreground group
        assert p.wait(60) == 130
    finally:
        kill_all([p.pid])
    text = log.read_text()
    reported = re.findall(r"^  \[\d+/\d+\] (\S+): ", text, flags=re.M)
    recs = [r["spec"] for r in lines(out / "records.jsonl")]
    assert "Traceback" not in text
    assert text.rstrip().endswith("toposynth: interrupted; finished candidates are kept: rerun the same command "
                                  "to resume")
    assert 3 <= len(recs) < len(d["candidates"]["specs"])          # stopped mid-run
    assert sorted(recs) == sorted(set(recs)) and set(reported) <= set(recs) and len(reported) == len(recs)
    wait_for(lambda: not alive(kids), "the workers to end", wall=15)
    # the rerun (in-process, one job) evaluates only the rest, and the numbers are the uninterrupted run's
    capsys.readouterr()
    assert main(["run", str(f), "--out", str(out)]) == 0
    n = len(d["candidates"]["specs"])
    assert f"{n} candidates, {len(recs)} already done, {n - len(recs)} to evaluate" in capsys.readouterr().err
    res = json.loads((out / "results.json").read_text())
    assert res["resumed"] == len(recs) and res["ranking"] == ref.ranking
    assert strip(res["records"]) == strip([r.to_dict() for r in ref.records])


# ---------------------------------------------------- workers die with their parent
@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_workers_end_when_the_run_is_killed(tmp_path, backend):
    if backend == "dask":
        pytest.importorskip("distributed")
    f = tmp_path / "s.toml"
    f.write_text(dumps(products(60, count=512)))
    out = tmp_path / "o"
    p = subprocess.Popen(cli("run", str(f), "--out", str(out), "--jobs", "2", "--backend", backend, "--quiet"),
                         env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    kids: dict[int, int] = {}
    try:
        # busy: records are being written and both workers exist
        wait_for(lambda: len(lines(out / "records.jsonl")) >= 1 and len(descendants(p.pid)) >= 2,
                 "two busy workers", cpu=300, proc=p)
        kids = descendants(p.pid)
        os.kill(p.pid, signal.SIGKILL)
        p.wait(10)
        t0 = time.monotonic()
        wait_for(lambda: not alive(kids), f"the {backend} workers {alive(kids)} to end", wall=15)
        assert time.monotonic() - t0 < 15
    finally:
        kill_all([p.pid, *alive(kids)])


def test_a_loky_worker_killed_from_outside_stops_the_run_in_one_line(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(dumps(products(40)))
    out = tmp_path / "o"
    p = subprocess.Popen(cli("run", str(f), "--out", str(out), "--jobs", "2", "--quiet"), env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        def worker() -> int | None:
            for pid in descendants(p.pid):
                try:
                    if "loky" in Path(f"/proc/{pid}/cmdline").read_text() and \
                            "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text():
                        return pid
                except OSError:
                    pass
            return None

        wait_for(lambda: len(lines(out / "records.jsonl")) >= 2 and worker() is not None, "a busy worker", cpu=300,
                 proc=p)
        os.kill(worker(), signal.SIGKILL)
        _, err = p.communicate(timeout=60)
    finally:
        kill_all([p.pid])
    kept = len(lines(out / "records.jsonl"))
    assert p.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("toposynth: error: the sweep stopped: TerminatedWorkerError")
    assert f"the {kept} records in {out} are kept: rerun the same command to resume" in err


# ------------------------------------------------ a dask cluster losing a worker
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(args: list[str], log=None) -> subprocess.Popen:
    """``python -m dask ARGS`` (a scheduler or a worker) in a session of its own, its output into ``log``."""
    out = log if log is not None else subprocess.DEVNULL
    return subprocess.Popen([sys.executable, "-m", "dask", *args], env=ENV, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _scheduler(port: int) -> list[str]:
    return ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]


def _worker(addr: str) -> list[str]:
    # no nanny: killing the worker process is losing the worker (a nanny would restart it)
    return ["worker", addr, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard"]


def test_dask_cluster_losing_a_worker_gives_the_loky_numbers(tmp_path, reference):
    pytest.importorskip("distributed")
    d, ref = reference
    f = tmp_path / "s.toml"
    f.write_text(dumps(d))
    out = tmp_path / "o"
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    logs = tmp_path / "logs"
    logs.mkdir()
    procs: list[subprocess.Popen] = []

    def start(name: str, args: list[str]) -> subprocess.Popen:
        with (logs / name).open("w") as log:
            p = _dask(args, log)
        procs.append(p)
        return p

    try:
        start("scheduler", _scheduler(port))
        workers = [start(f"worker{i}", _worker(addr) + ["--name", f"w{i}"]) for i in range(2)]
        with (logs / "run").open("w") as log:
            p = subprocess.Popen(cli("run", str(f), "--out", str(out), "--scheduler", addr), env=ENV,
                                 stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        procs.append(p)
        try:
            wait_for(lambda: len(lines(out / "records.jsonl")) >= 4, "4 records", cpu=300, proc=p)
        except AssertionError as exc:   # say what the cluster was doing
            raise AssertionError(f"{exc}; " + "; ".join(f"{x.name}: {x.read_text()[-800:]!r}"
                                                        for x in sorted(logs.iterdir()))) from None
        os.kill(workers[0].pid, signal.SIGKILL)
        assert len(lines(out / "records.jsonl")) < len(d["candidates"]["specs"])        # killed mid-run
        assert finish(p, cpu=600) == 0, (logs / "run").read_text()
        assert workers[0].wait(10) == -signal.SIGKILL and workers[1].poll() is None
    finally:
        kill_all([x.pid for x in procs])
        for x in procs:
            x.wait(10)
    res = json.loads((out / "results.json").read_text())
    assert res["ranking"] == ref.ranking
    assert strip(res["records"]) == strip([r.to_dict() for r in ref.records])
    # quiet: the progress lines, one line for the lost worker saying what runs again, nothing from the cluster
    err = (logs / "run").read_text().splitlines()
    lost = [x for x in err if x.startswith("toposynth: dask worker ")]
    assert len(lost) == 1 and " lost; " in lost[0], err
    again = re.search(r"its (\d+) running task\(s\) run again on the other workers: (.*)$", lost[0])
    if again:     # the worker was killed while running a chunk of candidates: they are named
        assert set(again.group(2).split(", ")) <= set(d["candidates"]["specs"])
    else:
        assert lost[0].endswith("it was running none of this run's tasks"), lost[0]
    assert all(x.startswith(("toposynth: study", "  [")) for x in err if x not in lost), err


def test_a_cluster_left_without_workers_stops_the_run_and_keeps_its_records(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    from synth import backends

    monkeypatch.setattr(backends, "NO_WORKER_SECONDS", 2.0)
    d = products(40)
    f = tmp_path / "s.toml"
    f.write_text(dumps(d))
    out = tmp_path / "o"
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    procs = [_dask(_scheduler(port))]
    worker = _dask(_worker(addr))
    procs.append(worker)

    def kill_the_worker_after_two_records() -> None:
        wait_for(lambda: len(lines(out / "records.jsonl")) >= 2, "2 records", cpu=300, proc=worker)
        worker.kill()

    killer = threading.Thread(target=kill_the_worker_after_two_records, daemon=True)
    try:
        killer.start()
        rc = main(["run", str(f), "--out", str(out), "--scheduler", addr])
    finally:
        killer.join(5)
        kill_all([x.pid for x in procs])
        for x in procs:
            x.wait(10)
    err = capsys.readouterr().err.splitlines()
    kept = len(lines(out / "records.jsonl"))
    assert rc == 2 and 2 <= kept < len(d["candidates"]["specs"])
    assert any(x.startswith("toposynth: dask worker ") and " lost; " in x for x in err), err
    assert re.fullmatch(re.escape(f"toposynth: error: the sweep stopped: the scheduler at {addr} has had no dask "
                                  "worker for 2 s and ") + r"\d+" + re.escape(
        f" task(s) wait; start workers (`dask worker ADDRESS`); the {kept} records in {out} are kept: rerun the "
        "same command to resume"), err[-1]), err[-1]


def test_polling_a_cluster_without_workers_raises_no_workers(monkeypatch):
    # the search polls (finished, then raise_failed) instead of waiting in as_completed: raise_failed watches
    pytest.importorskip("distributed")
    from synth import backends

    monkeypatch.setattr(backends, "NO_WORKER_SECONDS", 1.0)
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    sched = _dask(_scheduler(port))
    try:
        notes: list[str] = []
        with Executor("dask", scheduler=addr, notify=notes.append) as ex:
            ex.submit(abs, -1, label="abs(-1)")
            with pytest.raises(backends.NoWorkers, match=f"the scheduler at {addr} has had no dask worker for 1 s "
                               r"and 1 task\(s\) wait"):
                wait_for(lambda: ex.finished() == [] and ex.raise_failed() and False, "NoWorkers", cpu=60)
        assert notes == []                       # no worker was ever there to lose
    finally:
        kill_all([sched.pid])
        sched.wait(10)


def test_a_result_lost_with_the_last_worker_does_not_wait_forever(monkeypatch):
    # a finished task's value lives on its worker until fetched: killed between the two, dask would compute it
    # again, and with no worker left, fetching it used to block for ever
    pytest.importorskip("distributed")
    from synth import backends

    monkeypatch.setattr(backends, "NO_WORKER_SECONDS", 1.0)
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    procs = [_dask(_scheduler(port))]
    try:
        worker = _dask(_worker(addr))
        procs.append(worker)
        with Executor("dask", scheduler=addr) as ex:
            for x in (1, 2):
                ex.submit(abs, -x)
            first, second = ex.pending
            wait_for(lambda: first.status == second.status == "finished", "the tasks to finish", cpu=120,
                     proc=worker)
            results = ex.as_completed()
            done = next(results)                     # handed out: its value came with it
            worker.kill()
            worker.wait(10)
            # a value already here needs no worker (it used to be fetched from the dead one, for ever) ...
            got = concurrent.futures.ThreadPoolExecutor(1).submit(done.result).result(timeout=60)
            assert got in (1, 2)
            # ... and the other one, lost with the worker, ends in NoWorkers, not in a wait without end
            with pytest.raises(backends.NoWorkers):
                list(results)
    finally:
        kill_all([x.pid for x in procs])
        for x in procs:
            x.wait(10)


def test_release_stops_a_local_cluster_in_the_background_and_a_new_task_starts_another():
    pytest.importorskip("distributed")
    with Executor("dask", jobs=1) as ex:
        ex.submit(abs, -3)
        assert [f.result() for f in ex.as_completed()] == [3]
        first = ex._cluster
        ex.release()
        assert ex._cluster is None and ex._stopping is not None
        ex.submit(abs, -4)                      # waits for the old cluster to stop, starts a new one
        assert [f.result() for f in ex.as_completed()] == [4] and ex._cluster is not first
        assert first.status.name == "closed"


def test_a_record_and_its_progress_line_are_not_split_by_ctrl_c():
    from synth import runner as R
    # Python's own handler (a background test run without job control inherits SIGINT ignored)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    steps = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with R._interrupt_after():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)                    # the handler has run by now: deferred, not raised
                steps.append("written")
        assert steps == ["written"] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, old)


def test_chunks_carry_several_quick_candidates():
    """(the loky and dask runs above, with pruning, use chunks of 2 from the second wave on)"""
    from synth import runner as R
    assert R.chunk_size(16, 2, []) == 1                    # no timings yet: one a task
    assert R.chunk_size(16, 2, [0.003] * 16) == 4          # pruned ones: four a task
    assert R.chunk_size(16, 2, [1.0] * 16) == 1            # slow ones stay one a task
    assert R.chunk_size(6, 2, [0.003] * 16) == 1           # fewer than two tasks a worker otherwise


def test_a_local_cluster_says_nothing_when_8787_is_taken(recwarn):
    pytest.importorskip("distributed")
    with socket.socket() as s:
        try:
            s.bind(("", 8787))
            s.listen()
        except OSError:
            pass                                # taken already: the case itself
        with Executor("dask", jobs=1) as ex:
            ex.submit(abs, -2)
            assert [f.result() for f in ex.as_completed()] == [2]
    assert not [w for w in recwarn if "8787" in str(w.message) or "port" in str(w.message).lower()]
