"""What each topology family can do, declared once where the family is registered.

Modules that route, analyse or simulate ask a topology's capabilities here
instead of comparing family names: a new family declares what it has (in
:func:`candidates.register`) and every layer follows.

>>> import candidates as cd
>>> capabilities(cd.from_spec("pdtt:a=4")).records, capabilities(cd.from_spec("pdtt:a=4")).ties
('tiles', True)
>>> capabilities(cd.from_spec("complete:8")).records is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Capabilities", "RECORD_RULES", "FAMILY_ROUTES", "capabilities", "declare", "families_with",
           "published_figures"]

#: the closed-form routing-record rules (:mod:`candidates.analytics.records`):
#: ``rt``, ``rtt`` and ``ptt`` the papers' algorithms, ``torus`` per-dimension
#: minimal offsets, ``difference`` the coordinate difference (meshes),
#: ``hypercube`` the differing bits, ``tiles`` the shortest representative
#: among the lattice's neighbouring tiles (PDTT, general twisted tori)
RECORD_RULES = ("rt", "rtt", "ptt", "torus", "difference", "hypercube", "tiles")

#: the routings a family may define by its own next-hop rule (``Capabilities.routes``):
#: ``dor`` dimension order without routing records (HyperX), ``minimal`` the family's
#: minimal routing where it is not the graph's shortest paths (the dragonfly's
#: local-global-local)
FAMILY_ROUTES = ("dor", "minimal")


@dataclass(frozen=True)
class Capabilities:
    """A family's capabilities.

    coordinates : its routers have lattice coordinates (``Topology.coords``).
    records : the rule of its minimal routing records (one of
        :data:`RECORD_RULES`), or None: routing needs tables (any graph).
        A family with records is routed arithmetically by the simulator
        (no n x n table) and analysed without enumerating paths.
    ties : a pair's other minimal records are lattice translates of the
        first (wraparound families), so a tie rule (fixed or random) applies.
    twin : the nDT twin-torus routings (TS-DOR and its classes) apply.
    whole_argument : everything after ``name:`` in a spec is one argument
        (a path, graph6 text, specs joined by ``*``).
    updown_minimal : every shortest path between routers with PEs climbs
        and then descends the levels (a folded Clos: fat trees, k-ary
        n-trees), so minimal routing is up/down routing over all its paths
        and free of deadlock without an escape VC.
    groups : the routers form groups, numbered by the first coordinate
        (``coords[:, 0]``: a dragonfly's groups); group traffic patterns
        (``groupshift``) apply.
    figures : ``figures(topo)`` -> the family's published closed forms for
        this instance (a dataclass with ``to_dict()`` and a ``source``), which
        ``describe`` reports beside what it computes.
    routes : the family's own next-hop rules, by routing name (one of
        :data:`FAMILY_ROUTES`): ``rule(topo)`` -> a
        :class:`~candidates.analytics.routing.NextHopTable`. ``dor`` gives dimension
        order where there are no routing records; ``minimal`` replaces the
        graph's shortest paths in every routing over next hops.
    intermediates : ``intermediates(topo)`` -> ``(n, K)`` routers: Valiant's
        intermediate point for a packet of router ``u`` is drawn uniformly
        from row ``u`` (the dragonfly: the entry router of a random group)
        instead of from all routers.
    auto_routing : the routing the simulator's ``auto`` picks for the family
        (default: ``adaptive`` with routing records, else ``table``).
    """

    coordinates: bool = False
    records: str | None = None
    ties: bool = False
    twin: bool = False
    whole_argument: bool = False
    updown_minimal: bool = False
    groups: bool = False
    figures: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)
    routes: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict, compare=False, repr=False)
    intermediates: Callable[[Any], Any] | None = field(default=None, compare=False, repr=False)
    auto_routing: str | None = None

    def __post_init__(self) -> None:
        bad = sorted(set(self.routes) - set(FAMILY_ROUTES))
        if bad:
            raise ValueError(f"unknown family routing {bad[0]!r}; one of {', '.join(FAMILY_ROUTES)}")
        if self.records is not None and self.records not in RECORD_RULES:
            raise ValueError(f"unknown record rule {self.records!r}; one of {', '.join(RECORD_RULES)}")
        if self.records is not None and not self.coordinates:
            raise ValueError("routing records need coordinates")
        if self.ties and self.records is None:
            raise ValueError("a tie rule needs routing records")
        if self.groups and not self.coordinates:
            raise ValueError("groups are numbered by the first coordinate: they need coordinates")

    def to_dict(self) -> dict[str, Any]:
        return {"coordinates": self.coordinates, "records": self.records, "ties": self.ties, "twin": self.twin,
                "whole_argument": self.whole_argument, "updown_minimal": self.updown_minimal,
                "groups": self.groups, "figures": self.figures is not None, "routes": sorted(self.routes),
                "intermediates": self.intermediates is not None, "auto_routing": self.auto_routing}


_BY_FAMILY: dict[str, Capabilities] = {}
_NONE = Capabilities()


def declare(family: str, caps: Capabilities) -> None:
    """Record ``family``'s capabilities (called by :func:`candidates.register`)."""
    _BY_FAMILY[family] = caps


def capabilities(topo_or_family: Any) -> Capabilities:
    """The capabilities of a topology's family (or of a family name); none
    for families that declare nothing (graphs, products, compositions)."""
    name = topo_or_family if isinstance(topo_or_family, str) else getattr(topo_or_family, "family", None)
    return _BY_FAMILY.get(name, _NONE) if isinstance(name, str) else _NONE


def families_with(what: str) -> list[str]:
    """The registered families that have capability ``what`` (a field name), in registration order.

    >>> "pdtt" in families_with("records"), "complete" in families_with("records")
    (True, False)
    """
    return [name for name, c in _BY_FAMILY.items() if getattr(c, what)]


def published_figures(topo: Any) -> dict[str, Any] | None:
    """The published closed forms of ``topo``'s family for this instance, or None.

    >>> import candidates as cd
    >>> published_figures(cd.from_spec("fattree:k=4"))["bisection_links"]
    8
    """
    fn = capabilities(topo).figures
    return None if fn is None else fn(topo).to_dict()
