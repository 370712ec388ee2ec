"""dask (a local cluster of 2 workers) against loky (--jobs 2) on one study.

    python benchmarks/bench_dask.py [--repeats 3] [--candidates 200] [--prune] [--src OTHER/src]

The study: 200 candidates of 64 routers (every connected 8-node graph of
degree <= 3 times a ring of 8, and six lattices), capacity under 256 random
demands, eps 0.05, no LP check, no simulation: 0.05-0.15 s per evaluation
on a free core. Each run is the command a user types, ``toposynth run STUDY
--out DIR --jobs 2 --backend B --quiet --json``, as a subprocess from
scratch (start-up, pool or cluster start, evaluations, report); runs are
interleaved A B A B A B and the minimum of each backend is reported, with
the CPU time of the run and every process under it (RUSAGE_CHILDREN: this
script is the subreaper of whatever outlives the run -- a local cluster's
fork server and workers end a moment after it -- and reaps it before
reading) and the run's own evaluation time (from the first submit to the
last record, as ``results.json`` reports it). Every
run's records must be identical (timings aside).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _record import machine, table

from candidates import iter_graph6
from synth.toml_out import dumps

SRC = str(Path(__file__).resolve().parents[1] / "src")
LATTICES = ["torus:8x8", "mesh:8x8", "hypercube:6", "twisted:8x8:t1=2", "twisted:8x8:t1=4", "torus:4x4x4"]


def study(n: int, prune: bool) -> dict:
    graphs = list(iter_graph6(8, 3))
    specs = (LATTICES + [f"product:g6:{g}*ring:8" for g in graphs])[:n]
    return {"name": "bench-dask", "seed": 1, "candidates": {"specs": specs},
            "traffic": {"pattern": "random", "count": 256},
            "ranking": {"objective": "capacity", "eps": 0.05, "prune": prune}, "cross_check": {"top": 0}}


def strip(records: list[dict]) -> list[dict]:
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k != "seconds"}
        if "capacity" in r:
            r["capacity"] = {k: v for k, v in r["capacity"].items() if k != "seconds"}
        out.append(r)
    return out


def adopt_orphans() -> None:
    """Make this process the subreaper of everything it starts (Linux): a
    local dask cluster's fork server and workers outlive the run by up to a
    second (they end when they see it gone) and would be reaped by init, their
    CPU time uncounted; as our orphans they are reaped here and counted."""
    import ctypes

    PR_SET_CHILD_SUBREAPER = 36
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("bench_dask: prctl(PR_SET_CHILD_SUBREAPER) failed: the CPU of orphaned workers would go uncounted")


def reap(timeout: float = 30.0) -> None:
    """Wait for every descendant the run left behind (see adopt_orphans)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                sys.exit("bench_dask: processes of the run still alive 30 s after it ended")
            time.sleep(0.05)


def one(path: Path, backend: str, jobs: int, src: str = SRC) -> tuple[float, float, float, dict]:
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryDirectory() as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "synth.cli", "run", str(path), "--out", out, "--jobs", str(jobs),
                            "--backend", backend, "--quiet", "--json"], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        reap()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{backend} run failed ({p.returncode}):\n{p.stderr}")
    if p.stderr.strip():
        print(f"note: {backend} wrote to stderr:\n{p.stderr}", file=sys.stderr)
    res = json.loads(p.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, res["seconds"], res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--candidates", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--prune", action="store_true", help="prune by certified bounds (waves of 16)")
    ap.add_argument("--src", default=SRC, help="the source tree to run (another checkout's src/, to compare)")
    args = ap.parse_args()
    adopt_orphans()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "study.toml"
        path.write_text(dumps(study(args.candidates, args.prune)))
        runs: dict[str, list[tuple[float, float, float]]] = {"loky": [], "dask": []}
        ref = None
        for _ in range(args.repeats):
            for backend in ("loky", "dask"):
                wall, cpu, inner, res = one(path, backend, args.jobs, args.src)
                runs[backend].append((wall, cpu, inner))
                recs = (strip(res["records"]), res["ranking"])
                if ref is None:
                    ref = recs
                elif recs != ref:
                    sys.exit(f"{backend}: records differ from the first run's")
                print(f"  {backend}: wall {wall:.2f} s, cpu {cpu:.2f} s, evaluation {inner:.2f} s", file=sys.stderr)
    best = {b: [min(x[i] for x in v) for i in range(3)] for b, v in runs.items()}   # minimum of each column
    rows = []
    for b in ("loky", "dask"):
        wall, cpu, inner = best[b]
        rows.append([b, args.jobs, args.candidates, "on" if args.prune else "off", f"{wall:.2f}", f"{cpu:.2f}",
                     f"{inner:.2f}", f"{wall / best['loky'][0]:.2f}", f"{cpu / best['loky'][1]:.2f}"])
    print(table(["backend", "jobs / workers", "candidates", "pruning", "wall s", "CPU s (all processes)",
                 "run s (pool start + evaluations)", "wall / loky", "CPU / loky"], rows))
    print(f"\nminimum of {args.repeats} interleaved runs each; records identical in every run. {machine()}"
          + ("" if args.src == SRC else f"; source tree {args.src}"))


if __name__ == "__main__":
    main()
