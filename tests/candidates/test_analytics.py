"""Distance properties, uniform load and bisection against closed forms,
the papers' figures and independent computations."""

import itertools
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from candidates.analytics.measures import bisection, describe, distance_stats, per_dimension_hops, uniform_load


# ------------------------------------------------------------ RTT formula
@pytest.mark.parametrize("a", range(2, 11))
def test_rtt_distance_distribution_proposition_6(a):
    """1 node at 0, 4d at distance d (0 < d < a), 2a - 1 at distance a."""
    s = distance_stats(cd.rtt(a))
    n = 2 * a * a
    expect = [1] + [4 * d for d in range(1, a)] + [2 * a - 1]
    assert s.distribution == [n * x for x in expect]
    assert s.diameter == a
    assert s.average_distance_with_self == pytest.approx((4 * a * a - 1) / (6 * a), rel=1e-12)
    assert s.average_distance == pytest.approx((4 * a * a - 1) / (6 * a) * n / (n - 1), rel=1e-12)


# --------------------------------------------- table of DESIGN.md, exact BFS
def bfs_stats(t):
    G = t.to_networkx()
    lengths = [d for _, row in nx.all_pairs_shortest_path_length(G) for d in row.values()]
    return max(lengths), sum(lengths) / len(lengths)


@pytest.mark.parametrize("fam", ["rt", "rtt", "pt", "ptt", "pdtt"])
@pytest.mark.parametrize("a", [2, 4])
def test_distance_stats_equal_networkx_bfs(fam, a):
    t = cd.from_spec(f"{fam}:a={a}")
    diam, avg_self = bfs_stats(t)
    s = distance_stats(t)
    assert s.diameter == diam
    assert s.average_distance_with_self == pytest.approx(avg_self, rel=1e-12)


DIAMETER = {"rt": Fraction(3, 2), "rtt": 1, "pt": 2, "ptt": Fraction(3, 2), "pdtt": Fraction(3, 2)}
AVERAGE = {"rt": Fraction(3, 4), "rtt": Fraction(2, 3), "pt": 1, "ptt": Fraction(11, 12), "pdtt": Fraction(7, 8)}
LU = {"rt": Fraction(3, 4), "rtt": 1, "pt": Fraction(2, 3), "ptt": Fraction(11, 12), "pdtt": 1}
BOUND = {"rt": 4, "rtt": 6, "pt": 4, "ptt": 6, "pdtt": Fraction(48, 7)}


@pytest.mark.parametrize("fam", ["rt", "rtt", "pt", "ptt", "pdtt"])
def test_closed_forms_of_the_papers(fam):
    """Diameter exact for even a; averages, LU and bounds converge to the
    closed forms (they are approximations: error O(1/a))."""
    errs = []
    for a in (4, 8, 16):
        t = cd.from_spec(f"{fam}:a={a}")
        s = distance_stats(t)
        assert s.diameter == DIAMETER[fam] * a
        load = uniform_load(t)
        err = max(
            abs(s.average_distance_with_self / float(AVERAGE[fam] * a) - 1),
            abs(load.link_utilisation - float(LU[fam])),
            abs(load.injection_bound * a / float(BOUND[fam]) - 1),
        )
        errs.append(err)
    assert errs[-1] < 0.03
    assert errs[-1] < errs[0]  # converging


@pytest.mark.parametrize("a", [2, 4, 6, 8])
def test_rt_injection_bound_exact(a):
    """RT(a): the X ring of 2a carries sum |x'| = a^2 hops per row of
    destinations, so tau_x = a^3 / (N - 1) and the bound is 2(2a^2-1)/a^3."""
    load = uniform_load(cd.rt(a))
    assert load.bottleneck == "x"
    assert load.injection_bound == pytest.approx(2 * (2 * a * a - 1) / a**3, rel=1e-12)
    hops, _ = per_dimension_hops(cd.rt(a))
    n = 2 * a * a
    assert hops["x"] == pytest.approx(a**3 / (n - 1))
    assert hops["y"] == pytest.approx(a**3 / 2 / (n - 1))


def test_per_dimension_adds_up_to_average_distance():
    for spec in ["rtt:a=5", "pdtt:a=3", "torus:4x3x5", "mesh:3x4", "hypercube:4", "g6:Gr`HOk"]:
        t = cd.from_spec(spec)
        hops, _ = per_dimension_hops(t)
        assert sum(hops.values()) == pytest.approx(distance_stats(t).average_distance)


# ---------------------------------------------- ECMP against networkx paths
def ecmp_reference(G, classes, weights=None):
    """Class hop totals and arc loads by enumerating every shortest path,
    traffic w_s * w_t per ordered router pair."""
    n = G.number_of_nodes()
    w = weights or [1] * n
    class_tot = {}
    arc = {}
    for s, t in itertools.permutations(range(n), 2):
        paths = list(nx.all_shortest_paths(G, s, t))
        share = w[s] * w[t] / len(paths)
        for p in paths:
            for u, v in zip(p, p[1:]):
                c = classes[frozenset((u, v))]
                class_tot[c] = class_tot.get(c, 0) + share
                arc[(u, v)] = arc.get((u, v), 0) + share
    return class_tot, arc


@settings(max_examples=25, deadline=None)
@given(st.integers(5, 11), st.integers(0, 10**6), st.integers(1, 3))
def test_uniform_load_ecmp_matches_enumerated_shortest_paths(n, seed, c):
    G = nx.connected_watts_strogatz_graph(n, 4, 0.4, seed=seed)
    rng = np.random.default_rng(seed)
    classes = {frozenset(e): int(rng.integers(2)) for e in G.edges()}
    for e in G.edges():
        G.edges[e]["dim"] = f"c{classes[frozenset(e)]}"
    t = cd.Topology.from_networkx(G).with_concentration(c)
    load = uniform_load(t)
    assert load.routing == "ecmp"
    class_tot, arc = ecmp_reference(G, {k: f"c{v}" for k, v in classes.items()}, [c] * n)
    n_pe = c * n
    for name, links, bound in zip(load.class_names, load.class_links, load.class_bound):
        expect = 2 * links * (n_pe - 1) / class_tot[name] if name in class_tot else np.inf
        assert bound == pytest.approx(expect, rel=1e-9)
    assert load.routing_bound == pytest.approx((n_pe - 1) / max(arc.values()), rel=1e-9)
    # a capacity argument: no class bound beats total capacity / total hops
    total = sum(class_tot.values())
    assert load.injection_bound <= 2 * t.num_links * (n_pe - 1) / total + 1e-9


def test_concentration_scales_bound():
    """With c PEs per router, traffic between PEs of one router stays local:
    the router-level load is c^2 per router pair and N_pe - 1 = cN - 1."""
    base = uniform_load(cd.torus((4, 4)))
    conc = uniform_load(cd.from_spec("torus:4x4:c=2"))
    n = 16
    assert conc.injection_bound == pytest.approx(base.injection_bound * (2 * n - 1) / (4 * (n - 1)))


# --------------------------------------------------------------- bisection
def brute_bisection(G):
    nodes = list(G)
    n = len(nodes)
    best = None
    for side in itertools.combinations(nodes[1:], n // 2 - 1):
        S = set(side) | {nodes[0]}
        cut = sum(1 for u, v in G.edges() if (u in S) != (v in S))
        best = cut if best is None else min(best, cut)
    return best


@settings(max_examples=20, deadline=None)
@given(st.integers(4, 11), st.floats(0.2, 0.8), st.integers(0, 10**6))
def test_bisection_exact_matches_brute_force(n, p, seed):
    G = nx.gnp_random_graph(n, p, seed=seed)
    t = cd.Topology.from_networkx(G)
    b = bisection(t)
    assert b.exact
    assert b.width == brute_bisection(G)
    side = set(b.side)
    assert len(side) == n // 2
    assert b.width == sum(1 for u, v in G.edges() if (u in side) != (v in side))


@pytest.mark.parametrize(
    "spec, width",
    [("ring:10", 2), ("hypercube:4", 8), ("complete:8", 16), ("torus:4x4", 8), ("mesh:4x4", 4), ("torus:6x4", 8)],
)
def test_bisection_known_values(spec, width):
    assert bisection(cd.from_spec(spec)).width == width


def test_bisection_heuristic_is_upper_bound_and_labelled():
    b = bisection(cd.torus((8, 8)))
    assert not b.exact
    assert b.width == 16  # the straight cut; 2k for a k x k torus is optimal
    side = set(b.side)
    assert len(side) == 32


# ---------------------------------------------------------------- describe
def test_describe_rtt_values():
    d = describe(cd.rtt(4))
    assert d["nodes"] == 32 and d["links"] == 64
    assert d["diameter"] == 4
    assert d["average_distance_with_self"] == pytest.approx(63 / 24)
    assert d["average_distance"] == pytest.approx(63 / 24 * 32 / 31)
    assert sum(d["per_dimension"].values()) == pytest.approx(d["average_distance"])
    assert d["bisection"]["exact"] is False


def test_disconnected_topology_is_reported_not_crashed():
    t = cd.Topology(4, np.array([[0, 1], [2, 3]]))
    d = describe(t)
    assert d["connected"] is False and d["diameter"] is None
    assert d["unreachable_pairs"] == 8
    with pytest.raises(cd.TopologyError, match="disconnected"):
        uniform_load(t)
