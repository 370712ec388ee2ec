"""The dragonfly family: sizes, the global link arrangements against
independent constructions from their references, and the flow optimum
under adversarial and uniform traffic."""

import json
from collections import Counter

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.registry import spec_size
from candidates.generators.dragonfly import ARRANGEMENTS, dragonfly, dragonfly_figures, dragonfly_size
from flows import Demands, FlowProblem, solve_lp
from synth.cli import main

SIZES = [(4, 2, 2), (2, 1, 1), (3, 1, 2), (6, 3, 3)]


def global_pairs(t):
    """The global links as a multiset of unordered router pairs."""
    glob = t.links[t.link_dim == t.dims.index("global")]
    return Counter(tuple(sorted(map(int, l))) for l in glob)


def group_pairs(t):
    a = t.params["a"]
    glob = t.links[t.link_dim == t.dims.index("global")] // a
    return Counter(tuple(sorted(map(int, l))) for l in glob)


@pytest.mark.parametrize("arr", list(ARRANGEMENTS))
@pytest.mark.parametrize("a, p, h", SIZES)
def test_counts_degree_diameter_and_one_link_per_group_pair(arr, a, p, h):
    t = dragonfly(a, p, h, arrangement=arr)
    g = a * h + 1
    assert t.n == a * g and t.num_terminals == a * p * g
    assert len(set(t.coords[:, 0].tolist())) == g
    assert set(t.degree.tolist()) == {a - 1 + h}
    assert not t.has_parallel_links
    G = t.to_networkx()
    assert nx.diameter(G) == 3
    # the groups are cliques
    for grp in range(g):
        assert nx.density(G.subgraph(range(grp * a, grp * a + a))) == 1.0
    # exactly one global link between each pair of groups
    pairs = group_pairs(t)
    assert set(pairs.values()) == {1} and len(pairs) == g * (g - 1) // 2
    f = dragonfly_figures(a, p, h)
    assert (f.routers, f.groups, f.terminals, f.links, f.degree, f.diameter) == (t.n, g, t.num_terminals, t.num_links,
                                                                                 a - 1 + h, nx.diameter(G))
    assert f.global_links == len(pairs) and f.local_links == g * a * (a - 1) // 2
    assert f.global_channels_per_group == a * h and f.radix == p + a - 1 + h
    assert (t.n, t.num_links) == dragonfly_size(a, p, h, arrangement=arr)


# ---- each arrangement from its reference's own rule, written as the reference writes it
def booksim_absolute(a, h, g):
    """BookSim2's DragonFlyNew (src/networks/dragonfly.cpp): router rID's global
    port cnt serves grp_output = (rID % a) * h + cnt, the group grp_output if
    it is below this group and grp_output + 1 otherwise."""
    ends = []
    for rID in range(a * g):
        grp_ID = rID // a
        for cnt in range(h):
            grp_output = (rID % a) * h + cnt
            dest_grp = grp_output if grp_ID > grp_output else grp_output + 1
            # the far end: the port of dest_grp whose grp_output names grp_ID
            back = grp_ID if dest_grp > grp_ID else grp_ID - 1
            ends.append(tuple(sorted((rID, dest_grp * a + back // h))))
    return Counter({k: v // 2 for k, v in Counter(ends).items()})


def sst_rule(name, a, h, g):
    """The SST/merlin scripts of Hastings et al. (Cluster 2015): vport runs
    over a group's global ports, router by router."""
    links = set()
    for grp in range(g):
        vport = 0
        for r in range(a):
            for _ in range(h):
                if name == "relative":
                    tgt_grp = (grp + vport + 1) % g
                    tgt_vport = g - 2 - vport
                else:  # circulant-based
                    if vport % 2 == 0:
                        tgt_grp = (grp + vport // 2 + 1) % g
                        tgt_vport = vport + 1
                    else:
                        tgt_grp = (grp - vport // 2 - 1) % g
                        tgt_vport = vport - 1
                links.add(tuple(sorted((grp * a + r, tgt_grp * a + tgt_vport // h))))
                vport += 1
    return Counter(links)


def caminos_palmtree(a, h, g):
    """CAMINOS's Palmtree arrangement (lag 1), for any g with g-1 dividing a*h."""
    ends = []
    for group_index in range(g):
        for group_offset in range(a):
            for port_index in range(h):
                target_offset = a - group_offset - 1
                target_port = h - 1 - port_index
                target_group = (group_index + 1 + (target_offset * h + target_port) % (g - 1)) % g
                ends.append(tuple(sorted((group_index * a + group_offset, target_group * a + target_offset))))
    return Counter({k: v // 2 for k, v in Counter(ends).items()})


def sst_default_trunked(a, h, g):
    """SST's 'default' arrangement: ports in order go to the other groups in
    turn, skipping the own group, round after round (trunked when g-1 < a*h)."""
    names = {}
    for grp in range(g):
        tgt_grp = 0
        for r in range(a):
            for _ in range(h):
                if tgt_grp % g == grp:
                    tgt_grp += 1
                key = (min(grp, tgt_grp % g), max(grp, tgt_grp % g), tgt_grp // g)
                names.setdefault(key, []).append(grp * a + r)
                tgt_grp += 1
    assert all(len(v) == 2 for v in names.values())
    return Counter(tuple(sorted(v)) for v in names.values())


@pytest.mark.parametrize("a, h", [(4, 2), (2, 1), (3, 2), (6, 3), (2, 3)])
def test_arrangements_match_their_references(a, h):
    g = a * h + 1
    assert global_pairs(dragonfly(a, 1, h)) == booksim_absolute(a, h, g)
    assert global_pairs(dragonfly(a, 1, h, arrangement="relative")) == sst_rule("relative", a, h, g)
    assert global_pairs(dragonfly(a, 1, h, arrangement="palmtree")) == caminos_palmtree(a, h, g)
    if (g - 1) % 2 == 0:
        assert global_pairs(dragonfly(a, 1, h, arrangement="circulant")) == sst_rule("circulant", a, h, g)
    # palmtree is relative with the groups numbered backwards
    flip = lambda v: ((-(v // a)) % g) * a + v % a  # noqa: E731
    rel = dragonfly(a, 1, h, arrangement="relative")
    pal = Counter(tuple(sorted((flip(u), flip(v)))) for (u, v), c in global_pairs(rel).items() for _ in range(c))
    assert pal == caminos_palmtree(a, h, g)


@pytest.mark.parametrize("a, h, g", [(4, 2, 5), (4, 2, 3), (4, 2, 2), (3, 2, 4)])
def test_fewer_groups_trunk_the_global_links(a, h, g):
    t_per_pair = a * h // (g - 1)
    for arr in ARRANGEMENTS:
        if arr == "circulant" and (g - 1) % 2:
            continue
        t = dragonfly(a, 1, h, g, arr)
        assert t.n == a * g and set(t.degree.tolist()) == {a - 1 + h}
        pairs = group_pairs(t)
        assert set(pairs.values()) == {t_per_pair} and len(pairs) == g * (g - 1) // 2
        assert dragonfly_figures(a, 1, h, g).links_per_group_pair == t_per_pair
        assert (t.n, t.num_links) == dragonfly_size(a, 1, h, g, arr)
    assert global_pairs(dragonfly(a, 1, h, g)) == sst_default_trunked(a, h, g)
    assert global_pairs(dragonfly(a, 1, h, g, "palmtree")) == caminos_palmtree(a, h, g)


def leftover_links(a, h, g):
    """The leftover rule of candidates.generators.dragonfly, written out: after the
    full rounds, ports 2i and 2i+1 go to groups G+i+1 and G-i-1; an odd last
    port to G + g/2 (g even) or nowhere (g odd)."""
    m = g - 1
    full = (a * h) // m * m
    r = a * h - full
    ends = []
    for G in range(g):
        for i in range(r):
            k = full + i
            if i == r - 1 and r % 2:
                if g % 2:
                    continue
                D, k2 = (G + g // 2) % g, k
            elif i % 2 == 0:
                D, k2 = (G + i // 2 + 1) % g, k + 1
            else:
                D, k2 = (G - i // 2 - 1) % g, k - 1
            ends.append(tuple(sorted((G * a + k // h, D * a + k2 // h))))
    return Counter({e: c // 2 for e, c in Counter(ends).items()})


@pytest.mark.parametrize("a, p, h, g, extra, unconnected", [
    (8, 4, 4, 32, {2: 16}, 0),      # 1,024 PEs: one port left per group, to the group 16 apart
    (4, 2, 2, 4, {3: 4}, 0),        # groups one apart get a third link
    (3, 1, 3, 5, {}, 5),            # g*r odd: one port per group stays unconnected
    (3, 1, 3, 7, {2: 7}, 7),
])
def test_leftover_ports_when_g_minus_1_does_not_divide_a_h(a, p, h, g, extra, unconnected):
    m = g - 1
    t_full = a * h // m
    f = dragonfly_figures(a, p, h, g)
    assert f.unconnected_ports == unconnected and f.links_per_group_pair == t_full
    for arr in ARRANGEMENTS:
        if arr == "circulant" and m % 2:
            continue
        t = dragonfly(a, p, h, g, arr)
        counts = Counter(group_pairs(t).values())
        assert len(group_pairs(t)) == g * (g - 1) // 2  # still every pair of groups joined
        expect = Counter({t_full: g * (g - 1) // 2 - sum(extra.values())}) + Counter(extra)
        assert counts == expect
        assert sorted(t.degree.tolist()) == sorted([a - 1 + h] * (t.n - unconnected) + [a - 2 + h] * unconnected)
        assert (t.n, t.num_links) == dragonfly_size(a, p, h, g, arr) and t.num_links == f.links
        # the full rounds: as the divisible case's arrangement; the rest: the leftover rule
        rest = global_pairs(t) - leftover_links(a, h, g)
        assert sum(rest.values()) == t_full * g * m // 2
        assert nx.diameter(t.to_networkx()) <= 3
    assert global_pairs(dragonfly(a, p, h, g)) - leftover_links(a, h, g) == sst_default_trunked_full(a, h, g)
    nxt = sum(1 for (u, v), c in group_pairs(dragonfly(a, p, h, g)).items() for _ in range(c) if (v - u) % g in (1, g - 1)
              and min(u, v) == 0 and max(u, v) == 1)
    assert f.adversarial_minimal == nxt / (a * p)


def sst_default_trunked_full(a, h, g):
    """SST's 'default' arrangement over the full rounds only."""
    full = (a * h) // (g - 1) * (g - 1)
    names = {}
    for grp in range(g):
        tgt_grp = 0
        for k in range(full):
            if tgt_grp % g == grp:
                tgt_grp += 1
            key = (min(grp, tgt_grp % g), max(grp, tgt_grp % g), tgt_grp // g)
            names.setdefault(key, []).append(grp * a + k // h)
            tgt_grp += 1
    return Counter(tuple(sorted(v)) for v in names.values())


# ---- flows: the routing-free optimum
def next_group_demands(t):
    """Every PE of group i sends one unit spread evenly over the PEs of group i+1."""
    a, p, g = t.params["a"], t.params["p"], t.params["g"]
    grp = t.coords[:, 0]
    s, d = np.nonzero((grp[None, :] - grp[:, None]) % g == 1)
    return Demands(s, d, np.full(len(s), p / a))


@pytest.mark.parametrize("arr", list(ARRANGEMENTS))
def test_adversarial_optimum_spreads_over_all_global_links(arr):
    # a=4, p=h=2, g=9. Minimal routing puts the a*p = 8 PEs of a group on the
    # one global channel to the next group: 1/8 per PE. The routing-free
    # optimum also uses every other group as an intermediate (Valiant-like):
    # the direct channel carries 1 unit and every other unit takes two of the
    # g*a*h = 72 global channels, so 72*lam <= 9 + (72 - 9)/2, lam <= 9/16;
    # the LP reaches it (local channels have room to spare).
    a, p, h = 4, 2, 2
    t = dragonfly(a, p, h, arrangement=arr)
    f = dragonfly_figures(a, p, h)
    lam = solve_lp(FlowProblem.from_topology(t, next_group_demands(t))).lam
    assert lam == pytest.approx(9 / 16, rel=1e-7) and f.adversarial_optimum == 9 / 16
    assert f.adversarial_minimal == 1 / (a * p) == 0.125
    assert lam / f.adversarial_minimal == pytest.approx(4.5)
    assert lam > f.valiant == 0.5  # Valiant (every unit two global hops) leaves the direct channel's unit unused
    # minimal routing's figure from the built graph: one global link from each group to the next
    grp = t.coords[t.links[t.link_dim == 1]]
    direct = ((grp[:, 1, 0] - grp[:, 0, 0]) % 9 == 1) | ((grp[:, 0, 0] - grp[:, 1, 0]) % 9 == 1)
    assert direct.sum() == 9


# LP optimum of uniform traffic (per PE), recorded 2026-11-25; the hop bound
# is 2 * links / (PEs * average router distance) from networkx
UNIFORM = {"absolute": 1.0538005923000984, "relative": 205 / 194, "circulant": 56 / 53, "palmtree": 205 / 194}


@pytest.mark.parametrize("arr", list(ARRANGEMENTS))
def test_uniform_flow_against_the_global_channel_bound(arr):
    a, p, h = 4, 2, 2
    t = dragonfly(a, p, h, arrangement=arr)
    N = t.num_terminals
    lam = solve_lp(FlowProblem.from_topology(t, Demands.uniform(t.n, weights=t.terminals))).lam
    # global-channel counting: (N - a p)/(N - p) of each PE's traffic leaves its
    # group and needs one of the g*a*h = 72 global channels
    bound = dragonfly_figures(a, p, h).uniform_global_bound
    assert bound == pytest.approx(72 * (N - p) / (N * (N - a * p))) == 1.09375
    D = np.asarray(nx.floyd_warshall_numpy(t.to_networkx()))
    hop_bound = 2 * t.num_links / (N * D.sum() / (t.n * (t.n - 1)))
    assert lam <= hop_bound * (1 + 1e-9) and hop_bound < bound
    assert lam == pytest.approx(UNIFORM[arr], rel=1e-6)
    assert lam > 0.96 * bound  # the global channels are nearly the bottleneck: local ones bind a little


# ---- specs
@pytest.mark.parametrize("spec", [
    "dragonfly:a=4:p=2:h=2", "dragonfly:a=4:p=2:h=2:g=5:arrangement=circulant",
    "dragonfly:a=3:p=1:h=2:arrangement=palmtree", "dragonfly:a=2:p=1:h=1:g=2:arrangement=relative",
    "dragonfly:h=2:a=4:p=2:g=9:arrangement=absolute",
])
def test_spec_round_trip_and_size_hook(spec):
    t = cd.from_spec(spec)
    u = cd.from_spec(t.spec)
    assert np.array_equal(u.links, t.links) and np.array_equal(u.terminals, t.terminals)
    assert u.spec == t.spec and t.family == "dragonfly"
    s = spec_size(spec)
    assert (s.routers, s.links) == (t.n, t.num_links)


def test_canonical_spec_omits_defaults():
    assert cd.from_spec("dragonfly:h=2:a=4:p=2:g=9:arrangement=absolute").spec == "dragonfly:a=4:p=2:h=2"
    assert cd.from_spec("dragonfly:a=4:p=2:h=2:c=3").num_terminals == 36 * 3


@pytest.mark.parametrize("spec, message", [
    ("dragonfly:a=1:p=2:h=2", "a (routers per group) must be at least 2, got a=1"),
    ("dragonfly:a=4:p=2:h=2:g=10", "g=10 groups is more than a*h+1 = 9"),
    ("dragonfly:a=4:p=2:h=2:g=1", "g must be at least 2 groups"),
    ("dragonfly:a=4:p=2:h=2:arrangement=foo", "use one of absolute, relative, circulant, palmtree"),
    ("dragonfly:a=3:p=1:h=1:arrangement=circulant", "g-1 must be even"),
    ("dragonfly:a=4:p=0:h=2", "p (PEs per router) must be at least 1"),
    ("dragonfly:a=4:p=2:h=0", "h (global links per router) must be at least 1"),
    ("dragonfly:a=4:p=2", "dragonfly needs h=...; example: dragonfly:a=4:p=2:h=2"),
    ("dragonfly:4:2:2", "takes key=value fields"),
    ("dragonfly:a=4:p=2:h=2:k=3", "does not take parameter 'k'"),
    ("dragonfly:a=four:p=2:h=2", "parameter a must be an integer"),
])
def test_bad_specs_one_line(spec, message, capsys):
    with pytest.raises(cd.SpecError) as e:
        cd.from_spec(spec)
    assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(cd.SpecError):
        spec_size(spec)
    assert main(["describe", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toposynth: error: dragonfly") and err.count("\n") == 1


def test_registered_with_coordinates():
    fam = cd.FAMILIES["dragonfly"]
    assert fam.capabilities.coordinates and fam.capabilities.records is None
    assert cd.from_spec(fam.example).n == 36


def test_describe(capsys):
    assert main(["describe", "dragonfly:a=4:p=2:h=2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["nodes"] == 36 and d["links"] == 90 and d["diameter"] == 3


def test_simulate_table_routing_delivers(capsys):
    # a smoke check that the simulator's layers accept the family
    assert main(["simulate", "dragonfly:a=2:p=1:h=1", "--routing", "table", "--load", "0.1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert not d["deadlock"] and d["accepted"] == pytest.approx(d["offered"], rel=0.05)
    assert 0.08 < d["offered"] < 0.12
