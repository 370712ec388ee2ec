"""Candidates evaluated per minute by the design flow.

    python benchmarks/bench_synth.py [--rows K] [--jobs N] [--record]

Runs the built-in Blue Gene/L midplane study (512 routers, 2048 local
demands, the bgl packaging, capacity plus minimum latency at three demand
scales) on the first K row graphs, with N parallel jobs, from scratch, and
reports candidates per minute. The machine must be otherwise idle for the
figure to mean anything.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time

from _record import record, table

from synth.runner import run
from synth.study import BUILTIN_STUDIES, study_from_dict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=24)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    d = copy.deepcopy(BUILTIN_STUDIES["bgl-midplane"])
    d["candidates"]["hierarchy"]["limit"] = args.rows
    d["traffic"]["count"] = 2048
    run(study_from_dict(dict(d, candidates={"specs": ["torus:8x8x8"]})), None, jobs=1)  # compile outside the clock
    rows = []
    for prune in (False, True):
        d["ranking"]["prune"] = prune
        study = study_from_dict(d)
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            res = run(study, out, jobs=args.jobs)
            wall = time.perf_counter() - t0
        n = len(res.records)
        ok = [r.seconds for r in res.records if r.ok]
        pruned = sum(r.status == "pruned" for r in res.records)
        rows.append(["bgl-midplane", "on" if prune else "off", n, pruned, args.jobs, f"{wall:.1f}",
                     f"{60 * n / wall:.1f}", f"{statistics.median(ok):.2f}", f"{max(ok):.2f}"])
    body = table(["study", "pruning", "candidates", "pruned", "jobs", "wall s", "candidates / minute",
                  "median s per evaluated candidate", "max s"], rows)
    body += ("\nEach candidate: PTAS capacity (eps 0.05) and minimum latency at 3 demand scales, 512 routers, "
             "2048 demands, bgl packaging (flexible wiring).\n")
    print(body)
    if args.record:
        record("Design flow (synth)", body)


if __name__ == "__main__":
    main()
