"""The solver registry: entries, refusals, auto's choice by capabilities, and flows.solve as the one entry."""

import dataclasses

import pytest

import candidates as cd
import flows
from flows import Demands, FlowError, FlowProblem, choose_solver, solve
from flows.solvers import (AUTO_LP_BELOW_ROUTERS, AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER, AUTO_PTAS_MIN_EPS,
                           SOLVER_REGISTRY, Solver, Suits, auto_order, register_solver, solver_entry, solver_names)


def _fake(q):
    return None


def test_registry_lists_the_solvers_and_auto_is_the_policy():
    assert solver_names() == ("auto", "ptas", "colgen", "lp", "pdlp", "symmetry", "deviation") == flows.SOLVERS
    assert solver_entry("colgen") is SOLVER_REGISTRY["colgen"]
    d = SOLVER_REGISTRY["symmetry"].to_dict()
    assert d["needs"] == ("topology",) and d["symmetries"] == ("lattice", "shift") and "run" not in d
    assert SOLVER_REGISTRY["lp"].certifies == "exact" and SOLVER_REGISTRY["ptas"].certifies == "gap"
    assert SOLVER_REGISTRY["pdlp"].auto is None       # only by name


def test_duplicates_and_bad_entries_are_refused():
    with pytest.raises(ValueError, match="'ptas' is already registered"):
        register_solver(Solver("ptas", "again", _fake))
    assert SOLVER_REGISTRY["ptas"].run is not _fake
    with pytest.raises(ValueError, match="not 'auto'"):
        Solver("auto", "the policy is not a solver", _fake)
    with pytest.raises(ValueError, match="objectives"):
        Solver("x", "x", _fake, objectives=("speed",))
    with pytest.raises(ValueError, match="certifies"):
        Solver("x", "x", _fake, certifies="maybe")
    with pytest.raises(ValueError, match="need"):
        Solver("x", "x", _fake, symmetries=("lattice",))          # a symmetry needs the topology


def test_unknown_names_are_one_line():
    p = FlowProblem.from_topology(cd.ring(6), Demands.uniform(6))
    for bad in ("magic", "PTAS", "both", None):
        with pytest.raises(FlowError) as err:
            solve(p, solver=bad)
        msg = str(err.value)
        assert "\n" not in msg and msg == f"unknown solver {bad!r}; use one of auto, ptas, colgen, lp, pdlp, symmetry, deviation"


def test_refusals_come_from_the_capabilities():
    p = FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16))
    with pytest.raises(FlowError, match=r"^the PTAS needs eps > 0; use --solver colgen or lp for an exact answer$"):
        solve(p, eps=0.0, solver="ptas")
    with pytest.raises(FlowError, match=r"^the symmetry solver needs the topology .* and the capacity objective$"):
        solve(p, solver="symmetry")
    with pytest.raises(FlowError, match="the capacity objective"):
        solve(p, solver="symmetry", objective="latency", topology=cd.torus((4, 4)))
    with pytest.raises(FlowError, match="needs the flow problem"):
        solve(None, solver="lp", topology=cd.torus((4, 4)))
    with pytest.raises(FlowError, match="needs the problem, or the topology"):
        solve(None)


def test_auto_choice_by_capabilities():
    t = cd.torus((6, 6, 6))
    small = FlowProblem.from_topology(cd.torus((4, 4)), Demands.random(16, 64, seed=1))
    dense = FlowProblem.from_topology(t, Demands.uniform(t.n))
    sparse = FlowProblem.from_topology(t, Demands.random(t.n, 4 * t.n, seed=1))
    assert small.n < AUTO_LP_BELOW_ROUTERS and len(dense.demands) > AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER * t.n
    for objective in ("concurrent", "latency"):
        assert choose_solver(small, 0.05, objective) == "lp"
        assert choose_solver(dense, AUTO_PTAS_MIN_EPS, objective) == "ptas"
        assert choose_solver(dense, AUTO_PTAS_MIN_EPS / 2, objective) == "colgen"
        assert choose_solver(sparse, 0.05, objective) == "colgen"
    # with the topology, symmetry comes first for the capacity, and the rest follow in auto's order
    assert [s.name for s in auto_order(dense, 0.05, "concurrent", t)] == ["symmetry", "ptas", "colgen"]
    assert [s.name for s in auto_order(dense, 0.05, "latency", t)] == ["ptas", "colgen"]
    assert [s.name for s in auto_order(None, 0.05, "concurrent", t)] == ["symmetry"]
    assert Suits(0, below_routers=24).fits(small, 0.0) and not Suits(0, min_eps=0.02).fits(small, 0.01)


def test_auto_runs_what_it_chose():
    t = cd.torus((4, 4))
    p = FlowProblem.from_topology(t, Demands.uniform(16))
    exact = solve(p, 0.0, solver="lp").lam
    by_sym = solve(p, 0.05, topology=t)                 # uniform on a lattice: the translations
    assert by_sym.extra["method"] == "symmetry" and by_sym.extra["solver_requested"] == "auto"
    assert by_sym.lam == pytest.approx(exact, rel=1e-9) and exact == pytest.approx(1.875, rel=1e-9)   # 64 / (16 x 32/15)
    plain = solve(p, 0.05)                              # no topology: the LP below 24 routers
    assert plain.extra["method"] == "lp (ipm)" and plain.lam == exact
    # without the demands built: the same answer as the problem's
    none = solve(None, 0.05, solver="symmetry", topology=t)
    assert none.lam == flows.symmetric_uniform(t).lam and none.extra["method"] == "symmetry"
    # a graph with no symmetry: auto under uniform traffic without the problem has nothing to run
    g = cd.Topology.from_networkx(__import__("networkx").random_regular_graph(3, 12, seed=0))
    with pytest.raises(FlowError, match="no solver applies"):
        solve(None, 0.05, topology=g)


def test_registered_solver_is_dispatched_and_auto_takes_it_by_rank():
    calls = []

    def run(q):
        calls.append(q)
        r = flows.solve_lp(q.problem)
        return dataclasses.replace(r, extra={**r.extra, "method": "probe"})

    entry = Solver("probe", "the LP under another name", run, certifies="exact", auto=Suits(-1, below_routers=10))
    register_solver(entry)
    try:
        ring = FlowProblem.from_topology(cd.ring(6), Demands.uniform(6))
        r = solve(ring, 0.05)
        assert r.extra["method"] == "probe" and r.extra["solver_requested"] == "auto" and len(calls) == 1
        assert r.lam == pytest.approx(10 / 9, rel=1e-9) and calls[0].strict is False
        big = FlowProblem.from_topology(cd.ring(12), Demands.uniform(12))
        assert choose_solver(big, 0.05) == "lp"          # outside its sizes
        assert solve(big, 0.05, solver="probe").extra["solver_requested"] == "probe" and calls[-1].strict
    finally:
        del SOLVER_REGISTRY["probe"]
