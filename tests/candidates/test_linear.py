"""Linear placements: counts by brute force, cut width and wire length closed forms."""

import itertools

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from candidates.linear import count_linear_placements, linear_placements, min_cutwidth


def brute_classes(G):
    """Distinct placements up to automorphism and mirror, by brute force."""
    n = G.number_of_nodes()
    E = list(G.edges())
    classes = {}
    for p in itertools.permutations(range(n)):
        pos = {v: i for i, v in enumerate(p)}
        key = tuple(sorted(tuple(sorted((pos[u], pos[v]))) for u, v in E))
        mirror = tuple(sorted(tuple(sorted((n - 1 - pos[u], n - 1 - pos[v]))) for u, v in E))
        k = min(key, mirror)
        cw = max(sum(1 for u, v in E if min(pos[u], pos[v]) <= g < max(pos[u], pos[v])) for g in range(n - 1)) if n > 1 else 0
        wl = sum(abs(pos[u] - pos[v]) for u, v in E)
        classes.setdefault(k, (p, cw, wl))
    return classes


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 7), st.floats(0.2, 0.9), st.integers(0, 10**6))
def test_placements_equal_brute_force(n, p, seed):
    G = nx.gnp_random_graph(n, p, seed=seed)
    ref = brute_classes(G)
    got = linear_placements(G)
    assert len(got) == len(ref)
    assert sorted((x.cutwidth, x.wirelength) for x in got) == sorted((c, w) for _, c, w in ref.values())
    # representatives are the lexicographically smallest order of their class
    assert {x.order for x in got} == {min(q for q in itertools.permutations(range(n))
                                          if brute_key(G, q) == k) for k in ref} if n <= 5 else True


def brute_key(G, q):
    n = len(q)
    pos = {v: i for i, v in enumerate(q)}
    key = tuple(sorted(tuple(sorted((pos[u], pos[v]))) for u, v in G.edges()))
    mirror = tuple(sorted(tuple(sorted((n - 1 - pos[u], n - 1 - pos[v]))) for u, v in G.edges()))
    return min(key, mirror)


@pytest.mark.parametrize("n", [3, 5, 8])
def test_closed_forms(n):
    best = linear_placements(nx.path_graph(n))[0]
    assert (best.cutwidth, best.wirelength) == (1, n - 1)
    best = linear_placements(nx.cycle_graph(n))[0]
    assert (best.cutwidth, best.wirelength) == (2, 2 * (n - 1))
    assert min_cutwidth(nx.complete_graph(n)) == (n // 2) * ((n + 1) // 2)
    # an asymmetric-free count: the star K_{1,n-1} has |Aut| = (n-1)!; placements
    # are decided by the centre's position up to mirror
    assert count_linear_placements(nx.star_graph(n - 1)) == (n + 1) // 2


def test_filters():
    G = nx.cycle_graph(6)
    allp = linear_placements(G)
    assert all(p.cutwidth <= 2 for p in linear_placements(G, max_cutwidth=2))
    assert len(linear_placements(G, max_cutwidth=2)) == sum(p.cutwidth <= 2 for p in allp)
