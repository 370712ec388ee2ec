"""Channel loads under uniform traffic (records, random ties, ECMP) and every
minimal record of a displacement class, against routes walked hop by hop."""

import itertools

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.analytics.measures import channel_loads
from candidates.errors import TopologyError
from candidates.generators.lattice import reduce_to_box
from candidates.analytics.records import record_table, record_ties

VT = ["ring:5", "ring:6", "torus:4x4", "torus:2x4", "torus:3x4x4", "rt:a=4", "rtt:a=4", "pt:a=4", "ptt:a=4",
      "pdtt:a=4", "twisted:8x4:t1=2", "twisted:6x4x4:t1=2,0:t2=3,1", "hypercube:4"]


def _class(t, u, v):
    box = reduce_to_box(t.coords[v] - t.coords[u], t.shape, t.lattice)
    return int(np.ravel_multi_index(tuple(box.T), t.shape))


def _walk(t, u, rec, load, weight):
    """Route a record hop by hop in dimension order, adding ``weight`` to every channel it takes."""
    for d, hops in enumerate(rec):
        for _ in range(abs(int(hops))):
            out = np.flatnonzero((t.arc_src == u) & (t.arc_dim == d))
            same = out[(out % 2 == 0) == (hops > 0)]
            a = int(same[0] if len(same) else out[0])      # a hypercube has one channel a dimension
            load[a] += weight
            u = int(t.arc_dst[a])
    return u


def _all_minimal_records(t, v, dist):
    """Every vector r with |r| = dist(0, v) in v's displacement class (brute force over a box)."""
    D = t.ndim
    target = _class(t, 0, v)
    out = []
    for r in itertools.product(range(-dist, dist + 1), repeat=D):
        r = np.asarray(r)
        if np.abs(r).sum() == dist and _class_of_vector(t, r) == target:
            out.append(r)
    return out


def _class_of_vector(t, r):
    box = reduce_to_box(r[None], t.shape, t.lattice)
    return int(np.ravel_multi_index(tuple(box.T), t.shape)[0])


def _brute(t, routing):
    """Per-channel loads at one phit/cycle/PE from walking every pair's route(s)."""
    n = t.n
    load = np.zeros(t.num_arcs)
    if routing == "records":
        base = record_table(t)
        alts = {v: [base[v]] for v in range(n)}
    else:
        recs, cnt = record_ties(t)
        alts = {v: list(recs[:cnt[v], v]) for v in range(n)}
    for u in range(n):
        for v in range(n):
            if u == v:
                continue
            rs = alts[_class(t, u, v)]
            for r in rs:
                assert _walk(t, u, r, load, 1.0 / (n - 1) / len(rs)) == v
    return load


def _per_class(t, load):
    even = np.arange(t.num_arcs) % 2 == 0
    plus = [load[even & (t.arc_dim == d)].max() for d in range(t.ndim)]
    minus = [load[~even & (t.arc_dim == d)].max() for d in range(t.ndim)]
    return np.array(plus), np.array(minus)


@pytest.mark.parametrize("spec", VT)
@pytest.mark.parametrize("routing", ["records", "ties"])
def test_channel_loads_equal_the_walked_routes(spec, routing):
    t = cd.from_spec(spec)
    plus, minus = _per_class(t, _brute(t, routing))
    c = channel_loads(t, routing)
    assert np.allclose(c.plus, plus) and np.allclose(c.minus, minus)
    assert c.bound == pytest.approx(1 / max(plus.max(), minus.max()))


@pytest.mark.parametrize("spec,reach", [("torus:4x4", 1), ("torus:3x4x4", 1), ("rtt:a=4", 2), ("rtt:a=6", 2),
                                        ("pt:a=4", 1), ("ptt:a=4", 2), ("pdtt:a=4", 1), ("twisted:8x4:t1=2", 1)])
def test_record_ties_are_every_minimal_record(spec, reach):
    t = cd.from_spec(spec)
    dist = nx.single_source_shortest_path_length(t.to_networkx(), 0)
    recs, cnt = record_ties(t, reach)
    assert np.array_equal(recs[0], record_table(t))
    for v in range(1, t.n):
        mine = sorted(tuple(int(x) for x in r) for r in recs[:cnt[v], v])
        brute = sorted(tuple(int(x) for x in r) for r in _all_minimal_records(t, v, dist[v]))
        assert mine == brute, v


def test_rtt_needs_reach_two_for_some_ties():
    """RTT(4): router 16 has a fourth minimal record two tiles away (tie_break="random" draws among three)."""
    t = cd.rtt(4)
    assert record_ties(t, 1)[1][16] == 3 and record_ties(t, 2)[1][16] == 4


def test_ecmp_loads_match_networkx_edge_betweenness():
    """ECMP channel loads are directed edge betweenness (ordered pairs, shared evenly over shortest
    paths) / (n - 1): on a mesh (not vertex-transitive) and on a twisted torus."""
    for spec in ("mesh:4x5", "rtt:a=4"):
        t = cd.from_spec(spec)
        g = nx.DiGraph(list(zip(t.arc_src.tolist(), t.arc_dst.tolist())))
        eb = nx.edge_betweenness_centrality(g, normalized=False)
        load = np.array([eb[(int(u), int(v))] for u, v in zip(t.arc_src, t.arc_dst)]) / (t.n - 1)
        plus, minus = _per_class(t, load)
        c = channel_loads(t, "ecmp")
        assert np.allclose(c.plus, plus) and np.allclose(c.minus, minus), spec


def test_hypercube_records_closed_form():
    """e-cube on the d-cube: every directed channel carries n/2 pairs, so the bound is 2 (n - 1) / n."""
    t = cd.hypercube(5)
    c = channel_loads(t, "records")
    assert c.bound == pytest.approx(2 * 31 / 32)
    assert cd.uniform_load(t).routing_bound == pytest.approx(2 * 31 / 32)


def test_torus_records_closed_form():
    """A ring of even k under records: the k/2 tie goes - ; the - channel carries (k/2)(k/2+1)/2 hops of
    router 0's, the + channel (k/2-1)(k/2)/2, each / (k - 1)."""
    k = 8
    c = channel_loads(cd.ring(k), "records")
    assert c.minus == pytest.approx([(k // 2) * (k // 2 + 1) / 2 / (k - 1)])
    assert c.plus == pytest.approx([(k // 2 - 1) * (k // 2) / 2 / (k - 1)])


def test_records_need_a_vertex_transitive_lattice():
    with pytest.raises(TopologyError, match="use routing='ecmp'"):
        channel_loads(cd.from_spec("mesh:4x4"), "records")
    with pytest.raises(TopologyError, match="unknown routing"):
        channel_loads(cd.ring(4), "valiant")
