"""The Topology data model: channels, CSR, interop, pickling, validation."""

import pickle

import networkx as nx
import numpy as np
import pytest

import candidates as cd


def test_channels_and_csr_are_consistent():
    t = cd.torus((4, 2))  # has parallel links
    assert t.num_arcs == 2 * t.num_links
    for i, (u, v) in enumerate(t.links.tolist()):
        assert (t.arc_src[2 * i], t.arc_dst[2 * i]) == (u, v)
        assert (t.arc_src[2 * i + 1], t.arc_dst[2 * i + 1]) == (v, u)
    for v in range(t.n):
        arcs = t.arc_id[t.indptr[v] : t.indptr[v + 1]]
        assert np.all(t.arc_src[arcs] == v)
        assert np.array_equal(t.arc_dst[arcs], t.neighbors(v))
    assert sorted(t.arc_id.tolist()) == list(range(t.num_arcs))
    G = t.to_networkx()
    assert isinstance(G, nx.MultiGraph)
    assert [G.degree(v) for v in range(t.n)] == t.degree.tolist()


def test_pickle_is_small_and_drops_caches():
    t = cd.torus((8, 8, 8))
    small = len(pickle.dumps(t))
    _ = t.indptr, t.arc_src, t.degree
    assert len(pickle.dumps(t)) == small
    u = pickle.loads(pickle.dumps(t))
    assert np.array_equal(u.links, t.links) and u.spec == t.spec
    assert np.array_equal(u.indices, t.indices)


def test_networkx_round_trip_keeps_order_and_classes():
    t = cd.pdtt(2)
    u = cd.Topology.from_networkx(t.to_networkx())
    assert np.array_equal(u.links, t.links)
    assert [u.dims[d] for d in u.link_dim] == [t.dims[d] for d in t.link_dim]
    G = nx.relabel_nodes(nx.petersen_graph(), {i: f"n{i}" for i in range(10)})
    p = cd.Topology.from_networkx(G)
    assert p.params["nodes"][:3] == ["n0", "n1", "n2"]


def test_concentration():
    t = cd.torus((4, 4)).with_concentration(3)
    assert t.num_terminals == 48 and t.spec == "torus:4x4:c=3"
    assert cd.from_spec(t.spec).num_terminals == 48
    with pytest.raises(cd.TopologyError, match="positive"):
        cd.torus((4, 4)).with_concentration(0)


@pytest.mark.parametrize("spec, routers, pes", [
    ("torus:4x4", 16, 16),
    ("torus:4x4:c=2", 16, 32),
    ("rtt:a=2:c=2", 8, 16),                # a twisted torus of 2a^2 routers
    ("fattree:k=4", 20, 16),               # k-ary fat tree: 5k^2/4 switches, k^3/4 hosts (spines carry no PE)
])
def test_routers_and_pes(spec, routers, pes):
    t = cd.from_spec(spec)
    assert (t.routers, t.pes) == (routers, pes)
    assert t.n == routers                  # the field the other layers read
    assert repr(t) == f"Topology({spec!r}, routers={routers}, pes={pes}, links={t.num_links})"
    with pytest.raises(AttributeError):
        t.routers = 3                      # derived: read-only


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n=0, links=np.zeros((0, 2))), "at least one router"),
        (dict(n=3, links=np.array([[0, 3]])), "router indices"),
        (dict(n=3, links=np.array([[1, 1]])), "self-loop"),
        (dict(n=3, links=np.array([[0, 1]]), link_dim=np.array([1])), "index dims"),
        (dict(n=3, links=np.array([[0, 1]]), terminals=np.array([1, -1, 1])), "non-negative"),
    ],
)
def test_invalid_topologies_rejected(kwargs, message):
    with pytest.raises(cd.TopologyError, match=message):
        cd.Topology(**kwargs)


def test_arrays_are_read_only():
    t = cd.ring(5)
    with pytest.raises(ValueError):
        t.links[0, 0] = 3
