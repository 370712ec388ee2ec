"""Uniform all-to-all by symmetry (flows.symmetric_uniform) against the PTAS bracket.

    python benchmarks/bench_symmetry.py [--quick] [--record]

The exact optimum from one source's flow with channel-orbit capacities (an LP
of num_arcs columns, HiGHS interior point) on lattice families of 512 to
4096 routers; the PTAS (eps 0.05, uniform traffic, n (n - 1) demands) beside
it up to 1024 routers, whose bracket must contain it.
"""

from __future__ import annotations

import argparse
import time

import candidates as cd
from flows import Demands, FlowProblem, max_concurrent_flow, symmetric_uniform

from _record import record, table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    specs = ["torus:8x8x8", "rtt:a=16", "pdtt:a=8", "hypercube:9"]
    if not args.quick:
        specs += ["torus:16x8x8", "torus:16x16x16", "rtt:a=45", "pdtt:a=13", "hypercube:12"]
    symmetric_uniform(cd.ring(5))  # load HiGHS once
    rows = []
    for spec in specs:
        t = cd.from_spec(spec)
        c0, w0 = time.process_time(), time.perf_counter()
        s = symmetric_uniform(t)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        bracket, p_cpu, inside = "-", "-", "-"
        if t.n <= 1024:
            c0 = time.process_time()
            r = max_concurrent_flow(FlowProblem.from_topology(t, Demands.uniform(t.n)), eps=0.05)
            p_cpu = round(time.process_time() - c0, 2)
            bracket = f"[{r.lam:.5g}, {r.upper_bound:.5g}]"
            inside = "yes" if r.lam <= s.lam * (1 + 1e-9) and s.lam <= r.upper_bound * (1 + 1e-9) else "NO"
        rows.append([spec, t.n, t.num_arcs, f"{s.lam:.6g}", round(cpu, 2), round(wall, 2), bracket, p_cpu, inside])
        print(rows[-1], flush=True)
    body = table(["instance", "routers", "channels", "lambda (symmetry, exact)", "symmetry CPU s", "symmetry wall s",
                  "PTAS bracket (eps 0.05)", "PTAS CPU s", "inside"], rows)
    print(body)
    if args.record:
        record("Flows: uniform all-to-all by symmetry" + (" (quick)" if args.quick else ""),
               body + "\n\nUniform traffic (1/(n-1) from every router to every other), unit channels; one thread.")


if __name__ == "__main__":
    main()
