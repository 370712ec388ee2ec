"""Where flows' auto switches from the PTAS to column generation: small instances.

    python benchmarks/bench_auto_small.py

The PTAS at eps 0.05 against column generation with the potential ("mwu")
master at tol 0.05, three interleaved runs each, minimum process CPU time,
kernels compiled first; 4N random demands (seed 1) and uniform traffic on a
mesh. Sets flows.solve.AUTO_PTAS_BELOW_ROUTERS (docs/results/flows.md).
"""

import time
import candidates as cd
from flows import Demands, FlowProblem, max_concurrent_flow, colgen_max_concurrent_flow
w = FlowProblem.from_topology(cd.ring(5), Demands.uniform(5))
max_concurrent_flow(w); colgen_max_concurrent_flow(w, master="mwu", tol=0.05)
print("| instance | routers | demands | PTAS eps 0.05 CPU ms | gap | colgen mwu 0.05 CPU ms | gap |")
print("|---|---|---|---|---|---|---|")
for spec in ["ring:8", "torus:4x4", "hypercube:5", "torus:3x3x3", "mesh:6x6", "torus:4x4x4", "twisted:8x8:t1=2", "torus:5x5x5"]:
    t = cd.from_spec(spec)
    for tr in ("random", "uniform-mesh"):
        if tr == "uniform-mesh" and not spec.startswith("mesh"):
            continue
        d = Demands.random(t.n, 4 * t.n, seed=1) if tr == "random" else Demands.uniform(t.n)
        p = FlowProblem.from_topology(t, d)
        best = {}
        for rep in range(3):
            for m in ("ptas", "mwu"):
                c0 = time.process_time()
                r = max_concurrent_flow(p, eps=0.05) if m == "ptas" else colgen_max_concurrent_flow(p, tol=0.05, master="mwu")
                c = time.process_time() - c0
                if m not in best or c < best[m][0]:
                    best[m] = (c, r.gap)
        print(f"| {spec} {tr} | {t.n} | {len(p.demands)} | {best['ptas'][0]*1000:.1f} | {best['ptas'][1]:.3f} | {best['mwu'][0]*1000:.1f} | {best['mwu'][1]:.3f} |", flush=True)
