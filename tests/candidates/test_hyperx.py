"""HyperX and the flattened butterfly against the Cartesian product of
complete graphs (networkx), their closed forms, and the simulator."""

import json
import math

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import flows
from candidates.analytics.measures import distance_stats
from candidates.capabilities import capabilities
from candidates.registry import spec_size
from synth.cli import main

SHAPES = [(2,), (5,), (2, 3), (3, 3), (4, 4), (2, 2, 3), (3, 2, 4), (2, 2, 2, 2)]


def _product(shape):
    G = nx.complete_graph(shape[0])
    for s in shape[1:]:
        G = nx.cartesian_product(G, nx.complete_graph(s))
    return G


def _flat(node):
    """networkx nests product nodes as ((a, b), c): flatten to (a, b, c)."""
    if not isinstance(node, tuple):
        return (node,)
    return _flat(node[0]) + _flat(node[1])


@pytest.mark.parametrize("shape", SHAPES)
def test_hyperx_is_product_of_complete_graphs(shape):
    h = cd.hyperx(shape)
    P = _product(shape)
    # the same graph under the coordinate labelling, not only up to isomorphism
    mine = {frozenset((tuple(h.coords[u]), tuple(h.coords[v]))) for u, v in h.links.tolist()}
    theirs = {frozenset((_flat(u), _flat(v))) for u, v in P.edges()}
    assert mine == theirs and h.num_links == P.number_of_edges()
    if h.n <= 24:
        assert nx.is_isomorphic(h.to_networkx(), P)
    # coordinates are C order, link class k is dimension k
    assert h.coords.tolist() == [list(c) for c in np.ndindex(*shape)]
    moved = h.coords[h.links[:, 0]] != h.coords[h.links[:, 1]]
    assert np.array_equal(np.argmax(moved, axis=1), h.link_dim) and np.all(moved.sum(axis=1) == 1)


@pytest.mark.parametrize("shape", SHAPES)
def test_hyperx_closed_forms(shape):
    h = cd.hyperx(shape, t=2)
    n = math.prod(shape)
    assert h.degree.tolist() == [sum(s - 1 for s in shape)] * n
    assert h.num_links == n * sum(s - 1 for s in shape) // 2 and h.num_terminals == 2 * n
    st = distance_stats(h)
    assert st.diameter == len(shape) == nx.diameter(h.to_networkx())
    # pairs at distance d: choose the d differing dimensions, any other position in each
    from itertools import combinations
    want = [n * sum(math.prod(shape[i] - 1 for i in dims) for dims in combinations(range(len(shape)), d))
            for d in range(len(shape) + 1)]
    assert st.distribution == want
    z = spec_size(h.spec)
    assert (z.routers, z.links, z.dims) == (h.n, h.num_links, h.ndim)


@pytest.mark.parametrize("k, n", [(2, 2), (2, 4), (3, 3), (4, 3), (5, 2)])
def test_flatfly_is_hyperx_with_k_pes(k, n):
    f = cd.flatfly(k, n)
    h = cd.hyperx((k,) * (n - 1), t=k)
    assert np.array_equal(f.links, h.links) and np.array_equal(f.terminals, h.terminals)
    assert np.array_equal(f.coords, h.coords) and np.array_equal(f.link_dim, h.link_dim)
    # Kim, Dally, Abts: k^(n-1) routers, k^n PEs, radix k + (n-1)(k-1)
    assert (f.n, f.num_terminals) == (k ** (n - 1), k ** n)
    assert set((f.degree + f.terminals).tolist()) == {k + (n - 1) * (k - 1)}
    assert f.spec == f"flatfly:k={k}:n={n}" and f.family == "flatfly"


@pytest.mark.parametrize("S, L, t", [(4, 2, 2), (3, 2, 1), (3, 3, 1)])
def test_hyperx_uniform_throughput_closed_form(S, L, t):
    """Arcs all alike (S^L, L dims of equal size): lambda per PE = channels /
    (PEs x mean hops to the other routers)."""
    h = cd.hyperx((S,) * L, t=t)
    n = S ** L
    hops = L * (S - 1) / S * n / (n - 1)   # differing coordinates, averaged over the other routers
    want = h.num_arcs / (h.num_terminals * hops)
    r = flows.solve_lp(flows.FlowProblem.from_topology(h, flows.Demands.uniform(h.n, h.terminals)))
    assert r.lam == pytest.approx(want, rel=1e-7)
    if (S, L, t) == (4, 2, 2):
        assert want == pytest.approx(1.875)


def test_hyperx_capabilities_and_bisection():
    h = cd.hyperx((4, 4, 4))
    c = capabilities(h)
    assert c.coordinates and c.records is None and not c.ties
    assert capabilities(cd.flatfly(4, 3)).coordinates
    assert capabilities(cd.fattree(4)).coordinates is False
    # a straight cut halves one dimension: (S/2)^2 links in each of the n/S lines
    b = cd.describe(h)["bisection"]
    assert b["width"] <= (4 // 2) ** 2 * 64 // 4 == 64


@pytest.mark.parametrize("spec", ["hyperx:4x4x4", "hyperx:4x4x4:t=2", "hyperx:shape=3x5:t=3", "flatfly:k=4:n=3",
                                  "hyperx:3x3:c=2"])
def test_spec_round_trip(spec):
    t = cd.from_spec(spec)
    u = cd.from_spec(t.spec)
    assert np.array_equal(u.links, t.links) and np.array_equal(u.terminals, t.terminals)
    assert (u.family, u.spec) == (t.family, t.spec)


@pytest.mark.parametrize("spec, message", [
    ("hyperx", r"hyperx needs shape; example: hyperx:4x4x4"),
    ("hyperx:4x1", r"every size must be >= 2 .* got 4x1; drop the 1s"),
    ("hyperx:4y4", r"sizes joined by 'x'"),
    ("hyperx:4x4:t=0", r"t \(PEs per router\) must be >= 1, got t=0"),
    ("hyperx:4x4:k=2", r"does not take parameter 'k'; it takes: shape, t"),
    ("flatfly:k=1:n=3", r"flatfly: k must be >= 2, got k=1"),
    ("flatfly:k=4", r"flatfly needs n=\.\.\.; example: flatfly:k=4:n=3"),
])
def test_bad_specs_one_line(spec, message):
    with pytest.raises(cd.SpecError, match=message) as e:
        cd.from_spec(spec)
    assert "\n" not in str(e.value)


def test_python_api_validates():
    with pytest.raises(cd.SpecError, match="at least one dimension"):
        cd.hyperx(())
    with pytest.raises(cd.SpecError, match="must be >= 1"):
        cd.hyperx((3, 3), t=0)
    with pytest.raises(cd.SpecError, match="integer"):
        cd.hyperx((3, 3), t=1.5)


def test_simulate_hyperx_table_routing_delivers(capsys):
    assert main(["simulate", "hyperx:4x4:t=2", "--routing", "table", "--load", "0.3", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert not r["deadlock"] and r["conservation"] and r["delivered"] >= 0.99 * r["injected"] > 0
    assert r["accepted"] == pytest.approx(r["offered"], rel=0.05)
    # minimal paths: 0 hops to the other PE of the router, 1 to 6 routers' 12 PEs, 2 to 9 routers' 18 PEs
    assert r["hops"] == pytest.approx(r["min_hops"])
    assert r["hops"] == pytest.approx((12 + 36) / 31, abs=0.15)
