"""A parallel sweep of your own with joblib: torus sizes x traffic patterns.

Every (torus, pattern) pair is one task: build the torus from its spec, turn the traffic pattern into
demands (the same names and meanings as ``toposynth simulate --traffic``), certify its capacity (the
maximum concurrent flow lambda: the rate every PE can inject, with the solver's upper bound) and find the
minimum average latency at half that capacity. The sweep runs twice, with ``n_jobs=1`` and with
``n_jobs=2``, and the script checks that the numbers are the same: the solvers are deterministic, so the
job count changes how fast a sweep runs, never what it finds.

The flow solvers' kernels release the GIL (numba's ``nogil``, HiGHS in its own code), so joblib's threads
(``prefer="threads"``, the default here) solve two problems at once in one process, with no worker to
start; ``--prefer processes`` uses loky's worker processes instead, each paying its start-up and imports.

Run it from the repository's root::

    python examples/joblib_sweep.py
    python examples/joblib_sweep.py --specs torus:8x8,torus:16x16 --patterns uniform,tornado --jobs 2

A few seconds once numba's kernels are compiled and cached. The run times are the only line that
changes from run to run.
"""

import argparse
import time

from joblib import Parallel, delayed

import candidates as cd
import flows


def evaluate(spec, pattern, eps):
    """One task of the sweep: capacity and latency of ``pattern`` on ``spec`` (a plain function of its
    arguments, so that any joblib backend can run it)."""
    topo = cd.from_spec(spec)
    problem = flows.FlowProblem.from_topology(topo, flows.Demands.from_pattern(topo, pattern))
    capacity = flows.solve(problem, eps, topology=topo)
    latency = flows.solve(problem.scaled(0.5 * capacity.lam), eps, objective="latency", topology=topo)
    return {"spec": spec, "pattern": pattern, "lambda": capacity.lam, "bound": capacity.upper_bound,
            "method": capacity.extra["method"], "latency": latency.average_latency,
            "latency_bound": latency.latency_bound}


def sweep(tasks, eps, n_jobs, prefer):
    """The results of every task, in the order of ``tasks`` whatever the job count."""
    return Parallel(n_jobs=n_jobs, prefer=prefer)(delayed(evaluate)(spec, pattern, eps) for spec, pattern in tasks)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--specs", default="torus:4x4,torus:8x4,torus:8x8,torus:4x4x4",
                    help="comma-separated topology specs (default: four tori of 16 to 64 routers)")
    ap.add_argument("--patterns", default="uniform,bitcomplement,tornado,randperm:seed=1",
                    help="comma-separated traffic patterns (default uniform,bitcomplement,tornado,randperm:seed=1)")
    ap.add_argument("--eps", type=float, default=0.01, help="certified relative gap of the solvers (default 0.01)")
    ap.add_argument("--jobs", type=int, default=2, help="the job count compared with 1 (default 2)")
    ap.add_argument("--prefer", choices=["threads", "processes"], default="threads",
                    help="joblib's backend preference (default threads)")
    args = ap.parse_args(argv)

    tasks = [(spec, pattern) for spec in args.specs.split(",") for pattern in args.patterns.split(",")]

    start = time.perf_counter()
    serial = sweep(tasks, args.eps, 1, args.prefer)
    serial_seconds = time.perf_counter() - start
    start = time.perf_counter()
    parallel = sweep(tasks, args.eps, args.jobs, args.prefer)
    parallel_seconds = time.perf_counter() - start

    print(f"{len(tasks)} tasks; capacity lambda in phits/cycle/PE certified to {args.eps:g}, "
          f"latency in hops at half of it")
    print(f"{'torus':<12} {'pattern':<16} {'lambda':>8} {'<= bound':>8}  {'solver':<20} {'latency':>7} {'>= bound':>8}")
    for r in serial:
        print(f"{r['spec']:<12} {r['pattern']:<16} {r['lambda']:8.4f} {r['bound']:8.4f}  {r['method']:<20}"
              f" {r['latency']:7.3f} {r['latency_bound']:8.3f}")
    same = parallel == serial      # every number equal, to the last bit
    print(f"n_jobs=1 and n_jobs={args.jobs} ({args.prefer}): {'identical results' if same else 'RESULTS DIFFER'}")
    print(f"run times: n_jobs=1 {serial_seconds:.2f} s, n_jobs={args.jobs} {parallel_seconds:.2f} s")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
