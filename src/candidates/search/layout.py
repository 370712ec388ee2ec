"""Where a search's routers sit, and which links that allows.

A :class:`Layout` places the ``n`` routers of a search: coordinates (a chip's
grid, a lattice's box) and optionally a packaging :class:`~candidates.topology.Placement`
(cards and boards). The searched graph carries it (its ``coords``, ``shape``
and ``placement``), so that it is drawn where it sits and priced by the
packaging like any placed candidate. :func:`max_length_allowed` turns a
maximum link length into the pairs a search may join.

>>> lay = grid_layout(5, 4)
>>> lay.coords[7].tolist(), lay.shape
([2, 1], (5, 4))
>>> ok = max_length_allowed(lay.coords, 1.5)
>>> int(ok[0].sum()), bool(ok[0, 6]), bool(ok[0, 2])
(3, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SpecError
from ..topology import Placement

__all__ = ["Layout", "grid_layout", "box_layout", "max_length_allowed", "METRICS"]

METRICS = ("euclidean", "manhattan")


@dataclass(frozen=True, eq=False)
class Layout:
    """Router ``i`` at ``coords[i]`` (integer grid or lattice coordinates) of a
    box of extent ``shape``; ``placement``: its packaging, if any;
    ``name``: how it was given (``grid:5x4``, ``box:8x8x8``)."""

    coords: np.ndarray = field(repr=False)
    shape: tuple[int, ...]
    placement: Placement | None = field(default=None, repr=False)
    name: str = ""

    @property
    def n(self) -> int:
        return int(self.coords.shape[0])


def grid_layout(columns: int, rows: int) -> Layout:
    """``columns x rows`` routers on a grid of unit spacing, router ``i`` at
    ``(x, y) = (i mod columns, i div columns)`` (row by row)."""
    for what, k in (("columns", columns), ("rows", rows)):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise SpecError(f"a grid's {what} must be a positive integer, got {k!r}")
    i = np.arange(columns * rows)
    return Layout(np.stack([i % columns, i // columns], axis=1).astype(np.int64), (int(columns), int(rows)),
                  name=f"grid:{columns}x{rows}")


def box_layout(shape, placement: Placement | None = None) -> Layout:
    """Routers at the points of a lattice box, router ``i`` at the ``i``-th
    point in C order (a torus's numbering: the last coordinate fastest)."""
    shape = tuple(int(s) for s in shape)
    if not shape or min(shape) < 1:
        raise SpecError(f"a box needs positive extents, got {shape}")
    coords = np.stack(np.unravel_index(np.arange(int(np.prod(shape))), shape), axis=1).astype(np.int64)
    return Layout(coords, shape, placement, name="box:" + "x".join(map(str, shape)))


def max_length_allowed(coords: np.ndarray, max_length: float, metric: str = "euclidean") -> np.ndarray:
    """The (n, n) boolean matrix of router pairs at most ``max_length`` apart
    (``metric`` euclidean or manhattan, in the coordinates' units; a
    relative 1e-9 of slack so that 1.5 admits sqrt(2) and 2 admits 2)."""
    if metric not in METRICS:
        raise SpecError(f"unknown length metric {metric!r}; valid: {', '.join(METRICS)}")
    if not (float(max_length) > 0 and np.isfinite(max_length)):
        raise SpecError(f"the maximum link length must be a positive number, got {max_length!r}")
    c = np.asarray(coords, dtype=np.float64)
    n = c.shape[0]
    ok = np.zeros((n, n), dtype=bool)
    limit = float(max_length) * (1 + 1e-9)
    for a in range(0, n, 256):   # rows in blocks: a 4096-router difference array would take 270 MB
        diff = np.abs(c[a:a + 256, None, :] - c[None, :, :])
        dist = np.sqrt((diff ** 2).sum(axis=2)) if metric == "euclidean" else diff.sum(axis=2)
        ok[a:a + 256] = dist <= limit
    np.fill_diagonal(ok, False)
    return ok
