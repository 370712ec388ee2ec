"""Family capabilities are declared once, in the registry: each record rule gives the BFS distances
(networkx) of its family, and registering a family name twice is an error."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from candidates.capabilities import Capabilities, capabilities, families_with
from candidates.analytics.records import has_records, routing_records

SMALL = {"torus": "torus:4x3", "ring": "ring:7", "mesh": "mesh:4x3", "path": "path:5", "hypercube": "hypercube:4",
         "rt": "rt:a=3", "rtt": "rtt:a=4", "pt": "pt:a=3", "ptt": "ptt:a=3", "pdtt": "pdtt:a=3",
         "twisted": "twisted:6x4:t1=3"}


def test_record_families_are_the_lattice_families():
    assert set(families_with("records")) == set(SMALL)
    assert set(families_with("ties")) == set(SMALL) - {"mesh", "path", "hypercube"}
    assert families_with("twin") == ["ndt"]
    assert {"graph", "g6", "product", "bgl"} == set(families_with("whole_argument"))


@pytest.mark.parametrize("family", sorted(SMALL))
def test_each_record_rule_gives_the_hop_distances(family):
    t = cd.from_spec(SMALL[family])
    assert has_records(t) and capabilities(t).coordinates
    n = t.n
    src, dst = np.repeat(np.arange(n), n), np.tile(np.arange(n), n)
    length = np.abs(routing_records(t, src, dst)).sum(axis=1).reshape(n, n)
    G = t.to_networkx()
    ref = np.array([[nx.shortest_path_length(G, u, v) for v in range(n)] for u in range(n)])
    assert np.array_equal(length, ref)


def test_families_without_records():
    for spec in ("complete:6", "product:ring:4*path:3", "ndt:2x2x2"):
        t = cd.from_spec(spec)
        assert not has_records(t) and capabilities(t).records is None
    with pytest.raises(cd.TopologyError, match="records exist for the families torus, mesh"):
        routing_records(cd.from_spec("complete:6"), [0], [1])


def test_registering_a_name_twice_is_an_error():
    fam = cd.FAMILIES["ring"]
    with pytest.raises(ValueError, match="'ring' is already registered"):
        cd.register(fam)
    assert cd.FAMILIES["ring"] is fam


def test_capabilities_are_consistent():
    with pytest.raises(ValueError, match="need coordinates"):
        Capabilities(records="torus")
    with pytest.raises(ValueError, match="tie rule needs routing records"):
        Capabilities(coordinates=True, ties=True)
    with pytest.raises(ValueError, match="unknown record rule"):
        Capabilities(coordinates=True, records="dragonfly")
    assert cd.FAMILIES["pdtt"].to_dict()["capabilities"] == {
        "coordinates": True, "records": "tiles", "ties": True, "twin": False, "whole_argument": False,
        "updown_minimal": False, "groups": False, "figures": False, "routes": [], "intermediates": False,
        "auto_routing": None}
    assert cd.FAMILIES["dragonfly"].to_dict()["capabilities"]["routes"] == ["minimal"]
    with pytest.raises(ValueError, match="unknown family routing 'ecmp'"):
        Capabilities(coordinates=True, routes={"ecmp": lambda t: None})
    with pytest.raises(ValueError, match="groups are numbered by the first coordinate"):
        Capabilities(groups=True)
    assert families_with("groups") == ["dragonfly"]
