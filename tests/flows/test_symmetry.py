"""symmetric_uniform: the exact optimum of uniform traffic on lattice families from one source."""

import numpy as np
import pytest

import candidates as cd
from flows import Demands, FlowError, FlowProblem, arc_orbits, max_concurrent_flow, solve_lp, symmetric_uniform

SPECS = ["ring:4", "ring:7", "torus:4x4", "torus:2x3", "torus:2x2x2", "torus:3x4x2", "hypercube:3", "hypercube:4",
         "rt:a=3", "rtt:a=3", "rtt:a=4", "pt:a=2", "ptt:a=2", "pdtt:a=2", "twisted:4x4:t1=1"]


@pytest.mark.parametrize("spec", SPECS)
def test_matches_arc_lp(spec):
    t = cd.from_spec(spec)
    p = FlowProblem.from_topology(t, Demands.uniform(t.n))
    exact = solve_lp(p).lam
    s = symmetric_uniform(t)
    assert s.solver == "symmetry" and s.lam == s.upper_bound
    assert s.lam == pytest.approx(exact, rel=1e-7)
    assert symmetric_uniform(t, p).lam == pytest.approx(exact, rel=1e-7)
    # the expanded flow is feasible and tight
    assert s.utilisation.max() == pytest.approx(1.0, rel=1e-7)


@pytest.mark.parametrize("n", [4, 6, 8, 10])
def test_ring_closed_form(n):
    # even ring: a router's distances add up to n^2 / 4, so the n routers' unit of traffic needs
    # n * (n^2 / 4) / (n - 1) hop-units per unit of lambda on 2n unit channels, all saturated
    assert symmetric_uniform(cd.ring(n)).lam == pytest.approx(2 * n * (n - 1) / (n * n * n / 4), rel=1e-9)


def test_rtt_closed_form():
    # RTT(a), 2a^2 routers, every link used (utilisation 1): lambda = 4N (N - 1) / (N * sum of distances)
    a = 4
    assert symmetric_uniform(cd.rtt(a)).lam == pytest.approx(31 / 21, rel=1e-9)


def test_orbits_regular():
    for spec in ("torus:2x4", "hypercube:3", "pdtt:a=2"):
        t = cd.from_spec(spec)
        orb = arc_orbits(t)
        assert np.all(np.bincount(orb) == t.n)
        assert len(np.unique(orb[t.arc_src == 0])) == t.degree[0]


def test_ptas_bracket_512():
    t = cd.torus((8, 8, 8))
    s = symmetric_uniform(t)
    # 6N unit channels; a router's distances add up to 3 * 64 * (0+1+2+3+4+3+2+1) = 3072 over 511
    # destinations, so lambda = 6N / (N * 3072 / 511)
    assert s.lam == pytest.approx(6 * 511 / 3072, rel=1e-9)
    r = max_concurrent_flow(FlowProblem.from_topology(t, Demands.uniform(t.n)), eps=0.05)
    assert r.lam <= s.lam * (1 + 1e-9) <= r.upper_bound * (1 + 1e-9)


def test_refuses_non_lattice_and_asymmetric():
    with pytest.raises(FlowError, match="not a lattice family"):
        symmetric_uniform(cd.mesh((3, 3)))
    t = cd.torus((4, 4))
    with pytest.raises(FlowError, match="not the same seen from every router"):
        symmetric_uniform(t, FlowProblem.from_topology(t, Demands.random(16, 20, seed=1)))
    cap = np.ones(t.num_arcs)
    cap[0] = 2.0
    with pytest.raises(FlowError, match="differ within a translation orbit"):
        symmetric_uniform(t, FlowProblem.from_topology(t, Demands.uniform(16), capacity=cap))
