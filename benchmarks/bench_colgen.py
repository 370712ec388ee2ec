"""Column generation vs the PTAS and HiGHS PDLP on k x k x k tori, 4N random demands.

    python benchmarks/bench_colgen.py [--sizes 4,6,8,10] [--methods colgen1e-2,colgen1e-4,ptas0.05,ptas0.01,pdlp]
                                      [--limit 480] [--repeat 1]

Methods: ``colgenTOL`` (column generation, PDLP master), ``mwuTOL`` (column
generation, the exponential-potential master), ``ptasEPS``, ``pdlp`` (the arc
LP). A size is k (the k x k x k torus) or, above 64, the number of routers
(a cube): the 4096-router target is

    python benchmarks/bench_colgen.py --sizes 4096 --methods mwu0.05,mwu0.01,ptas0.05 --limit 600

Every measurement runs in its own subprocess (one thread) and reports wall
time, CPU time and peak RSS (``ru_maxrss``); the methods of one size are
interleaved (A B C A B C ...) and the minimum of each is kept. The last
column fits the exponent of time against routers per method.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
import candidates as cd
from flows import Demands, FlowProblem, max_concurrent_flow, solve_lp, colgen_max_concurrent_flow
k, method, limit = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
t = cd.torus((k, k, k))
p = FlowProblem.from_topology(t, Demands.random(t.n, 4 * t.n, seed=1))
# compile the kernels outside the measurement
w = FlowProblem.from_topology(cd.ring(5), Demands.uniform(5))
max_concurrent_flow(w); colgen_max_concurrent_flow(w); colgen_max_concurrent_flow(w, master="mwu")
t0, c0 = time.perf_counter(), time.process_time()
try:
    if method.startswith("colgen"):
        r = colgen_max_concurrent_flow(p, tol=float(method[6:]), time_limit=limit)
    elif method.startswith("mwu"):
        r = colgen_max_concurrent_flow(p, tol=float(method[3:]), time_limit=limit, master="mwu")
    elif method.startswith("ptas"):
        r = max_concurrent_flow(p, eps=float(method[4:]))
    else:
        r = solve_lp(p, method="pdlp", time_limit=limit)
    out = {"lam": r.lam, "gap": r.gap, "status": r.status, "columns": r.extra.get("columns"),
           "rounds": r.extra.get("pricing_rounds"), "master_s": r.extra.get("master_seconds")}
except Exception as exc:
    out = {"error": str(exc)[:80]}
out.update(wall=time.perf_counter() - t0, cpu=time.process_time() - c0,
           rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def run(k: int, method: str, limit: float) -> dict:
    src = Path(__file__).resolve().parents[1] / "src"
    env = {"PYTHONPATH": str(src), "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, str(k), method, str(limit)], capture_output=True,
                           text=True, env=env, timeout=limit + 120)
        return json.loads(p.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"error": f"> {limit:.0f} s", "wall": math.inf, "cpu": math.inf, "rss_mb": math.nan}


def _side(size: int) -> int:
    """k from a size given as k or (above 64) as k**3 routers."""
    if size <= 64:
        return size
    k = round(size ** (1 / 3))
    if k ** 3 != size:
        raise SystemExit(f"bench_colgen: {size} routers is not a cube k**3; give k instead")
    return k


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4,6,8,10")
    ap.add_argument("--methods", default="colgen1e-2,colgen1e-4,ptas0.05,ptas0.01,pdlp")
    ap.add_argument("--limit", type=float, default=480.0)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    sizes = [_side(int(s)) for s in args.sizes.split(",")]
    methods = args.methods.split(",")
    best: dict[tuple[int, str], dict] = {}
    for k in sizes:
        for _ in range(args.repeat):
            for m in methods:
                r = run(k, m, args.limit)
                print(k ** 3, m, r, flush=True)
                if (k, m) not in best or r.get("wall", math.inf) < best[(k, m)].get("wall", math.inf):
                    best[(k, m)] = r
    print("\n| routers | demands | method | wall s | CPU s | peak RSS MB | lambda | certified gap | columns | rounds | status |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in sizes:
        for m in methods:
            r = best[(k, m)]
            if "error" in r:
                print(f"| {k**3} | {4 * k**3} | {m} | {r['wall']:.3g} | {r['cpu']:.3g} | {r['rss_mb']:.0f} | - | - | - | - | {r['error']} |")
            else:
                print(f"| {k**3} | {4 * k**3} | {m} | {r['wall']:.3g} | {r['cpu']:.3g} | {r['rss_mb']:.0f} | {r['lam']:.6f} | "
                      f"{r['gap']:.2e} | {r['columns'] or '-'} | {r['rounds'] or '-'} | {r['status']} |")
    print("\nexponent of CPU time against routers (least squares on log-log, finished runs only):")
    for m in methods:
        pts = [(math.log(k ** 3), math.log(best[(k, m)]["cpu"])) for k in sizes
               if "error" not in best[(k, m)] and best[(k, m)]["cpu"] > 0]
        if len(pts) >= 2:
            mx = sum(p[0] for p in pts) / len(pts)
            my = sum(p[1] for p in pts) / len(pts)
            b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
            print(f"  {m}: {b:.2f} ({len(pts)} sizes)")


if __name__ == "__main__":
    main()
