"""The registry of search objectives: what a search minimises.

Every objective is one :class:`Objective` entry, registered once (a
duplicate name is an error), declaring what its evaluation needs and whether
its finalists are worth certifying by a flow solver (``certify``: the search
scores graphs by a fast bound; :func:`synth.search` re-ranks the restarts'
best graphs by ``flows``' certified uniform capacity).

>>> objective("aspl").kernel_code, objective("throughput").needs_split
(0, True)
>>> objective("nope")
Traceback (most recent call last):
...
candidates.errors.SpecError: unknown search objective 'nope'; valid: aspl, throughput, mix, physical
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import SpecError

__all__ = ["Objective", "OBJECTIVES", "register_objective", "objective", "OBJ_ASPL", "OBJ_THROUGHPUT", "OBJ_MIX",
           "OBJ_PHYSICAL"]

# the evaluation kernel's codes (candidates.search._evaluate.energy_of)
OBJ_ASPL = 0         # primary (unreachable, diameter), secondary sum of distances
OBJ_THROUGHPUT = 1   # primary unreachable, secondary busiest link of the even split (+ tie x distances)
OBJ_MIX = 2          # primary unreachable, secondary weight x ASPL / Moore + (1 - weight) x load / Moore's
OBJ_PHYSICAL = 3     # primary unreachable, secondary busiest packaging resource of an even split (+ tie x distances)


@dataclass(frozen=True)
class Objective:
    """A search objective.

    name, summary : its name (``--objective``) and what it minimises.
    kernel_code : the evaluation kernel's code for it.
    needs_split : it scores the even shortest-path split of uniform traffic
        (a BFS with path counts per source: slower than distances alone).
    certify : the finalists' figure worth certifying by a flow solver
        (``"uniform-capacity"``), or None.
    weighted : it takes a weight (``mix``: the share of latency).
    needs_packaging : it prices links by a packaging (resources of a placed
        machine: board cross-sections, connector and router pins); it takes a
        traffic (demands) besides uniform.
    default_weight : the latency share when none is given.
    """

    name: str
    summary: str
    kernel_code: int
    needs_split: bool = False
    certify: str | None = None
    weighted: bool = False
    needs_packaging: bool = False
    default_weight: float = 0.5

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


OBJECTIVES: dict[str, Objective] = {}


def register_objective(entry: Objective) -> Objective:
    """Add an objective; a name already registered is an error."""
    if entry.name in OBJECTIVES:
        raise ValueError(f"search objective {entry.name!r} is already registered")
    OBJECTIVES[entry.name] = entry
    return entry


def objective(name: str) -> Objective:
    """The entry of objective ``name``; one error line for unknown names."""
    try:
        return OBJECTIVES[str(name).lower()]
    except KeyError:
        raise SpecError(f"unknown search objective {name!r}; valid: {', '.join(OBJECTIVES)}") from None


for _entry in (
    Objective("aspl", "the order/degree problem: the diameter first, then the average shortest-path length "
              "(Graph Golf's score)", OBJ_ASPL),
    Objective("throughput", "uniform capacity: the busiest link of an even split of uniform traffic over all "
              "shortest paths (a feasible routing: a lower bound on the capacity), the finalists certified by a "
              "flow solver", OBJ_THROUGHPUT, needs_split=True, certify="uniform-capacity"),
    Objective("mix", "weight x ASPL / Moore's + (1 - weight) x the busiest link's load / Moore's (latency and "
              "capacity together; weight 1 is latency alone)", OBJ_MIX, needs_split=True,
              certify="uniform-capacity", weighted=True),
    Objective("physical", "capacity under a packaging: the busiest board cross-section, connector or router pin "
              "set (uniform wiring: the busiest link's share) of an even shortest-path split of the traffic -- a "
              "feasible flow of the physical model, so a lower bound on its capacity; with a weight, that much "
              "of the split's average latency (ns: router and wire delays) against it, both over the start "
              "graph's; the finalists certified by the physical flow", OBJ_PHYSICAL, needs_split=True,
              certify="physical-capacity", weighted=True, needs_packaging=True, default_weight=0.0),
):
    register_objective(_entry)
