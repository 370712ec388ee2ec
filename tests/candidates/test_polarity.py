"""PolarFly (ER_q) and the affine polarity graph against their definitions and networkx."""

import itertools

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.analytics.moore import moore_bound


def _er_by_definition(q):
    """ER_q for a prime q, by the dot product mod q over normalised points."""
    pts = [p for p in itertools.product(range(q), repeat=3) if any(p)]
    norm = []
    for p in pts:
        lead = next(c for c in p if c)
        inv = pow(lead, q - 2, q)
        v = tuple((c * inv) % q for c in p)
        if v not in norm:
            norm.append(v)
    G = nx.Graph()
    G.add_nodes_from(norm)
    for u, v in itertools.combinations(norm, 2):
        if sum(a * b for a, b in zip(u, v)) % q == 0:
            G.add_edge(u, v)
    return G


@pytest.mark.parametrize("q", [2, 3, 5, 7])
def test_polarfly_is_the_polarity_graph(q):
    t = cd.from_spec(f"polarfly:q={q}")
    G = t.to_networkx()
    assert nx.is_isomorphic(G, _er_by_definition(q))
    assert t.n == q * q + q + 1 and nx.diameter(G) == 2
    deg = np.bincount(t.degree)
    assert deg[q + 1] == q * q and deg[q] == q + 1          # q + 1 absolute points


@pytest.mark.parametrize("q", [4, 8, 9])
def test_polarfly_prime_powers_have_diameter_2_and_one_common_neighbour(q):
    G = cd.from_spec(f"polarfly:q={q}").to_networkx()
    assert nx.diameter(G) == 2
    A = nx.to_numpy_array(G, dtype=int)
    common = A @ A
    off = ~np.eye(len(A), dtype=bool)
    # two points are on exactly one common line: one common neighbour, or none when that neighbour is one of them
    assert set(np.unique(common[off])) <= {0, 1} and (common[off & (A == 0)] == 1).all()


@pytest.mark.parametrize("q", [3, 4, 5, 8, 16])
def test_affine_polarity_by_definition(q):
    t = cd.from_spec(f"affinepolar:q={q}")
    from candidates.generators.slimfly import galois_field

    F = galois_field(q)
    neg = np.argmin(F.add, axis=1)
    expect = {tuple(sorted((x * q + y, a * q + int(F.add[F.mul[x, a], neg[y]])))) for x in range(q) for y in range(q)
              for a in range(q)}
    expect = {e for e in expect if e[0] != e[1]}
    assert {tuple(sorted(e)) for e in t.links.tolist()} == expect
    G = t.to_networkx()
    assert nx.diameter(G) == 3
    # routers with different x share a neighbour or are joined: only same-x routers are 3 hops apart
    dist = dict(nx.all_pairs_shortest_path_length(G))
    far = {(u, v) for u in dist for v, k in dist[u].items() if k == 3}
    assert all(u // q == v // q for u, v in far)


def test_affine_polarity_32_meets_the_graph_golf_record():
    """q = 32: 1024 routers of degree 32 (32 of degree 31) within 1.5% of the Moore bound; paired up, the
    search's start reaches the record 1.998 of (1024, 32)."""
    from candidates.search import search_graph

    t = cd.from_spec("affinepolar:q=32")
    assert (t.n, t.num_links) == (1024, 16368)
    r = search_graph(1024, 32, moves=500, seed=1, start=t, temperature=0.01)
    assert r.diameter == 3 and set(r.topology.degree.tolist()) == {32}
    assert round(r.aspl, 3) <= 1.998 and r.aspl >= moore_bound(1024, 32).aspl


def test_bad_q_is_one_line():
    for spec in ("polarfly:q=6", "polarfly:q=1", "affinepolar:q=12", "polarfly:q=x", "polarfly:q=3:p=0"):
        with pytest.raises(cd.SpecError):
            cd.from_spec(spec)
