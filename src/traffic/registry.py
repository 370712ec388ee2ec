"""The registry of traffic patterns: one name, one meaning, for the simulator and the flow solvers.

A pattern says, for every source terminal (processing element), with which
probability each other terminal is the destination of its next packet, and
how much a terminal injects relative to the average (all 1 except for
demand matrices). The simulator draws destinations from it
(:meth:`TrafficPattern.destinations`); the flow solvers get the very same
workload as demands (:meth:`TrafficPattern.demand_pairs`, which keeps a
sampled pattern's pairs as they were drawn).

Terminals are numbered router by router: the terminals of router ``u`` are
``terminal_offsets(t)[u] .. terminal_offsets(t)[u + 1] - 1``; with one
terminal per router, terminal ``i`` is router ``i``.

Patterns (the BookSim2 / CAMINOS names; ``name:key=value`` sets options, and
a pattern's leading options may be written by position: ``random:128`` is
``random:count=128``):

========================  ====================================================
``uniform``               every other terminal equally likely
``hotregion``             25% of packets to the first 12.5% of the network
                          (the lowest rows/planes of a lattice), the rest
                          uniform (``fraction=0.25:region=0.125``)
``bitcomplement``         ``d = ~s`` on the terminal index (power of 2)
``bitreversal``           ``d`` = the bits of ``s`` reversed (power of 2)
``shuffle``               perfect shuffle: ``s`` rotated left one bit
``butterfly``             the most and least significant bits of ``s``
                          swapped (power of 2)
``transpose``             upper and lower halves of the bits of ``s``
                          swapped (an even number of address bits)
``tornado``               every coordinate ``x -> x + ceil(k/2) - 1 (mod k)``
``neighbor``              uniform over the router's neighbours
``diagonal``              every coordinate ``x -> x + 1 (mod k)``: BookSim2's
                          ``neighbor``
``localglobal``           the local/global mix of 'rtt-mapping-concentration':
                          with probability ``alpha`` a packet goes to one of
                          the 4 neighbours of its process in a logical 2D
                          torus (``grid=AxB``, ``wrap=0`` for a mesh), else
                          to any other process (``alpha=0.5``)
``groupshift``            every PE of group ``i`` to a uniformly random PE of
                          group ``i + 1 (mod g)``: the dragonfly's
                          adversarial pattern (Kim et al., ISCA 2008);
                          families whose routers form groups (``coords[:, 0]``)
``randperm``              a random permutation (``seed=0``)
``random``                ``count`` pairs of distinct random PEs, one unit
                          each (``random:COUNT``, ``seed=0``)
``local``                 ``count`` random pairs of routers with a share per
                          packaging level (``local:COUNT[:S0,S1,...]``,
                          shares 0.4,0.5,0.1: Blue Gene/L's compute card,
                          node card, across); needs a placed topology
``permutation``           :func:`permutation` with an explicit array
``matrix``                :func:`demand` with an explicit demand matrix
========================  ====================================================

A terminal whose permutation destination is itself sends nothing.

>>> import candidates as cd
>>> from traffic import traffic
>>> t = cd.from_spec("ring:4")
>>> traffic("bitcomplement").destinations(t).perm.tolist()
[3, 2, 1, 0]
>>> traffic("uniform").demand_matrix(t)[0].round(3).tolist()
[0.0, 0.333, 0.333, 0.333]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from candidates import Topology
from candidates.capabilities import capabilities, families_with

from . import builders as B
from .destinations import Destinations, terminal_router
from .errors import TrafficError

__all__ = ["TrafficPattern", "traffic", "permutation", "demand", "PATTERNS", "PATTERN_NEEDS", "Pattern",
           "register_pattern", "pattern_entry"]


@dataclass(frozen=True)
class TrafficPattern:
    """A named destination distribution with its options.

    Use :func:`traffic` to build one from a name or a ``name:key=value``
    string, :func:`permutation` and :func:`demand` for explicit ones.

    Tornado on a ring of 8: every router sends to the one 3 ahead.

    >>> import candidates as cd
    >>> p = traffic("tornado")
    >>> p, str(traffic("random:64:seed=3"))
    (TrafficPattern(name='tornado', options={}), 'random:count=64:seed=3')
    >>> src, dst, amount = p.demand_pairs(cd.ring(8))
    >>> dst.tolist(), amount.tolist()
    ([3, 4, 5, 6, 7, 0, 1, 2], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    """

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return ":".join([self.name] + [f"{k}={_spell(v)}" for k, v in self.options.items() if _spellable(v)])

    @property
    def entry(self) -> "Pattern":
        """The registry entry of this pattern."""
        return pattern_entry(self.name)

    def destinations(self, topo: Topology) -> Destinations:
        """Compile the pattern for ``topo``."""
        entry = self.entry
        T = topo.num_terminals
        if T < 2:
            raise TrafficError(f"traffic needs at least two processing elements, {topo!r} has {T}")
        entry.check(topo)
        return entry.build(topo, **self.options)

    def demand_matrix(self, topo: Topology, load: float = 1.0, *, level: str = "router") -> np.ndarray:
        """Average demand in phits/cycle when every terminal offers ``load``.

        ``level="router"`` (default) sums terminals into an (n, n) matrix of
        router-to-router demand (the diagonal holds traffic between
        terminals of the same router); ``level="terminal"`` gives (T, T).

        >>> import candidates as cd
        >>> m = traffic("hotregion").demand_matrix(cd.from_spec("ring:16"), 0.5)
        >>> round(float(m.sum()), 6), round(float(m[:, :2].sum() / m.sum()), 3)  # 25% + 75% x 2/15 (less self)
        (8.0, 0.344)
        """
        M = self.destinations(topo).matrix() * float(load)
        if level == "terminal":
            return M
        if level != "router":
            raise TrafficError(f"level must be 'router' or 'terminal', got {level!r}")
        tr = terminal_router(topo)
        R = np.zeros((topo.n, topo.n))
        np.add.at(R, (tr[:, None], tr[None, :]), M)
        return R

    def demand_pairs(self, topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pattern as router-level demands ``(src, dst, amount)``, one unit offered per PE.

        A pattern with its own demand pairs (``uniform``, and the sampled ``random`` and ``local``)
        gives them as drawn (a pair drawn twice is two demands); the others give the nonzero
        off-diagonal entries of :meth:`demand_matrix` (traffic inside one router uses no link).

        >>> import candidates as cd
        >>> s, d, a = traffic("random:64").demand_pairs(cd.torus((4, 4)))
        >>> len(s), float(a.sum())
        (64, 64.0)
        >>> s, d, a = traffic("bitcomplement").demand_pairs(cd.ring(4))
        >>> s.tolist(), d.tolist()
        ([0, 1, 2, 3], [3, 2, 1, 0])
        """
        entry = self.entry
        if entry.demands is not None:
            if topo.num_terminals < 2:
                raise TrafficError(f"traffic needs at least two processing elements, {topo!r} has {topo.num_terminals}")
            entry.check(topo)
            return entry.demands(topo, **self.options)
        R = self.demand_matrix(topo, 1.0)
        np.fill_diagonal(R, 0.0)
        s, d = np.nonzero(R)
        return s, d, R[s, d]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in self.options.items()
                                      if _spellable(v)}}


def _spellable(v: Any) -> bool:
    return isinstance(v, (int, float, str)) or (isinstance(v, tuple) and all(isinstance(x, (int, float)) for x in v))


def _spell(v: Any) -> str:
    return ",".join(str(x) for x in v) if isinstance(v, tuple) else str(v)



@dataclass(frozen=True)
class Pattern:
    """A registered traffic pattern.

    build : ``build(topo, **options) -> Destinations``; its keyword
        parameters are the pattern's options.
    needs : what the topology must have (one of :data:`PATTERN_NEEDS`), checked
        before ``build`` runs: ``lattice`` coordinates in a box (``coords`` and
        ``shape``), ``groups`` the family's groups capability, ``placement``
        packaging units (:class:`candidates.Placement`); None: any.
    aliases : other names accepted by :func:`traffic`.
    positional : options that may be written by position, in this order
        (``random:128`` is ``random:count=128``).
    demands : ``demands(topo, **options) -> (src, dst, amount)``, the pattern's
        own router-level demand pairs for the flow solvers (sampled patterns
        keep each drawn pair); None: the demand matrix's nonzero entries.

    >>> e = PATTERNS["random"]
    >>> e.name, e.options, e.positional, e.needs
    ('random', ('count', 'seed'), ('count', 'seed'), None)
    >>> e = pattern_entry("hr")
    >>> e.name, e.aliases, e.options
    ('hotregion', ('hr', 'hotspot'), ('fraction', 'region'))
    """

    name: str
    summary: str
    build: Callable[..., Destinations]
    needs: str | None = None
    aliases: tuple[str, ...] = ()
    positional: tuple[str, ...] = ()
    demands: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    def __post_init__(self) -> None:
        if self.needs is not None and self.needs not in PATTERN_NEEDS:
            raise ValueError(f"pattern {self.name}: unknown need {self.needs!r}; one of {', '.join(PATTERN_NEEDS)}")
        unknown = set(self.positional) - set(self.options)
        if unknown:
            raise ValueError(f"pattern {self.name}: positional options {sorted(unknown)} are not options of its builder")

    @property
    def options(self) -> tuple[str, ...]:
        """The pattern's option names (its builder's keyword parameters)."""
        return tuple(k for k in inspect.signature(self.build).parameters if k != "topo")

    def check(self, topo: Topology) -> None:
        """One error line unless ``topo`` has what the pattern needs."""
        if self.needs == "lattice" and (topo.coords is None or topo.shape is None):
            raise TrafficError(f"{self.name} traffic needs a lattice topology with coordinates; {topo!r} has none")
        if self.needs == "groups" and not (capabilities(topo).groups and topo.coords is not None):
            raise TrafficError(f"{self.name} traffic needs a topology whose routers form groups "
                               f"({', '.join(families_with('groups'))}); {topo!r} is family {topo.family!r}")
        if self.needs == "placement" and topo.placement is None:
            raise TrafficError(f"{self.name} traffic needs a placed topology: a bgl/hierarchical candidate, or a "
                               "lattice placed in blocks (a study's physical.blocks, the flow command's --blocks)")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "summary": self.summary, "needs": self.needs, "aliases": list(self.aliases),
                "options": list(self.options), "positional": list(self.positional),
                "own_demands": self.demands is not None}


#: what a pattern may need of a topology (:attr:`Pattern.needs`)
PATTERN_NEEDS = ("lattice", "groups", "placement")

#: the registry: name -> :class:`Pattern` (:func:`register_pattern` adds one)
PATTERNS: dict[str, Pattern] = {}
_ALIASES: dict[str, str] = {}


def _key(name: str) -> str:
    return str(name).strip().lower().replace("-", "").replace("_", "")


def register_pattern(entry: Pattern) -> Pattern:
    """Add a traffic pattern; a name or alias already taken is an error.

    The built-in patterns are registered when :mod:`traffic` is imported;
    a second entry of a name is refused:

    >>> register_pattern(PATTERNS["tornado"])
    Traceback (most recent call last):
    ...
    ValueError: traffic pattern name 'tornado' is already registered
    """
    for key in (entry.name, *entry.aliases):
        if _key(key) in PATTERNS or _key(key) in _ALIASES:
            raise ValueError(f"traffic pattern name {key!r} is already registered")
    PATTERNS[entry.name] = entry
    _ALIASES.update({_key(a): entry.name for a in entry.aliases})
    return entry


def pattern_entry(name: str) -> Pattern:
    """The entry of pattern ``name`` or one of its aliases (case, ``-`` and ``_`` ignored); one error line
    for unknown names.

    >>> pattern_entry("BR").name
    'bitreversal'
    """
    key = _key(name)
    key = _ALIASES.get(key, key)
    try:
        return PATTERNS[key]
    except KeyError:
        raise TrafficError(f"unknown traffic pattern {name!r}; valid: {', '.join(sorted(PATTERNS))}") from None


for _entry in (
    Pattern("uniform", "every other terminal equally likely", B.uniform, aliases=("un",), demands=B.uniform_demands),
    Pattern("hotregion", "25% of packets to the first 12.5% of the network, the rest uniform", B.hotregion,
            aliases=("hr", "hotspot")),
    Pattern("bitcomplement", "d = ~s (power-of-2 terminals)", B.bitcomplement, aliases=("bc",)),
    Pattern("bitreversal", "d = bits of s reversed (power-of-2 terminals)", B.bitreversal, aliases=("br",)),
    Pattern("shuffle", "perfect shuffle: s rotated left by one bit", B.shuffle, aliases=("ps", "perfectshuffle")),
    Pattern("butterfly", "most and least significant bits of s swapped (power-of-2 terminals)", B.butterfly),
    Pattern("transpose", "upper and lower halves of the bits of s swapped", B.transpose),
    Pattern("tornado", "every coordinate x -> x + ceil(k/2) - 1 mod k", B.tornado, needs="lattice"),
    Pattern("diagonal", "every coordinate x -> x + 1 mod k (BookSim2's 'neighbor')", B.diagonal, needs="lattice"),
    Pattern("neighbor", "uniform over the router's neighbours", B.neighbor,
            aliases=("nn", "neighbour", "nearestneighbor", "nearestneighbour")),
    Pattern("localglobal", "alpha to a logical-torus neighbour, 1 - alpha uniform (alpha=A:grid=AxB:wrap=1)",
            B.localglobal, aliases=("lg", "localmix")),
    Pattern("groupshift", "every PE of group i to a random PE of group i+1 mod g (dragonfly adversarial)",
            B.groupshift, needs="groups"),
    Pattern("randperm", "a random permutation (seed=S)", B.randperm),
    Pattern("random", "COUNT pairs of distinct random PEs, one unit each (random:COUNT, seed=S)", B.random,
            positional=("count", "seed"), demands=B.random_demands),
    Pattern("local", "COUNT random router pairs, a share per packaging level (local:COUNT[:S0,S1,...], seed=S; "
            "default shares 0.4,0.5,0.1)", B.local, needs="placement", positional=("count", "shares", "seed"),
            demands=B.local_demands),
    Pattern("permutation", "an explicit permutation (Python API)", B.permutation),
    Pattern("matrix", "an explicit demand matrix (Python API)", B.matrix),
):
    register_pattern(_entry)


def _parse_value(v: str) -> Any:
    if "," in v:
        return tuple(_parse_value(x.strip()) for x in v.split(",") if x.strip())
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


def traffic(spec: "str | TrafficPattern", **options: Any) -> TrafficPattern:
    """A traffic pattern from a name or ``name:key=value:...`` string (leading
    options of a pattern that has positional ones may omit ``key=``).

    >>> traffic("hotregion:fraction=0.5").options
    {'fraction': 0.5}
    >>> traffic("local:128:0.5,0.4,0.1").options
    {'count': 128, 'shares': (0.5, 0.4, 0.1)}
    >>> traffic("nope")
    Traceback (most recent call last):
    ...
    traffic.errors.TrafficError: unknown traffic pattern 'nope'; valid: bitcomplement, bitreversal, butterfly, diagonal, groupshift, hotregion, local, localglobal, matrix, neighbor, permutation, random, randperm, shuffle, tornado, transpose, uniform
    """
    if isinstance(spec, TrafficPattern):
        return TrafficPattern(spec.name, {**spec.options, **options})
    parts = str(spec).strip().split(":")
    entry = pattern_entry(parts[0])
    opts: dict[str, Any] = {}
    free = list(entry.positional)
    for p in parts[1:]:
        if "=" not in p:
            if not free:
                example = f"{entry.name}:{entry.options[0]}=..." if entry.options else entry.name
                raise TrafficError(f"traffic option {p!r} must look like key=value (e.g. hotregion:fraction=0.25; "
                                   f"{entry.name} takes {', '.join(entry.options) or 'no options'}: {example})")
            opts[free.pop(0)] = _parse_value(p.strip())
            continue
        k, v = p.split("=", 1)
        k = k.strip()
        opts[k] = _parse_value(v.strip())
        if k in free:
            free = free[free.index(k) + 1:]
    opts.update(options)
    bad = set(opts) - set(entry.options)
    if bad:
        raise TrafficError(f"traffic {entry.name!r} takes options {sorted(entry.options) or 'none'}, got {sorted(bad)}")
    return TrafficPattern(entry.name, opts)


def permutation(perm: Any) -> TrafficPattern:
    """Every terminal ``s`` sends to ``perm[s]``.

    >>> import candidates as cd
    >>> permutation([1, 2, 3, 0]).demand_matrix(cd.ring(4))[3].tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    return TrafficPattern("permutation", {"perm": np.asarray(perm, dtype=np.int64)})


def demand(matrix: Any) -> TrafficPattern:
    """Traffic proportional to a demand matrix (terminals or routers).

    Rows set both the destination distribution and the relative injection
    rate of every source; the load stays the average over terminals.

    >>> import candidates as cd
    >>> demand([[0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]]).demand_matrix(cd.ring(4), 1.0)[0].tolist()
    [0.0, 2.0, 0.0, 0.0]
    """
    return TrafficPattern("matrix", {"matrix": np.asarray(matrix, dtype=np.float64)})


