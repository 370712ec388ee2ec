"""A router model's one-thread speed in this tree against another revision, interleaved.

A kernel change must not slow the common case, one simulation on one
thread. This script exports revision ``--against`` (``git archive``) into a
temporary directory and times the simple router's VCT kernel (``tpds2010``
preset, uniform traffic, one thread) in both trees, alternately (A B A B, a
fresh process per tree and case, so each loads its own code), each process
taking the minimum of ``--reps`` timed stretches after an untimed warm-up
that also compiles or loads the kernel. It prints microseconds per cycle
(wall and CPU) and the ratio this tree / the other (below 1: this tree is
faster), the minimum over the rounds. Cases: small tori at a high load
(where a cycle's fixed costs show), PDTT(8) nearly idle and at 0.15, and
PDTT(16) at 0.15 and past saturation (0.45, timed after 3,000 cycles, when
the network is full).

    python benchmarks/bench_sim_revisions.py --against main~3            # print the table
    python benchmarks/bench_sim_revisions.py --against main~3 --record   # and record it
    python benchmarks/bench_sim_revisions.py --against main~3 --threads 2 \
        --case pdtt:a=32 0.2 300 2000 --section "Simulator: ..."          # one case of yours, on 2 threads
    python benchmarks/bench_sim_revisions.py --against main~3 --router iq   # router iq's cases
    python benchmarks/bench_sim_revisions.py --against main~3 --router wormhole

``--router iq`` times BookSim2's router instead (``booksim`` preset with a
fixed window, ``dor``, 1-flit packets, uniform traffic, loads in
flits/cycle/node): a small torus at a high load, 16x16x16 and 32x32x32 at
0.1. ``--router wormhole`` times the simple router's wormhole switching
(``bench_sim_threads.wormhole_config``: ``singleflit`` with 16-flit packets
in 8-flit VCs, dimension order with a dateline): a small torus at a high
load, 8x8x8 and 16x16x16 at 0.1.

``--record`` writes "Simulator: one thread against the revision before" in
docs/results/simulator.md and refuses on a busy machine (1-minute load
average above 0.5).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _record import commit, load_before, report, table

from sim.threads import max_threads

ROOT = Path(__file__).resolve().parents[1]
SECTION = "Simulator: one thread against the revision before"
#: (topology, load in phits/cycle/PE, timed cycles, untimed cycles before): a fraction of a second to a few
#: seconds each
CASES = [("torus:8x8", 0.3, 20000, 500), ("torus:16x16", 0.3, 5000, 500), ("pdtt:a=8", 0.0001, 50000, 500),
         ("pdtt:a=8", 0.15, 2000, 500), ("pdtt:a=16", 0.15, 300, 500), ("pdtt:a=16", 0.45, 300, 3000)]
QUICK = CASES[:4]
CASES_IQ = [("torus:8x8", 0.3, 50000, 500), ("torus:16x16x16", 0.1, 3000, 300), ("torus:32x32x32", 0.1, 500, 300)]
CASES_WORMHOLE = [("torus:8x8", 0.3, 50000, 500), ("torus:8x8x8", 0.1, 10000, 500), ("torus:16x16x16", 0.1, 2000, 300)]


def child(spec: str, load: float, cycles: int, warm: int, reps: int, threads: int, router: str = "simple") -> None:
    """Print ``wall_us cpu_us`` per cycle, the minimum of ``reps`` timed stretches (run with the tree to
    time first on ``PYTHONPATH``)."""
    if router == "iq":
        return child_iq(spec, load, cycles, warm, reps, threads)
    import numba
    import numpy as np

    import candidates as cd
    import sim
    import sim.engine
    from sim.routers import simple
    from traffic import traffic

    numba.set_num_threads(threads)
    par = {"threads": threads} if threads > 1 else {}   # revisions before the ranges of routers have no threads
    t = cd.from_spec(spec)
    if router == "wormhole":
        from bench_sim_threads import wormhole_config

        cfg = wormhole_config()
    else:
        cfg = sim.preset("tpds2010")
    routing, deadlock = sim.engine.resolve(t, cfg)
    dests = traffic("uniform").destinations(t)
    rate = sim.engine.check_load(load, cfg, dests)
    best_w = best_c = float("inf")
    for r in range(reps + 1):
        run = simple.build(t, cfg, simple.tables_for(t, cfg, routing), deadlock, dests, rate, warmup=0,
                           measure=10**12, drain=0, seed=1, **par)
        run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(warm))
        w0, c0 = time.perf_counter(), time.process_time()
        run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(warm + cycles))
        w, c = time.perf_counter() - w0, time.process_time() - c0
        if r:       # the first stretch compiles or loads the kernel
            best_w, best_c = min(best_w, w), min(best_c, c)
    print(f"{best_w * 1e6 / cycles:.4f} {best_c * 1e6 / cycles:.4f}")


def child_iq(spec: str, load: float, cycles: int, warm: int, reps: int, threads: int) -> None:
    """:func:`child` for router iq (bench_sim_threads.py's timed run)."""
    import numba

    from bench_sim_threads import one

    numba.set_num_threads(threads)
    best_w = best_c = float("inf")
    for r in range(reps + 1):
        w, c, _, _ = one(spec, threads, warm, cycles, load=load)
        if r:       # the first stretch compiles or loads the kernel
            best_w, best_c = min(best_w, w), min(best_c, c)
    print(f"{best_w * 1e6 / cycles:.4f} {best_c * 1e6 / cycles:.4f}")


def timed(tree: Path, spec: str, load: float, cycles: int, warm: int, reps: int, threads: int,
          router: str = "simple") -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    out = subprocess.run([sys.executable, __file__, "--child", spec, str(load), str(cycles), str(warm), str(reps),
                          str(threads), router],
                         env=env, check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="REV", help="the revision to compare with (git)")
    ap.add_argument("--rounds", type=int, default=3, help="A B rounds per case (default 3)")
    ap.add_argument("--reps", type=int, default=3, help="timed stretches per process (default 3)")
    ap.add_argument("--quick", action="store_true", help="without PDTT(16)")
    ap.add_argument("--case", nargs=4, action="append", metavar=("SPEC", "LOAD", "CYCLES", "WARM"),
                    help="time this case instead of the default ones (repeatable): topology, load, timed cycles, "
                         "untimed cycles before")
    ap.add_argument("--threads", type=int, default=1, help="threads of each simulation (default 1)")
    ap.add_argument("--section", default=SECTION, help=f"the results book's section to record in (default {SECTION!r})")
    ap.add_argument("--record", action="store_true", help="record the table in the results book")
    ap.add_argument("--router", choices=("simple", "iq", "wormhole"), default="simple",
                    help="the simple router's VCT (default), router iq or the simple router's wormhole switching")
    ap.add_argument("--child", nargs=7, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        spec, load, cycles, warm, reps, threads, router = args.child
        child(spec, float(load), int(cycles), int(warm), int(reps), int(threads), router)
        return 0
    if not 1 <= args.threads <= max_threads():
        ap.error(f"--threads must be 1 to {max_threads()} (the threads numba has here), got {args.threads}")
    cases = {"simple": CASES if not args.quick else QUICK, "iq": CASES_IQ, "wormhole": CASES_WORMHOLE}[args.router]
    if args.case:
        try:
            cases = [(spec, float(load), int(cycles), int(warm)) for spec, load, cycles, warm in args.case]
        except ValueError as e:
            ap.error(f"--case SPEC LOAD CYCLES WARM: {e}")
    if not args.against:
        ap.error("--against REV is required")
    busy = load_before("bench_sim_revisions", args.record)
    if busy is None:
        return 2
    rev = subprocess.run(["git", "rev-parse", "--short", args.against], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    rows = []
    with tempfile.TemporaryDirectory(prefix="toposynth-rev-") as tmp:
        other = Path(tmp)
        archive = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(other)], input=archive, check=True)
        for spec, load, cycles, warm in cases:
            best: dict[str, tuple[float, float]] = {}
            ratio = float("inf")
            for _ in range(args.rounds):
                got = {}
                for name, tree in (("other", other), ("this", ROOT)):
                    got[name] = timed(tree, spec, load, cycles, warm, args.reps, args.threads, args.router)
                    w, c = best.get(name, (float("inf"), float("inf")))
                    best[name] = (min(w, got[name][0]), min(c, got[name][1]))
                ratio = min(ratio, got["this"][0] / got["other"][0])
                print(f"  {spec} at {load}: {rev} {got['other'][0]:.3f} us, this tree {got['this'][0]:.3f} us a cycle",
                      flush=True)
            rows.append([spec, load, f"{cycles} after {warm}", f"{best['other'][0]:.3f}", f"{best['other'][1]:.3f}",
                         f"{best['this'][0]:.3f}", f"{best['this'][1]:.3f}",
                         f"{best['this'][0] / best['other'][0]:.3f}", f"{ratio:.3f}"])
    headers = ["topology", "load", "cycles timed", f"{rev}: us/cycle wall", "CPU", "this tree: us/cycle wall", "CPU",
               "ratio of the minima", "least ratio of a round"]
    text = table(headers, rows)
    report(busy, text, args.section if args.record else None,
           {"simple": "The simple router's VCT (`tpds2010` preset), uniform traffic, seed 1, ",
            "iq": "Router iq (`booksim` preset, fixed window, `dor`, 1-flit packets), uniform traffic, seed 1, ",
            "wormhole": "The simple router's wormhole switching (`singleflit` preset, 16-flit packets, 8-flit VCs, "
                        "`dor` with a dateline), uniform traffic, seed 1, "}[args.router]
           + f"{'one thread' if args.threads == 1 else f'{args.threads} threads'}: this "
           f"tree ({commit()}) against {rev}, {args.rounds} interleaved rounds of a process per tree, each the "
           f"minimum of {args.reps} timed stretches after an untimed warm-up (microseconds of wall "
           "and CPU per simulated cycle; a ratio below 1: this tree is faster).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
