"""PTAS and HiGHS side by side on the same maximum-concurrent-flow instances.

    python benchmarks/bench_flows.py [--quick] [--record] [--highs-limit SECONDS]
    python benchmarks/bench_flows.py --near-capacity [--quick] [--record]

Instances from 32 to 512 routers (tori, twisted tori, random 3-regular
graphs), uniform traffic and 4N random demands, unit link capacities.
Issue 'flows' targets: at 512 routers with 2048 random demands and eps = 0.05
the PTAS at least 20x faster than HiGHS; a full candidate evaluation
(capacity plus minimum latency) under 2 s on one core.

``--near-capacity``: minimum latency at 0.5, 0.9 and 0.985 x lambda by the
PTAS search (min_latency, default phase budget) and by the exact LP, on a
torus and on a BG/L midplane candidate under uniform wiring with the placed
NAS CG traffic of repro_mcf_bgl (the instance that made synth switch to the
LP near capacity).
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

import networkx as nx

import candidates as cd
from flows import Demands, FlowProblem, max_concurrent_flow, min_latency, solve_lp

from _record import record, table


def instances(quick: bool):
    specs = ["torus:4x4x2", "rtt:a=4", "torus:4x4x4", "rtt:a=8"]
    if not quick:
        specs += ["pdtt:a=4", "torus:8x8x4", "torus:8x8x8"]
    for spec in specs:
        yield spec, cd.from_spec(spec)
    for n in ([64] if quick else [64, 256, 512]):
        G = nx.random_regular_graph(3, n, seed=n)
        yield f"random 3-regular {n}", cd.Topology.from_networkx(G)


def near_capacity(quick: bool, record_it: bool) -> None:
    cases = [("torus 8x8x4, random 4N", FlowProblem.from_topology(
        cd.torus((8, 8, 4)), Demands.random(256, 1024, seed=1)))]
    if not quick:
        import repro_mcf_bgl as M
        from synth.evaluate import build_problem, build_topology
        from synth.study import study_from_dict
        L, _ = M.app_location_matrix("cg")
        with tempfile.TemporaryDirectory() as tmp:
            st = study_from_dict(M._base_study(1))
            spec = "bgl:g6:GyGOWK*ring:4*ring:4*ring:4"
            csv = M._demand_file(L, build_topology(spec, st), Path(tmp), "cg")
            st = study_from_dict(M._app_study(None, csv, [1.0], "uniform", False))
            cases.append(("BG/L " + M._short(spec) + ", uniform wiring, NAS CG", build_problem(build_topology(spec, st), st)))
    rows = []
    for name, p in cases:
        cap = max_concurrent_flow(p, eps=0.05)
        for f in (0.5, 0.9, 0.985):
            s = f * cap.lam
            t0 = time.perf_counter()
            r = min_latency(p.scaled(s), eps=0.05,
                            capacity=dataclasses.replace(cap, lam=cap.lam / s, upper_bound=cap.upper_bound / s))
            t_ptas = time.perf_counter() - t0
            e = solve_lp(p.scaled(s), "latency")
            rows.append([name, p.num_arcs, len(p.capacity), f, round(cap.seconds, 1), round(t_ptas, 1),
                         r.extra.get("phases", 0), r.status, round(r.average_latency, 4), round(r.latency_bound, 4),
                         round(e.seconds, 1), round(e.average_latency, 4),
                         f"{r.average_latency / e.average_latency - 1:.4f}"])
            print(rows[-1], flush=True)
    body = table(["instance", "channels", "resources", "load / lambda", "capacity PTAS s", "latency PTAS s",
                  "search phases", "PTAS status", "PTAS latency", "certified bound", "HiGHS s", "LP optimum",
                  "PTAS / LP - 1"], rows)
    print(body)
    if record_it:
        record("Flows: minimum latency near capacity, PTAS search vs HiGHS" + (" (quick)" if quick else ""),
               body + "\n\neps = 0.05, one thread; min_latency with its default phase budget (100000 phases for "
               "the whole search) reusing the capacity run. Near capacity every search step must decide "
               "lambda(budget) >= 1 while lambda* is only a few percent above 1, which needs PTAS runs far "
               "finer than eps; synth therefore gives the search a budget of one capacity run and solves the LP "
               "where it stops short of eps (or the load lies inside the capacity bracket), when the LP has at "
               "most `ranking.lp_limit` columns.")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--near-capacity", action="store_true",
                    help="minimum latency near capacity: PTAS search vs the exact LP")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--eps", type=float, default=0.05)
    ap.add_argument("--highs-limit", type=float, default=1800.0)
    args = ap.parse_args()
    if args.near_capacity:
        return near_capacity(args.quick, args.record)
    warm = FlowProblem.from_topology(cd.ring(5), Demands.uniform(5))
    max_concurrent_flow(warm), min_latency(warm.scaled(0.5)), solve_lp(warm)  # compile once
    rows = []
    for name, topo in instances(args.quick):
        for traffic in ("uniform", "random 4N"):
            dem = Demands.uniform(topo.n) if traffic == "uniform" else Demands.random(topo.n, 4 * topo.n, seed=1)
            p = FlowProblem.from_topology(topo, dem)
            r = max_concurrent_flow(p, eps=args.eps)
            t0 = time.perf_counter()
            # the capacity run is reused: for demands scaled by s, lambda and its bound scale by 1/s
            s = 0.8 * r.lam
            lat = min_latency(p.scaled(s), eps=args.eps,
                              capacity=dataclasses.replace(r, lam=r.lam / s, upper_bound=r.upper_bound / s))
            t_full = r.seconds + (time.perf_counter() - t0)
            try:
                e = solve_lp(p, time_limit=args.highs_limit)
                h_s, h_lam = e.seconds, e.lam
                speed = f"{h_s / r.seconds:.1f}x"
                diff = f"{(h_lam - r.lam) / h_lam:.4f}"
            except Exception as exc:  # the time limit
                h_s, h_lam, speed, diff = f"> {args.highs_limit:.0f}", "-", f"> {args.highs_limit / r.seconds:.0f}x", "-"
                print(f"  HiGHS: {exc}", flush=True)
            rows.append([name, topo.n, traffic, len(p.demands), round(r.seconds, 3), round(r.lam, 5),
                         round(r.gap, 4), r.iterations, round(t_full, 3), lat.extra.get("ptas_runs", 1),
                         h_s if isinstance(h_s, str) else round(h_s, 3), h_lam if isinstance(h_lam, str) else round(h_lam, 5),
                         speed, diff])
            print(rows[-1], flush=True)
    body = table(["instance", "routers", "traffic", "demands", "PTAS s", "PTAS lambda", "certified gap", "phases",
                  "capacity+latency s", "latency PTAS runs", "HiGHS s", "HiGHS lambda", "speed-up",
                  "(LP - PTAS)/LP"], rows)
    print(body)
    if args.record:
        record("Flows: PTAS vs HiGHS" + (" (quick)" if args.quick else ""),
               body + f"\n\neps = {args.eps}; one thread for both; 'capacity+latency' is the PTAS capacity run plus "
               "min_latency at 0.8 x lambda reusing that capacity result (a full candidate evaluation).")


if __name__ == "__main__":
    main()
