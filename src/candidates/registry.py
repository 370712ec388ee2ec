"""The registry of named topology families and the spec-string grammar.

A spec string names a family and its parameters, separated by colons::

    torus:8x8x8            mesh:4x4            ring:8          hypercube:6
    rt:a=8   rtt:a=8       pt:a=4   ptt:a=4    pdtt:a=4
    twisted:16x8:t1=8      (dimension 1's wraparound shifts dimension 0 by 8)
    ndt:4x4x2x2x2          complete:8          g6:GRAPH6
    fattree:k=4            ktree:k=4:n=3       (PEs on the leaf switches only)
    hyperx:4x4x4:t=2       flatfly:k=4:n=3
    product:ring:8*path:4  graph:path/to/file.graphml
    bgl:ROW8*COL4*UPROW4*UPCOL4   (the Blue Gene/L midplane composition)

Any spec may end in ``:c=N`` for N processing elements on every router that
carries any (concentration; a fat tree's spines stay without). Fields are
positional (a shape ``8x8``, a size, a path) or ``key=value``. :func:`from_spec` rebuilds a topology from its ``spec``.

A family may declare ``size(pos, kw) -> (routers, links, dims)``: its size
from the spec's parameters alone. :func:`spec_size` uses it, and
:func:`from_spec` refuses (:class:`~candidates.size.SizeError`, one line) a
spec whose graph alone would not fit in memory, before allocating it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import compose
from .capabilities import Capabilities, declare
from .errors import SpecError
from .size import check_memory, format_count
from .topology import Topology

__all__ = ["Family", "FAMILIES", "register", "from_spec", "families", "SpecSize", "spec_size"]


@dataclass(frozen=True)
class Family:
    """A named family: how to build it from spec fields, and its help."""

    name: str
    summary: str
    parameters: tuple[tuple[str, str], ...]
    example: str
    build: Callable[[list[str], dict[str, str]], Topology]
    #: (routers, links, coordinate dimensions) from the parsed fields, or
    #: None when only building tells (graph files)
    size: Callable[[list[str], dict[str, str]], tuple[int, int, int]] | None = None
    #: what the family can do (coordinates, routing records, tie rule, ...): every layer asks these
    #: (:func:`candidates.capabilities.capabilities`) instead of comparing family names
    capabilities: Capabilities = Capabilities()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "parameters": {k: v for k, v in self.parameters},
            "example": self.example,
            "capabilities": self.capabilities.to_dict(),
        }


FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add a family to the registry; a name already registered is an error
    (a family that silently replaced another would change every spec of it)."""
    if family.name in FAMILIES:
        raise ValueError(f"topology family {family.name!r} is already registered")
    FAMILIES[family.name] = family
    declare(family.name, family.capabilities)
    return family


def families() -> list[Family]:
    """The registered families, in registration order."""
    return list(FAMILIES.values())


# ---------------------------------------------------------------- field parsing
def _int(family: str, key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SpecError(f"{family}: parameter {key} must be an integer, got {value!r}") from None


def _shape(family: str, value: str) -> tuple[int, ...]:
    parts = value.lower().split("x")
    try:
        s = tuple(int(p) for p in parts)
    except ValueError:
        raise SpecError(f"{family}: shape must be sizes joined by 'x' (e.g. 8x8x8), got {value!r}") from None
    if any(x < 1 for x in s):
        raise SpecError(f"{family}: shape sizes must be positive, got {value!r}")
    return s


def _int_list(family: str, key: str, value: str) -> list[int]:
    try:
        return [int(v) for v in value.split(",") if v.strip() != ""]
    except ValueError:
        raise SpecError(f"{family}: {key} must be integers separated by commas, got {value!r}") from None


def _take(family: str, pos: list[str], kw: dict[str, str], name: str, allowed: set[str]) -> str:
    """The single value given positionally or as ``name=``; reject extras."""
    extra = set(kw) - allowed
    if extra:
        raise SpecError(
            f"{family} does not take parameter {sorted(extra)[0]!r}; it takes: "
            + ", ".join(sorted(allowed))
        )
    if name in kw and pos:
        raise SpecError(f"{family}: give {name} once, either as {family}:VALUE or {family}:{name}=VALUE")
    if len(pos) > 1:
        raise SpecError(f"{family}: too many fields {':'.join(pos)!r}; see `toposynth families`")
    if name in kw:
        return kw[name]
    if pos:
        return pos[0]
    raise SpecError(f"{family} needs {name}; example: {FAMILIES[family].example}")


def _keys(family: str, pos: list[str], kw: dict[str, str], names: tuple[str, ...]) -> list[int]:
    """The integer parameters ``names`` of a keyword-only family (``ktree:k=4:n=3``)."""
    example = FAMILIES[family].example
    if pos:
        raise SpecError(f"{family} takes only key=value fields, got {pos[0]!r}; example: {example}")
    extra = set(kw) - set(names)
    if extra:
        raise SpecError(f"{family} does not take parameter {sorted(extra)[0]!r}; it takes: {', '.join(names)}")
    missing = [k for k in names if k not in kw]
    if missing:
        raise SpecError(f"{family} needs {missing[0]}=...; example: {example}")
    return [_int(family, k, kw[k]) for k in names]


def _split(spec: str) -> tuple[str, list[str], dict[str, str]]:
    name, _, rest = spec.partition(":")
    pos: list[str] = []
    kw: dict[str, str] = {}
    if rest:
        for field in rest.split(":"):
            if not field:
                raise SpecError(f"empty field in spec {spec!r}; fields are separated by single colons")
            if "=" in field:
                k, _, v = field.partition("=")
                if not k or not v:
                    raise SpecError(f"malformed field {field!r} in spec {spec!r}; use key=value")
                if k in kw:
                    raise SpecError(f"parameter {k} given twice in spec {spec!r}")
                kw[k] = v
            else:
                pos.append(field)
    return name.strip().lower(), pos, kw


def from_spec(spec: str) -> Topology:
    """Build a topology from a spec string.

    >>> from_spec("rtt:a=4").n
    32
    >>> from_spec("torus:4x4:c=2").num_terminals
    32
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError("empty topology spec; try torus:8x8x8 or run `toposynth families`")
    spec = spec.strip()
    conc = None
    head, sep, tail = spec.rpartition(":c=")
    if sep and ":" not in tail and not spec.startswith(("graph:", "g6:")):
        conc = _int("concentration", "c", tail)
        spec = head
    elif sep and spec.startswith(("graph:", "g6:")) and tail.isdigit():
        conc = int(tail)
        spec = head
    if conc is not None and conc < 1:
        raise SpecError(f"concentration c must be a positive integer (PEs per router), got c={conc}")
    fam, pos, kw = _fields(spec)
    size = _size(fam, pos, kw)
    if size is not None:
        size.check(spec)
    topo = fam.build(pos, kw)
    if conc is not None:
        topo = topo.with_concentration(conc)
    return topo


def _fields(spec: str) -> tuple[Family, list[str], dict[str, str]]:
    """The family of a spec (without ``:c=``) and its fields."""
    name = spec.partition(":")[0].strip().lower()
    fam = FAMILIES.get(name)
    if fam is None:
        raise SpecError(f"unknown topology family {name!r}; valid families: {', '.join(FAMILIES)}")
    if fam.capabilities.whole_argument:
        rest = spec.partition(":")[2]
        if not rest:
            raise SpecError(f"{name} needs an argument; example: {fam.example}")
        return fam, [rest], {}
    _, pos, kw = _split(spec)
    return fam, pos, kw


@dataclass(frozen=True)
class SpecSize:
    """The size of a spec's topology, known before building it.

    ``nbytes`` estimates the peak memory of building it (measured: about
    ``64 + 40 D`` bytes per router with ``D`` coordinate dimensions and 24
    per link for the lattice families, 40 per link for arbitrary graphs;
    benchmarks of tests/candidates/test_size.py keep it within 0.5x-2x).
    """

    routers: int
    links: int
    dims: int

    @property
    def nbytes(self) -> float:
        per_link = 24.0 if self.dims else 40.0
        return float(self.routers) * (64.0 + 40.0 * self.dims) + per_link * float(self.links)

    def describe(self) -> str:
        return f"{format_count(self.routers)} routers, {format_count(self.links)} links"

    def check(self, spec: str) -> None:
        check_memory(f"{spec} ({self.describe()})", self.nbytes,
                     "choose smaller parameters (see `toposynth families`)")

    def to_dict(self) -> dict[str, Any]:
        return {"routers": self.routers, "links": self.links, "dims": self.dims, "bytes": self.nbytes}


def _size(fam: Family, pos: list[str], kw: dict[str, str]) -> SpecSize | None:
    if fam.size is None:
        return None
    size = fam.size(list(pos), dict(kw))
    if size is None:
        return None
    n, m, d = size
    return SpecSize(int(n), int(m), int(d))


def spec_size(spec: str) -> SpecSize | None:
    """Routers and links of a spec's topology without building it (None for
    graph files and graph6 strings, whose size only reading tells).

    >>> spec_size("hypercube:40").routers
    1099511627776
    >>> s = spec_size("product:ring:8*path:4:c=2"); (s.routers, s.links)
    (32, 56)
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError("empty topology spec; try torus:8x8x8 or run `toposynth families`")
    spec = spec.strip()
    head, sep, tail = spec.rpartition(":c=")
    if sep and ":" not in tail and not spec.startswith(("graph:", "g6:")):
        spec = head
    fam, pos, kw = _fields(spec)
    return _size(fam, pos, kw)


def _factors(family: str, text: str, count: int | None = None) -> list[Topology]:
    parts = text.split("*")
    if any(not p for p in parts):
        raise SpecError(f"{family}: empty factor in {text!r}; join factor specs with single '*'")
    if count is not None and len(parts) != count:
        raise SpecError(f"{family} needs {count} factor specs joined by '*', got {len(parts)}")
    return [from_spec(p) for p in parts]


def _factor_sizes(family: str, text: str, count: int | None = None) -> tuple[int, int, int] | None:
    """Size of the Cartesian product of the factor specs (None if a factor's
    size is unknown until built)."""
    parts = text.split("*")
    if any(not p for p in parts):
        raise SpecError(f"{family}: empty factor in {text!r}; join factor specs with single '*'")
    if count is not None and len(parts) != count:
        raise SpecError(f"{family} needs {count} factor specs joined by '*', got {len(parts)}")
    sizes = [spec_size(p) for p in parts]
    if any(z is None for z in sizes):
        return None
    N = 1
    for z in sizes:
        N *= z.routers
    # factor i is copied once per router of the other factors
    return N, sum(z.links * (N // z.routers) for z in sizes), len(sizes)


# ---------------------------------------------------------------- the families
def _register_builtin() -> None:
    from . import lattice
    from .compose import bgl_midplane, product
    from .io import complete_graph, from_graph6, read_topology
    from .twin import twin_size, twin_torus

    def shape_family(fname: str, fn: Callable[[tuple[int, ...]], Topology]):
        def build(pos: list[str], kw: dict[str, str]) -> Topology:
            return fn(_shape(fname, _take(fname, pos, kw, "shape", {"shape"})))

        return build

    def int_family(fname: str, key: str, fn: Callable[[int], Topology]):
        def build(pos: list[str], kw: dict[str, str]) -> Topology:
            return fn(_int(fname, key, _take(fname, pos, kw, key, {key})))

        return build

    def build_torus(pos: list[str], kw: dict[str, str]) -> Topology:
        mesh_dims = kw.pop("mesh", None)
        shape = _shape("torus", _take("torus", pos, kw, "shape", {"shape"}))
        if mesh_dims is None:
            return lattice.torus(shape)
        dims = _int_list("torus", "mesh", mesh_dims)
        if any(not 0 <= d < len(shape) for d in dims):
            raise SpecError(f"torus: mesh= names dimensions 0..{len(shape) - 1}, got {mesh_dims}")
        wrap = [k not in dims for k in range(len(shape))]
        return lattice.twisted_torus(shape, wrap=wrap, family="torus", params={"shape": list(shape), "mesh": dims})

    def build_twisted(pos: list[str], kw: dict[str, str]) -> Topology:
        twists = {}
        rest = {}
        for k, v in kw.items():
            if len(k) > 1 and k[0] == "t" and k[1:].isdigit():
                twists[int(k[1:])] = _int_list("twisted", k, v)
            else:
                rest[k] = v
        shape = _shape("twisted", _take("twisted", pos, rest, "shape", {"shape"}))
        return lattice.twisted_torus(shape, twists)

    # size hooks: the same parsing as the builders, no allocation
    def shape_size(fname: str):
        def size(pos: list[str], kw: dict[str, str]):
            shape = _shape(fname, _take(fname, pos, kw, "shape", {"shape"}))
            n, m = lattice.lattice_size(shape, wrap=fname != "mesh")
            return n, m, len(shape)

        return size

    def size_torus(pos: list[str], kw: dict[str, str]):
        mesh_dims = kw.pop("mesh", None)
        shape = _shape("torus", _take("torus", pos, kw, "shape", {"shape"}))
        dims = [] if mesh_dims is None else _int_list("torus", "mesh", mesh_dims)
        if any(not 0 <= d < len(shape) for d in dims):
            raise SpecError(f"torus: mesh= names dimensions 0..{len(shape) - 1}, got {mesh_dims}")
        n, m = lattice.lattice_size(shape, wrap=[k not in dims for k in range(len(shape))])
        return n, m, len(shape)

    def size_twisted(pos: list[str], kw: dict[str, str]):
        twists = {int(k[1:]): _int_list("twisted", k, v) for k, v in kw.items()
                  if len(k) > 1 and k[0] == "t" and k[1:].isdigit()}
        rest = {k: v for k, v in kw.items() if not (len(k) > 1 and k[0] == "t" and k[1:].isdigit())}
        shape = _shape("twisted", _take("twisted", pos, rest, "shape", {"shape"}))
        n, m = lattice.lattice_size(shape, twists)
        return n, m, len(shape)

    def int_size(fname: str, key: str, fn: Callable[[int], tuple[int, int, int]]):
        def size(pos: list[str], kw: dict[str, str]):
            return fn(_int(fname, key, _take(fname, pos, kw, key, {key})))

        return size

    def size_ring(n: int):
        if n < 3:
            raise SpecError(f"a ring needs at least 3 routers, got {n}")
        return n, n, 1

    def size_path(n: int):
        if n < 1:
            raise SpecError(f"path length sizes must be positive integers, got {n}")
        return n, n - 1, 1

    def size_hypercube(d: int):
        if d < 1:
            raise SpecError(f"hypercube dimension must be a positive integer, got {d}")
        return 2 ** d, d * 2 ** (d - 1), d

    def size_complete(n: int):
        if n < 2:
            raise SpecError(f"a complete graph needs at least 2 routers, got {n}")
        return n, n * (n - 1) // 2, 0

    def size_a(fname: str, D: int):
        def size(a: int):
            if a < 2:
                raise SpecError(f"{fname.upper()}(a) needs a >= 2, got a={a}")
            n = 2 * a ** D
            return n, D * n, D

        return size

    def size_ndt(pos: list[str], kw: dict[str, str]):
        shape = _shape("ndt", _take("ndt", pos, kw, "shape", {"shape"}))
        n, m = twin_size(shape)
        return n, m, len(shape) + 1

    reg = register
    lattice_caps = {   # the record rule of each lattice family; the wraparound ones have a tie rule
        "torus": Capabilities(True, "torus", True), "ring": Capabilities(True, "torus", True),
        "mesh": Capabilities(True, "difference"), "path": Capabilities(True, "difference"),
        "hypercube": Capabilities(True, "hypercube"),
        "rt": Capabilities(True, "rt", True), "rtt": Capabilities(True, "rtt", True),
        "pt": Capabilities(True, "torus", True), "ptt": Capabilities(True, "ptt", True),
        "pdtt": Capabilities(True, "tiles", True), "twisted": Capabilities(True, "tiles", True),
    }
    whole = Capabilities(whole_argument=True)
    reg(Family("torus", "mixed-radix torus (k-ary n-cube); mesh=DIMS drops the wraparound of those dimensions",
               (("shape", "sizes joined by x, e.g. 8x8x8"), ("mesh", "optional: dimensions without wraparound, e.g. 2")),
               "torus:8x8x8", build_torus, size_torus, lattice_caps["torus"]))
    reg(Family("mesh", "mixed-radix mesh", (("shape", "sizes joined by x"),), "mesh:4x4", shape_family("mesh", lattice.mesh), shape_size("mesh"),
               lattice_caps["mesh"]))
    reg(Family("ring", "ring of n routers", (("n", "routers, >= 3"),), "ring:8", int_family("ring", "n", lattice.ring), int_size("ring", "n", size_ring),
               lattice_caps["ring"]))
    reg(Family("path", "linear array of n routers", (("n", "routers"),), "path:8", int_family("path", "n", lattice.path), int_size("path", "n", size_path),
               lattice_caps["path"]))
    reg(Family("hypercube", "binary d-cube", (("d", "dimension"),), "hypercube:6", int_family("hypercube", "d", lattice.hypercube),
               int_size("hypercube", "d", size_hypercube), lattice_caps["hypercube"]))
    reg(Family("complete", "complete graph K_n", (("n", "routers, >= 2"),), "complete:8", int_family("complete", "n", complete_graph),
               int_size("complete", "n", size_complete)))
    for fname, fn, text in (
        ("rt", lattice.rt, "rectangular torus RT(a), 2a x a"),
        ("rtt", lattice.rtt, "rectangular twisted torus RTT(a), 2a x a, Y wraparound shifted by a"),
        ("pt", lattice.pt, "prismatic torus PT(a), 2a x a x a"),
        ("ptt", lattice.ptt, "prismatic twisted torus PTT(a) = RTT(a) x ring(a)"),
        ("pdtt", lattice.pdtt, "prismatic doubly twisted torus PDTT(a): Y and Z wraparounds shift x by a"),
    ):
        reg(Family(fname, text, (("a", "integer >= 2"),), f"{fname}:a=8" if fname in ("rt", "rtt") else f"{fname}:a=4",
                   int_family(fname, "a", fn), int_size(fname, "a", size_a(fname, 2 if fname in ("rt", "rtt") else 3)),
                   lattice_caps[fname]))
    reg(Family("twisted", "general twisted torus: tK=o,o,.. shifts the other dimensions (in order) when wrapping dimension K",
               (("shape", "sizes joined by x"), ("tK", "offsets for the other dimensions, 0 <= o < size")),
               "twisted:16x8:t1=8", build_twisted, size_twisted, lattice_caps["twisted"]))
    reg(Family("ndt", "n-dimensional twin torus (n odd >= 3): two (n+1)-port cards per node, each card a router",
               (("shape", "node sizes joined by x, each >= 2"),), "ndt:4x4x2x2x2",
               shape_family("ndt", twin_torus), size_ndt, Capabilities(coordinates=True, twin=True)))
    reg(Family("product", "Cartesian product of small graphs given as specs joined by *",
               (("factors", "specs joined by *"),), "product:ring:8*path:4",
               lambda pos, kw: product(*_factors("product", pos[0])),
               lambda pos, kw: _factor_sizes("product", pos[0]), Capabilities(coordinates=True, whole_argument=True)))
    reg(Family("bgl", "Blue Gene/L midplane: row graph (8) and column graph (4) on each 8 x 4 node card, "
               "upper row and column graphs (4 each) joining 16 node cards; 2 routers per compute card",
               (("factors", "ROW8*COL4*UPROW4*UPCOL4 as specs"),), "bgl:ring:8*ring:4*ring:4*ring:4",
               lambda pos, kw: bgl_midplane(*_factors("bgl", pos[0], 4)),
               lambda pos, kw: _factor_sizes("bgl", pos[0], 4), Capabilities(coordinates=True, whole_argument=True)))
    reg(Family("g6", "a graph given as a graph6 string (as enumerated by `toposynth enumerate`)",
               (("graph6", "the graph6 string"),), "g6:Gr`HOk", lambda pos, kw: from_graph6(pos[0]),
               capabilities=whole))
    reg(Family("graph", "a graph file: .graphml, .json, .g6, or an edge list (.edges/.txt: 'u v [class]' per line)",
               (("path", "file path"),), "graph:net.graphml", lambda pos, kw: read_topology(pos[0]),
               capabilities=whole))
    from dataclasses import replace

    from .fattree import fattree, fattree_figures, fattree_size, ktree, ktree_figures, ktree_size
    from .hyperx import dor_table, flatfly, flatfly_size, hyperx, hyperx_figures, hyperx_size

    def hyperx_args(pos: list[str], kw: dict[str, str]) -> tuple[tuple[int, ...], int]:
        shape = _shape("hyperx", _take("hyperx", pos, kw, "shape", {"shape", "t"}))
        return shape, _int("hyperx", "t", kw["t"]) if "t" in kw else 1

    def size_hyperx(pos: list[str], kw: dict[str, str]):
        shape, t = hyperx_args(pos, kw)
        if t < 1:
            raise SpecError(f"hyperx: t (PEs per router) must be >= 1, got t={t}")
        return (*hyperx_size(shape), len(shape))

    reg(Family("fattree", "three-level fat tree of k-port switches (Al-Fares et al. 2008): k pods, "
               "k^3/4 hosts on the edge switches, none on aggregation and core switches",
               (("k", "switch ports, even, >= 2"),), "fattree:k=4",
               lambda pos, kw: fattree(_int("fattree", "k", _take("fattree", pos, kw, "k", {"k"}))),
               lambda pos, kw: (*fattree_size(_int("fattree", "k", _take("fattree", pos, kw, "k", {"k"})))[:2], 0),
               Capabilities(updown_minimal=True, auto_routing="minimal",
                            figures=lambda t: fattree_figures(t.params["k"], int(t.terminals.max())))))
    reg(Family("ktree", "k-ary n-tree (Petrini and Vanneschi 1997): n levels of k^(n-1) switches, "
               "k PEs on each leaf switch, none above",
               (("k", "arity, >= 2"), ("n", "levels, >= 2")), "ktree:k=4:n=3",
               lambda pos, kw: ktree(*_keys("ktree", pos, kw, ("k", "n"))),
               lambda pos, kw: (*ktree_size(*_keys("ktree", pos, kw, ("k", "n")))[:2], 0),
               Capabilities(updown_minimal=True, auto_routing="minimal",
                            figures=lambda t: ktree_figures(t.params["k"], t.params["n"], int(t.terminals.max())))))
    reg(Family("hyperx", "HyperX (Ahn et al. 2009): every dimension fully connected (K_S1 x K_S2 x ...), "
               "t PEs per router, one link per router pair",
               (("shape", "sizes joined by x, each >= 2"), ("t", "optional: PEs per router, default 1")),
               "hyperx:4x4x4", lambda pos, kw: hyperx(*hyperx_args(pos, kw)), size_hyperx,
               Capabilities(coordinates=True, routes={"dor": dor_table},
                            figures=lambda t: hyperx_figures(t.params["shape"], int(t.terminals[0])))))
    reg(Family("flatfly", "flattened butterfly (Kim, Dally, Abts 2007): k^(n-1) routers in n-1 fully "
               "connected dimensions of size k, k PEs each (= hyperx:kx..xk:t=k)",
               (("k", "arity, >= 2"), ("n", "butterfly stages, >= 2")), "flatfly:k=4:n=3",
               lambda pos, kw: flatfly(*_keys("flatfly", pos, kw, ("k", "n"))),
               lambda pos, kw: (*flatfly_size(*_keys("flatfly", pos, kw, ("k", "n")))[:2],
                                _keys("flatfly", pos, kw, ("k", "n"))[1] - 1),
               Capabilities(coordinates=True, routes={"dor": dor_table}, figures=lambda t: replace(
                   hyperx_figures((t.params["k"],) * (t.params["n"] - 1), int(t.terminals[0])),
                   source="Kim, Dally, Abts, ISCA 2007 (as a HyperX)"))))

    # dragonfly and Slim Fly: key=value fields only; the modules validate the values (one-line SpecErrors)
    from . import dragonfly as dfly
    from . import slimfly as sfly

    def keyed(fname: str, required: tuple[str, ...], optional: tuple[str, ...], ints: tuple[str, ...]):
        def fields(pos: list[str], kw: dict[str, str]) -> dict[str, Any]:
            allowed = required + optional
            if pos:
                raise SpecError(f"{fname} takes key=value fields ({', '.join(allowed)}), got {pos[0]!r}; "
                                f"example: {FAMILIES[fname].example}")
            extra = sorted(set(kw) - set(allowed))
            if extra:
                raise SpecError(f"{fname} does not take parameter {extra[0]!r}; it takes: {', '.join(allowed)}")
            missing = [k for k in required if k not in kw]
            if missing:
                raise SpecError(f"{fname} needs {missing[0]}=...; example: {FAMILIES[fname].example}")
            return {k: _int(fname, k, v) if k in ints else v for k, v in kw.items()}

        return fields

    df_fields = keyed("dragonfly", ("a", "p", "h"), ("g", "arrangement"), ("a", "p", "h", "g"))
    sf_fields = keyed("slimfly", ("q",), ("p",), ("q", "p"))
    reg(Family("dragonfly", "dragonfly (Kim et al. 2008): g groups of a fully connected routers, h global links and "
               "p PEs per router; arrangement of the global links absolute, relative, circulant or palmtree",
               (("a", "routers per group, >= 2"), ("p", "PEs per router"), ("h", "global links per router"),
                ("g", "optional: groups, 2..a*h+1 (default a*h+1: one global link per pair of groups)"),
                ("arrangement", "optional: " + ", ".join(dfly.ARRANGEMENTS) + " (default absolute)")),
               "dragonfly:a=4:p=2:h=2",
               lambda pos, kw: dfly.dragonfly(**df_fields(pos, kw)),
               lambda pos, kw: (*dfly.dragonfly_size(**df_fields(pos, kw)), 2),
               Capabilities(coordinates=True, groups=True, routes={"minimal": dfly.minimal_table},
                            intermediates=dfly.valiant_intermediates, auto_routing="ugal",
                            figures=lambda t: dfly.dragonfly_figures(
                   t.params["a"], int(t.terminals[0]), t.params["h"], t.params["g"]))))
    reg(Family("slimfly", "Slim Fly (Besta and Hoefler 2014): the McKay-Miller-Siran graph of a prime power q, "
               "2q^2 routers of degree (3q-delta)/2, diameter 2",
               (("q", "prime power 4w+delta, delta in -1,0,1 (3, 4, 5, 7, 8, 9, 11, ...)"),
                ("p", "optional: PEs per router (default ceil(degree/2))")),
               "slimfly:q=5",
               lambda pos, kw: sfly.slimfly(**sf_fields(pos, kw)),
               lambda pos, kw: (*sfly.slimfly_size(**sf_fields(pos, kw)), 3),
               Capabilities(coordinates=True, figures=lambda t: sfly.slimfly_figures(t.params["q"],
                                                                                      int(t.terminals[0])))))


    from . import polarity as pfly

    for fname, text, example, build, size, caps in (
        ("polarfly", "PolarFly (Lakhotia et al. 2022): the Erdos-Renyi polarity graph ER_q of a prime power q, "
         "q^2+q+1 routers of degree q+1 (q+1 absolute points of degree q), diameter 2", "polarfly:q=7",
         pfly.polarfly, pfly.polarfly_size, Capabilities(figures=lambda t: pfly.polarfly_figures(t.params["q"]))),
        ("affinepolar", "the affine polarity graph of F_q (PolarFly's construction on the affine plane): q^2 routers "
         "(x, y), (x,y) ~ (a,b) iff y + b = x a; degree q (q of degree q-1), diameter 3", "affinepolar:q=8",
         pfly.affine_polarity, pfly.affine_polarity_size, Capabilities()),
    ):
        pf_fields = keyed(fname, ("q",), ("p",), ("q", "p"))
        reg(Family(fname, text, (("q", "prime power (2, 3, 4, 5, 7, 8, 9, ...)"),
                                 ("p", "optional: PEs per router (default ceil((q+1)/2))")), example,
                   (lambda b, f: lambda pos, kw: b(**f(pos, kw)))(build, pf_fields),
                   (lambda z, f: lambda pos, kw: (*z(**f(pos, kw)), 0))(size, pf_fields), caps))

    from . import interposer as ipos

    ip_fields = keyed("interposer", ("design",), (), ())

    def ip_args(pos: list[str], kw: dict[str, str]) -> dict[str, Any]:
        if len(pos) == 1 and not kw:     # interposer:kite_small
            return {"design": pos[0]}
        return ip_fields(pos, kw)

    reg(Family("interposer", "a published 20-router network-on-interposer on a 5x4 grid (Kite, DAC 2020, and its "
               "baselines, as NetSmith gives them): " + ", ".join(ipos.INTERPOSER_DESIGNS),
               (("design", ", ".join(ipos.INTERPOSER_DESIGNS)),), "interposer:kite_small",
               lambda pos, kw: ipos.interposer(ip_args(pos, kw)["design"]),
               lambda pos, kw: (*ipos.interposer_size(ip_args(pos, kw)["design"]), 2)))

    # searched graphs: the search runs when the spec is first built (then cached: candidates.search.cache)
    search_fields = keyed("search", ("n", "d"),
                          ("moves", "seed", "objective", "weight", "symmetry", "restarts", "restart", "fixed",
                           "start", "temperature", "regular", "grid", "max_length", "metric"),
                          ("n", "d", "moves", "seed", "restarts", "restart", "regular"))

    def search_args(pos: list[str], kw: dict[str, str]) -> dict[str, Any]:
        f = search_fields(pos, kw)
        args: dict[str, Any] = {"routers": f["n"], "degree": f["d"], "moves": f.get("moves", 100_000),
                                "seed": f.get("seed", 0), "restarts": f.get("restarts", 1),
                                "objective": f.get("objective", "aspl")}
        for key, what in (("weight", "a number in [0, 1]"), ("temperature", "a number > 0"),
                          ("max_length", "a length > 0 in grid units")):
            if key in f:
                try:
                    args[key] = float(f[key])
                except ValueError:
                    raise SpecError(f"search: {key} must be {what}, got {f[key]!r}") from None
        if "restart" in f:
            args["restart"] = f["restart"]
        if "regular" in f:
            args["regular"] = bool(f["regular"])
        if "grid" in f:     # kept as text: the cache keys on the fields (candidates.search.cache)
            shape = _shape("search", str(f["grid"]))
            if len(shape) != 2:
                raise SpecError(f"search: grid must be COLUMNSxROWS, got {f['grid']!r}")
            if shape[0] * shape[1] != f["n"]:
                raise SpecError(f"search: a {f['grid']} grid holds {shape[0] * shape[1]} routers, the search {f['n']}")
            args["grid"] = f"{shape[0]}x{shape[1]}"
        if "metric" in f:
            args["metric"] = str(f["metric"])
        if ("max_length" in args or "metric" in args) and "grid" not in args:
            raise SpecError("search: max_length needs a grid (grid=COLUMNSxROWS) to measure links on")
        for key in ("fixed", "start"):   # a nested spec, its colons written as / (built by cached_search)
            if key in f:
                args[key] = str(f[key]).replace("/", ":")
        sym = f.get("symmetry", "auto")
        args["symmetry"] = sym if sym == "auto" else _int("search", "symmetry", str(sym))
        return args

    def build_search(pos: list[str], kw: dict[str, str]) -> Topology:
        from .search.cache import cached_search

        return cached_search(search_args(pos, kw), from_spec)

    def size_search(pos: list[str], kw: dict[str, str]):
        # the links of a regular search; at most that many with regular=0
        a = search_args(pos, kw)
        return a["routers"], a["routers"] * a["degree"] // 2, 2 if "grid" in a else 0

    reg(Family("search", "a graph found by search (toposynth search): n routers of degree d, the best of "
               "`restarts` annealings of `moves` moves from `seed`; rebuilt by searching again (cached)",
               (("n", "routers"), ("d", "ports per router (degree)"),
                ("moves", "optional: moves per restart (default 100000)"), ("seed", "optional: default 0"),
                ("objective", "optional: aspl (default), throughput, mix"), ("weight", "optional: mix's latency share"),
                ("symmetry", "optional: cyclic group order, or auto (default)"),
                ("restarts", "optional: default 1"),
                ("restart", "optional: only this restart's graph (chosen by a certified capacity)"),
                ("fixed", "optional: a spec whose links are kept, colons written / (torus/8x8x8)"),
                ("start", "optional: a spec to start from, colons written / (polarfly/q=31)"),
                ("temperature", "optional: first temperature x the calibrated one (default 1)"),
                ("regular", "optional: 0 for at most d links per router (default 1: every port used)"),
                ("grid", "optional: COLUMNSxROWS, router i at (i mod COLUMNS, i div COLUMNS)"),
                ("max_length", "optional: links at most this long on the grid"),
                ("metric", "optional: euclidean (default) or manhattan")),
               "search:n=64:d=4:moves=20000:seed=1", build_search, size_search))


_register_builtin()
# factors given as spec strings (candidates.product("ring:8", "path:4")) are built by the registry
compose.use_spec_builder(from_spec)
