"""Time the analytic properties of large topologies.

    python benchmarks/bench_analytics.py [--quick] [--record]

Target: the distance distribution of PDTT with
64 x 32 x 32 nodes (65,536) in seconds, not minutes.
"""

from __future__ import annotations

import argparse
import time

import candidates as cd
from candidates.analytics.measures import bisection, distance_stats, per_dimension_hops, uniform_load

from _record import record, table


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true", help="write the table into the results book (docs/results/candidates.md)")
    args = ap.parse_args()
    # warm the numba cache so compile time is not counted
    t = cd.rtt(3)
    distance_stats(t), uniform_load(t), per_dimension_hops(cd.mesh((3, 3))), bisection(cd.ring(6))
    specs = ["rtt:a=8", "pdtt:a=8", "torus:8x8x8", "mesh:16x16", "pdtt:a=16"]
    if not args.quick:
        specs += ["rtt:a=128", "torus:32x32x32", "pdtt:a=32", "mesh:32x32x8"]
    rows = []
    for spec in specs:
        topo, t_build = timed(cd.from_spec, spec)
        ds, t_dist = timed(distance_stats, topo)
        (hops, method), t_dim = timed(per_dimension_hops, topo)
        load, t_load = timed(uniform_load, topo)
        rows.append([spec, topo.n, t_build, t_dist, t_dim, t_load, ds.diameter, round(ds.average_distance, 3),
                     round(load.injection_bound, 4), method])
        print(rows[-1], flush=True)
    body = table(
        ["spec", "routers", "build s", "distances s", "per-dim s", "uniform load s", "diameter", "avg distance",
         "injection bound", "method"],
        rows,
    )
    print(body)
    if args.record:
        record("Analytics (candidates)", body + "\n\nVertex-transitive families run one BFS (distances) and "
               "one record table; meshes run one BFS / ECMP pass per router.")


if __name__ == "__main__":
    main()
