"""A joblib sweep over the Python API, serially and with two workers, as a user writes it.

    python benchmarks/bench_joblib_api.py [--repeats 5] [--jobs 2] [--src OTHER/src [--label-a TEXT]]
        [--specs SPEC,SPEC,...] [--startup] [--record]

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
A third kind runs the same pool on a function that does nothing: what
joblib's pool costs before any of toposynth's work.

The runs see Python's bytecode cache as an installed package does (pip
writes the ``.pyc`` files at install): ``PYTHONDONTWRITEBYTECODE`` is
dropped from their environment, since under it every process compiles the
project's modules from source again (~0.08 s of CPU each);
``--no-bytecode-cache`` keeps the environment as it is.

``--startup`` adds where a fresh process's CPU time goes, part by part:
what a loky worker imports before its first task, the API's imports, the
first LP, numba's import, the first column generation (numba's set-up and
its kernels loaded from the disk cache) and one more evaluation, warm.
``--specs`` sweeps other candidates (a larger dozen shows where two workers
start to pay); ``--record`` replaces its part of the results book (docs/results/design-flow.md).
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

from _record import adopt_orphans, reap

SRC = str(Path(__file__).resolve().parents[1] / "src")
SPECS = ["torus:4x4", "torus:8x4", "hypercube:5", "rtt:a=4", "twisted:8x4:t1=2", "mesh:8x4", "ring:32",
         "torus:4x4x2", "mesh:4x4", "rt:a=4", "torus:8x8", "hypercube:6"]
SECTION = "Python API: a joblib sweep, serial vs 2 workers, fresh processes"


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


def nothing(spec: str) -> str:
    """The no-op the pool's own cost is measured with."""
    return spec


def run_sweep(jobs: int, specs: list[str], noop: bool, threads: bool = False) -> None:
    """The user's script (``--run N``): one JSON line with the results and the in-process times."""
    t0 = time.perf_counter()
    from joblib import Parallel, delayed

    import candidates  # noqa: F401  (a user's script imports the API at its top)
    import flows  # noqa: F401

    t1 = time.perf_counter()
    pool = Parallel(n_jobs=jobs, prefer="threads") if threads else Parallel(n_jobs=jobs)
    res = pool(delayed(nothing if noop else evaluate)(s) for s in specs)
    t2 = time.perf_counter()
    print(json.dumps({"results": res, "import_s": t1 - t0, "sweep_s": t2 - t1}))


def one(src: str, jobs: int, env: dict, specs: list[str], noop: bool = False,
        threads: bool = False) -> tuple[float, float, dict]:
    """(wall s, CPU s of the run and its workers, its JSON) of one fresh run."""
    env = {**env, "PYTHONPATH": src}
    argv = ([sys.executable, __file__, "--run", str(jobs), "--specs", ",".join(specs)] + (["--noop"] if noop else [])
            + (["--threads"] if threads else []))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    reap('bench_joblib_api')
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench_joblib_api: the sweep with n_jobs={jobs} failed ({p.returncode}):\n{p.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(p.stdout)


STARTUP = r"""
import json, sys, time
c = [time.process_time()]
import numpy, joblib.externals.loky.process_executor, cloudpickle  # a loky worker has these before its first task
c.append(time.process_time())
import scipy.sparse
c.append(time.process_time())
import candidates as cd
c.append(time.process_time())
import flows
c.append(time.process_time())
sys.path.insert(0, {bench!r})
from bench_joblib_api import evaluate
evaluate("torus:4x4")
c.append(time.process_time())
import numba
c.append(time.process_time())
evaluate("torus:8x4")
c.append(time.process_time())
evaluate("hypercube:6")
c.append(time.process_time())
print(json.dumps([c[i + 1] - c[i] for i in range(len(c) - 1)]))
"""
PARTS = ["numpy, joblib's loky, cloudpickle (a loky worker's own)", "scipy.sparse", "candidates", "flows",
         "first evaluation (torus:4x4, the LP)", "import numba",
         "next evaluation (torus:8x4, column generation: numba's set-up, kernels from its cache)",
         "next evaluation (hypercube:6, warm)"]


def startup(src: str, repeats: int, env: dict) -> list[float]:
    """Median CPU seconds of a fresh process's parts (:data:`PARTS`), then of the whole process."""
    env = {**env, "PYTHONPATH": src}
    code = STARTUP.format(bench=str(Path(__file__).parent))
    runs = []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append([*json.loads(out), (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)])
    return [statistics.median(r[i] for r in runs) for i in range(len(PARTS) + 1)]


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
    ap.add_argument("--noop", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--threads", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--specs", help="comma-separated spec strings (default: a dozen small candidates)")
    ap.add_argument("--src", help="another source tree to compare against (A = it, B = this one)")
    ap.add_argument("--label-a", help="what the --src tree is (a commit), for the table's note")
    ap.add_argument("--startup", action="store_true", help="also time a fresh process's parts")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="keep PYTHONDONTWRITEBYTECODE if the environment sets it")
    ap.add_argument("--record", action="store_true", help=f"replace this run's part of '{SECTION}' in the results book (docs/results/design-flow.md)")
    a = ap.parse_args()
    specs = a.specs.split(",") if a.specs else SPECS
    if a.run is not None:
        run_sweep(a.run, specs, a.noop, a.threads)
        return
    from _record import machine, record_subsection, table

    adopt_orphans('bench_joblib_api')
    env = dict(os.environ)
    if not a.no_bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    trees = ([("A", a.src)] if a.src else []) + [("B" if a.src else "", SRC)]
    # (tree, its src, n_jobs, a no-op, threads): loky's processes, then the same sweep on two threads
    kinds = ([(t, src, jobs, False, th) for t, src in trees for jobs, th in ((1, False), (a.jobs, False), (a.jobs, True))]
             + [(trees[-1][0], SRC, a.jobs, True, False)])

    def name(k: tuple) -> str:
        run = "serial" if k[2] == 1 else (f"n_jobs={k[2]}" + (", prefer=\"threads\"" if k[4] else "")
                                          + (", a no-op (the pool alone)" if k[3] else ""))
        return (f"{k[0]} " if k[0] and not k[3] else "") + run

    times: dict[tuple, list[tuple[float, float, float, float]]] = {k: [] for k in kinds}
    ref = None
    for rep in range(a.repeats + 1):
        for k in kinds:
            wall, cpu, d = one(k[1], k[2], env, specs, k[3], k[4])
            if k[3]:
                assert d["results"] == specs
            elif ref is None:
                ref = d["results"]
            elif d["results"] != ref:
                sys.exit(f"bench_joblib_api: {name(k)} gave other numbers than the first run")
            print(f"  {'warm-up' if rep == 0 else f'{rep}/{a.repeats}'} {name(k)}: {wall:.2f} s wall, "
                  f"{cpu:.2f} s CPU", file=sys.stderr, flush=True)
            if rep:
                times[k].append((wall, cpu, d["import_s"], d["sweep_s"]))
    load = os.getloadavg()[0]
    rows = []
    for k in kinds:
        ts = times[k]
        serial = statistics.median(x[0] for x in times[(k[0], k[1], 1, False, False)])
        w = [x[0] for x in ts]
        c = [x[1] for x in ts]
        rows.append([name(k), f"{min(w):.2f}", f"{statistics.median(w):.2f}", f"{min(c):.2f}",
                     f"{statistics.median(c):.2f}", f"{statistics.median(x[2] for x in ts):.2f}",
                     f"{statistics.median(x[3] for x in ts):.2f}", f"{serial / statistics.median(w):.2f}"])
    head = ["run", "wall s (min)", "wall s (median)", "CPU s (min)", "CPU s (median)", "import s", "sweep s",
            "serial / this (wall, medians)"]
    commits = "; ".join(f"{t or 'tree'} = {a.label_a if t == 'A' and a.label_a else git_commit(src)}"
                        for t, src in trees)
    out = [table(head, rows), "",
           f"{len(specs)} candidates ({', '.join(specs)}): each built, its capacity under 4N random demands "
           f"(eps 0.05), its minimum latency at half of it. Every run a fresh process, its numbers identical in "
           f"every run; {a.repeats} interleaved runs of each kind after one warm-up (warm numba cache; bytecode "
           f"cache {'as the environment has it' if a.no_bytecode_cache else 'on'}). CPU: the run and its "
           f"workers. import s / sweep s: inside the run (medians): joblib and the API imported by the parent, "
           f"then the `Parallel(...)` call. Load average at the end: {load:.1f} on {os.cpu_count()} cores. "
           f"{commits}."]
    if a.startup:
        cols = {t: startup(src, a.repeats, env) for t, src in trees}
        rows_s = [[part] + [f"{cols[t][i]:.3f}" for t, _ in trees] for i, part in enumerate(PARTS)]
        rows_s.append(["whole process (python's start and exit too)"] + [f"{cols[t][-1]:.3f}" for t, _ in trees])
        out += ["", f"Where a fresh process's CPU time goes (seconds, medians of {a.repeats}):", "",
                table(["part"] + [f"{t or 'this tree'} CPU s" for t, _ in trees], rows_s)]
    body = "\n".join(out)
    print(body)
    print(f"\n{machine()}")
    if a.record:
        small = specs == SPECS
        record_subsection(SECTION, "A dozen small candidates (16-64 routers)" if small
                          else f"{len(specs)} candidates: {', '.join(specs)}", body)


if __name__ == "__main__":
    main()
