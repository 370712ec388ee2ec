"""Fat trees and k-ary n-trees: counts, wiring, and the layers' treatment of
routers without processing elements (PEs), checked against closed forms and
independent constructions."""

import itertools
import json

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import flows
from candidates.analytics.measures import bisection, pe_distances, uniform_load
from candidates.registry import spec_size
from synth.cli import main


# ------------------------------------------------------------- fat tree
def test_fattree_k4_published_counts():
    t = cd.fattree(4)
    # Al-Fares et al.: k^3/4 hosts, 5k^2/4 switches, k^3/2 links, every switch using all k ports
    assert (t.num_terminals, t.n, t.num_links) == (16, 20, 32)
    assert (t.degree + t.terminals).tolist() == [4] * 20
    assert t.terminals.tolist() == [2] * 8 + [0] * 12   # hosts on the edge switches only


@pytest.mark.parametrize("k", [2, 4, 6, 8, 12])
def test_fattree_counts_closed_form(k):
    t = cd.fattree(k)
    assert (t.n, t.num_links, t.num_terminals) == (5 * k * k // 4, k ** 3 // 2, k ** 3 // 4)
    assert np.all(t.degree + t.terminals == k)
    z = spec_size(f"fattree:k={k}")
    assert (z.routers, z.links, z.dims) == (t.n, t.num_links, t.ndim)


def _fattree_nx(k):
    """Al-Fares's description, built from scratch with named switches."""
    h = k // 2
    G = nx.Graph()
    for p in range(k):
        for e in range(h):
            G.add_node(("edge", p, e), terminals=h)
            for a in range(h):
                G.add_edge(("edge", p, e), ("agg", p, a))
        for a in range(h):
            G.nodes[("agg", p, a)]["terminals"] = 0
            for j in range(h):  # aggregation switch a of every pod reaches core row a
                G.add_node(("core", a, j), terminals=0)
                G.add_edge(("agg", p, a), ("core", a, j))
    return G


@pytest.mark.parametrize("k", [4, 6])
def test_fattree_is_al_fares_wiring(k):
    G = cd.fattree(k).to_networkx()
    same = nx.is_isomorphic(G, _fattree_nx(k), node_match=lambda a, b: a["terminals"] == b["terminals"])
    assert same


def _pe_pairs_nx(t):
    """Hop distance of every ordered pair of distinct PEs, by networkx."""
    G = t.to_networkx()
    owner = np.repeat(np.arange(t.n), t.terminals)
    d = dict(nx.all_pairs_shortest_path_length(G))
    return [d[int(owner[a])][int(owner[b])] for a in range(len(owner)) for b in range(len(owner)) if a != b]


def test_fattree_pe_distances_match_networkx():
    t = cd.fattree(4)
    pairs = _pe_pairs_nx(t)
    pe = pe_distances(t)
    assert pe.distribution == np.bincount(pairs).tolist() == [16, 0, 32, 0, 192]
    assert pe.diameter == max(pairs) == 4
    # a host: 1 host on its switch (0 hops), 2 in its pod (2 hops), 12 elsewhere (4 hops)
    assert pe.average_distance == pytest.approx(np.mean(pairs)) and pe.average_distance == pytest.approx(52 / 15)
    d = cd.describe(t)
    assert (d["pe_diameter"], d["pe_average_distance"]) == (4, pytest.approx(52 / 15))
    # the router average (spines included) is another number: the PE figure is not a relabelling
    assert d["average_distance"] != pytest.approx(52 / 15)


def test_fattree_full_bisection_between_pe_halves():
    t = cd.fattree(4)
    b = bisection(t)
    assert (b.width, b.exact, b.halves) == (8, True, "PEs")   # hosts / 2: full bisection bandwidth
    side = np.zeros(t.n, dtype=bool)
    side[b.side] = True
    assert int(t.terminals[side].sum()) == 8
    assert int(np.count_nonzero(side[t.links[:, 0]] != side[t.links[:, 1]])) == 8
    # independent: every split of the 20 switches with 8 hosts on each side, by numpy
    masks = np.arange(2 ** 19, dtype=np.int64)
    bits = ((masks[:, None] >> np.arange(20)) & 1).astype(bool)
    ok = bits @ t.terminals == 8
    cut = (bits[ok][:, t.links[:, 0]] != bits[ok][:, t.links[:, 1]]).sum(axis=1)
    assert int(cut.min()) == 8


def test_fattree_k6_bisection_heuristic_reaches_full_bisection():
    b = bisection(cd.fattree(6))   # 18 edge switches: too many splits to try, a heuristic
    assert not b.exact and b.width == 6 ** 3 // 8  # an upper bound that reaches hosts / 2 = 27


def test_fattree_uniform_throughput_one_per_pe_by_flows():
    t = cd.fattree(4)
    d = flows.Demands.uniform(t.n, t.terminals)
    # every host sends one unit to the hosts of other edge switches; spines send nothing
    assert float(d.amount.sum()) == pytest.approx(16.0)
    assert set(d.src.tolist()) | set(d.dst.tolist()) == set(range(8))
    r = flows.solve_lp(flows.FlowProblem.from_topology(t, d))
    assert r.lam == pytest.approx(1.0, abs=1e-7)   # full bisection: each edge switch's 2 uplinks carry its 2 hosts


def test_fattree_uniform_load_weighs_pes():
    t = cd.fattree(4)
    u = uniform_load(t)
    # a host sends r, 14/15 of it to other edge switches over the edge switch's 2 uplinks shared by 2 hosts
    assert u.injection_bound == pytest.approx(15 / 14)


def test_concentration_keeps_spines_without_pes():
    t = cd.from_spec("fattree:k=4:c=3")
    assert t.terminals.tolist() == [3] * 8 + [0] * 12 and t.spec == "fattree:k=4:c=3"
    assert cd.from_spec(t.spec).num_terminals == 24


# ------------------------------------------------------------ k-ary n-tree
def _ktree_digit_rule(k, n):
    """Petrini and Vanneschi's definition, literally: switches <w, l>, links
    when w and w' agree outside digit l, PE p on leaf <p_0..p_{n-2}, n-1>;
    numbered as the module documents (stage n-1-l, w in base k)."""
    words = list(itertools.product(range(k), repeat=n - 1))
    num = {w: sum(d * k ** (n - 2 - i) for i, d in enumerate(w)) for w in words}
    row = k ** (n - 1)
    edges = set()
    for l in range(n - 1):
        for w in words:
            for w2 in words:
                if all(w[i] == w2[i] for i in range(n - 1) if i != l):
                    edges.add(((n - 1 - l) * row + num[w], (n - 2 - l) * row + num[w2]))
    pes = np.zeros(n * row, dtype=np.int64)
    for p in itertools.product(range(k), repeat=n):
        pes[num[p[: n - 1]] + 0 * row] += 1
    return {tuple(sorted(e)) for e in edges}, pes


@pytest.mark.parametrize("k, n", [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (4, 2), (4, 3)])
def test_ktree_matches_digit_rule(k, n):
    t = cd.ktree(k, n)
    edges, pes = _ktree_digit_rule(k, n)
    assert {tuple(sorted(e)) for e in t.links.tolist()} == edges
    assert t.num_links == len(edges) == (n - 1) * k ** n   # no parallel links
    assert t.terminals.tolist() == pes.tolist()
    # n levels of k^(n-1) switches, k^n PEs
    assert (t.n, t.num_terminals) == (n * k ** (n - 1), k ** n)
    z = spec_size(t.spec)
    assert (z.routers, z.links) == (t.n, t.num_links)


@pytest.mark.parametrize("k, n", [(2, 3), (3, 3), (2, 5), (4, 3)])
def test_ktree_diameter(k, n):
    t = cd.ktree(k, n)
    G = t.to_networkx()
    # leaves whose strings differ in digit 0 meet only at the roots: n-1 hops up, n-1 down;
    # with the two PE links a message crosses 2n links
    assert nx.diameter(G) == 2 * (n - 1)
    assert nx.shortest_path_length(G, 0, k ** (n - 1) - 1) == 2 * (n - 1)
    assert pe_distances(t).diameter == 2 * (n - 1)


def test_ktree_pe_average_distance_closed_form():
    k, n = 3, 3
    t = cd.ktree(k, n)
    P = k ** n
    # from a PE: k-1 on its leaf at 0; (k-1) k^(n-1-i) whose first differing digit is i, at 2(n-1-i)
    total = sum((k - 1) * k ** (n - 1 - i) * 2 * (n - 1 - i) for i in range(n - 1))
    assert pe_distances(t).average_distance == pytest.approx(total / (P - 1))
    assert pe_distances(t).average_distance == pytest.approx(np.mean(_pe_pairs_nx(t)))


@pytest.mark.parametrize("k, n", [(2, 3), (4, 2)])
def test_ktree_full_bisection_and_throughput(k, n):
    t = cd.ktree(k, n)
    assert bisection(t).width == k ** n // 2
    r = flows.solve_lp(flows.FlowProblem.from_topology(t, flows.Demands.uniform(t.n, t.terminals)))
    assert r.lam == pytest.approx(1.0, abs=1e-7)


# ------------------------------------------------------------------ specs
@pytest.mark.parametrize("spec", ["fattree:k=4", "fattree:6", "ktree:k=4:n=3", "ktree:n=2:k=3", "fattree:k=4:c=1"])
def test_spec_round_trip(spec):
    t = cd.from_spec(spec)
    u = cd.from_spec(t.spec)
    assert np.array_equal(u.links, t.links) and np.array_equal(u.terminals, t.terminals) and u.family == t.family


@pytest.mark.parametrize("spec, message", [
    ("fattree:k=3", r"^fattree: k \(switch ports\) must be even, got k=3; use k=4 or k=2$"),
    ("fattree:k=0", r"k must be >= 2, got k=0 \(for example fattree:k=4\)"),
    ("fattree", r"fattree needs k; example: fattree:k=4"),
    ("ktree:k=1:n=3", r"k must be >= 2, got k=1"),
    ("ktree:k=4", r"ktree needs n=\.\.\.; example: ktree:k=4:n=3"),
    ("ktree:4:3", r"takes only key=value fields"),
    ("ktree:k=4:n=1", r"n must be >= 2"),
    ("ktree:k=4:n=3:m=1", r"does not take parameter 'm'; it takes: k, n"),
])
def test_bad_specs_one_line(spec, message):
    with pytest.raises(cd.SpecError, match=message) as e:
        cd.from_spec(spec)
    assert "\n" not in str(e.value)
    with pytest.raises(cd.SpecError, match=message):
        spec_size(spec)


# ------------------------------------------------------------ simulation
def _simulate(capsys, argv):
    assert main(["simulate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_fattree_table_routing_delivers(capsys):
    r = _simulate(capsys, ["fattree:k=4", "--routing", "table", "--load", "0.1"])
    assert not r["deadlock"] and r["conservation"] and r["delivered"] >= 0.99 * r["injected"] > 0
    assert r["accepted"] == pytest.approx(r["offered"], rel=0.05)
    # every path is minimal, and no path stops at (or starts from) a spine: 3.47 hops per packet
    assert r["hops"] == pytest.approx(r["min_hops"])
    assert 3.0 < r["hops"] < 3.8


# ------------------------------------------------- PEs in the other layers
def test_sim_traffic_numbers_pes_on_the_edge_switches_only():
    import sim
    from traffic import terminal_router

    t = cd.fattree(4)
    assert terminal_router(t).tolist() == np.repeat(np.arange(8), 2).tolist()
    M = sim.traffic("uniform").demand_matrix(t, 1.0)
    # each host offers 1 spread over the 15 other hosts: 2 x 2 / 15 between two edge switches, 2 / 15 within one
    want = np.zeros((20, 20))
    want[:8, :8] = 4 / 15
    want[np.arange(8), np.arange(8)] = 2 / 15
    assert np.allclose(M, want)


def test_uniform_demands_weights_validated():
    with pytest.raises(flows.FlowError, match="processing elements on at least two routers"):
        flows.Demands.uniform(3, np.array([0, 2, 0]))
    with pytest.raises(flows.FlowError, match="3 non-negative numbers"):
        flows.Demands.uniform(3, np.array([1, -1, 1]))


def test_simulator_and_flows_agree_on_the_fat_tree_as_on_a_torus(capsys):
    """Saturation under table routing over the flow optimum (both per PE, both
    uniform between PEs): the fat tree's share is the concentrated torus's."""
    def share(spec):
        sat = _simulate(capsys, [spec, "--routing", "table", "--saturation", "--step", "0.05"])["saturation"]
        t = cd.from_spec(spec)
        lam = flows.solve_lp(flows.FlowProblem.from_topology(t, flows.Demands.uniform(t.n, t.terminals))).lam
        return sat / lam

    tree, torus = share("fattree:k=4"), share("torus:4x4:c=2")   # measured 0.766 / 1 and 0.701 / 0.9375
    assert 0.65 < tree < 1.0 and abs(tree - torus) < 0.1


@pytest.mark.parametrize("spec, needle", [("fattree:k=5", "must be even, got k=5; use k=6 or k=4"),
                                          ("hyperx:", "hyperx needs shape"), ("flatfly:k=4:n=0", "n must be >= 2")])
def test_cli_bad_spec_exit_2_one_line(capsys, spec, needle):
    assert main(["describe", spec]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("toposynth: error: ") and needle in err[0]
