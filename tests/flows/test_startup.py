"""What a fresh process that builds and solves small problems imports: every joblib (loky) worker of a user's
sweep over the API pays for it before its first result (benchmarks/bench_joblib_api.py has the times)."""

import json
import subprocess
import sys

import pytest

# libraries a solve of a small problem does not need: plotting, tables, graph tools, the LP export, the conic
# solver, the parallel backends, and scipy's csgraph (scipy.sparse.linalg with it: ~40 ms to import)
NOT_NEEDED = ("matplotlib", "pandas", "networkx", "pulp", "clarabel", "joblib", "distributed",
              "scipy.optimize", "scipy.sparse.csgraph", "scipy.sparse.linalg")
# a process that runs no numba kernel does not pay for numba's import and set-up (~0.4 s with its kernels'
# load), nor for scipy.linalg, which flows imported through scipy.sparse.csgraph and numba imports itself
NO_KERNEL = ("numba", "scipy.linalg")

SWEEP = """
import json, sys
import candidates as cd, flows
for spec in sys.argv[1:]:
    t = cd.from_spec(spec)
    p = flows.FlowProblem.from_topology(t, flows.Demands.random(t.n, 4 * t.n, seed=1))
    cap = flows.solve(p, 0.05, topology=t)
    lat = flows.solve(p.scaled(0.5 * cap.lam), 0.05, objective="latency", topology=t)
    assert cap.lam > 0 and lat.average_latency is not None
    print(spec, cap.extra["method"], lat.extra["method"])
print(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))
"""


def _loaded(names: tuple[str, ...], specs: list[str]) -> tuple[list[str], str]:
    r = subprocess.run([sys.executable, "-c", SWEEP.format(names=names), *specs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


def test_a_small_solve_by_the_lp_loads_no_kernels_and_no_library_it_does_not_use():
    loaded, methods = _loaded(NOT_NEEDED + NO_KERNEL, ["torus:4x4", "ring:16"])
    assert "lp (ipm)" in methods
    assert loaded == [], f"a small LP solve imported {loaded}"


@pytest.mark.parametrize("spec", ["torus:8x4", "hypercube:6"])
def test_a_solve_by_column_generation_loads_its_kernels_and_nothing_else_it_does_not_use(spec):
    loaded, methods = _loaded(NOT_NEEDED + NO_KERNEL, [spec])
    assert "colgen" in methods
    assert loaded == sorted(NO_KERNEL), f"a column-generation solve imported {loaded}"
