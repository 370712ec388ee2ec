"""Does the cut between the simple router's ranges of routers matter? Two threads on slabs against random ranges.

One VCT simulation on two threads splits the routers into two contiguous
ranges of router number (:func:`sim.threads.partitions`): for a lattice
numbered in its coordinates these are slabs, which few channels cross; for
an irregular graph any numbering may cut many. Every packet goes through
an outbox to its next router, also within a range, so the cut changes no
number; what it can change is the speed (lines written by both threads).
This script builds a k x k x k torus as a plain graph twice -- numbered in
its coordinates (slabs) and at random (half the channels cross) -- with
table routing (minimal, up*/down* escape) and times one simulation of each
on one and on two threads, alternately, the minimum of ``--rounds``; it
prints the 2-thread speed-up of each numbering. Results identical across
thread counts (checked).

    python benchmarks/bench_sim_cut.py              # k = 16 (4,096 routers)
    python benchmarks/bench_sim_cut.py --record     # and record it (refuses on a busy machine)
"""

from __future__ import annotations

import argparse
import sys
import time

import networkx as nx
import numpy as np

import candidates as cd
import sim
from sim.threads import max_threads, partitions

from _record import commit, load_before, report, table

SECTION = "Simulator: does the cut between the ranges of routers matter?"


def numbered(g: nx.Graph, order: dict) -> nx.Graph:
    """``g`` with node ``v`` numbered ``order[v]`` (iterated in that order: router i is node i)."""
    h = nx.Graph()
    h.add_nodes_from(range(g.number_of_nodes()))
    h.add_edges_from((order[a], order[b]) for a, b in g.edges())
    return h


def crossing(t: cd.Topology, parts: int) -> float:
    """The fraction of channels whose ends lie in different ranges of the simulator's split."""
    part = np.repeat(np.arange(parts), np.diff(partitions(t.n, parts)))
    return float(np.mean(part[t.arc_src] != part[t.arc_dst]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=16, help="the torus is k x k x k (default 16)")
    ap.add_argument("--load", type=float, default=0.15, help="offered load, phits/cycle/PE (default 0.15)")
    ap.add_argument("--measure", type=int, default=6000, help="measured cycles (default 6000)")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    ap.add_argument("--record", action="store_true", help="record the table in the results book")
    args = ap.parse_args(argv)
    if max_threads() < 2:
        print("bench_sim_cut: needs 2 threads", file=sys.stderr)
        return 2
    busy = load_before("bench_sim_cut", args.record)
    if busy is None:
        return 2
    k = args.k
    g = nx.grid_graph(dim=[k, k, k], periodic=True)
    nodes = sorted(g.nodes())
    perm = np.random.default_rng(1).permutation(len(nodes))
    topos = {"slabs (coordinates)": cd.Topology.from_networkx(numbered(g, {v: i for i, v in enumerate(nodes)}),
                                                              spec=f"torus{k}^3-slabs"),
             "random numbering": cd.Topology.from_networkx(numbered(g, {v: int(perm[i]) for i, v in enumerate(nodes)}),
                                                           spec=f"torus{k}^3-random")}
    cfg = sim.preset("tpds2010", routing="table", vcs=3, warmup=300, measure=args.measure, drain=0)
    for t in topos.values():      # compile, build the tables once
        sim.simulate(t, cfg.replace(warmup=10, measure=50), "uniform", args.load, seed=1, threads=2)
    best: dict = {}
    seen: dict = {}
    for _ in range(args.rounds):
        for name, t in topos.items():
            for th in (1, 2):
                w0, c0 = time.perf_counter(), time.process_time()
                r = sim.simulate(t, cfg, "uniform", args.load, seed=1, threads=th)
                w, c = time.perf_counter() - w0, time.process_time() - c0
                key = (name, th)
                best[key] = min(best.get(key, (1e18, 0.0)), (w, c))
                d = r.to_dict()
                d = {f: v for f, v in d.items() if f not in ("seconds", "cpu_seconds", "compile_seconds",
                                                           "router_cycles_per_second")}
                if seen.setdefault(name, d) != d:
                    print(f"bench_sim_cut: {name}: the result differs between runs", file=sys.stderr)
                    return 1
                print(f"  {name}, {th} thread(s): {w:.2f} s wall, {c:.2f} s CPU", flush=True)
    rows = []
    for name, t in topos.items():
        (w1, c1), (w2, c2) = best[name, 1], best[name, 2]
        rows.append([name, t.n, f"{crossing(t, 2):.3f}", f"{w1:.2f}", f"{c1:.2f}", f"{w2:.2f}", f"{c2:.2f}",
                     f"{w1 / w2:.2f}"])
    headers = ["numbering", "routers", "channels crossing", "1 thread: wall s", "CPU s", "2 threads: wall s", "CPU s",
               "speed-up"]
    text = table(headers, rows)
    report(busy, text, SECTION if args.record else None,
           f"A {k}x{k}x{k} torus as a plain graph, table routing (minimal, up*/down* escape), `tpds2010` "
           f"otherwise, uniform traffic at {args.load}, {args.measure} measured cycles, seed 1, at {commit()}; "
           f"one simulation on 1 and on 2 threads, alternately, the minimum of {args.rounds} rounds (the "
           "same result on both, checked).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
