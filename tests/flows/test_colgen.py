"""Column generation against the exact arc LP; solver choice; PDLP's re-priced bound."""

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from flows import Demands, FlowError, FlowProblem, choose_solver, colgen_max_concurrent_flow, solve, solve_lp
from flows.lp import reprice_bound
from flows.physical import Board, Packaging, Technology, physical_problem


def _instances():
    yield "ring8 uniform", FlowProblem.from_topology(cd.ring(8), Demands.uniform(8))
    yield "torus4x4 uniform", FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16))
    yield "torus4x4x2 random", FlowProblem.from_topology(cd.torus((4, 4, 2)), Demands.random(32, 128, seed=3))
    yield "rtt3 uniform", FlowProblem.from_topology(cd.rtt(3), Demands.uniform(18))
    yield "torus3x3x3 random", FlowProblem.from_topology(cd.torus((3, 3, 3)), Demands.random(27, 108, seed=1))
    for n, seed in ((12, 0), (20, 1)):
        t = cd.Topology.from_networkx(nx.random_regular_graph(3, n, seed=seed))
        yield f"3-regular {n}", FlowProblem.from_topology(t, Demands.random(n, 4 * n, seed=seed))
    t = cd.torus((4, 4))
    cap = np.random.default_rng(5).integers(1, 4, size=t.num_arcs).astype(float)
    yield "torus4x4 capacities", FlowProblem.from_topology(t, Demands.random(16, 40, seed=2), capacity=cap)
    yield "path one demand", FlowProblem.from_topology(cd.path(5), Demands([0], [4], [2.0]))
    # several resources per channel: cards, board cross-sections, connector pins
    t = cd.path(4)
    from candidates import Placement
    unit = np.array([[0, 0], [0, 0], [1, 0], [1, 0]])
    slots = np.array([[[0, 0], [0, 0]], [[0, 1], [0, 0]], [[0, 0], [0, 1]], [[0, 1], [0, 1]]])
    t = t.replace(placement=Placement(("card", "board"), unit, slots[:, 0], slots))
    pack = Packaging((Board("card", 0.1, 0.05, 3, 0.002, 2, 20), Board("board", 0.4, 0.3, 1, 0.001)), pins_per_wire=2)
    yield "packaging", physical_problem(t, Demands.uniform(4), Technology(), pack)


CASES = list(_instances())


@pytest.mark.parametrize("name,p", CASES, ids=[c[0] for c in CASES])
def test_colgen_equals_the_arc_lp(name, p):
    exact = solve_lp(p).lam
    r = colgen_max_concurrent_flow(p, tol=1e-7)
    assert r.lam == pytest.approx(exact, rel=1e-6)
    assert r.lam <= exact * (1 + 1e-9) and r.upper_bound >= exact * (1 - 1e-9)
    assert r.gap <= 1e-7 and r.status == "optimal"
    # every reported iteration brackets the optimum
    for h in r.extra["history"]:
        assert h["lambda"] <= exact * (1 + 1e-9) <= h["upper_bound"] * (1 + 2e-9)
    # the arc flow routes lam x demands within every capacity
    assert r.utilisation.max() <= 1 + 1e-9
    assert r.utilisation.max() == pytest.approx(((p.R @ r.arc_flow) / p.capacity).max())


def test_colgen_on_a_torus_with_random_demands_needs_pricing_rounds_and_certifies():
    p = FlowProblem.from_topology(cd.torus((4, 4, 4)), Demands.random(64, 256, seed=1))
    exact = solve_lp(p).lam
    r = colgen_max_concurrent_flow(p, tol=1e-6, warm_phases=1, smoothing=0.5)
    assert r.lam == pytest.approx(exact, rel=1e-6) and r.gap <= 1e-6
    assert r.extra["pricing_rounds"] >= 2   # one warm phase alone does not hold the optimal paths
    for h in r.extra["history"]:
        assert h["lambda"] <= exact * (1 + 1e-9) <= h["upper_bound"] * (1 + 2e-9)


def test_colgen_simplex_master_agrees():
    p = FlowProblem.from_topology(cd.rtt(3), Demands.random(18, 72, seed=4))
    exact = solve_lp(p).lam
    r = colgen_max_concurrent_flow(p, tol=1e-8, master="simplex")
    assert r.lam == pytest.approx(exact, rel=1e-8) and r.extra["method"] == "colgen (simplex master)"


def test_colgen_inputs_untouched_and_errors():
    p = FlowProblem.from_topology(cd.ring(6), Demands.uniform(6))
    before = p.capacity.copy()
    colgen_max_concurrent_flow(p)
    assert np.array_equal(p.capacity, before)
    with pytest.raises(FlowError, match="tol must be"):
        colgen_max_concurrent_flow(p, tol=1.5)
    with pytest.raises(FlowError, match="unknown master"):
        colgen_max_concurrent_flow(p, master="barrier")


def test_pdlp_bound_is_certified_by_repricing():
    p = FlowProblem.from_topology(cd.torus((4, 4)), Demands.random(16, 64, seed=7))
    exact = solve_lp(p).lam
    r = solve_lp(p, method="pdlp")
    assert r.upper_bound >= exact * (1 - 1e-12) and r.lam <= r.upper_bound
    assert r.lam == pytest.approx(exact, rel=1e-5) and r.gap <= 1e-5
    assert r.extra["primal_residual"] < 1e-5 and r.extra["method"] == "lp (pdlp)"
    # any prices give a valid bound; the uniform ones A / sum d hops on a ring
    ring = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    assert reprice_bound(ring, np.full(8, 3.0)) == pytest.approx(1.5, rel=1e-8)


def test_auto_picks_as_documented():
    small = FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16))
    mid = FlowProblem.from_topology(cd.torus((3, 3, 3)), Demands.random(27, 108, seed=1))
    big = FlowProblem.from_topology(cd.torus((6, 6, 6)), Demands.random(216, 864, seed=1))
    for eps in (0.05, 0.01, 0.0):
        assert choose_solver(small, eps) == "lp" and choose_solver(small, eps, "latency") == "lp"
    assert choose_solver(mid, 0.05) == "colgen" and choose_solver(mid, 0.0) == "colgen"
    assert choose_solver(big, 0.05) == "colgen"
    assert choose_solver(big, 0.05, "latency") == "colgen" and choose_solver(big, 0.01, "latency") == "colgen"
    exact = solve_lp(small).lam
    r = solve(small, eps=0.05)
    assert r.extra["method"] == "lp (ipm)" and r.lam == pytest.approx(exact, rel=1e-9) and r.gap <= 1e-9
    exact = solve_lp(mid).lam
    r = solve(mid, eps=0)
    assert r.extra["method"] == "colgen (pdlp master)" and r.lam == pytest.approx(exact, rel=1e-6) and r.gap <= 1e-6
    r = solve(mid, eps=0.05)
    assert r.extra["method"] == "colgen (mwu master)" and r.lam <= exact * (1 + 1e-9) <= r.upper_bound * (1 + 1e-9)
    assert r.gap <= 0.05
    r = solve(small, eps=0.0, solver="pdlp")
    assert r.extra["method"] == "lp (pdlp)" and r.upper_bound >= solve_lp(small).lam * (1 - 1e-12)
    with pytest.raises(FlowError, match="unknown solver"):
        solve(small, solver="magic")


def test_auto_takes_the_ptas_for_dense_demands():
    """Uniform traffic has n - 1 demands per router: column generation's
    master would have a row for each, so auto takes the PTAS there."""
    import candidates as cd
    from flows import Demands, FlowProblem
    from flows.solve import AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER, choose_solver

    t = cd.torus((6, 6, 6))
    dense = FlowProblem.from_topology(t, Demands.uniform(t.n))
    sparse = FlowProblem.from_topology(t, Demands.random(t.n, 4 * t.n, seed=1))
    assert len(dense.demands) > AUTO_PTAS_ABOVE_DEMANDS_PER_ROUTER * t.n
    assert choose_solver(dense, 0.05) == "ptas" and choose_solver(dense, 0.0) == "colgen"
    assert choose_solver(sparse, 0.05) == "colgen"
    assert choose_solver(dense, 0.05, "latency") == "ptas" and choose_solver(dense, 0.0, "latency") == "colgen"
    assert choose_solver(sparse, 0.05, "latency") == "colgen"


@pytest.mark.parametrize("name,p", CASES, ids=[c[0] for c in CASES])
def test_colgen_mwu_master_brackets_the_arc_lp(name, p):
    exact = solve_lp(p).lam
    for tol in (1e-4, 0.05):
        r = colgen_max_concurrent_flow(p, tol=tol, master="mwu")
        assert r.status == "optimal" and r.gap <= tol
        assert r.lam <= exact * (1 + 1e-9) and r.upper_bound >= exact * (1 - 1e-9)
        for h in r.extra["history"]:
            assert h["lambda"] <= exact * (1 + 1e-9) <= h["upper_bound"] * (1 + 2e-9)
        # the arc flow is the explicit routing that certifies lam
        assert r.utilisation.max() == pytest.approx(((p.R @ r.arc_flow) / p.capacity).max())
        assert r.utilisation.max() <= 1 + 1e-9
        assert r.extra["method"] == "colgen (mwu master)"


def test_colgen_mwu_on_a_512_router_torus_brackets_the_recorded_optimum():
    # the optimum 0.235467 (docs/results/flows.md, colgen with the PDLP master to gap 2.8e-6)
    p = FlowProblem.from_topology(cd.torus((8, 8, 8)), Demands.random(512, 2048, seed=1))
    r = colgen_max_concurrent_flow(p, tol=0.02, master="mwu")
    assert r.status == "optimal" and r.gap <= 0.02
    assert r.lam <= 0.2354675 <= r.upper_bound
    assert r.lam >= 0.2354665 / 1.02


def test_solve_picks_the_mwu_master_for_loose_gaps():
    p = FlowProblem.from_topology(cd.torus((4, 4, 4)), Demands.random(64, 256, seed=1))
    exact = solve_lp(p).lam
    r = solve(p, eps=0.05, solver="colgen")
    assert r.extra["method"] == "colgen (mwu master)" and r.lam <= exact * (1 + 1e-9) <= r.upper_bound * (1 + 1e-9)
    assert solve(p, eps=0.0, solver="colgen").extra["method"] == "colgen (pdlp master)"


def test_solve_falls_back_to_the_lp_master_when_the_potential_stalls(monkeypatch):
    import dataclasses
    import importlib

    S = importlib.import_module("flows.solve")   # the module (flows.solve is also the function)
    C = importlib.import_module("flows.colgen")  # solve imports the solver from it when chosen

    real = C.colgen_max_concurrent_flow

    def stalling(problem, **kw):
        r = real(problem, **kw)
        if kw.get("master") == "mwu":   # what a stalled potential returns: uncertified, gap above tol
            return dataclasses.replace(r, lam=r.lam * 0.9, status="stalled at gap 0.1 after 3 rounds (master accuracy)")
        return r

    monkeypatch.setattr(C, "colgen_max_concurrent_flow", stalling)
    t = cd.torus((4, 4, 4))
    p = FlowProblem.from_topology(t, Demands.random(64, 256, seed=2))
    r = S.solve(p, eps=0.05, solver="colgen")
    exact = solve_lp(p).lam
    assert r.extra["method"] == "colgen (pdlp master)" and r.extra["stalled_first"] == "colgen (mwu master)"
    assert r.certified and r.lam <= exact * (1 + 1e-7) and r.upper_bound >= exact * (1 - 1e-7) and r.gap <= 0.05


@pytest.mark.parametrize("master", ["pdlp", "mwu"])
def test_progress_reports_every_round_and_changes_nothing(master):
    p = FlowProblem.from_topology(cd.torus((4, 4, 4)), Demands.random(64, 256, seed=3))
    seen: list = []
    quiet = colgen_max_concurrent_flow(p, tol=1e-3, master=master)
    loud = colgen_max_concurrent_flow(p, tol=1e-3, master=master, progress=seen.append, progress_interval=0.0)
    assert (loud.lam, loud.upper_bound, loud.iterations) == (quiet.lam, quiet.upper_bound, quiet.iterations)
    assert [s["rounds"] for s in seen] == list(range(1, loud.iterations + 1))
    exact = solve_lp(p).lam
    for s in seen:   # every report is a certified bracket of the optimum
        assert s["lam"] <= exact * (1 + 1e-9) <= s["upper_bound"] * (1 + 1e-9)


def test_latency_progress_brackets_the_lp_optimum():
    from flows import colgen_min_latency, min_latency

    t = cd.torus((4, 6))    # where the latency-shortest paths do not fit: the PTAS searches
    p0 = FlowProblem.from_topology(t, Demands.random(24, 96, seed=3))
    p = p0.scaled(0.9 * solve_lp(p0).lam)
    opt = solve_lp(p, "latency").average_latency
    for fn in (colgen_min_latency, min_latency):
        seen: list = []
        fn(p, progress=seen.append, progress_interval=0.0)
        lat = [s for s in seen if "lower_bound" in s]
        assert lat and all(s["lower_bound"] <= opt * (1 + 1e-7) and s["upper_bound"] >= opt * (1 - 1e-7) for s in lat)
