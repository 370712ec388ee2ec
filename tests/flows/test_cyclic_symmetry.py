"""The shift-symmetric uniform capacity against the exact arc LP."""

import numpy as np
import pytest

import candidates as cd
import flows
from flows.problem import Demands, FlowProblem
from flows.cyclic_symmetry import shift_orbits, shift_symmetric_uniform, shift_symmetry
from candidates.search import search_graph


@pytest.mark.parametrize("n, d, g, seed", [(48, 4, 4, 2), (60, 3, 6, 1), (64, 4, 8, 3), (40, 5, 10, 4)])
def test_shift_lp_equals_the_arc_lp(n, d, g, seed):
    t = search_graph(n, d, moves=2000, seed=seed, symmetry=g).topology
    assert shift_symmetry(t) % g == 0
    r = shift_symmetric_uniform(t, g=g)
    exact = flows.solve(FlowProblem.from_topology(t, Demands.uniform(n)), eps=0, solver="lp").lam
    assert r.lam == pytest.approx(exact, rel=1e-7)
    assert r.lam <= r.upper_bound and r.gap < 1e-6
    # the bound the prices certify is a true upper bound
    assert exact <= r.upper_bound * (1 + 1e-12)


def test_orbits_have_g_channels_each_and_the_torus_is_shift_invariant():
    t = cd.torus((4, 6))
    assert shift_symmetry(t) == 4          # x -> x + 6: one step along the first dimension (the last is fastest)
    orb = shift_orbits(t, 4)
    assert np.bincount(orb).tolist() == [4] * (t.num_arcs // 4)
    with pytest.raises(flows.FlowError, match="not invariant"):
        shift_orbits(t, 24)                # x -> x + 1 wraps the fast dimension into the slow one


def test_no_shift_symmetry_is_refused():
    t = cd.from_spec("g6:G?bF`w")   # an 8-router graph without a cyclic shift symmetry
    assert shift_symmetry(t) == 1
    with pytest.raises(flows.FlowError, match="no cyclic shift symmetry"):
        shift_symmetric_uniform(t)


def test_solve_auto_takes_the_shift_lp_for_uniform_traffic():
    t = search_graph(96, 4, moves=3000, seed=1, symmetry=8).topology
    p = FlowProblem.from_topology(t, Demands.uniform(t.n))
    r = flows.solve(p, eps=0.01, topology=t)
    assert r.extra["method"] == "shift symmetry"
    exact = flows.solve(p, eps=0, solver="colgen").lam
    assert r.lam == pytest.approx(exact, rel=1e-6)
    # random traffic is not uniform: the general solvers
    q = FlowProblem.from_topology(t, Demands.random(t.n, 200, seed=1))
    assert flows.solve(q, eps=0.05, topology=t).extra["method"] != "shift symmetry"
