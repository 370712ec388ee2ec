"""benchmarks/bound_tpds2010_permutations.py: its routing-restricted bounds against independent ones."""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import candidates as cd
from flows import Demands, FlowProblem, solve_lp
import sim

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bound_tpds2010_permutations as B  # noqa: E402


def _path_lp(t, pattern: str) -> float:
    """Max concurrent flow over every shortest path of each pair, one variable per path
    (networkx enumerates them): the minimal-routing bound computed another way."""
    G = t.to_networkx()
    M = sim.traffic(pattern).demand_matrix(t, level="router")
    S, D = np.nonzero(M)
    arc = {(int(t.arc_src[a]), int(t.arc_dst[a])): a for a in range(t.num_arcs)}
    cols, pair = [], []
    for k, (s, d) in enumerate(zip(S, D)):
        for p in nx.all_shortest_paths(G, int(s), int(d)):
            cols.append([arc[(p[i], p[i + 1])] for i in range(len(p) - 1)])
            pair.append(k)
    nv = len(cols) + 1
    r = [a for c in cols for a in c]
    c_ = [j for j, c in enumerate(cols) for _ in c]
    A_ub = sp.csr_matrix((np.ones(len(r)), (r, c_)), shape=(t.num_arcs, nv))
    A_eq = sp.lil_matrix((len(S), nv))
    for j, k in enumerate(pair):
        A_eq[k, j] = 1.0
    for k in range(len(S)):
        A_eq[k, nv - 1] = -M[S[k], D[k]]
    c = np.zeros(nv)
    c[-1] = -1.0
    res = linprog(c, A_ub=A_ub, b_ub=np.ones(t.num_arcs), A_eq=A_eq.tocsr(), b_eq=np.zeros(len(S)),
                  bounds=(0, None), method="highs")
    return float(res.x[-1])


@pytest.mark.parametrize("spec", ["rt:a=4", "rtt:a=4"])
@pytest.mark.parametrize("pattern", ["bitcomplement", "bitreversal", "shuffle"])
def test_bounds_against_independent_computations(spec, pattern):
    t = cd.from_spec(spec)
    b = B.bounds(t, pattern)
    exact = solve_lp(FlowProblem.from_topology(t, Demands.from_matrix(sim.traffic(pattern).demand_matrix(t)))).lam
    assert exact / 1.02 - 1e-9 <= b["free"] <= exact + 1e-9          # the PTAS's certified lower end
    assert b["minimal"] == pytest.approx(_path_lp(t, pattern), rel=1e-6)
    assert b["record"] <= b["minimal"] + 1e-9 and b["minimal"] <= exact + 1e-9


def test_bit_complement_does_not_depend_on_the_numbering_and_bit_reversal_does():
    # complementing a PE index complements every coordinate whichever runs fastest: the same router
    # pairs (what the bounds' note relies on); bit reversal's pairs change with the numbering
    t = cd.from_spec("rtt:a=8")
    pairs = {n: set(zip(*[x.tolist() for x in B._pairs(t, p, n)[:2]])) for p in ("bitcomplement",)
             for n in ("x-slowest", "x-fastest")}
    assert pairs["x-slowest"] == pairs["x-fastest"] and len(pairs["x-slowest"]) == t.n
    rev = {n: set(zip(*[x.tolist() for x in B._pairs(t, "bitreversal", n)[:2]])) for n in ("x-slowest", "x-fastest")}
    assert rev["x-slowest"] != rev["x-fastest"]
    # and the x-fastest pairs are the pattern applied to that numbering: PE index x + 16 y
    c = t.coords
    s, d, _ = B._pairs(t, "bitreversal", "x-fastest")
    idx = c[:, 0] + 16 * c[:, 1]
    assert all(int(format(int(i), "07b")[::-1], 2) == int(j) for i, j in zip(idx[s], idx[d]))


@pytest.mark.parametrize("pattern", ["bitcomplement", "bitreversal", "shuffle"])
def test_permutation_traffic_is_the_named_pattern_on_the_simulators_numbering(pattern):
    t = cd.from_spec("rtt:a=8")
    named = sim.traffic(pattern).demand_matrix(t, level="router")
    built = B.permutation_traffic(t, pattern, "x-slowest").demand_matrix(t, level="router")
    assert np.allclose(built, named)


def test_shuffle_does_not_depend_on_the_numbering():
    # numbering x fastest instead of slowest rotates the index bits, and a perfect shuffle is a rotation:
    # they commute, so the router pairs are the same (the --paper notes rely on it)
    t = cd.from_spec("rt:a=8")
    m = {n: B.permutation_traffic(t, "shuffle", n).demand_matrix(t, level="router") for n in ("x-slowest", "x-fastest")}
    assert np.array_equal(m["x-slowest"], m["x-fastest"])
    assert not np.array_equal(B.permutation_traffic(t, "bitreversal", "x-fastest").demand_matrix(t, level="router"),
                              B.permutation_traffic(t, "bitreversal", "x-slowest").demand_matrix(t, level="router"))


def test_highest_accepted_load_below_saturation_is_the_offered_load():
    # at 32 PEs and 0.1 phits/cycle/PE nothing saturates (the minimal bound is 0.5): every phit offered is
    # accepted, the fixed points' share included (0.1 is a per-PE average), within the Poisson noise
    x = B.highest_accepted("rt:a=4", "bitreversal", "x-fastest", 4, seed=1, loads=(0.05, 0.1))
    assert x == pytest.approx(0.1, rel=0.08)


@pytest.mark.parametrize("spec", ["rt:a=4", "rtt:a=4"])
def test_record_split_is_the_lp_flow_and_the_simulator_follows_it(spec):
    """The split table holds the record LP's optimal flow: its central and vertex solutions have the same
    lambda (the bound of the default mode), each pair's flow leaves its source at lambda x its demand, and the
    simulator routed by it loads every channel as the LP does at the offered fraction of lambda."""
    t = cd.from_spec(spec)
    lam, split, load = B.record_split(t, "bitreversal", "x-fastest")
    lam_v, _, load_v = B.record_split(t, "bitreversal", "x-fastest", central=False)
    assert lam == pytest.approx(lam_v, rel=1e-4)
    src, dst, amount = B._pairs(t, "bitreversal", "x-fastest")
    assert np.allclose(split[src, dst].sum(axis=1), lam * amount, rtol=1e-4)
    assert load.max() <= 1 + 1e-6 and load_v.max() <= 1 + 1e-6
    frac = 0.5
    cfg = sim.preset("tpds2010", tie_break="first", measure=40000)
    r = sim.simulate(t, cfg, B.permutation_traffic(t, "bitreversal", "x-fastest"), frac * lam, seed=4, split=split)
    assert r.escape_fraction < 0.01
    # a pair sends some 1,100 packets in the window (Poisson, sd 3%): a channel at 0.5 moves by sd 0.015, and
    # the largest of 64 channels' deviations stays within 4 sd
    assert np.abs(r.channel_utilisation - frac * load).max() < 0.06


def test_selection_rules_cover_the_simulators():
    # every local rule of SimConfig.selection is measured, and the split variants are told apart in the table
    assert set(B.RULES) - set(B.SPLIT_LABEL) == set(sim.SELECTIONS)
