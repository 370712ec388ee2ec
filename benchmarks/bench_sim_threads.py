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
    python benchmarks/bench_sim_threads.py --router wormhole         # 64x32x32 down to 8x8, wormhole

``--router simple`` times the simple router's virtual cut-through under the
``tpds2010`` preset (16-phit packets, a bubble escape VC and two adaptive
VCs, Poisson arrivals) at 0.15 phits/cycle/PE, uniform traffic, on
``pdtt:a=32`` (65,536 routers, the target of the machine-scale runs) and
``pdtt:a=16`` (8,192), the same way. ``--router wormhole`` times its
wormhole switching (the ``singleflit`` preset with 16-flit packets in
8-flit VCs, dimension order with a dateline) at 0.1 flits/cycle/node,
uniform traffic, on tori from 64x32x32 (65,536 routers) down to 8x8.

``--contention`` asks what two threads could gain on this machine at best: router iq on
64x32x32 on one thread (A), on two threads (B), two processes at once each simulating one of the
two slabs a 2-thread run gives its threads (32x32x32, one thread each: C), and two processes at once
each simulating the whole network on one thread (D), interleaved A B C D A B C D. D does A's work
twice over with nothing shared but the machine's caches and memory, so 2 A / D bounds what two
threads can reach on it; C is not such a bound (a 32x32x32 torus's packets cross 24 channels on
average, the whole network's 32: each slab alone has a quarter less work a router) and is kept to
compare with earlier records (``--quick``: 32x32x32, two 32x32x16 halves).

``--record`` writes "Simulator: one simulation on several threads" (router
iq) or the subsection "Virtual cut-through on 1 and 2 threads" or "Wormhole
on 1 and 2 threads" of "Simulator: the simple router on several threads" in
docs/results/simulator.md; it refuses when the machine is busy (1-minute
load average above 0.5 before the first run): timings of a shared machine
mean little.
"""

from __future__ import annotations

import argparse
import subprocess
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
VCT_TITLE = "Virtual cut-through on 1 and 2 threads"
LOAD = 0.1
LOAD_SIMPLE = 0.15
LOAD_WORMHOLE = 0.1
#: 1-minute load average above which --record refuses


def one(spec: str, threads: int, warm: int, cycles: int, seed: int = 1, load: float = LOAD):
    """Wall and CPU seconds of ``cycles`` cycles after ``warm`` untimed ones, and the final statistics."""
    t = cd.from_spec(spec)
    cfg = sim.preset("booksim", measurement="fixed")
    dests = traffic("uniform").destinations(t)
    run = iq.build(t, cfg, "dor", dests, np.full(t.num_terminals, load / cfg.mean_packet_length), seed, load,
                   threads)
    run.ctl[iq.Q.C_PHASE] = 1
    run.advance(warm)
    w0, c0 = time.perf_counter(), time.process_time()
    run.advance(warm + cycles)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    if run.ctl[iq.Q.C_DEADLOCK]:
        raise SystemExit(f"{spec}: the watchdog fired (threads={threads})")
    return wall, cpu, (run.acc.v.copy(), run.acc.arc_flits.copy(), run.acc.hist.sum(axis=0)), t.n


def wormhole_config() -> sim.SimConfig:
    """The wormhole runs' configuration: ``singleflit`` with 16-flit packets in 8-flit VCs."""
    return sim.preset("singleflit", switching="wormhole", packet_length=16, buffer_flits=8)


def one_simple(spec: str, threads: int, warm: int, cycles: int, seed: int = 1, wormhole: bool = False):
    """As :func:`one`, for the simple router: VCT (``tpds2010``) at :data:`LOAD_SIMPLE`, or wormhole
    (:func:`wormhole_config`) at :data:`LOAD_WORMHOLE`."""
    t = cd.from_spec(spec)
    cfg = wormhole_config() if wormhole else sim.preset("tpds2010")
    routing, deadlock = sim.engine.resolve(t, cfg)
    dests = traffic("uniform").destinations(t)
    rate = sim.engine.check_load(LOAD_WORMHOLE if wormhole else LOAD_SIMPLE, cfg, dests)
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


def _child(spec: str, warm: int, cycles: int) -> subprocess.Popen:
    """This script in a process of its own: one run of router iq on one thread (``--one``)."""
    return subprocess.Popen([sys.executable, __file__, "--one", spec, "--warm", str(warm), "--cycles", str(cycles)],
                            stdout=subprocess.PIPE, text=True)


def _walls(procs: list[subprocess.Popen]) -> list[tuple[float, float]]:
    out = []
    for pr in procs:
        text, _ = pr.communicate()
        if pr.returncode != 0:
            raise SystemExit(f"a child run failed (exit {pr.returncode})")
        wall, cpu = map(float, text.split()[-2:])
        out.append((wall, cpu))
    return out


def contention(whole: str, half: str, warm: int, cycles: int, reps: int) -> list[object]:
    """A (whole, 1 thread), B (whole, 2 threads), C (two halves at once, 1 thread each), D (two wholes at
    once, 1 thread each), interleaved; the minimum wall of each (C, D: the slower of its two processes)."""
    best: dict[str, tuple[float, float]] = {}
    n = cd.from_spec(whole).n
    for _ in range(reps):
        for kind in "ABCD":
            if kind in "CD":
                spec = half if kind == "C" else whole
                runs = _walls([_child(spec, warm, cycles), _child(spec, warm, cycles)])
                wall, cpu = max(w for w, _ in runs), sum(c for _, c in runs)
            else:
                wall, cpu, _, _ = one(whole, 1 if kind == "A" else 2, warm, cycles)
            print(f"  {kind}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
            if kind not in best or wall < best[kind][0]:
                best[kind] = (wall, cpu)
    a, b, c, d = (best[k][0] for k in "ABCD")
    return [whole, half, n, cycles, f"{a:.2f}", f"{best['A'][1]:.1f}", f"{b:.2f}", f"{best['B'][1]:.1f}",
            f"{c:.2f}", f"{best['C'][1]:.1f}", f"{d:.2f}", f"{best['D'][1]:.1f}", f"{a / b:.2f}", f"{a / c:.2f}",
            f"{2 * a / d:.2f}", f"{a / b / (2 * a / d):.2f}"]


def case(spec: str, warm: int, cycles: int, reps: int, router: str = "iq") -> list[object]:
    best: dict[int, tuple[float, float]] = {}
    n = 0
    for _ in range(reps):
        state = {}
        for th in (1, 2):
            if router == "iq":
                wall, cpu, state[th], n = one(spec, th, warm, cycles)
            else:
                wall, cpu, state[th], n = one_simple(spec, th, warm, cycles, wormhole=router == "wormhole")
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
    ap.add_argument("--router", choices=("iq", "simple", "wormhole"), default="iq",
                    help="router iq (booksim preset; default), the simple router's VCT (tpds2010) or its wormhole "
                         "switching (singleflit, 16-flit packets)")
    ap.add_argument("--reps", type=int, default=2, help="pairs of runs (1 then 2 threads) per case (default 2)")
    ap.add_argument("--record", action="store_true", help="record the table in the results book")
    ap.add_argument("--contention", action="store_true",
                    help="router iq: two threads against two processes on the two halves (the bound here)")
    ap.add_argument("--one", metavar="SPEC", help=argparse.SUPPRESS)     # a child of --contention
    ap.add_argument("--warm", type=int, default=300, help=argparse.SUPPRESS)
    ap.add_argument("--cycles", type=int, default=1000, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        wall, cpu, _, _ = one(args.one, 1, args.warm, args.cycles)
        print(f"{wall} {cpu}")
        return 0
    busy = load_before("bench_sim_threads", args.record)
    if busy is None:
        return 2
    q = 3 if args.quick else 1
    if args.contention:
        whole, half, cycles = ("torus:32x32x32", "torus:32x32x16", 1000) if args.quick else \
            ("torus:64x32x32", "torus:32x32x32", 2000)
        text = table(["network", "half", "routers", "cycles timed", "A: 1 thread, wall s", "CPU s",
                      "B: 2 threads, wall s", "CPU s", "C: two halves at once, wall s", "CPU s",
                      "D: two wholes at once, wall s", "CPU s", "speed-up A / B", "halves A / C",
                      "bound 2 A / D", "threads' efficiency (A / B) / (2 A / D)"],
                     [contention(whole, half, 300, cycles, args.reps)])
        report(busy, text)
        if args.record:
            record_subsection(SECTION, "Router iq: two threads against two processes",
                              "Router iq (`booksim` preset), uniform traffic at 0.1 flits/cycle/node, 1-flit "
                              "packets, seed 1. A: the network on one thread; B: on two threads (two slabs); C: "
                              "two processes at once, each one slab as a network of its own on one thread; D: two "
                              "processes at once, each the whole network on one thread (C, D: the slower one's "
                              "wall time). The minimum over interleaved runs (A B C D A B C D), wall seconds of "
                              "the timed cycles after an untimed warm-up. D does A's work twice with nothing "
                              "shared but the machine's caches and memory: 2 A / D bounds what two threads can "
                              "reach here. C is no bound (a slab alone is a smaller torus whose packets cross a "
                              "quarter fewer channels).\n\n" + text)
        return 0
    if args.router == "simple":
        cases = [("pdtt:a=16", 1000, 1000 if args.quick else 3000)]
        if not args.quick:
            cases.insert(0, ("pdtt:a=32", 1000, 1000))
    elif args.router == "wormhole":
        cases = [("torus:32x32x32", 300, 400 if args.quick else 1000)]
        if not args.quick:
            cases.insert(0, ("torus:64x32x32", 300, 600))
        cases += [("torus:16x16x16", 300, 16000 // q), ("torus:8x8x8", 300, 100000 // q),
                  ("torus:8x8", 300, 600000 // q)]
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
    report(busy, text)
    how = ("the minimum over interleaved runs of each thread count (wall seconds of the timed cycles, after an "
           "untimed warm-up that also compiles). The serial fraction is what the 2-thread speed-up implies by "
           "Amdahl's law.")
    if args.record and args.router == "simple":
        record_subsection(SECTION_SIMPLE, VCT_TITLE, "The simple router's virtual cut-through (`tpds2010` preset), "
                          "uniform traffic at 0.15 phits/cycle/PE, seed 1; " + how + "\n\n" + text,
                          legacy_title=VCT_TITLE)
    if args.record and args.router == "wormhole":
        record_subsection(SECTION_SIMPLE, "Wormhole on 1 and 2 threads", "The simple router's wormhole switching "
                          "(`singleflit` preset, `switching=\"wormhole\"`, 16-flit packets, 8-flit VCs, dimension "
                          "order with a dateline), uniform traffic at 0.1 flits/cycle/node, seed 1; " + how
                          + "\n\n" + text, legacy_title=VCT_TITLE)
    if args.record and args.router == "iq":
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
