"""Reading and writing topologies: GraphML, toposynth JSON, edge lists, graph6.

The format follows the file name's ending:

- ``.graphml`` — GraphML (networkx); node order is the file's node order.
- ``.json`` — the toposynth JSON graph format (:meth:`Topology.to_dict`),
  which keeps every field, or networkx node-link JSON.
- ``.edges``, ``.edgelist``, ``.txt``, ``.el`` — one link per line,
  ``u v [class]``; ``#`` starts a comment. Nodes are integers 0..n-1, or
  any names (not both in one file), numbered in order of first appearance.
- ``.g6`` — graph6, one graph per file (a file of several is refused:
  which one was meant is not for the reader to guess).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from common.textfile import read_text

from .capabilities import Capabilities
from .errors import GraphFileError, SpecError, TopologyError
from .registry import Family, int_family, int_size, register
from .topology import Placement, Topology

__all__ = ["read_topology", "write_topology", "from_graph6", "complete_graph", "GRAPH_SUFFIXES"]

GRAPH_SUFFIXES = (".graphml", ".json", ".edges", ".edgelist", ".txt", ".el", ".g6")


def complete_graph(n: int) -> Topology:
    """The complete graph K_n (every router linked to every other).

    >>> complete_graph(5).num_links
    10
    """
    n = int(n)
    if n < 2:
        raise SpecError(f"a complete graph needs at least 2 routers, got {n}")
    iu = np.triu_indices(n, 1)
    links = np.stack(iu, axis=1)
    return Topology(n=n, links=links, family="complete", spec=f"complete:{n}", params={"n": n}, vertex_transitive=True)


def from_graph6(g6: str, *, family: str = "enumerated") -> Topology:
    """A topology from a graph6 string (the format of nauty and of
    :func:`candidates.enumeration.graphs.iter_graph6`); vertex i is router i.

    >>> from_graph6("Bw").num_links  # the triangle
    3
    """
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    text = g6.strip()
    if text.startswith(">>graph6<<"):
        text = text[len(">>graph6<<"):]
    try:
        G = nx.from_graph6_bytes(text.encode("ascii"))
    except Exception as exc:  # networkx raises several types for bad input
        raise GraphFileError(f"not a graph6 string: {g6!r} ({exc})") from None
    t = Topology.from_networkx(G, spec=f"g6:{text}", family=family)
    return t.replace(params={"graph6": text, "n": t.n})


def read_topology(path: str | os.PathLike) -> Topology:
    """Read a topology from a graph file (format by file ending).

    >>> import tempfile, os
    >>> from candidates import ring
    >>> p = os.path.join(tempfile.mkdtemp(), "r.graphml")
    >>> write_topology(ring(5), p)
    >>> read_topology(p).num_links
    5
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in GRAPH_SUFFIXES:
        raise GraphFileError(
            f"{p}: unknown graph file type {suffix or '(none)'}; use one of {', '.join(GRAPH_SUFFIXES)}"
        )
    if not p.is_file():
        raise GraphFileError(f"{p}: no such graph file")
    spec = f"graph:{p}"
    try:
        if suffix == ".graphml":
            t = _read_graphml(p, spec)
        elif suffix == ".json":
            t = _read_json(p, spec)
        elif suffix == ".g6":
            lines = [ln for ln in p.read_text(encoding="ascii", errors="replace").splitlines() if ln.strip()]
            if not lines:
                raise GraphFileError(f"{p}: empty graph6 file")
            if len(lines) > 1:
                # reading the first and ignoring the rest would evaluate a graph the user may not have meant
                raise GraphFileError(f"{p}: holds {len(lines)} graph6 lines, a graph file is one graph; "
                                     f"split it into one file per graph (or list them as g6:... specs)")
            t = from_graph6(lines[0], family="graph")
        else:
            t = _read_edgelist(p, spec)
    except GraphFileError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphFileError(f"{p}: cannot read graph file ({exc})") from None
    if t.n == 0:
        raise GraphFileError(f"{p}: the graph has no nodes")
    return t.replace(spec=spec)


def _read_graphml(p: Path, spec: str) -> Topology:
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    try:
        G = nx.read_graphml(p)
    except Exception as exc:  # ElementTree and networkx parse errors
        raise GraphFileError(f"{p}: not a GraphML file ({type(exc).__name__}: {exc})") from None
    G = _undirected(G, p)
    if G.number_of_nodes() == 0:
        raise GraphFileError(f"{p}: the graph has no nodes")
    t = Topology.from_networkx(G, spec=spec)
    return _with_layout(t, G, p)


def _with_layout(t: Topology, G, p: Path) -> Topology:
    """The topology with the coordinates, box and placement a GraphML file
    written by :func:`write_topology` carries (node attributes ``coord``,
    ``unit``, ``slot``, ``position``; graph attributes ``shape``,
    ``placement_levels``)."""
    nodes = list(G.nodes(data=True))

    def ints(text: Any, what: str) -> list[int]:
        try:
            return [int(x) for x in str(text).split(",")]
        except ValueError:
            raise GraphFileError(f"{p}: node attribute {what} must be integers separated by commas, got {text!r}") from None

    changes: dict[str, Any] = {}
    if nodes and all("coord" in d for _, d in nodes):
        changes["coords"] = np.asarray([ints(d["coord"], "coord") for _, d in nodes], dtype=np.int64)
        if "shape" in G.graph:
            changes["shape"] = tuple(ints(G.graph["shape"], "shape"))
    levels = G.graph.get("placement_levels")
    if levels and nodes and all("unit" in d and "slot" in d for _, d in nodes):
        names = tuple(str(levels).split(","))
        unit = np.asarray([ints(d["unit"], "unit") for _, d in nodes], dtype=np.int64)
        slots = np.asarray([ints(d["slot"], "slot") for _, d in nodes], dtype=np.int64).reshape(len(nodes), -1, 2)
        pos = np.asarray([[float(x) for x in str(d.get("position", "0,0")).split(",")] for _, d in nodes])
        try:
            changes["placement"] = Placement(names, unit, pos, slots)
        except TopologyError as exc:
            raise GraphFileError(f"{p}: the placement it carries is not valid: {exc}") from None
    return t.replace(**changes) if changes else t


def _undirected(G, p: Path):
    """A directed graph as toposynth's bidirectional links: every arc must
    have its reverse (then each pair is one link); a one-way arc is refused
    rather than silently made two-way."""
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    if not G.is_directed():
        return G
    for u, v in G.edges():
        if G.number_of_edges(u, v) != G.number_of_edges(v, u):
            raise GraphFileError(f"{p}: directed graph with a one-way arc {u} -> {v}; toposynth's links are "
                                 "bidirectional: add the reverse arc or write the graph undirected "
                                 "(GraphML edgedefault=\"undirected\")")
    if not G.is_multigraph():
        return G.to_undirected(as_view=False)
    H = nx.MultiGraph()
    H.add_nodes_from(G.nodes(data=True))
    for u, v, data in G.edges(data=True):
        if (u, v) <= (v, u) or u == v:  # one link per pair of opposite arcs
            H.add_edge(u, v, **data)
    return H


def _read_json(p: Path, spec: str) -> Topology:
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    try:
        data = json.loads(read_text(p, "graph file", GraphFileError))
    except json.JSONDecodeError as exc:
        raise GraphFileError(f"{p}: not a JSON file ({exc})") from None
    except RecursionError:
        # the decoder recurses once per nesting level: no graph file nests this deep
        raise GraphFileError(f"{p}: JSON nested too deeply to be a graph file; give a toposynth topology "
                             f"or node-link JSON") from None
    if isinstance(data, dict) and data.get("format") == "toposynth-topology":
        return Topology.from_dict(data)
    if isinstance(data, dict) and "nodes" in data and ("links" in data or "edges" in data):
        edges = "links" if "links" in data else "edges"
        _check_node_link(data, edges, p)
        try:
            G = nx.node_link_graph(data, edges=edges)
        except Exception as exc:
            raise GraphFileError(f"{p}: not a node-link graph ({exc})") from None
        return Topology.from_networkx(_undirected(G, p), spec=spec)
    raise GraphFileError(
        f"{p}: JSON is neither a toposynth topology (format 'toposynth-topology') nor node-link data"
    )


def _check_node_link(data: dict, edges: str, p: Path) -> None:
    """Every link of node-link data joins declared nodes: networkx would add
    an undeclared endpoint as a new node, and a typo in a link would then
    become an extra router (and usually a disconnected graph)."""
    nodes, links = data.get("nodes"), data.get(edges)
    if not isinstance(nodes, list) or not isinstance(links, list):
        raise GraphFileError(f"{p}: node-link data needs lists 'nodes' and '{edges}'")
    try:
        declared = {n["id"] for n in nodes}
    except (TypeError, KeyError):
        raise GraphFileError(f"{p}: every entry of 'nodes' must be an object with an 'id'") from None
    for k, link in enumerate(links):
        if not isinstance(link, dict) or "source" not in link or "target" not in link:
            raise GraphFileError(f"{p}: {edges}[{k}] must be an object with a 'source' and a 'target'")
        for end in ("source", "target"):
            try:
                known = link[end] in declared
            except TypeError:  # an unhashable id (a list, an object)
                known = False
            if not known:
                raise GraphFileError(f"{p}: {edges}[{k}] {end} {link[end]!r} is not a declared node; "
                                     f"add it to 'nodes' or correct the link")


def _is_int(tok: str) -> bool:
    try:
        int(tok)
    except ValueError:
        return False
    return True


def _read_edgelist(p: Path, spec: str) -> Topology:
    names: dict[str, int] = {}
    links: list[tuple[int, int]] = []
    classes: dict[str, int] = {}
    link_dim: list[int] = []
    numeric = None  # whether the nodes are numbers; a file must not mix numbers and names
    for lineno, raw in enumerate(read_text(p, "edge list", GraphFileError).splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) not in (2, 3):
            raise GraphFileError(f"{p}:{lineno}: expected 'u v [class]', got {raw.strip()!r}")
        for tok in parts[:2]:
            is_num = _is_int(tok)
            if is_num and int(tok) < 0:
                raise GraphFileError(f"{p}:{lineno}: node {tok} is negative; number nodes from 0 or give them names")
            if numeric is None:
                numeric = is_num
            elif numeric != is_num:
                raise GraphFileError(f"{p}:{lineno}: node {tok!r} is {'a number' if is_num else 'a name'} but earlier "
                                     f"nodes are {'names' if is_num else 'numbers'}; use numbers 0..n-1 or names "
                                     "throughout")
        ends = []
        for tok in parts[:2]:
            if tok not in names:
                names[tok] = len(names)
            ends.append(names[tok])
        if ends[0] == ends[1]:
            raise GraphFileError(f"{p}:{lineno}: self-loop at node {parts[0]}; links must join two distinct nodes")
        cls = parts[2] if len(parts) == 3 else "link"
        classes.setdefault(cls, len(classes))
        links.append((ends[0], ends[1]))
        link_dim.append(classes[cls])
    if not names:
        raise GraphFileError(f"{p}: no links found; an edge list has one 'u v' pair per line")
    # integer labels 0..n-1 keep their own numbering
    if all(k.isdigit() for k in names) and sorted(int(k) for k in names) == list(range(len(names))):
        remap = np.array([int(k) for k in names], dtype=np.int64)
        arr = remap[np.asarray(links, dtype=np.int64)]
        n = len(names)
        params: dict = {}
    else:
        arr = np.asarray(links, dtype=np.int64)
        n = len(names)
        params = {"nodes": list(names)}
    return Topology(
        n=n,
        links=arr,
        link_dim=np.asarray(link_dim, dtype=np.int64),
        dims=tuple(classes) if classes else ("link",),
        family="graph",
        spec=spec,
        params=params,
    )


def write_topology(topo: Topology, path: str | os.PathLike) -> None:
    """Write a topology; the format follows the file ending (see module doc).

    >>> import tempfile
    >>> from candidates import ring
    >>> p = Path(tempfile.mkdtemp()) / "ring.edges"
    >>> write_topology(ring(4), p)
    >>> print(p.read_text(), end="")
    # ring:4: 4 routers, 4 links
    0 1 x
    1 2 x
    2 3 x
    3 0 x
    """
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".graphml":
        G = topo.to_networkx()
        for _, data in G.nodes(data=True):
            if "coord" in data:
                data["coord"] = ",".join(map(str, data["coord"]))
        if topo.shape is not None:
            G.graph["shape"] = ",".join(map(str, topo.shape))
        pl = topo.placement
        if pl is not None:
            # where every router sits (cards, boards): what the physical model prices, kept with the graph
            G.graph["placement_levels"] = ",".join(pl.levels)
            slots = pl.slot_grid()
            for v, data in G.nodes(data=True):
                data["unit"] = ",".join(str(int(x)) for x in pl.unit[v])
                data["position"] = ",".join(repr(float(x)) for x in pl.position[v])
                data["slot"] = ",".join(str(int(x)) for x in slots[v].reshape(-1))
        # the parameters a builder recorded (a searched graph's provenance) as graph attributes
        for k, v in topo.params.items():
            if isinstance(v, (bool, int, float, str)) and k not in G.graph:
                G.graph[k] = v
        nx.write_graphml(G, p)
    elif suffix == ".json":
        p.write_text(json.dumps(topo.to_dict()))
    elif suffix == ".g6":
        if topo.has_parallel_links:
            raise GraphFileError("graph6 cannot hold parallel links; write .graphml or .json instead")
        p.write_bytes(nx.to_graph6_bytes(topo.to_networkx(), header=False))
    elif suffix in (".edges", ".edgelist", ".txt", ".el"):
        lines = [f"# {topo.spec or topo.family}: {topo.n} routers, {topo.num_links} links"]
        lines += [f"{u} {v} {topo.dims[d]}" for (u, v), d in zip(topo.links.tolist(), topo.link_dim.tolist())]
        p.write_text("\n".join(lines) + "\n")
    else:
        raise GraphFileError(f"{p}: unknown graph file type {suffix or '(none)'}; use one of {', '.join(GRAPH_SUFFIXES)}")


# ---------------------------------------------------------------- the graph families of the registry
def _size_complete(n: int):
    if n < 2:
        raise SpecError(f"a complete graph needs at least 2 routers, got {n}")
    return n, n * (n - 1) // 2, 0


register(Family("complete", "complete graph K_n", (("n", "routers, >= 2"),), "complete:8",
                int_family("complete", "n", complete_graph), int_size("complete", "n", _size_complete)))
register(Family("g6", "a graph given as a graph6 string (as enumerated by `toposynth enumerate`)",
                (("graph6", "the graph6 string"),), "g6:Gr`HOk", lambda pos, kw: from_graph6(pos[0]),
                capabilities=Capabilities(whole_argument=True)))
register(Family("graph", "a graph file: .graphml, .json, .g6, or an edge list (.edges/.txt: 'u v [class]' per line)",
                (("path", "file path"),), "graph:net.graphml", lambda pos, kw: read_topology(pos[0]),
                capabilities=Capabilities(whole_argument=True)))
