"""Start-up of `toposynth` commands on small instances (target: `flow` under 0.5 s).

    python benchmarks/bench_startup.py [--src OTHER/src] [--repeats 5]

Each command runs as ``python -m synth.cli CMD`` in a fresh process with a
warm numba cache (one run first, not counted); with ``--src`` the commands
of two source trees are interleaved (A B A B ...) and the minimum of each is
reported, wall time and CPU time (the process and its children).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from _record import machine, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
COMMANDS = [["flow", "ring:8"], ["flow", "torus:4x4", "--traffic", "random:64"], ["flow", "rtt:a=4"],
            ["describe", "torus:4x4"], ["--help"]]


def one(src: str, cmd: list[str]) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": src}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "synth.cli", *cmd], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", help="another source tree to compare against (A = it, B = this one)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    trees = ([("A", args.src)] if args.src else []) + [("B" if args.src else "this", SRC)]
    rows = []
    for cmd in COMMANDS:
        best: dict[str, tuple[float, float]] = {}
        for name, src in trees:
            one(src, cmd)                                   # warm the numba cache
        for _ in range(args.repeats):
            for name, src in trees:
                w, c = one(src, cmd)
                b = best.get(name)
                best[name] = (min(w, b[0]), min(c, b[1])) if b else (w, c)
        rows.append([" ".join(cmd)] + [f"{best[n][i]:.2f}" for n, _ in trees for i in (0, 1)])
    head = ["command"] + [f"{n} {x}" for n, _ in trees for x in ("wall s", "CPU s")]
    print(table(head, rows))
    print(f"\nminimum of {args.repeats} interleaved runs each, warm numba cache. {machine()}"
          + (f"; A = {args.src}" if args.src else ""))


if __name__ == "__main__":
    main()
