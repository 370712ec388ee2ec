"""The registry of the simulator's routings: what each needs and what it routes on.

Every routing is one :class:`Routing` entry, registered once (a duplicate
name is an error), declaring what a topology must offer for it (routing
records, the nDT twin layout), which routers implement it and how (the
simple router's kernel ``mode``, :mod:`sim.routing._simple`; BookSim2's
routing function ``iq_code`` on the iq router, :mod:`sim.routing._booksim`),
and how many distance classes of VCs it uses. It is the one list of the
routings' names: the kernels take their codes from it. :func:`sim.routing.resolve_routing`
and the memory estimate ask these entries, and the families' capabilities
(:mod:`candidates.capabilities`: record rule, own next-hop rules,
Valiant's intermediate points, the family's ``auto``), instead of
comparing names. The semantics of each routing are in :mod:`sim.routing.tables`.

>>> ROUTING_REGISTRY["ugal"].class_hops, ROUTING_REGISTRY["min_adapt"].routers
(2, ('iq',))
>>> routing_entry("nope")
Traceback (most recent call last):
...
sim.errors.SimError: unknown routing 'nope'; valid: auto, dor, adaptive, table, updown, minimal, distance, tsdor, dort, tsdor-adaptive, min_adapt, valiant, ugal
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import SimError

__all__ = ["Routing", "ROUTING_REGISTRY", "register_routing", "routing_entry", "NEEDS", "ROUTER_MODELS", "SELECTIONS"]

#: what a routing may need of a topology: ``records`` routing records (or, for
#: ``dor``, the family's own dimension-order rule), ``twin`` the nDT layout
NEEDS = ("records", "twin")
#: the routers (``SimConfig.router``); each runs as one or more router models of
#: :data:`sim.routers.ROUTER_REGISTRY` (the simple router: one per switching mode)
ROUTER_MODELS = ("simple", "iq")
#: how a packet of the simple router's VCT kernel picks among the (channel, VC) its routing allows that have
#: room for it and a free channel (``SimConfig.selection``); the kernel's ``SEL_*`` codes are the positions here
SELECTIONS: dict[str, str] = {
    "credits": "the most free phits; ties in the routing's order (records: x before y, lower VC first), at random "
               "for the routings over next-hop masks",
    "credits-random": "the most free phits, ties at random",
    "random": "any of them, uniformly (INSEE/FSIN's 'random' request mode)",
    "weighted": "at random in proportion to their free phits",
}


@dataclass(frozen=True)
class Routing:
    """A named routing.

    name, summary : the name (``SimConfig.routing``) and a one-line description.
    mode : the simple router kernel's routing mode (``sim.routing._simple.MODE_*``);
        -1 for ``auto`` and for routings of router ``iq`` only.
    routers : the router models that implement it.
    needs : what the topology must offer on the simple router (one of
        :data:`NEEDS`, or None: any connected graph).
    iq_needs : the same on router ``iq`` (BookSim2's routing functions run
        on lattices with routing records).
    class_hops : distance-class routings: the VCs split into one class per
        hop of the longest route, ``class_hops`` x the diameter (0: not one).
    iq_code : router ``iq``: BookSim2's routing function that runs it
        (:mod:`sim.routing._booksim`, ``RT_*``); -1 for the others and ``auto``.
    """

    name: str
    summary: str
    mode: int
    routers: tuple[str, ...] = ("simple",)
    needs: str | None = None
    iq_needs: str | None = "records"
    class_hops: int = 0
    iq_code: int = -1

    def __post_init__(self) -> None:
        for need in (self.needs, self.iq_needs):
            if need is not None and need not in NEEDS:
                raise ValueError(f"routing {self.name}: unknown need {need!r}; one of {', '.join(NEEDS)}")
        if not self.routers or set(self.routers) - set(ROUTER_MODELS):
            raise ValueError(f"routing {self.name}: routers must be some of {', '.join(ROUTER_MODELS)}")
        if self.name != "auto" and ("iq" in self.routers) != (self.iq_code >= 0):
            raise ValueError(f"routing {self.name}: router iq runs it exactly when it has an iq_code")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ROUTING_REGISTRY: dict[str, Routing] = {}


def register_routing(entry: Routing) -> Routing:
    """Add a routing; a name already registered is an error."""
    if entry.name in ROUTING_REGISTRY:
        raise ValueError(f"routing {entry.name!r} is already registered")
    ROUTING_REGISTRY[entry.name] = entry
    return entry


def routing_entry(name: str) -> Routing:
    """The entry of routing ``name`` (case-insensitive); one error line for unknown names."""
    try:
        return ROUTING_REGISTRY[str(name).lower()]
    except KeyError:
        raise SimError(f"unknown routing {name!r}; valid: {', '.join(ROUTING_REGISTRY)}") from None


# the kernels' codes (sim.routing._simple.MODE_*, sim.routing._booksim.RT_*) come from here; this module stays
# free of numba so the CLI starts fast
for _entry in (
    Routing("auto", "the family's default: adaptive on lattices with routing records, minimal on fat trees, ugal on "
            "dragonflies, table otherwise", -1, ("simple", "iq"), iq_needs=None),
    Routing("dor", "dimension order: on the routing records (dateline, bubble or no deadlock avoidance), or on a "
            "HyperX's cliques (one hop per differing coordinate, acyclic)", 0, ("simple", "iq"), needs="records",
            iq_code=0),
    Routing("adaptive", "minimal adaptive on the records, escape VC 0 = DOR with bubble flow control", 1,
            needs="records"),
    Routing("table", "adaptive over minimal next hops, escape VC 0 = up*/down*", 2),
    Routing("updown", "up*/down* on every VC", 3),
    Routing("minimal", "minimal next hops on every VC, no deadlock avoidance (deadlock-free on fat trees)", 4),
    Routing("distance", "minimal next hops, adaptive, VC class = hops taken (distance classes; vcs >= diameter)", 6,
            class_hops=1),
    Routing("tsdor", "nDT twin tori: Twin Source DOR (PE0 d0->d(n-1), PE1 d(n-1)->d0), dateline VCs, "
            "2 traffic classes", 5, needs="twin"),
    Routing("dort", "nDT twin tori: DOR d0->d(n-1) with the internal link, dateline VCs", 5, needs="twin"),
    Routing("tsdor-adaptive", "nDT twin tori, the EXTOLL router of '5d-twin-torus-extoll': per source PE a "
            "deterministic TS-DOR class and an adaptive class (minimal adaptive on the current card, TS-DOR escape; "
            "Duato), packets split at random; vcs a multiple of 8, plus 2 adaptive VCs", 5, needs="twin"),
    Routing("min_adapt", "router iq only: BookSim2's min_adapt (DOR escape VC(s), productive directions on the "
            "others)", -1, ("iq",), iq_code=1),
    Routing("valiant", "minimal (adaptive) to a random intermediate router (the dragonfly: group), then to the "
            "destination; VC class = hops taken (vcs >= 2 x diameter); router iq: BookSim2's valiant on lattices",
            7, ("simple", "iq"), class_hops=2, iq_code=2),
    Routing("ugal", "UGAL-L: per packet where the two paths part (the source, or the first router where their next "
            "hops differ), minimal or valiant, whichever has the smaller output queue x hops (+ "
            "ugal_threshold); valiant's VC classes (vcs >= 2 x diameter)", 8, class_hops=2),
):
    register_routing(_entry)
