"""GraphML / JSON / edge-list / graph6 round trips and bad files."""

import networkx as nx
import numpy as np
import pytest

import candidates as cd


@pytest.mark.parametrize("suffix", [".graphml", ".json", ".edges", ".txt"])
@pytest.mark.parametrize("spec", ["pdtt:a=2", "torus:4x2", "g6:Gr`HOk", "rtt:a=3:c=2"])
def test_round_trip(tmp_path, suffix, spec):
    t = cd.from_spec(spec)
    p = tmp_path / f"g{suffix}"
    cd.write_topology(t, p)
    u = cd.read_topology(p)
    assert u.n == t.n and u.num_links == t.num_links
    assert np.array_equal(u.links, t.links)  # node order kept
    assert [u.dims[d] for d in u.link_dim] == [t.dims[d] for d in t.link_dim]
    assert u.spec == f"graph:{p}"
    if suffix in (".graphml", ".json"):
        assert np.array_equal(u.terminals, t.terminals)
    if suffix == ".json":
        assert u.family == t.family and u.vertex_transitive == t.vertex_transitive
        assert np.array_equal(u.coords, t.coords) if t.coords is not None else u.coords is None


def test_graph6_round_trip(tmp_path):
    t = cd.from_spec("g6:Gr`HOk")
    assert nx.is_isomorphic(t.to_networkx(), nx.hypercube_graph(3))
    p = tmp_path / "q.g6"
    cd.write_topology(t, p)
    assert np.array_equal(cd.read_topology(p).links, t.links)
    with pytest.raises(cd.GraphFileError, match="parallel"):
        cd.write_topology(cd.torus((4, 2)), tmp_path / "x.g6")


def test_edge_list_with_names_and_graph_spec(tmp_path):
    p = tmp_path / "net.edges"
    p.write_text("# a triangle with a tail\nA B\nB C\nC A\nC D fast\n")
    t = cd.from_spec(f"graph:{p}")
    assert t.n == 4 and t.params["nodes"] == ["A", "B", "C", "D"]
    assert t.dims == ("link", "fast")
    assert cd.from_spec(f"graph:{p}:c=2").num_terminals == 8


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("bad.graphml", "this is not xml", "not a GraphML file"),
        ("bad.json", "{\"x\": 1}", "neither a toposynth topology"),
        ("bad2.json", "{not json", "not a JSON file"),
        ("bad.edges", "1 2 3 4\n", "expected 'u v \\[class\\]'"),
        ("loop.edges", "1 1\n", "self-loop"),
        ("empty.edges", "# nothing\n", "no links found"),
        ("bad.g6", "!!!!\n", "not a graph6 string"),
        ("graph.xyz", "1 2\n", "unknown graph file type"),
    ],
)
def test_bad_graph_files(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(cd.GraphFileError, match=message):
        cd.read_topology(p)


def test_missing_file():
    with pytest.raises(cd.GraphFileError, match="no such graph file"):
        cd.from_spec("graph:/nonexistent/net.graphml")
