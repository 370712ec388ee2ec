"""A joblib sweep over the Python API, serially and with two workers, as a user writes it.

    python benchmarks/bench_joblib_api.py [--repeats 5] [--jobs 2] [--src OTHER/src] [--record]

The sweep: a dozen small candidates (16-64 routers), each built from its spec
string (``candidates.from_spec``), its capacity under 4N random demands
certified by ``flows.solve`` at eps 0.05, then its minimum latency at half
that capacity (``flows.solve(..., objective="latency")``), written as a user
writes it::

    res = Parallel(n_jobs=N)(delayed(evaluate)(s) for s in SPECS)

Each measured run is a fresh python process running that script (this file
with ``--run N``): the interpreter's start, the imports, for ``n_jobs=2``
the loky pool's start (two fresh worker processes, each importing the API
and loading the kernels it runs from numba's disk cache), and the dozen
evaluations. One run of each kind comes first and is not counted (it warms
numba's cache); then the runs are interleaved (serial, 2 workers, serial,
...; with ``--src`` the other tree's two kinds as well) and the minimum and
median of each kind are reported: wall time, and CPU time of the run and
every process under it (this script is the subreaper of the loky workers,
which end a moment after the run, and reaps them before reading
RUSAGE_CHILDREN). Every run's numbers must be identical, serial or not.

``--startup`` adds where a worker's time goes: a fresh process's imports
and its first tiny solve against the same solve once warm.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
SPECS = ["torus:4x4", "torus:8x4", "hypercube:5", "rtt:a=4", "twisted:8x4:t1=2", "mesh:8x4", "ring:32",
         "torus:4x4x2", "mesh:4x4", "rt:a=4", "torus:8x8", "hypercube:6"]
SECTION = "Python API: a joblib sweep of a dozen small candidates, serial vs 2 workers"


def evaluate(spec: str) -> dict:
    """What a user's function does: build, certify the capacity, minimum latency at half of it."""
    import candidates as cd
    import flows

    t = cd.from_spec(spec)
    p = flows.FlowProblem.from_topology(t, flows.Demands.random(t.n, 4 * t.n, seed=1))
    cap = flows.solve(p, 0.05, topology=t)
    lat = flows.solve(p.scaled(0.5 * cap.lam), 0.05, objective="latency", topology=t)
    return {"spec": spec, "lam": cap.lam, "upper_bound": cap.upper_bound, "capacity_method": cap.extra["method"],
            "latency": lat.average_latency, "latency_bound": lat.latency_bound,
            "latency_method": lat.extra["method"]}


def run_sweep(jobs: int) -> None:
    """The user's script (``--run N``): one JSON line with the results and the in-process times."""
    t0 = time.perf_counter()
    from joblib import Parallel, delayed

    import candidates  # noqa: F401  (a user's script imports the API at its top)
    import flows  # noqa: F401

    t1 = time.perf_counter()
    res = Parallel(n_jobs=jobs)(delayed(evaluate)(s) for s in SPECS)
    t2 = time.perf_counter()
    print(json.dumps({"results": res, "import_s": t1 - t0, "sweep_s": t2 - t1}))


def adopt_orphans() -> None:
    """Become the subreaper of everything this script starts (Linux), so that
    the CPU time of loky workers that outlive their run is reaped and counted."""
    import ctypes

    PR_SET_CHILD_SUBREAPER = 36
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("bench_joblib_api: prctl(PR_SET_CHILD_SUBREAPER) failed")


def reap(timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.02)
    sys.exit("bench_joblib_api: a worker process did not end")


def one(src: str, jobs: int) -> tuple[float, float, dict]:
    """(wall s, CPU s of the run and its workers, its JSON) of one fresh run."""
    env = {**os.environ, "PYTHONPATH": src}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, __file__, "--run", str(jobs)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    reap()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench_joblib_api: the sweep with n_jobs={jobs} failed ({p.returncode}):\n{p.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(p.stdout)


STARTUP = r"""
import json, sys, time
t0 = time.perf_counter(); c0 = time.process_time()
import candidates as cd, flows
t1 = time.perf_counter(); c1 = time.process_time()
sys.path.insert(0, {bench!r})
from bench_joblib_api import evaluate
evaluate("torus:8x4")
t2 = time.perf_counter(); c2 = time.process_time()
evaluate("torus:8x4")
t3 = time.perf_counter(); c3 = time.process_time()
print(json.dumps([t1 - t0, c1 - c0, t2 - t1, c2 - c1, t3 - t2, c3 - c2,
                  sorted(m for m in ("numba", "scipy", "highspy", "networkx", "matplotlib", "pandas", "clarabel")
                         if m in sys.modules)]))
"""


def startup(src: str, repeats: int) -> tuple[list[list[object]], list[str]]:
    """Median seconds (wall, CPU) of a fresh process's parts: import, first evaluation, the same again."""
    env = {**os.environ, "PYTHONPATH": src}
    code = STARTUP.format(bench=str(Path(__file__).parent))
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        runs.append([time.perf_counter() - t0, *json.loads(out)])
    med = [statistics.median(r[i] for r in runs) for i in range(7)]
    rows = [["python start + import candidates, flows", med[1], med[2]],
            ["first evaluation (torus:8x4: kernels loaded)", med[3], med[4]],
            ["the same evaluation again", med[5], med[6]],
            ["whole process", med[0], ""]]
    return rows, runs[-1][7]


def git_commit(src: str) -> str:
    try:
        out = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--", "."], capture_output=True, text=True)
    except OSError:
        return "?"
    return (out.stdout.strip() or "?") + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=int, metavar="N", help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--src", help="another source tree to compare against (A = it, B = this one)")
    ap.add_argument("--startup", action="store_true", help="also time a fresh process's import and first solve")
    ap.add_argument("--record", action="store_true", help=f"replace the section '{SECTION}' of RESULTS.md")
    a = ap.parse_args()
    if a.run is not None:
        run_sweep(a.run)
        return
    from _record import machine, record, table

    adopt_orphans()
    trees = ([("A", a.src)] if a.src else []) + [("B" if a.src else "", SRC)]
    kinds = [(t, src, jobs) for t, src in trees for jobs in (1, a.jobs)]
    name = {k: (f"{k[0]} " if k[0] else "") + ("serial" if k[2] == 1 else f"n_jobs={k[2]}") for k in kinds}
    times: dict[tuple, list[tuple[float, float, float, float]]] = {k: [] for k in kinds}
    ref = None
    for rep in range(a.repeats + 1):
        for k in kinds:
            wall, cpu, d = one(k[1], k[2])
            if ref is None:
                ref = d["results"]
            elif d["results"] != ref:
                sys.exit(f"bench_joblib_api: {name[k]} gave other numbers than the first run")
            print(f"  {'warm-up' if rep == 0 else f'{rep}/{a.repeats}'} {name[k]}: {wall:.2f} s wall, "
                  f"{cpu:.2f} s CPU", file=sys.stderr, flush=True)
            if rep:
                times[k].append((wall, cpu, d["import_s"], d["sweep_s"]))
    load = os.getloadavg()[0]
    rows = []
    for k in kinds:
        ts = times[k]
        serial = statistics.median(x[0] for x in times[(k[0], k[1], 1)])
        w = [x[0] for x in ts]
        c = [x[1] for x in ts]
        rows.append([name[k], f"{min(w):.2f}", f"{statistics.median(w):.2f}", f"{min(c):.2f}",
                     f"{statistics.median(c):.2f}", f"{statistics.median(x[2] for x in ts):.2f}",
                     f"{statistics.median(x[3] for x in ts):.2f}", f"{serial / statistics.median(w):.2f}"])
    head = ["run", "wall s (min)", "wall s (median)", "CPU s (min)", "CPU s (median)", "import s", "sweep s",
            "serial / this (wall)"]
    commits = "; ".join(f"{t or 'tree'} = {git_commit(src)}" for t, src in trees)
    out = [table(head, rows), "",
           f"{len(SPECS)} candidates ({', '.join(SPECS)}); every run a fresh process, its numbers identical in "
           f"every run; {a.repeats} interleaved runs of each after one warm-up (warm numba cache). CPU: the run "
           f"and its workers. import s / sweep s: inside the run (medians), the API's import in the parent and "
           f"the `Parallel(...)` call. Load average when done: {load:.1f} on {os.cpu_count()} cores. {commits}."]
    if a.startup:
        for t, src in trees:
            rows_s, mods = startup(src, a.repeats)
            out += ["", f"A fresh process, {t or 'this tree'} (medians of {a.repeats}; seconds; "
                        f"loaded at the end: {', '.join(mods) or 'none of numba, scipy, highspy'}):", "",
                    table(["part", "wall s", "CPU s"], [[r[0], f"{r[1]:.3f}", r[2] if r[2] == "" else f"{r[2]:.3f}"]
                                                        for r in rows_s])]
    body = "\n".join(out)
    print(body)
    print(f"\n{machine()}")
    if a.record:
        record(SECTION, body)


if __name__ == "__main__":
    main()
