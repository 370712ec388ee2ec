"""A study's flows go through flows.solve with the solver it names, and get the direct solvers' numbers."""

import dataclasses

import numpy as np

import flows
from synth.evaluate import STUDY_SOLVER, build_problem, build_topology, evaluate
from synth.runner import cross_check
from synth.study import study_from_dict


def test_the_study_path_gets_the_direct_solvers_numbers():
    s = study_from_dict({"candidates": {"specs": ["torus:4x4"]},
                         "traffic": {"pattern": "random", "count": 64, "scales": [0.2]},
                         "ranking": {"objective": "both", "eps": 0.05}, "cross_check": {"top": 1}})
    p = build_problem(build_topology("torus:4x4", s), s)
    rec = evaluate("torus:4x4", s)
    assert STUDY_SOLVER == "ptas" and STUDY_SOLVER in flows.SOLVER_REGISTRY and rec.status == "ok"
    # the capacity: bit for bit the PTAS called directly at the study's eps
    direct = flows.max_concurrent_flow(p, eps=0.05)
    assert rec.capacity.lam == direct.lam and rec.capacity.upper_bound == direct.upper_bound
    via = flows.solve(p, 0.05, solver=STUDY_SOLVER)
    assert via.lam == direct.lam and np.array_equal(via.arc_flow, direct.arc_flow)
    assert via.extra["method"] == "ptas" and via.extra["dijkstras"] == direct.extra["dijkstras"]
    # the latency at a fifth of the demand: the PTAS search from the capacity run, as min_latency gives it
    cap_s = dataclasses.replace(direct, lam=direct.lam / 0.2, upper_bound=direct.upper_bound / 0.2)
    lat = flows.min_latency(p.scaled(0.2), eps=0.05, capacity=cap_s, max_phases=max(5000, direct.iterations))
    (rec_lat,) = rec.to_dict()["latency"]
    assert rec_lat["solver"] == "ptas" and rec_lat["average_latency"] == lat.average_latency > 0
    assert rec_lat["latency_bound"] == lat.latency_bound
    # the cross-check's exact LP through flows.solve: the direct LP's lambda
    (check,) = cross_check(s, ["torus:4x4"], {"torus:4x4": rec})
    assert check["lp_lambda"] == flows.solve_lp(p).lam and check["within_eps"]
