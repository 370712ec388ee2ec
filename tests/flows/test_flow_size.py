"""Flow sizing: PTAS progress leaves results bit-identical; memory estimates
against measured peaks; routability by components."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

import candidates as cd
import flows
from flows import Demands, FlowError, FlowProblem
from flows.size import flow_cost

SRC = str(Path(__file__).resolve().parents[2] / "src")

# computed with main at 359dadf (before the progress hook): lam, upper bound, phases
REFERENCE = [
    ("rtt:a=4", "uniform", 0.05, 1.4233241505968808, 1.4823322504670566, 51),
    ("torus:4x4x4", "random", 0.05, 0.38826423049893777, 0.40543916565180316, 1113),
    ("ring:9", "uniform", 0.02, 0.7999999999999998, 0.7999999999999998, 1),
    ("hypercube:5", "random", 0.1, 0.40441176470588186, 0.4403766013955166, 188),
]


@pytest.mark.parametrize("spec, traffic, eps, lam, upper, phases", REFERENCE)
def test_progress_keeps_results_bit_identical(spec, traffic, eps, lam, upper, phases):
    t = cd.from_spec(spec)
    d = Demands.uniform(t.n) if traffic == "uniform" else Demands.random(t.n, 4 * t.n, seed=3)
    p = FlowProblem.from_topology(t, d)
    seen = []
    for prog in (None, seen.append):
        r = flows.max_concurrent_flow(p, eps=eps, progress=prog, progress_interval=0.01)
        assert (r.lam, r.upper_bound, r.iterations) == (lam, upper, phases)
    for s in seen:  # each report is a certified bracket of the final answer's run
        assert s["lam"] <= upper * (1 + 1e-9) and s["upper_bound"] >= lam * (1 - 1e-9) and s["phases"] <= phases


def test_routability_by_components():
    t = cd.Topology(6, np.array([[0, 1], [1, 2], [3, 4], [4, 5]]))
    with pytest.raises(FlowError, match="demand 0 -> 3 cannot be routed"):
        FlowProblem.from_topology(t, Demands.uniform(6))
    # directed channels without reverses still use the per-source BFS
    with pytest.raises(FlowError, match="demand 1 -> 0 cannot be routed"):
        FlowProblem(2, [0], [1], Demands([0, 1], [1, 0], [1.0, 1.0]), np.eye(1), [1.0], None)


_PROBE = r"""
import json, sys
import numpy as np
import candidates as cd, flows
from flows import Demands, FlowProblem
from flows.size import flow_cost
t0 = cd.from_spec("torus:3x3"); p0 = FlowProblem.from_topology(t0, Demands.uniform(9))
flows.max_concurrent_flow(p0); flows.solve_lp(p0)
def cur():
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * 4096
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
spec, traffic, solver = sys.argv[1:4]
t = cd.from_spec(spec); _ = t.arc_src, t.arc_dst
with open("/proc/self/clear_refs", "w") as f: f.write("5")
b0 = cur()
if solver == "symmetry":   # uniform traffic, no demands built
    from flows.size import symmetry_cost
    c = symmetry_cost(t.n, t.num_arcs)
    flows.symmetric_uniform(t)
    print(json.dumps({"est": c.nbytes, "peak": hwm() - b0}))
    sys.exit()
d = Demands.uniform(t.n) if traffic == "uniform" else Demands.random(t.n, int(traffic), seed=1)
p = FlowProblem.from_topology(t, d)
G = min(len(np.unique(p.demands.src)), len(np.unique(p.demands.dst)))
c = flow_cost(t.n, t.num_arcs, len(p.demands), G, nnz=p.R.nnz, solver=solver)
if solver == "ptas":
    flows.max_concurrent_flow(p)
else:
    flows.solve_lp(p)
print(json.dumps({"est": c.nbytes, "peak": hwm() - b0}))
"""


@pytest.mark.parametrize("spec, traffic, solver", [("torus:8x8x8", "uniform", "ptas"),
                                                   ("torus:8x8x8", "2048", "ptas"),
                                                   ("torus:4x4x4", "uniform", "lp"),
                                                   ("torus:16x16x16", "uniform", "symmetry")])
def test_flow_estimate_within_factor_two(spec, traffic, solver):
    out = patience.run([sys.executable, "-c", _PROBE, spec, traffic, solver], cpu=300, capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": SRC}, check=True)
    r = json.loads(out.stdout)
    assert 0.5 < r["peak"] / r["est"] < 2.0, r


def test_flow_cost_counts():
    c = flow_cost(n=216000, arcs=1296000, demands=216000 * 215999, groups=216000, solver="both", uniform=True)
    assert c.lp_columns == 216000 * 1296000 + 1
    assert c.parts["problem"] > 100 * 216000 * 215999  # 100 bytes per demand plus the n x n mask


def test_symmetry_note_for_long_lps():
    from flows.size import large_problem_note, symmetry_cost

    assert large_problem_note(symmetry_cost(4096, 24576)) is None     # 0.6 s
    note = large_problem_note(symmetry_cost(216000, 1296000))         # torus:60x60x60: 3.5e-8 n^2 s
    assert "216,000 routers by symmetry" in note and "27 min" in note
