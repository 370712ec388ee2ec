"""The BookSim2 comparison's cases on several threads: the same numbers, and the speed-up at their sizes.

Every case of ``bench_booksim.py`` (k-ary n-cubes and meshes of 64 to 4,096
routers with BookSim2's router, ``router="iq"``) is simulated by toposynth at
80% and 50% of BookSim2's recorded mean saturation (``booksim_reference.json``),
seed 1, once on one thread and once on ``--threads`` threads (default 2).
Every field of the two SimResults but the timings must be the same: the
script prints the cases that differ and exits 1 if any does. It also prints
each run's wall and CPU seconds: these cases are the small networks where
the threads' per-cycle hand-over costs about as much as the work (the
speed-up column says where they stop paying).

    python benchmarks/check_booksim_threads.py                   # every case, 1 and 2 threads
    python benchmarks/check_booksim_threads.py --only torus8x8x8-dor-vc2-p1-uniform --threads 3
    python benchmarks/check_booksim_threads.py --record          # and record the table in the results book

``--record`` writes "BookSim2 cases on several threads" under "Simulator: one
simulation on several threads" in docs/results/simulator.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_booksim as B  # noqa: E402
from _record import record_subsection, table  # noqa: E402
from check_sim_identity import _plain  # noqa: E402

SECTION = "Simulator: one simulation on several threads"
SUBSECTION = "BookSim2 cases on several threads"
FRACTIONS = (0.5, 0.8)


def run(case: B.Case, load: float, threads: int):
    import candidates as cd
    import sim

    topo = cd.from_spec(f"{case.topology}:{'x'.join([str(case.k)] * case.n)}")
    w0, c0 = time.perf_counter(), time.process_time()
    r = sim.simulate(topo, B.toposynth_config(case), B.TOPOSYNTH_PATTERN[case.traffic], load, seed=1, threads=threads)
    return _plain(r), time.perf_counter() - w0, time.process_time() - c0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=2, help="threads of the second run (default 2)")
    ap.add_argument("--only", help="comma-separated case names (bench_booksim.py --list)")
    ap.add_argument("--record", action="store_true", help="record the table in the results book")
    a = ap.parse_args(argv)
    ref = json.loads(B.REFERENCE.read_text())["cases"]
    cases = [c for c in B.CASES if c.name in ref]
    if a.only:
        want = {w.strip() for w in a.only.split(",") if w.strip()}
        bad = want - {c.name for c in cases}
        if bad:
            print(f"error: unknown case(s) {', '.join(sorted(bad))}; see bench_booksim.py --list", file=sys.stderr)
            return 2
        cases = [c for c in cases if c.name in want]
    for c in cases:
        B.warm_toposynth(c)
    if cases:
        run(cases[0], 0.01, a.threads)     # the threaded kernel's compile (or cache load) is not timed
    rows, differ = [], []
    for c in cases:
        for f in FRACTIONS:
            load = round(f * ref[c.name]["saturation"]["mean"], 4)
            r1, w1, c1 = run(c, load, 1)
            rn, wn, cn = run(c, load, a.threads)
            same = r1 == rn
            if not same:
                fields = sorted(k for k in r1 if r1.get(k) != rn.get(k))
                differ.append(f"{c.name} at {load}: {', '.join(fields)}")
            rows.append([c.name, c.routers, load, "yes" if same else "NO", f"{w1:.2f}", f"{c1:.2f}", f"{wn:.2f}",
                         f"{cn:.2f}", f"{w1 / wn:.2f}"])
            print(f"  {c.name} at {load}: {'identical' if same else 'DIFFERENT'}, {w1:.2f} s on 1 thread, "
                  f"{wn:.2f} s on {a.threads}", flush=True)
    headers = ["case", "routers", "load", "identical", "1 thread: wall s", "CPU s", f"{a.threads} threads: wall s",
               "CPU s", "speed-up (wall)"]
    text = table(headers, rows)
    print(text)
    for line in differ:
        print("differs in", line)
    if a.record and not differ:
        record_subsection(SECTION, SUBSECTION,
                          f"Every case of the BookSim2 comparison at 50% and 80% of BookSim2's recorded mean "
                          f"saturation, seed 1, on 1 and {a.threads} threads: every SimResult field (timings aside) "
                          f"the same. Wall and CPU seconds of one run each (not interleaved; the speed-up column "
                          f"is indicative only: `bench_sim_threads.py` measures speed).\n\n" + text)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
