"""A load sweep run serially and with --jobs 2 (parallel sweeps).

    python benchmarks/bench_sweep_jobs.py [--spec torus:16x16x16] [--loads 0.05:0.4:0.05]
        [--warmup 500] [--measure 1500] [--repeats 2] [--saturation] [--src OTHER/src]

Each run is the command a user types, ``toposynth simulate SPEC --preset
tpds2010 --sweep --loads LOADS --json --quiet [--jobs 2]``, as a subprocess
from scratch (start-up, the pool and its workers' imports and kernel loads
from numba's disk cache, every point); runs are interleaved A B A B and the
minimum of each is reported with its CPU time (the run and every process
under it: this script is the subreaper of the workers and reaps them before
reading RUSAGE_CHILDREN). Every run's points must be identical, timings
aside. Prints a table; records nothing (its table is copied by hand into the results book,
docs/results/simulator.md, "Parallel sweeps without routing tables").

Also measures a worker's start-up: a fresh loky pool's first point against
the same point in a process that has run one already.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from _record import adopt_orphans, machine, reap, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
TIMINGS = ("seconds", "cpu_seconds", "router_cycles_per_second")


def run(argv: list[str], env: dict) -> tuple[float, float, dict]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    reap('bench_sweep_jobs')
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench_sweep_jobs: {' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    d = json.loads(p.stdout)
    d["points"] = [{k: v for k, v in q.items() if k not in TIMINGS} for q in d["points"]]
    return wall, cpu, d


def worker_startup(src: str) -> list[list[object]]:
    """Seconds (wall, CPU inside the worker) of a fresh loky worker's first small point and of its second."""
    code = f"""
import sys, time, os, functools
sys.path.insert(0, {src!r})
import candidates as cd, sim
from sim.search import _Pool

def task(x):
    t0, c0 = time.perf_counter(), time.process_time()
    import sim, candidates as cd
    sim.simulate(cd.from_spec("torus:4x4"), sim.preset("default", warmup=100, measure=200), "uniform", 0.1, seed=1)
    return time.perf_counter() - t0, time.process_time() - c0

p = _Pool(1)
a = time.perf_counter(); first = p.ex.submit(task, 0).result(); fa = time.perf_counter() - a
a = time.perf_counter(); second = p.ex.submit(task, 0).result(); sa = time.perf_counter() - a
print(fa, *first, sa, *second)
p.kill()
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    fa, fw, fc, sa, sw, sc = map(float, out)
    return [["first point in a fresh worker", fa, fw, fc], ["second point, same worker", sa, sw, sc]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="torus:16x16x16")
    ap.add_argument("--loads", default="0.05:0.4:0.05")
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--measure", type=int, default=1500)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--saturation", action="store_true", help="--saturation --step 0.05 instead of --sweep")
    ap.add_argument("--src", default=SRC)
    a = ap.parse_args()
    adopt_orphans('bench_sweep_jobs')
    env = {**os.environ, "PYTHONPATH": a.src}
    what = ["--saturation", "--step", "0.05"] if a.saturation else ["--sweep", "--loads", a.loads]
    base = [sys.executable, "-m", "synth.cli", "simulate", a.spec, "--preset", "tpds2010", *what,
            "--warmup", str(a.warmup), "--measure", str(a.measure), "--json", "--quiet"]
    variants = {"serial": base, f"--jobs {a.jobs}": base + ["--jobs", str(a.jobs)]}
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in variants}
    ref = None
    for rep in range(a.repeats):
        for name, argv in variants.items():
            wall, cpu, d = run(argv, env)
            print(f"  {rep + 1}/{a.repeats} {name}: {wall:.1f} s wall, {cpu:.1f} s CPU", file=sys.stderr, flush=True)
            times[name].append((wall, cpu))
            if ref is None:
                ref = d
            elif d != ref:
                sys.exit(f"bench_sweep_jobs: {name} gave other numbers than the first run")
    print(f"{machine()}; {time.strftime('%Y-%m-%d')}")
    print(f"{' '.join(base[2:])} [--jobs {a.jobs}]: {len(ref['points'])} points, identical in every run; "
          f"minimum of {a.repeats} interleaved runs each")
    rows = []
    serial = min(w for w, _ in times["serial"])
    for name in variants:
        w = min(x for x, _ in times[name])
        c = min(x for _, x in times[name])
        rows.append([name, round(w, 1), round(c, 1), round(serial / w, 2)])
    print(table(["run", "wall s", "CPU s", "speed-up (wall)"], rows))
    print()
    print("worker start-up (a 4x4 torus point; seconds):")
    print(table(["", "wall (submit to result)", "wall in worker", "CPU in worker"],
                [[r[0], round(r[1], 2), round(r[2], 2), round(r[3], 2)] for r in worker_startup(a.src)]))


if __name__ == "__main__":
    main()
