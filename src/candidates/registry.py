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

Each family module registers its own families next to its generator
(:func:`register`, with a builder from the spec's fields and the field
parsers here); importing :mod:`candidates` imports them all.

A family may declare ``size(pos, kw) -> (routers, links, dims)``: its size
from the spec's parameters alone. :func:`spec_size` uses it, and
:func:`from_spec` refuses (:class:`~common.size.SizeError`, one line) a
spec whose graph alone would not fit in memory, before allocating it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from common.size import check_memory, format_count

from .capabilities import Capabilities, declare
from .errors import SpecError
from .topology import Topology

__all__ = ["Family", "FAMILIES", "register", "from_spec", "families", "SpecSize", "spec_size", "parse_int",
           "parse_shape", "parse_int_list", "take_field", "int_keys", "keyed_fields", "shape_family", "int_family",
           "int_size"]


@dataclass(frozen=True)
class Family:
    """A named family: how to build it from spec fields, and its help.

    >>> f = FAMILIES["rtt"]
    >>> f.name, f.parameters, f.example
    ('rtt', (('a', 'integer >= 2'),), 'rtt:a=8')
    >>> f.summary
    'rectangular twisted torus RTT(a), 2a x a, Y wraparound shifted by a'
    """

    name: str
    summary: str
    parameters: tuple[tuple[str, str], ...]
    example: str
    build: Callable[[list[str], dict[str, str]], Topology]
    #: (routers, links, coordinate dimensions) from the parsed fields; no hook when only building
    #: tells (graph files), or a hook that returns None for the specs it cannot size (a product of them)
    size: Callable[[list[str], dict[str, str]], tuple[int, int, int] | None] | None = None
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


#: The registry of topology families: name -> :class:`Family` (:func:`register` adds one).
FAMILIES: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add a family to the registry; a name already registered is an error
    (a family that silently replaced another would change every spec of it).

    The family modules register theirs when imported; a second entry of a
    name is refused:

    >>> register(FAMILIES["ring"])
    Traceback (most recent call last):
    ...
    ValueError: topology family 'ring' is already registered
    """
    if family.name in FAMILIES:
        raise ValueError(f"topology family {family.name!r} is already registered")
    FAMILIES[family.name] = family
    declare(family.name, family.capabilities)
    return family


def families() -> list[Family]:
    """The registered families, in registration order.

    >>> [f.name for f in families()][:6]
    ['torus', 'mesh', 'ring', 'path', 'hypercube', 'rt']
    """
    return list(FAMILIES.values())


# ---------------------------------------------------------------- field parsing
# (the family modules parse their specs' fields with these, one error line each)
def parse_int(family: str, key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SpecError(f"{family}: parameter {key} must be an integer, got {value!r}") from None


def parse_shape(family: str, value: str) -> tuple[int, ...]:
    parts = value.lower().split("x")
    try:
        s = tuple(int(p) for p in parts)
    except ValueError:
        raise SpecError(f"{family}: shape must be sizes joined by 'x' (e.g. 8x8x8), got {value!r}") from None
    if any(x < 1 for x in s):
        raise SpecError(f"{family}: shape sizes must be positive, got {value!r}")
    return s


def parse_int_list(family: str, key: str, value: str) -> list[int]:
    try:
        return [int(v) for v in value.split(",") if v.strip() != ""]
    except ValueError:
        raise SpecError(f"{family}: {key} must be integers separated by commas, got {value!r}") from None


def take_field(family: str, pos: list[str], kw: dict[str, str], name: str, allowed: set[str]) -> str:
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


def int_keys(family: str, pos: list[str], kw: dict[str, str], names: tuple[str, ...]) -> list[int]:
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
    return [parse_int(family, k, kw[k]) for k in names]


def keyed_fields(fname: str, required: tuple[str, ...], optional: tuple[str, ...], ints: tuple[str, ...]
                 ) -> Callable[[list[str], dict[str, str]], dict[str, Any]]:
    """The fields of a family written ``key=value`` only (``dragonfly:a=4:p=2:h=2``): the required
    and optional keys, those of ``ints`` as integers; one error line for anything else."""
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
        return {k: parse_int(fname, k, v) if k in ints else v for k, v in kw.items()}

    return fields


def shape_family(fname: str, fn: Callable[[tuple[int, ...]], Topology]) -> Callable[[list[str], dict[str, str]], Topology]:
    """The builder of a family with one shape field (``mesh:4x4``)."""
    def build(pos: list[str], kw: dict[str, str]) -> Topology:
        return fn(parse_shape(fname, take_field(fname, pos, kw, "shape", {"shape"})))

    return build


def int_family(fname: str, key: str, fn: Callable[[int], Topology]) -> Callable[[list[str], dict[str, str]], Topology]:
    """The builder of a family with one integer field (``ring:8``, ``ring:n=8``)."""
    def build(pos: list[str], kw: dict[str, str]) -> Topology:
        return fn(parse_int(fname, key, take_field(fname, pos, kw, key, {key})))

    return build


def int_size(fname: str, key: str, fn: Callable[[int], tuple[int, int, int]]
             ) -> Callable[[list[str], dict[str, str]], tuple[int, int, int]]:
    """The size hook of a family with one integer field."""
    def size(pos: list[str], kw: dict[str, str]) -> tuple[int, int, int]:
        return fn(parse_int(fname, key, take_field(fname, pos, kw, key, {key})))

    return size


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
        conc = parse_int("concentration", "c", tail)
        spec = head
    elif sep and spec.startswith(("graph:", "g6:")) and tail.isdigit():
        conc = int(tail)
        spec = head
    if conc is not None and conc < 1:
        raise SpecError(f"concentration c must be a positive integer (PEs per router), got c={conc}")
    if conc is not None and conc > MAX_CONCENTRATION:
        # range-checked here: the PE counts (routers x c) are int64 everywhere downstream
        raise SpecError(f"concentration c must be at most {format_count(MAX_CONCENTRATION)} PEs per router, "
                        f"got c={conc}")
    fam, pos, kw = _fields(spec)
    size = _size(fam, pos, kw)
    if size is not None:
        if conc is not None:
            size = replace(size, pes=size.routers * conc)
        size.check(spec + (f":c={conc}" if conc is not None else ""))
    topo = fam.build(pos, kw)
    if conc is not None:
        if size is None:  # a graph file or graph6 string: its routers are known only now
            SpecSize(topo.n, topo.num_links, 0, pes=topo.n * conc).check(f"{spec}:c={conc}")
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


#: the most processing elements a spec's ``:c=`` puts on one router
MAX_CONCENTRATION = 1_000_000


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
    #: processing elements when a concentration multiplies them (None: one per router)
    pes: int | None = None

    @property
    def nbytes(self) -> float:
        per_link = 24.0 if self.dims else 40.0
        # every traffic builder maps PEs to routers (an int64 per PE) and draws or permutes them (another):
        # the topology stores c once per router, but no use of it stays that small
        per_pe = 16.0 * float(self.pes) if self.pes is not None else 0.0
        return float(self.routers) * (64.0 + 40.0 * self.dims) + per_link * float(self.links) + per_pe

    def describe(self) -> str:
        pes = f", {format_count(self.pes)} PEs" if self.pes is not None else ""
        return f"{format_count(self.routers)} routers, {format_count(self.links)} links{pes}"

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
    conc = None
    if sep and ":" not in tail and not spec.startswith(("graph:", "g6:")):
        spec = head
        conc = int(tail) if tail.strip().isdigit() else None
    fam, pos, kw = _fields(spec)
    size = _size(fam, pos, kw)
    return replace(size, pes=size.routers * conc) if size is not None and conc is not None else size
