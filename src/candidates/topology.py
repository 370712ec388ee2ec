"""The shared data model: :class:`Topology` and :class:`Placement`.

Every layer of toposynth consumes a :class:`Topology`. It is a frozen
dataclass of numpy arrays so that it pickles cheaply to joblib/dask workers;
derived structures (directed channels, CSR adjacency) are computed on first
use and are not pickled.

Channel numbering is shared by ``flows`` and ``sim``: arc ``2*i`` is link
``i`` from ``links[i, 0]`` to ``links[i, 1]`` and arc ``2*i + 1`` is the
same link in the opposite direction.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .errors import TopologyError

__all__ = ["Topology", "Placement", "INTERNAL"]

#: Conventional name of the link class of links that are not a lattice
#: dimension (the internal card-to-card link of a twin torus, say).
INTERNAL = "internal"


@dataclass(frozen=True, eq=False)
class Placement:
    """Where every router sits physically.

    ``levels`` names the packaging levels from the innermost outwards (for
    Blue Gene/L: ``("compute_card", "node_card", "midplane")``).
    ``unit[v, l]`` is the index of the unit of level ``l`` that holds router
    ``v`` (units are numbered globally per level). ``position[v]`` is the
    router's position on its innermost board, in grid units (row, column).

    ``slots[v, l]`` (optional, int (n, L, 2)) is the (row, column) slot, on
    the board of its level-``l`` unit, of what holds ``v`` there: the router
    itself for ``l = 0``, its level-``l-1`` unit above that. Wire lengths and
    board cross-sections (``flows.physical``) are measured on this grid.
    Without it every unit is taken to hold its children in one row, in
    index order.

    A 4 x 4 torus on cards of 2 x 2 routers, all on one board
    (:func:`candidates.block_placement` fills these arrays from the
    coordinates); router 5, at (1, 1), is on card 0, in its second row
    and column:

    >>> import candidates as cd
    >>> pl = cd.block_placement(cd.torus((4, 4)), [(2, 2), (4, 4)], ("card", "board")).placement
    >>> pl.levels, pl.unit[5].tolist(), pl.position[5].tolist()
    (('card', 'board'), [0, 0], [1.0, 1.0])

    Or by hand: two cards of two routers each, the routers in a row on their card.

    >>> pl = Placement(("card",), np.array([[0], [0], [1], [1]]), np.array([[0, 0], [0, 1], [0, 0], [0, 1]]))
    >>> cd.ring(4).replace(placement=pl).placement.unit[:, 0].tolist()
    [0, 0, 1, 1]
    """

    levels: tuple[str, ...]
    unit: np.ndarray
    position: np.ndarray
    slots: np.ndarray | None = None

    def __post_init__(self) -> None:
        unit = np.asarray(self.unit, dtype=np.int64)
        pos = np.asarray(self.position, dtype=np.float64)
        if unit.ndim != 2 or unit.shape[1] != len(self.levels):
            raise TopologyError(
                f"placement unit array must have shape (n, {len(self.levels)}), got {unit.shape}"
            )
        if pos.ndim != 2 or pos.shape[0] != unit.shape[0]:
            raise TopologyError(
                f"placement position array must have shape (n, k) with n={unit.shape[0]}, got {pos.shape}"
            )
        object.__setattr__(self, "levels", tuple(str(x) for x in self.levels))
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "position", pos)
        if self.slots is not None:
            sl = np.asarray(self.slots, dtype=np.int64)
            if sl.shape != (unit.shape[0], len(self.levels), 2):
                raise TopologyError(
                    f"placement slots must have shape (n, {len(self.levels)}, 2) = (router, level, (row, column)), "
                    f"got {sl.shape}"
                )
            if sl.size and sl.min() < 0:
                raise TopologyError("placement slots must be non-negative (row, column) grid positions")
            object.__setattr__(self, "slots", sl)

    def slot_grid(self) -> np.ndarray:
        """``slots`` if given, else the default: children of each unit in one
        row, ordered by index (routers at level 0, level ``l-1`` units above)."""
        if self.slots is not None:
            return self.slots
        n, L = self.unit.shape
        out = np.zeros((n, L, 2), dtype=np.int64)
        for l in range(L):
            child = np.arange(n) if l == 0 else self.unit[:, l - 1]
            # rank of each child among the children of its unit
            pairs = np.unique(np.stack([self.unit[:, l], child], axis=1), axis=0)
            first = np.searchsorted(pairs[:, 0], pairs[:, 0], side="left")
            rank = np.arange(len(pairs)) - first
            idx = np.searchsorted(pairs[:, 0] * (child.max() + 1) + pairs[:, 1],
                                  self.unit[:, l] * (child.max() + 1) + child)
            out[:, l, 1] = rank[idx]
        return out

    def to_dict(self) -> dict[str, Any]:
        d = {
            "levels": list(self.levels),
            "unit": self.unit.tolist(),
            "position": self.position.tolist(),
        }
        if self.slots is not None:
            d["slots"] = self.slots.tolist()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Placement":
        slots = d.get("slots")
        return cls(tuple(d["levels"]), np.asarray(d["unit"]), np.asarray(d["position"]),
                   None if slots is None else np.asarray(slots))


@dataclass(frozen=True, eq=False)
class Topology:
    """A network of routers joined by undirected links.

    Parameters
    ----------
    n : number of routers.
    links : int array (m, 2) of undirected links; parallel links allowed,
        self-loops not.
    link_dim : int array (m,) naming the class of each link, an index into
        ``dims``.
    dims : names of the link classes (``("x", "y")``, ``("d0", ..., "internal")``).
    coords : optional int array (n, D) of lattice coordinates.
    shape : optional lattice shape (sizes of the coordinate box).
    terminals : processing elements per router (concentration); default 1.
    family, params, spec : what built it; ``spec`` rebuilds it through
        :func:`candidates.from_spec`.
    placement : optional physical :class:`Placement`.
    lattice : for lattice (Cayley) graphs of Z^D / L, the (D, D) integer basis
        of L whose row ``k`` is the wraparound vector of dimension ``k``
        (``shape[k] * e_k + twist_k``). ``None`` for anything else.
    vertex_transitive : True when every router sees the same graph (used to
        compute distance properties from one source).

    Examples
    --------
    >>> import numpy as np
    >>> t = Topology(3, np.array([[0, 1], [1, 2], [2, 0]]))
    >>> t.num_links, t.num_arcs, t.degree.tolist()
    (3, 6, [2, 2, 2])
    >>> t
    Topology('graph', routers=3, pes=3, links=3)
    """

    n: int
    links: np.ndarray
    # ``link_dim`` and ``terminals`` may be left out (None: every link of class 0, one PE per router),
    # but __post_init__ always replaces them by arrays, so that is their type for every reader; the
    # None defaults are the only place the declared type does not hold.
    link_dim: np.ndarray = None  # type: ignore[assignment]
    dims: tuple[str, ...] = ("link",)
    coords: np.ndarray | None = None
    shape: tuple[int, ...] | None = None
    terminals: np.ndarray = None  # type: ignore[assignment]
    family: str = "graph"
    params: dict[str, Any] = field(default_factory=dict)
    spec: str = ""
    placement: Placement | None = None
    lattice: np.ndarray | None = None
    vertex_transitive: bool = False

    # ------------------------------------------------------------------ init
    def __post_init__(self) -> None:
        n = int(self.n)
        if n < 1:
            raise TopologyError(f"a topology needs at least one router, got n={n}")
        links = np.asarray(self.links, dtype=np.int64).reshape(-1, 2)
        if links.size and (links.min() < 0 or links.max() >= n):
            raise TopologyError(f"link endpoints must be router indices 0..{n - 1}")
        if np.any(links[:, 0] == links[:, 1]):
            bad = links[links[:, 0] == links[:, 1]][0]
            raise TopologyError(f"self-loop at router {bad[0]}: links must join two distinct routers")
        m = len(links)
        if self.link_dim is None:
            link_dim = np.zeros(m, dtype=np.int64)
        else:
            link_dim = np.asarray(self.link_dim, dtype=np.int64).reshape(-1)
        if len(link_dim) != m:
            raise TopologyError(f"link_dim has {len(link_dim)} entries for {m} links")
        dims = tuple(str(d) for d in self.dims)
        if m and (link_dim.min() < 0 or link_dim.max() >= len(dims)):
            raise TopologyError(f"link_dim values must index dims {dims}")
        coords = None if self.coords is None else np.asarray(self.coords, dtype=np.int64)
        if coords is not None and (coords.ndim != 2 or coords.shape[0] != n):
            raise TopologyError(f"coords must have shape (n, D) with n={n}, got {coords.shape}")
        term = np.ones(n, dtype=np.int64) if self.terminals is None else np.asarray(self.terminals, dtype=np.int64)
        if term.shape == ():
            term = np.full(n, int(term), dtype=np.int64)
        if term.shape != (n,) or term.min() < 0:
            raise TopologyError(f"terminals must be {n} non-negative integers")
        if self.placement is not None and self.placement.unit.shape[0] != n:
            raise TopologyError(f"placement covers {self.placement.unit.shape[0]} routers, topology has {n}")
        lattice = None if self.lattice is None else np.asarray(self.lattice, dtype=np.int64)
        for a in (links, link_dim, term):
            a.setflags(write=False)
        if coords is not None:
            coords.setflags(write=False)
        if lattice is not None:
            lattice.setflags(write=False)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "links", links)
        object.__setattr__(self, "link_dim", link_dim)
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "coords", coords)
        object.__setattr__(self, "shape", None if self.shape is None else tuple(int(s) for s in self.shape))
        object.__setattr__(self, "terminals", term)
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "lattice", lattice)

    # Derived caches live in __dict__ (cached_property); keep pickles small.
    def __getstate__(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def __repr__(self) -> str:
        name = self.spec or self.family
        return f"Topology({name!r}, routers={self.routers}, pes={self.pes}, links={self.num_links})"

    @cached_property
    def fingerprint(self) -> str:
        """A digest of everything the topology is -- routers, links and their
        classes, PEs, coordinates, box, placement, family, spec and
        parameters: equal topologies (a pickled copy included) have equal
        fingerprints, so caches of what is derived from one can be keyed by it.

        >>> from candidates import torus
        >>> torus((4, 4)).fingerprint == torus((4, 4)).fingerprint != torus((4, 2)).fingerprint
        True
        """
        h = hashlib.sha256()
        for a in (self.links, self.link_dim, self.terminals, self.coords, self.lattice):
            h.update(b"-" if a is None else np.ascontiguousarray(a).tobytes() + str(np.shape(a)).encode())
        if self.placement is not None:
            for a in (self.placement.unit, self.placement.slot_grid()):
                h.update(np.ascontiguousarray(a).tobytes())
        meta = [self.n, list(self.dims), self.shape, self.family, self.spec, _jsonable(self.params)]
        h.update(json.dumps(meta, sort_keys=True, default=str).encode())
        return h.hexdigest()[:32]

    # ------------------------------------------------------------- basic sizes
    @property
    def routers(self) -> int:
        """Number of routers (the field ``n``).

        >>> from candidates import from_spec
        >>> from_spec("torus:4x4:c=2").routers
        16
        """
        return self.n

    @property
    def pes(self) -> int:
        """Number of processing elements: the PEs of every router summed
        (``routers`` times the concentration where it is uniform; a fat
        tree's spines carry none).

        >>> from candidates import from_spec
        >>> from_spec("torus:4x4:c=2").pes, from_spec("ring:8").pes
        (32, 8)
        """
        return self.num_terminals

    @property
    def num_links(self) -> int:
        return int(len(self.links))

    @property
    def num_arcs(self) -> int:
        """Number of directed channels (two per link)."""
        return 2 * self.num_links

    @property
    def num_terminals(self) -> int:
        return int(self.terminals.sum())

    @property
    def ndim(self) -> int:
        return 0 if self.coords is None else int(self.coords.shape[1])

    # --------------------------------------------------------- derived arrays
    @cached_property
    def arc_src(self) -> np.ndarray:
        """Tail router of every directed channel."""
        a = np.empty(self.num_arcs, dtype=np.int64)
        a[0::2] = self.links[:, 0]
        a[1::2] = self.links[:, 1]
        a.setflags(write=False)
        return a

    @cached_property
    def arc_dst(self) -> np.ndarray:
        """Head router of every directed channel."""
        a = np.empty(self.num_arcs, dtype=np.int64)
        a[0::2] = self.links[:, 1]
        a[1::2] = self.links[:, 0]
        a.setflags(write=False)
        return a

    @cached_property
    def arc_dim(self) -> np.ndarray:
        """Link class of every directed channel."""
        a = np.repeat(self.link_dim, 2)
        a.setflags(write=False)
        return a

    @cached_property
    def _csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        order = np.lexsort((np.arange(self.num_arcs), self.arc_src))
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.arc_src, minlength=self.n), out=indptr[1:])
        indices = self.arc_dst[order].copy()
        arc_id = order.astype(np.int64)
        for a in (indptr, indices, arc_id):
            a.setflags(write=False)
        return indptr, indices, arc_id

    @property
    def indptr(self) -> np.ndarray:
        """CSR row pointer: the out-arcs of router v are ``indptr[v]:indptr[v+1]``."""
        return self._csr[0]

    @property
    def indices(self) -> np.ndarray:
        """CSR neighbour (arc head) of every out-arc, grouped by tail."""
        return self._csr[1]

    @property
    def arc_id(self) -> np.ndarray:
        """CSR channel number of every out-arc, grouped by tail."""
        return self._csr[2]

    @cached_property
    def degree(self) -> np.ndarray:
        """Number of link ends at every router (parallel links counted)."""
        d = np.diff(self.indptr)
        d.setflags(write=False)
        return d

    @cached_property
    def has_parallel_links(self) -> bool:
        if self.num_links == 0:
            return False
        key = np.sort(self.links, axis=1)
        return len(np.unique(key, axis=0)) < self.num_links

    def neighbors(self, v: int) -> np.ndarray:
        return self.indices[self.indptr[v] : self.indptr[v + 1]]

    def is_connected(self) -> bool:
        from .analytics._kernels import bfs_distances  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

        d = bfs_distances(self.indptr, self.indices, 0)
        return bool(np.all(d >= 0))

    def node_index(self, coord: Any) -> int:
        """Router index of a lattice coordinate (lattice families only)."""
        if self.coords is None:
            raise TopologyError(f"{self.family} has no coordinates")
        c = np.asarray(coord, dtype=np.int64)
        hit = np.flatnonzero(np.all(self.coords == c, axis=1))
        if len(hit) == 0:
            raise TopologyError(f"no router at coordinate {tuple(c.tolist())}")
        return int(hit[0])

    # --------------------------------------------------------------- variants
    def replace(self, **changes: Any) -> "Topology":
        """A copy with some fields changed (like :func:`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    def with_concentration(self, c: int) -> "Topology":
        """The same network with ``c`` processing elements on every router
        that carries any (a fat tree's spines keep none).

        >>> from candidates import torus
        >>> torus((4, 4)).with_concentration(2).num_terminals
        32
        """
        c = int(c)
        if c < 1:
            raise TopologyError(f"concentration c must be a positive integer, got {c}")
        spec = self.spec
        if spec:
            spec = _set_spec_option(spec, "c", str(c))
        params = dict(self.params)
        params["c"] = c
        return self.replace(terminals=np.where(self.terminals > 0, c, 0).astype(np.int64), spec=spec, params=params)

    # ---------------------------------------------------------------- interop
    def to_networkx(self, multigraph: bool | None = None):
        """The topology as a networkx graph.

        A ``MultiGraph`` when there are parallel links (or when asked for),
        a ``Graph`` otherwise. Nodes are ``0..n-1`` with attributes
        ``terminals`` (and ``coord`` for lattice families); edges carry
        ``dim`` (class name), ``link`` (link index) and ``tail`` (the router
        the link's arc ``2*link`` leaves).

        >>> from candidates import ring
        >>> ring(5).to_networkx().number_of_edges()
        5
        """
        import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

        multi = self.has_parallel_links if multigraph is None else multigraph
        G = nx.MultiGraph() if multi else nx.Graph()
        for v in range(self.n):
            attrs: dict[str, Any] = {"terminals": int(self.terminals[v])}
            if self.coords is not None:
                attrs["coord"] = tuple(int(x) for x in self.coords[v])
            G.add_node(v, **attrs)
        for i, (u, v) in enumerate(self.links.tolist()):
            # link and tail let from_networkx restore the channel numbering,
            # which networkx's adjacency-order edge iteration loses
            G.add_edge(u, v, dim=self.dims[self.link_dim[i]], link=i, tail=u)
        G.graph["spec"] = self.spec
        G.graph["family"] = self.family
        return G

    @classmethod
    def from_networkx(cls, G, *, spec: str = "", family: str = "graph") -> "Topology":
        """Build a topology from a networkx graph, keeping its node order.

        Edge attribute ``dim`` (a name) becomes the link class, node
        attribute ``terminals`` the concentration.

        >>> import networkx as nx
        >>> Topology.from_networkx(nx.petersen_graph()).num_links
        15
        """
        nodes = list(G.nodes())
        index = {v: i for i, v in enumerate(nodes)}
        edges = list(G.edges(data=True, keys=False) if G.is_multigraph() else G.edges(data=True))
        # Graphs written by to_networkx carry each link's index and tail:
        # restore the original link order and orientation (channel numbers).
        order = [d.get("link") for _, _, d in edges]
        if all(isinstance(k, (int, np.integer)) for k in order) and sorted(order) == list(range(len(edges))):
            edges = [edges[i] for i in np.argsort(order)]
        links = []
        names: list[str] = []
        dim_of: dict[str, int] = {}
        link_dim = []
        for u, v, data in edges:
            if u == v:
                raise TopologyError(f"self-loop at node {u!r}: links must join two distinct routers")
            a, b = index[u], index[v]
            tail = data.get("tail")
            if isinstance(tail, (int, np.integer)) and tail == b and tail != a:
                a, b = b, a
            links.append((a, b))
            name = str(data.get("dim", "link"))
            if name not in dim_of:
                dim_of[name] = len(names)
                names.append(name)
            link_dim.append(dim_of[name])
        term = [int(G.nodes[v].get("terminals", 1)) for v in nodes]
        return cls(
            n=len(nodes),
            links=np.asarray(links, dtype=np.int64).reshape(-1, 2),
            link_dim=np.asarray(link_dim, dtype=np.int64),
            dims=tuple(names) if names else ("link",),
            terminals=np.asarray(term, dtype=np.int64),
            family=family,
            spec=spec,
            params={"nodes": [str(v) for v in nodes]} if any(not isinstance(v, (int, np.integer)) for v in nodes) else {},
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable description (the toposynth JSON graph format)."""
        d: dict[str, Any] = {
            "format": "toposynth-topology",
            "version": 1,
            "n": self.n,
            "links": self.links.tolist(),
            "link_dim": self.link_dim.tolist(),
            "dims": list(self.dims),
            "terminals": self.terminals.tolist(),
            "family": self.family,
            "params": _jsonable(self.params),
            "spec": self.spec,
            "vertex_transitive": self.vertex_transitive,
        }
        if self.coords is not None:
            d["coords"] = self.coords.tolist()
        if self.shape is not None:
            d["shape"] = list(self.shape)
        if self.lattice is not None:
            d["lattice"] = self.lattice.tolist()
        if self.placement is not None:
            d["placement"] = self.placement.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Topology":
        if not isinstance(d, dict) or "n" not in d or "links" not in d:
            raise TopologyError("not a toposynth topology: a JSON object with keys 'n' and 'links' is expected")
        # link classes and PEs the file leaves out take the constructor's defaults
        given: dict[str, np.ndarray] = {}
        if "link_dim" in d:
            given["link_dim"] = np.asarray(d["link_dim"], dtype=np.int64)
        if d.get("terminals") is not None:
            given["terminals"] = np.asarray(d["terminals"], dtype=np.int64)
        return cls(
            n=int(d["n"]),
            links=np.asarray(d["links"], dtype=np.int64).reshape(-1, 2),
            dims=tuple(d.get("dims", ("link",))),
            coords=None if d.get("coords") is None else np.asarray(d["coords"], dtype=np.int64),
            shape=None if d.get("shape") is None else tuple(d["shape"]),
            family=d.get("family", "graph"),
            params=d.get("params", {}),
            spec=d.get("spec", ""),
            placement=None if d.get("placement") is None else Placement.from_dict(d["placement"]),
            lattice=None if d.get("lattice") is None else np.asarray(d["lattice"], dtype=np.int64),
            vertex_transitive=bool(d.get("vertex_transitive", False)),
            **given,
        )


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def _set_spec_option(spec: str, key: str, value: str) -> str:
    """Set ``:key=value`` at the end of a spec string, replacing an old one."""
    suffix = f":{key}="
    i = spec.rfind(suffix)
    if i >= 0 and ":" not in spec[i + len(suffix):]:
        spec = spec[:i]
    return f"{spec}:{key}={value}"
