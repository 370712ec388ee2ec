"""The Slim Fly family: the MMS graphs against the Hoffman-Singleton graph,
the paper's construction written out for prime q, GF(q) for prime powers,
and the figures of Besta and Hoefler (SC 2014)."""

import itertools
import json

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.registry import spec_size
from candidates.generators.slimfly import galois_field, slimfly, slimfly_figures, slimfly_q_values, slimfly_size
from flows import Demands, FlowProblem, solve_lp
from synth.cli import main


def test_q5_is_the_hoffman_singleton_graph():
    t = slimfly(5)
    G = t.to_networkx()
    assert (t.n, t.num_links) == (50, 175)
    assert set(t.degree.tolist()) == {7}
    assert nx.diameter(G) == 2 and nx.girth(G) == 5
    assert nx.is_isomorphic(G, nx.hoffman_singleton_graph())
    f = slimfly_figures(5)
    assert f.moore_bound == 50 and f.moore_fraction == 1.0  # a Moore graph
    assert int(t.terminals[0]) == 4 == f.p                  # ceil(7/2)


@pytest.mark.parametrize("q", [3, 4, 7, 8, 9, 11, 13, 16])
def test_routers_degree_diameter(q):
    t = slimfly(q)
    delta = {1: 1, 0: 0, 3: -1}[q % 4]
    k = (3 * q - delta) // 2
    G = t.to_networkx()
    assert t.n == 2 * q * q and set(t.degree.tolist()) == {k}
    assert not t.has_parallel_links
    assert nx.diameter(G) == 2
    f = slimfly_figures(q)
    assert (f.routers, f.degree, f.links, f.diameter) == (t.n, k, t.num_links, 2)
    assert f.average_distance == pytest.approx(nx.average_shortest_path_length(G))
    assert f.moore_fraction == pytest.approx(2 * q * q / (k * k + 1))
    assert (t.n, t.num_links) == slimfly_size(q)


def test_moore_fraction_tends_to_eight_ninths():
    fr = [slimfly_figures(q).moore_fraction for q in (101, 103, 107, 109)]
    assert all(abs(x - 8 / 9) < 0.02 for x in fr)


def paper_mms_prime(q):
    """Besta and Hoefler's construction for prime q, written out: xi the
    smallest primitive root mod q, X and X' = xi X as in their Section 2.1."""
    xi = next(x for x in range(2, q) if len({pow(x, e, q) for e in range(q - 1)}) == q - 1)
    if q % 4 == 1:
        X = {pow(xi, e, q) for e in range(0, q - 1, 2)}
    else:
        w = (q + 1) // 4
        X = {pow(xi, e, q) for e in list(range(0, 2 * w - 1, 2)) + list(range(2 * w - 1, 4 * w - 2, 2))}
    Xp = {(xi * v) % q for v in X}
    edges = set()
    node = lambda s, u, v: s * q * q + u * q + v  # noqa: E731
    for x, y, y2 in itertools.product(range(q), repeat=3):
        if (y - y2) % q in X:
            edges.add(frozenset((node(0, x, y), node(0, x, y2))))
        if (y - y2) % q in Xp:
            edges.add(frozenset((node(1, x, y), node(1, x, y2))))
    for x, y, m, c in itertools.product(range(q), repeat=4):
        if y == (m * x + c) % q:
            edges.add(frozenset((node(0, x, y), node(1, m, c))))
    return edges


@pytest.mark.parametrize("q", [3, 5, 7, 11, 13])
def test_prime_q_matches_the_paper_written_out(q):
    t = slimfly(q)
    assert {frozenset(map(int, l)) for l in t.links} == paper_mms_prime(q)
    assert len(t.links) == len(paper_mms_prime(q))


@pytest.mark.parametrize("q", [4, 8, 9, 16, 25, 27])
def test_prime_power_fields(q):
    F = galois_field(q)
    els = np.arange(q)
    A, M = F.add, F.mul
    assert (A[0] == els).all() and (M[1] == els).all() and (M[0] == 0).all()
    assert all(sorted(A[x].tolist()) == els.tolist() for x in els)            # additive group rows are permutations
    assert all(sorted(M[x, 1:].tolist()) == els[1:].tolist() for x in els[1:])  # every non-zero has an inverse
    x, y, z = (np.random.default_rng(q).integers(0, q, 500) for _ in range(3))
    assert (M[x, A[y, z]] == A[M[x, y], M[x, z]]).all()                       # distributive
    assert (M[x, M[y, z]] == M[M[x, y], z]).all() and (A[x, A[y, z]] == A[A[x, y], z]).all()
    assert len({F.power(e) for e in range(q - 1)}) == q - 1                    # xi is primitive
    # characteristic r: adding any element r times gives 0
    r = next(d for d in range(2, q + 1) if q % d == 0)
    acc = els.copy()
    for _ in range(r - 1):
        acc = A[acc, els]
    assert (acc == 0).all()


def test_q_values_and_bad_q():
    assert slimfly_q_values(30) == [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29]
    for q in (1, 2, 6, 10, 12, 15, 18, 50):
        with pytest.raises(cd.SpecError, match="prime power 4w"):
            slimfly(q)


def test_uniform_flow_reaches_the_bound_on_hoffman_singleton():
    # every link of the (edge-transitive) Hoffman-Singleton graph carries the
    # same load, so the LP reaches 2*links / (PEs * average distance) = 49/52
    t = slimfly(5)
    lam = solve_lp(FlowProblem.from_topology(t, Demands.uniform(t.n, weights=t.terminals))).lam
    f = slimfly_figures(5)
    assert f.uniform_bound == pytest.approx(350 / (200 * 91 / 49)) == pytest.approx(49 / 52)
    assert lam == pytest.approx(49 / 52, rel=1e-7)


def test_uniform_flow_below_the_bound_for_q3():
    # q=3: the three link classes are loaded differently; LP optimum recorded 2026-11-25 (17/21)
    t = slimfly(3)
    lam = solve_lp(FlowProblem.from_topology(t, Demands.uniform(t.n, weights=t.terminals))).lam
    assert lam == pytest.approx(17 / 21, rel=1e-7) and lam < slimfly_figures(3).uniform_bound


@pytest.mark.parametrize("spec", ["slimfly:q=5", "slimfly:q=9:p=3", "slimfly:p=2:q=3", "slimfly:q=8"])
def test_spec_round_trip_and_size_hook(spec):
    t = cd.from_spec(spec)
    u = cd.from_spec(t.spec)
    assert np.array_equal(u.links, t.links) and np.array_equal(u.terminals, t.terminals) and u.spec == t.spec
    s = spec_size(spec)
    assert (s.routers, s.links) == (t.n, t.num_links)
    assert t.family == "slimfly" and cd.FAMILIES["slimfly"].capabilities.coordinates


def test_default_pes_per_router():
    assert cd.from_spec("slimfly:q=5").spec == "slimfly:q=5"
    assert int(cd.from_spec("slimfly:q=7").terminals[0]) == 6   # ceil(11/2)
    assert cd.from_spec("slimfly:q=5:p=1").num_terminals == 50


@pytest.mark.parametrize("spec, message", [
    ("slimfly:q=6", "q=6 is not: use one of 3, 4, 5, 7, 8, 9"),
    ("slimfly:q=2", "q must be a prime power 4w+delta"),
    ("slimfly:q=5:p=0", "p (PEs per router) must be at least 1"),
    ("slimfly:q=5000", "beyond the largest q"),
    ("slimfly", "slimfly needs q=...; example: slimfly:q=5"),
    ("slimfly:5", "takes key=value fields"),
    ("slimfly:q=5:a=2", "does not take parameter 'a'"),
    ("slimfly:q=x", "parameter q must be an integer"),
])
def test_bad_specs_one_line(spec, message, capsys):
    with pytest.raises(cd.SpecError) as e:
        cd.from_spec(spec)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert main(["describe", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toposynth: error: slimfly") and err.count("\n") == 1


def test_describe(capsys):
    assert main(["describe", "slimfly:q=5", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["nodes"] == 50 and d["links"] == 175 and d["diameter"] == 2


def test_simulate_table_routing_delivers(capsys):
    assert main(["simulate", "slimfly:q=3", "--routing", "table", "--load", "0.1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert not d["deadlock"] and d["accepted"] == pytest.approx(d["offered"], rel=0.05)
    assert 0.08 < d["offered"] < 0.12
