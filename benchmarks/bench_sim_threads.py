"""One simulation on several threads: router iq's and the simple router's speed with 1 and 2 threads.

BookSim2's router (``router="iq"``, the ``booksim`` preset) on a torus
under uniform traffic at 0.1 flits/cycle/node with 1-flit packets: a warm-up
(untimed: it also compiles or loads the kernels), then a fixed number of
cycles timed, with 1 and 2 threads interleaved (1 2 1 2 ...; the minimum of
each), every run built afresh with the same seed. It prints router-cycles
per second of wall time and the CPU seconds (every thread's), the speed-up
and the serial fraction it implies by Amdahl's law (``f = 2 / S - 1`` for a
speed-up ``S`` on 2 threads), and what that fraction predicts for 16 and 64
cores (``1 / (f + (1 - f) / p)``). The small tori (4,096 routers down to 64) show
where the speed-up stops: a cycle's work shrinks with the network, the cost of
the threads' hand-over at every cycle does not. The two runs of a pair must end in the
same state (statistics, channel loads): the script stops if they do not.

    python benchmarks/bench_sim_threads.py                 # 64x32x32 down to 8x8
    python benchmarks/bench_sim_threads.py --quick         # 32x32x32 down to 8x8, fewer cycles
    python benchmarks/bench_sim_threads.py --record        # and record the table in the results book
    python benchmarks/bench_sim_threads.py --router simple           # PDTT(32) and PDTT(16), tpds2010
    python benchmarks/bench_sim_threads.py --router simple --quick   # PDTT(16) only

``--router simple`` times the simple router's virtual cut-through under the
``tpds2010`` preset (16-phit packets, a bubble escape VC and two adaptive
VCs, Poisson arrivals) at 0.15 phits/cycle/PE, uniform traffic, on
``pdtt:a=32`` (65,536 routers, the target of the machine-scale runs) and
``pdtt:a=16`` (8,192), the same way.

``--record`` writes "Simulator: one simulation on several threads" (router
iq) or "Simulator: the simple router on several threads" in
docs/results/simulator.md; it refuses when the machine is busy (1-minute
load average above 0.5 before the first run): timings of a shared machine
mean little.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numba  # noqa: E402
import numpy as np  # noqa: E402

import candidates as cd  # noqa: E402
import sim  # noqa: E402
from _record import load_before, record_subsection, report, table  # noqa: E402
import sim.engine  # noqa: E402
from sim.routers import iq, simple  # noqa: E402
from traffic import traffic  # noqa: E402

SECTION = "Simulator: one simulation on several threads"
SECTION_SIMPLE = "Simulator: the simple router on several threads"
LOAD = 0.1
LOAD_SIMPLE = 0.15
#: 1-minute load average above which --record refuses


def one(spec: str, threads: int, warm: int, cycles: int, seed: int = 1):
    """Wall and CPU seconds of ``cycles`` cycles after ``warm`` untimed ones, and the final statistics."""
    t = cd.from_spec(spec)
    cfg = sim.preset("booksim", measurement="fixed")
    dests = traffic("uniform").destinations(t)
    run = iq.build(t, cfg, "dor", dests, np.full(t.num_terminals, LOAD / cfg.mean_packet_length), seed, LOAD,
                   threads)
    run.ctl[iq.Q.C_PHASE] = 1
    run.advance(warm)
    w0, c0 = time.perf_counter(), time.process_time()
    run.advance(warm + cycles)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    if run.ctl[iq.Q.C_DEADLOCK]:
        raise SystemExit(f"{spec}: the watchdog fired (threads={threads})")
    return wall, cpu, (run.acc.v.copy(), run.acc.arc_flits.copy(), run.acc.hist.sum(axis=0)), t.n


def one_simple(spec: str, threads: int, warm: int, cycles: int, seed: int = 1):
    """As :func:`one`, for the simple router (VCT, ``tpds2010``) at :data:`LOAD_SIMPLE`."""
    t = cd.from_spec(spec)
    cfg = sim.preset("tpds2010")
    routing, deadlock = sim.engine.resolve(t, cfg)
    dests = traffic("uniform").destinations(t)
    rate = sim.engine.check_load(LOAD_SIMPLE, cfg, dests)
    # a window that never ends: every timed cycle is a cycle of the measurement's kind
    run = simple.build(t, cfg, simple.tables_for(t, cfg, routing), deadlock, dests, rate, warmup=0,
                       measure=10**12, drain=0, seed=seed, threads=threads)
    if threads > 1:
        numba.set_num_threads(threads)
    run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(warm))
    w0, c0 = time.perf_counter(), time.process_time()
    run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(warm + cycles))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    if run.ctl[simple.K.C_DEADLOCK]:
        raise SystemExit(f"{spec}: the watchdog fired (threads={threads})")
    o = run.out
    return wall, cpu, (o.stats.copy(), o.arc_phits.copy(), o.hist_gen.sum(axis=0)), t.n


def case(spec: str, warm: int, cycles: int, reps: int, router: str = "iq") -> list[object]:
    best: dict[int, tuple[float, float]] = {}
    n = 0
    run = one if router == "iq" else one_simple
    for _ in range(reps):
        state = {}
        for th in (1, 2):
            wall, cpu, state[th], n = run(spec, th, warm, cycles)
            if th not in best or wall < best[th][0]:
                best[th] = (wall, cpu)
            print(f"  {spec}: {th} thread{'s' if th > 1 else ''}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
        if not all(np.array_equal(a, b) for a, b in zip(state[1], state[2])):
            raise SystemExit(f"{spec}: 1 and 2 threads ended in different states: a bug")
    s = best[1][0] / best[2][0]
    f = min(max(2.0 / s - 1.0, 0.0), 1.0)
    speed = [n * cycles / best[k][0] / 1e6 for k in (1, 2)]

    def amdahl(p: int) -> float:
        return 1.0 / (f + (1.0 - f) / p)

    return [spec, n, cycles, f"{speed[0]:.3g}", f"{best[1][1]:.3g}", f"{speed[1]:.3g}", f"{best[2][1]:.3g}",
            f"{s:.2f}", f"{f:.2f}", f"{amdahl(16):.1f}", f"{amdahl(64):.1f}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the largest case left out, fewer cycles")
    ap.add_argument("--router", choices=("iq", "simple"), default="iq",
                    help="router iq (booksim preset; default) or the simple router (tpds2010, VCT)")
    ap.add_argument("--reps", type=int, default=2, help="pairs of runs (1 then 2 threads) per case (default 2)")
    ap.add_argument("--record", action="store_true", help="record the table in the results book")
    args = ap.parse_args(argv)
    busy = load_before("bench_sim_threads", args.record)
    if busy is None:
        return 2
    q = 3 if args.quick else 1
    if args.router == "simple":
        cases = [("pdtt:a=16", 1000, 1000 if args.quick else 3000)]
        if not args.quick:
            cases.insert(0, ("pdtt:a=32", 1000, 1000))
    else:
        cases = [("torus:32x32x32", 300, 1000 if args.quick else 3000)]
        if not args.quick:
            cases.insert(0, ("torus:64x32x32", 300, 2000))
        # about the same router-cycles each (a few seconds on one thread): where the speed-up stops
        cases += [("torus:16x16x16", 300, 24000 // q), ("torus:8x8x8", 300, 200000 // q),
                  ("torus:8x8", 300, 1600000 // q)]
    headers = ["topology", "routers", "cycles timed", "1 thread: M router-cycles/s", "CPU s", "2 threads: M router-cycles/s",
               "CPU s", "speed-up", "serial fraction (Amdahl)", "predicted on 16 cores", "on 64 cores"]
    rows = [case(spec, warm, cycles, args.reps, args.router) for spec, warm, cycles in cases]
    text = table(headers, rows)
    simple = args.router == "simple"
    report(busy, text, SECTION_SIMPLE if args.record and simple else None,
           "The simple router's virtual cut-through (`tpds2010` preset), uniform traffic at "
           "0.15 phits/cycle/PE, seed 1; the minimum over interleaved runs of each thread "
           "count (wall seconds of the timed cycles, after an untimed warm-up that also "
           "compiles). The serial fraction is what the 2-thread speed-up implies by Amdahl's "
           "law.")
    if args.record and not simple:
        # a subsection: the section also holds check_booksim_threads.py's record
        record_subsection(SECTION, "Router iq on 1 and 2 threads",
                          "BookSim2's router (`booksim` preset, `router=\"iq\"`), uniform traffic at 0.1 "
                          "flits/cycle/node, 1-flit packets, seed 1; the minimum over interleaved runs of each "
                          "thread count (wall seconds of the timed cycles, after an untimed warm-up). The serial "
                          "fraction is what the 2-thread speed-up implies by Amdahl's law, and the predictions "
                          "assume it holds on more cores (memory bandwidth may not).\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
