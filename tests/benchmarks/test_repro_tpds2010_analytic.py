"""benchmarks/repro_tpds2010_analytic.py: the RTT's distance distribution (Proposition 6) and the traffic across
its bisection (section 5.2) of 'twisted-tori-tpds2010', against closed forms and independent computations."""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import candidates as cd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import repro_tpds2010_analytic as R  # noqa: E402


@pytest.mark.parametrize("a", [3, 4, 5, 6, 8])
def test_rtt_distance_distribution_is_propositions_6(a):
    h = R.distance_histogram(cd.rtt(a))
    assert h.tolist() == [1] + [4 * d for d in range(1, a)] + [2 * a - 1]
    assert R.paper_histogram(a).tolist() == h.tolist()


@pytest.mark.parametrize("a", [4, 6])
def test_the_histogram_agrees_with_the_projects_own_distances(a):
    t = cd.rtt(a)
    for src in (0, t.n - 1):
        h = np.bincount(cd.hop_distances(t.indptr, t.indices, src))
        assert h.tolist() == R.distance_histogram(t).tolist()


def test_the_rt_does_not_have_the_distribution():
    # the plain rectangular torus: 4d routers at distance d only while d < a/2
    h = R.distance_histogram(cd.rt(4))
    assert h.tolist() != R.paper_histogram(4).tolist()
    assert h.tolist() == [1, 4, 7, 8, 7, 4, 1]


def test_paper_cut_is_4a_on_the_rtt_and_2a_on_the_rt():
    for a in (3, 4, 6, 8):
        assert R.cut_width(cd.rtt(a), R.halves(cd.rtt(a))) == 4 * a
        assert R.cut_width(cd.rt(a), R.halves(cd.rt(a))) == 2 * a


@pytest.mark.parametrize("spec,width", [("rtt:a=3", 12), ("rt:a=3", 6)])
def test_integer_program_matches_exhaustive_bisection(spec, width):
    t = cd.from_spec(spec)
    r = R.min_bisection_ilp(t, time_limit=60)
    exhaustive = cd.bisection(t, exact_limit=24)
    assert exhaustive.exact
    assert r["optimal"] and r["best"] == exhaustive.width == width


def test_integer_program_rtt4_is_16():
    r = R.min_bisection_ilp(cd.rtt(4), time_limit=60)
    assert r["optimal"] and r["best"] == 16 and r["bound"] == pytest.approx(16)


@pytest.mark.parametrize("a", [3, 4, 6, 8])
def test_pairs_leaving_a_half_are_a2_a2_minus_1_over_6(a):
    t = cd.rtt(a)
    side = R.halves(t)
    want = a * a * (a * a - 1) / 6
    paths, _ = R.crossing_pairs_paths(t, side)
    first, even = R.crossing_pairs_records(t, side)
    assert paths == pytest.approx(want)
    assert first == want and even == pytest.approx(want)
    assert R.closed_form_crossing(a) == want
    # the other half the same
    assert R.crossing_pairs_paths(t, ~side)[0] == pytest.approx(want)


def test_pairs_leaving_the_half_by_enumerating_the_paths():
    # every shortest path listed by networkx, a pair counted by the share of its paths with a router outside
    a = 4
    t = cd.rtt(a)
    side = R.halves(t)
    G = R.graph(t)
    L = np.flatnonzero(side).tolist()
    total = 0.0
    for s in L:
        for d in L:
            if s != d:
                ps = list(nx.all_shortest_paths(G, s, d))
                total += sum(any(not side[v] for v in p) for p in ps) / len(ps)
    assert total == pytest.approx(R.crossing_pairs_paths(t, side)[0])


def test_arc_loads_equal_networkx_edge_betweenness_over_all_pairs():
    t = cd.rtt(4)
    G = R.graph(t)
    mine = R.arc_loads(G, range(t.n), range(t.n))
    ref = nx.edge_betweenness_centrality(G.to_directed(), normalized=False)
    assert set(mine) == set(ref)
    for e, x in ref.items():
        assert mine[e] == pytest.approx(x)


@pytest.mark.parametrize("a", [4, 6])
def test_three_of_four_cut_links_carry_traffic_between_the_halves(a):
    t = cd.rtt(a)
    loads = R.cut_loads(t, R.halves(t))
    assert loads["channels"] == 4 * a
    assert loads["between"] == pytest.approx(a ** 4)                   # a^4 packets, one crossing each
    assert loads["internal"] == pytest.approx(a * a * (a * a - 1) / 3)  # both halves' crossing pairs
    assert loads["back"] == pytest.approx(0)
    per = a * (4 * a * a - 1) / 12                                     # every channel of the RTT
    assert loads["total_min"] == pytest.approx(per) and loads["total_max"] == pytest.approx(per)
    share = loads["between"] / (loads["between"] + loads["internal"])
    assert share == pytest.approx(3 * a * a / (4 * a * a - 1))
    assert 3 * a < 4 * a * share < 3 * a + 1 / a


@pytest.mark.parametrize("a", [3, 4, 6])
def test_flow_bound_is_a4_over_the_uniform_channel_load_and_below_the_bisection(a):
    t = cd.rtt(a)
    G = R.graph(t)
    load = R.arc_loads(G, range(t.n), range(t.n))
    assert max(load.values()) == pytest.approx(a * (4 * a * a - 1) / 12)
    assert R.flow_bound(a) == pytest.approx(a ** 4 / max(load.values()))
    assert 3 * a < R.flow_bound(a) < 4 * a
    if a <= 4:
        assert R.min_bisection_ilp(t, time_limit=60)["best"] >= R.flow_bound(a)
