"""The solvers release the GIL in their kernels (and HiGHS in its own code), so a sweep over the API on
threads -- joblib's ``prefer="threads"`` -- runs two solves at once; each thread's numbers are the serial
ones, whatever the order the threads finish in."""

from joblib import Parallel, delayed

import candidates as cd
import flows

SPECS = ["torus:4x4", "torus:8x4", "hypercube:5", "rtt:a=4", "ring:32", "torus:8x8", "mesh:8x4", "twisted:8x4:t1=2"]


def _evaluate(spec: str) -> tuple:
    t = cd.from_spec(spec)
    p = flows.FlowProblem.from_topology(t, flows.Demands.random(t.n, 4 * t.n, seed=1))
    cap = flows.solve(p, 0.05, topology=t)
    lat = flows.solve(p.scaled(0.5 * cap.lam), 0.05, objective="latency", topology=t)
    return spec, cap.lam, cap.upper_bound, lat.average_latency, lat.latency_bound


def test_threads_give_the_serial_numbers():
    serial = [_evaluate(s) for s in SPECS]
    for _ in range(2):
        assert Parallel(n_jobs=2, prefer="threads")(delayed(_evaluate)(s) for s in SPECS) == serial


def test_kernels_release_the_gil():
    from flows import _colgen_kernels, _deviation_kernels, _paths, _pool_kernels, _ptas_kernels

    for mod in (_colgen_kernels, _deviation_kernels, _paths, _pool_kernels, _ptas_kernels):
        kernels = [v for v in vars(mod).values() if hasattr(v, "targetoptions")]
        assert kernels and all(k.targetoptions.get("nogil") for k in kernels), mod.__name__
