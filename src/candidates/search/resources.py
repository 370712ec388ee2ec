"""What a searched link costs in a packaged machine, in the search's terms.

A placed machine (routers on cards, cards on boards: a
:class:`~candidates.topology.Placement`) gives every link a set of resources
it uses, whatever the traffic: the board cross-sections it crosses between
the two routers' slots on the board of their lowest common unit, the
connectors of every unit it leaves on either side, and the two routers' pins
-- 'topology-synthesis-mcf-bgl''s constraints (2) and (3), which
``flows.physical`` builds into a flow problem. :class:`LinkResources` holds
them as arrays the search's kernels read (the ``physical`` objective), each
resource's capacity counted in wires.

This module knows units, slots and capacities, not boards: the capacities
come from a packaging (``flows.physical.link_resources`` builds this record
from its boards and pins), so that the search needs nothing above
``candidates``.

>>> import numpy as np
>>> from candidates.topology import Placement
>>> pl = Placement(("card", "board"), unit=np.array([[0, 0], [0, 0], [1, 0], [1, 0]]),
...                position=np.zeros((4, 2)))
>>> r = link_resources_from_placement(pl, column_cut_wires=[10.0, 20.0], row_cut_wires=[10.0, 20.0],
...                                   connector_wires=[8.0, 0.0])
>>> r.resources_of(0, 1), r.resources_of(0, 2)
(['card 0 cross-section at column gap 0|1'], ['board 0 cross-section at column gap 0|1', 'card 0 connector pins', 'card 1 connector pins'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import SpecError
from ..topology import Placement
from .objectives import OBJ_PHYSICAL

__all__ = ["LinkResources", "link_resources_from_placement"]


@dataclass(frozen=True, eq=False)
class LinkResources:
    """The packaging resources of every possible link of ``n`` placed routers.

    unit, slot : ``(n, L)`` unit of each level and ``(n, L, 2)`` (row, column)
        slot on that unit's board (the placement's).
    cut_first, cut_columns : ``(L, U)``: the first resource id of unit ``U``'s
        cuts at level ``l`` (its column gaps, then its row gaps; -1: the
        level has no cross-section limit) and its grid's columns.
    connector_first : ``(L,)`` the first connector resource of level ``l``
        (one per unit; -1: no connector limit).
    router_first : the first router-pin resource (one per router; -1: none).
    capacity : ``(R,)`` each resource's capacity in wires.
    names : each resource's name (``flows.physical``'s names).
    uniform : uniform wiring (every resource split equally over the link
        directions that use it) rather than flexible (the flow decides).
    per_link : the most resources one link can use.
    row_pitch, column_pitch : ``(L, U)`` metres between neighbouring slots of
        unit ``U``'s board at level ``l`` (its height over its rows, its width
        over its columns); ``run`` : ``(L,)`` the wire a link runs on each
        card of level ``l`` it leaves; ``wire_ns_per_m`` and ``router_ns``:
        the wire's delay and a router's by its number of links
        (``router_ns[d]``, its PEs counted in) -- what the ``physical``
        objective's latency share counts (none: one unit per hop).
    """

    levels: tuple[str, ...]
    unit: np.ndarray = field(repr=False)
    slot: np.ndarray = field(repr=False)
    cut_first: np.ndarray = field(repr=False)
    cut_columns: np.ndarray = field(repr=False)
    connector_first: np.ndarray = field(repr=False)
    router_first: int
    capacity: np.ndarray = field(repr=False)
    names: tuple[str, ...] = field(repr=False)
    uniform: bool = False
    per_link: int = 0
    row_pitch: np.ndarray | None = field(default=None, repr=False)
    column_pitch: np.ndarray | None = field(default=None, repr=False)
    run: np.ndarray | None = field(default=None, repr=False)
    wire_ns_per_m: float = 0.0
    router_ns: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return int(self.unit.shape[0])

    def replace_uniform(self, uniform: bool) -> "LinkResources":
        return replace(self, uniform=bool(uniform))

    def resources_of(self, u: int, v: int) -> list[str]:
        """The names of the resources link ``u - v`` uses, as the search's
        kernel enumerates them."""
        from ._kernels import resources_of_link  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)
        from .state import Lift, objective_tuple  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

        n = self.n
        O = objective_tuple(OBJ_PHYSICAL, 0.0, Lift(n, n, 1, 1), np.ones(n, np.int32), resources=self)
        out = np.zeros(self.per_link, dtype=np.int64)
        k = resources_of_link(O, int(u), int(v), out)
        return [self.names[r] for r in out[:k]]


def link_resources_from_placement(placement: Placement, *, column_cut_wires: Sequence[float],
                                  row_cut_wires: Sequence[float], connector_wires: Sequence[float],
                                  router_wires: float = 0.0, uniform: bool = False,
                                  board_sizes: Sequence[tuple[float, float]] | None = None,
                                  runs: Sequence[float] | None = None, wire_ns_per_m: float = 0.0,
                                  router_ns: Sequence[float] | None = None) -> LinkResources:
    """The resources of a placement whose level-``l`` boards offer
    ``column_cut_wires[l]`` wires across a column gap and ``row_cut_wires[l]``
    across a row gap (0: no limit), whose level-``l`` units have
    ``connector_wires[l]`` wires of connectors (0: no limit), and whose
    routers have ``router_wires`` wires of pins (0: no limit).

    A unit's grid is as many rows and columns as its slots use (as
    ``flows.physical`` measures it). For the latency: ``board_sizes[l]`` =
    (width, height) in metres of a level-``l`` board, ``runs[l]`` the wire a
    link runs on a level-``l`` card it leaves, the wire's delay per metre and
    a router's by its number of links (none: latency counts hops).
    """
    L = len(placement.levels)
    for name, seq in (("column_cut_wires", column_cut_wires), ("row_cut_wires", row_cut_wires),
                      ("connector_wires", connector_wires)):
        if len(seq) != L:
            raise SpecError(f"{name} needs one figure per packaging level ({L}), got {len(seq)}")
        if any(not (x >= 0 and np.isfinite(x)) for x in seq):
            raise SpecError(f"{name} must be finite numbers >= 0 (0: no limit), got {list(seq)}")
    if not (router_wires >= 0 and np.isfinite(router_wires)):
        raise SpecError(f"router_wires must be a finite number >= 0 (0: no limit), got {router_wires}")
    unit = np.asarray(placement.unit, dtype=np.int64)
    slot = np.asarray(placement.slot_grid(), dtype=np.int64)
    n = unit.shape[0]
    U = int(unit.max(initial=0)) + 1
    rows = np.zeros((L, U), dtype=np.int64)
    cols = np.zeros((L, U), dtype=np.int64)
    for l in range(L):
        np.maximum.at(rows[l], unit[:, l], slot[:, l, 0] + 1)
        np.maximum.at(cols[l], unit[:, l], slot[:, l, 1] + 1)
    cut_first = np.full((L, U), -1, dtype=np.int64)
    caps: list[float] = []
    names: list[str] = []
    level = placement.levels
    for l in range(L):
        if not (column_cut_wires[l] > 0 and row_cut_wires[l] > 0):
            continue
        for u in range(int(unit[:, l].max(initial=-1)) + 1):
            cut_first[l, u] = len(caps)
            for g in range(max(cols[l, u] - 1, 0)):
                caps.append(float(column_cut_wires[l]))
                names.append(f"{level[l]} {u} cross-section at column gap {g}|{g + 1}")
            for g in range(max(rows[l, u] - 1, 0)):
                caps.append(float(row_cut_wires[l]))
                names.append(f"{level[l]} {u} cross-section at row gap {g}|{g + 1}")
    conn_first = np.full(L, -1, dtype=np.int64)
    for l in range(L):
        if connector_wires[l] > 0:
            conn_first[l] = len(caps)
            k = int(unit[:, l].max(initial=-1)) + 1
            caps.extend([float(connector_wires[l])] * k)
            names.extend(f"{level[l]} {u} connector pins" for u in range(k))
    router_first = -1
    if router_wires > 0:
        router_first = len(caps)
        caps.extend([float(router_wires)] * n)
        names.extend(f"router {v} pins" for v in range(n))
    gaps = int(((rows - 1).clip(0) + (cols - 1).clip(0)).max(initial=0))
    row_pitch = np.zeros((L, U))
    col_pitch = np.zeros((L, U))
    run = np.zeros(L)
    if board_sizes is not None:
        if len(board_sizes) != L or (runs is not None and len(runs) != L):
            raise SpecError(f"board_sizes and runs need one entry per packaging level ({L})")
        for l, (w, h) in enumerate(board_sizes):
            row_pitch[l] = h / np.maximum(rows[l], 1)
            col_pitch[l] = w / np.maximum(cols[l], 1)
        run = np.asarray(runs if runs is not None else np.zeros(L), dtype=np.float64)
    return LinkResources(tuple(level), unit.astype(np.int32), slot.astype(np.int32), cut_first,
                         cols.astype(np.int32), conn_first, int(router_first), np.asarray(caps, dtype=np.float64),
                         tuple(names), bool(uniform), gaps + 2 * L + 2, row_pitch, col_pitch, run,
                         float(wire_ns_per_m), None if router_ns is None else np.asarray(router_ns, np.float64))
