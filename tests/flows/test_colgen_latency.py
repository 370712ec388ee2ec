"""Minimum latency by column generation against the exact arc LP."""

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from flows import Demands, FlowError, FlowProblem, choose_solver, colgen_min_latency, solve, solve_lp
from flows.physical import Board, Packaging, Technology, physical_problem


def _bases():
    yield "torus4x4 uniform", FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16))
    yield "torus4x4 random", FlowProblem.from_topology(cd.torus((4, 4)), Demands.random(16, 64, seed=2))
    yield "torus4x4x2 random", FlowProblem.from_topology(cd.torus((4, 4, 2)), Demands.random(32, 128, seed=3))
    yield "mesh5x4 uniform", FlowProblem.from_topology(cd.mesh((5, 4)), Demands.uniform(20))
    yield "mesh6x6 random", FlowProblem.from_topology(cd.mesh((6, 6)), Demands.random(36, 144, seed=1))
    yield "rtt3 random", FlowProblem.from_topology(cd.rtt(3), Demands.random(18, 72, seed=4))
    t = cd.torus((4, 4))
    rng = np.random.default_rng(5)
    yield "torus4x4 capacities and latencies", FlowProblem.from_topology(
        t, Demands.random(16, 40, seed=2), capacity=rng.integers(1, 4, size=t.num_arcs).astype(float),
        latency=rng.uniform(0.5, 3.0, size=t.num_arcs))
    g = cd.Topology.from_networkx(nx.connected_watts_strogatz_graph(12, 4, 0.5, seed=7))
    yield "small world random", FlowProblem.from_topology(
        g, Demands.random(12, 30, seed=7), latency=np.random.default_rng(7).uniform(0.5, 3, g.num_arcs))


CASES = [(name, p, f) for name, p in _bases() for f in (0.5, 0.9, 0.985)]


def _balance(p: FlowProblem, flow: np.ndarray) -> np.ndarray:
    """Net outflow per router of an arc flow, minus what the demands inject."""
    out = np.bincount(p.arc_src, weights=flow, minlength=p.n) - np.bincount(p.arc_dst, weights=flow, minlength=p.n)
    d = p.demands
    supply = np.bincount(d.src, weights=d.amount, minlength=p.n) - np.bincount(d.dst, weights=d.amount, minlength=p.n)
    return out - supply


@pytest.mark.parametrize("name,base,load", CASES, ids=[f"{c[0]} {c[2]}" for c in CASES])
def test_colgen_latency_brackets_the_arc_lp(name, base, load):
    p = base.scaled(solve_lp(base).lam * load)
    exact = solve_lp(p, "latency").average_latency
    r = colgen_min_latency(p, tol=1e-6)
    assert r.status == "optimal" and r.extra["latency_gap"] <= 1e-6
    # lower bound <= LP optimum <= upper value (the LP itself to HiGHS's 1e-7)
    assert r.latency_bound <= exact * (1 + 1e-7) and exact <= r.average_latency * (1 + 1e-7)
    assert r.average_latency == pytest.approx(exact, rel=2e-6)
    for h in r.extra["history"]:   # every round's bounds bracket it too
        assert h["lower_bound"] <= exact * (1 + 1e-7) and exact <= h["upper_bound"] * (1 + 1e-7)
    # the flow routes exactly the demands, within every capacity, at the latency reported
    assert np.abs(_balance(p, r.arc_flow)).max() <= 1e-9 * p.demands.total
    assert r.utilisation.max() <= 1.0 and (r.arc_flow >= 0).all()
    assert float(p.latency @ r.arc_flow) / p.demands.total == pytest.approx(r.average_latency, rel=1e-12)
    # lambda >= 1 (it routes the demands); the final prices bound the capacity from above
    lam = solve_lp(p).lam
    assert r.lam == 1.0 and r.upper_bound >= lam * (1 - 1e-9)


def test_colgen_latency_with_packaging_resources():
    """Several resources per channel (cards, board cross-sections, pins)."""
    from candidates import Placement
    t = cd.path(4)
    unit = np.array([[0, 0], [0, 0], [1, 0], [1, 0]])
    slots = np.array([[[0, 0], [0, 0]], [[0, 1], [0, 0]], [[0, 0], [0, 1]], [[0, 1], [0, 1]]])
    t = t.replace(placement=Placement(("card", "board"), unit, slots[:, 0], slots))
    pack = Packaging((Board("card", 0.1, 0.05, 3, 0.002, 2, 20), Board("board", 0.4, 0.3, 1, 0.001)), pins_per_wire=2)
    base = physical_problem(t, Demands.uniform(4), Technology(), pack)
    assert (base.R != 0).sum(axis=0).max() > 1   # a channel uses more than one resource
    p = base.scaled(0.95 * solve_lp(base).lam)
    exact = solve_lp(p, "latency").average_latency
    r = colgen_min_latency(p, tol=1e-7)
    assert r.latency_bound <= exact * (1 + 1e-7) <= r.average_latency * (1 + 2e-7)
    assert r.utilisation.max() <= 1.0


def test_infeasible_demand_is_certified():
    p = FlowProblem.from_topology(cd.ring(6), Demands.uniform(6).scaled(2.0))
    r = colgen_min_latency(p)
    lam = solve_lp(p).lam   # 5/9
    assert r.status == "infeasible" and r.average_latency is None and r.certified
    assert r.lam <= lam <= r.upper_bound * (1 + 1e-12) and r.upper_bound < 1 and "infeasible" in r.extra["message"]
    # given a capacity result, it is used as it is
    cap = solve_lp(p)
    r = colgen_min_latency(p, capacity=cap)
    assert r.status == "infeasible" and r.upper_bound == pytest.approx(lam)


def test_capacity_bracket_is_passed_through_and_errors():
    p = FlowProblem.from_topology(cd.torus((4, 4)), Demands.random(16, 64, seed=2))
    cap = solve_lp(p)
    r = colgen_min_latency(p.scaled(0.5), capacity=solve_lp(p.scaled(0.5)))
    assert r.lam == pytest.approx(2 * cap.lam) and r.upper_bound == pytest.approx(2 * cap.lam)
    with pytest.raises(FlowError, match="tol must be"):
        colgen_min_latency(p, tol=-1)
    with pytest.raises(FlowError, match="unknown master"):
        colgen_min_latency(p, master="barrier")
    with pytest.raises(FlowError, match="capacity must be"):
        colgen_min_latency(p, capacity=solve_lp(p.scaled(0.5), "latency"))


def test_solve_routes_the_latency_objective_to_colgen():
    p = FlowProblem.from_topology(cd.torus((4, 4, 2)), Demands.random(32, 128, seed=3))
    q = p.scaled(0.9 * solve_lp(p).lam)
    exact = solve_lp(q, "latency").average_latency
    assert choose_solver(q, 0.05, "latency") == "colgen" and choose_solver(q, 0.0, "latency") == "colgen"
    for solver, eps in (("colgen", 0.0), ("auto", 0.0), ("auto", 0.05)):
        r = solve(q, eps=eps, solver=solver, objective="latency")
        assert r.extra["method"] == "colgen (ipm master)" and r.extra["solver_requested"] == solver
        assert r.latency_bound <= exact * (1 + 1e-7) and exact <= r.average_latency * (1 + 1e-7)
        assert r.extra["latency_gap"] <= (eps if eps else 1e-6) and r.certified


def test_simplex_master_agrees():
    p = FlowProblem.from_topology(cd.torus((4, 4, 2)), Demands.random(32, 128, seed=3))
    q = p.scaled(0.97 * solve_lp(p).lam)
    exact = solve_lp(q, "latency").average_latency
    r = colgen_min_latency(q, tol=1e-7, master="simplex")
    assert r.extra["method"] == "colgen (simplex master)" and r.status == "optimal"
    assert r.latency_bound <= exact * (1 + 1e-7) and exact <= r.average_latency * (1 + 1e-7)
    assert r.average_latency == pytest.approx(exact, rel=2e-7)
