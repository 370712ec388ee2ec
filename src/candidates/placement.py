"""Physical placement of lattice topologies on nested boards.

:func:`candidates.hierarchical` records where its routers sit as it builds
them. A lattice topology (a torus, a twisted torus) is packaged instead by
cutting its coordinate box into nested blocks: Blue Gene/L puts its 8x8x8
torus on compute cards of 1x1x2 routers, node cards of 4x4x2 and a midplane
of 8x8x8. :func:`block_placement` records that packaging as a
:class:`~candidates.topology.Placement` so that ``flows.physical`` can turn it
into board and connector resources.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .errors import SpecError
from .topology import Placement, Topology

__all__ = ["block_placement"]


def _near_square(local: tuple[int, ...]) -> int:
    """Split point k: rows are dims [:k] of the local grid, columns the rest,
    chosen to make the board grid as square as possible (size-1 dims ignored)."""
    best, best_k = None, 0
    for k in range(len(local) + 1):
        r, c = math.prod(local[:k]), math.prod(local[k:])
        score = (abs(math.log(r) - math.log(c)), k)
        if best is None or score < best:
            best, best_k = score, k
    return best_k


def block_placement(
    topo: Topology,
    blocks: Sequence[Sequence[int]],
    level_names: Sequence[str] | None = None,
) -> Topology:
    """The topology with its coordinate box packaged in nested blocks.

    Parameters
    ----------
    topo : Topology
        A topology with lattice coordinates and a shape (tori, meshes,
        twisted tori, twin tori ...).
    blocks : sequence of shapes, innermost first
        ``blocks[l]`` is the coordinate extent of one unit of level ``l``;
        each divides the next and the last divides ``topo.shape``.
    level_names : names of the levels, innermost first (default
        ``("level0", "level1", ...)``).

    Returns
    -------
    Topology
        A copy with ``placement`` set: ``unit[v, l]`` the C-order index of
        ``coords[v] // blocks[l]``; on each unit its children (routers at
        level 0, units of level ``l-1`` above) sit on a grid whose rows are
        the first local dimensions and whose columns the rest, split to be as
        square as possible; ``position`` is the router's slot on its
        level-0 unit.

    Examples
    --------
    The Blue Gene/L midplane: 256 compute cards of 2 routers, 16 node cards
    of 32 (4 x 4 compute cards), one midplane of 4 x 4 node cards.

    >>> from candidates import torus
    >>> t = block_placement(torus((8, 8, 8)), [(1, 1, 2), (4, 4, 2), (8, 8, 8)],
    ...                     ("compute_card", "node_card", "midplane"))
    >>> [int(t.placement.unit[:, l].max()) + 1 for l in range(3)]
    [256, 16, 1]
    >>> t.placement.slot_grid().max(axis=0).tolist()
    [[0, 1], [3, 3], [3, 3]]
    """
    if topo.coords is None or topo.shape is None:
        raise SpecError(f"block_placement needs lattice coordinates; {topo.family or 'this'} topology has none")
    shape = tuple(int(x) for x in topo.shape)
    D = len(shape)
    if isinstance(blocks, (str, bytes)) or len(blocks) == 0:
        raise SpecError("blocks must be a list of block shapes, innermost level first")
    blk = []
    prev = (1,) * D
    for l, b in enumerate(blocks):
        b = tuple(int(x) for x in b)
        if len(b) != D or min(b) < 1:
            raise SpecError(f"block {l} must have {D} positive sizes (the topology is {'x'.join(map(str, shape))}), got {b}")
        if any(x % p for x, p in zip(b, prev)):
            raise SpecError(f"block {l} {b} is not a multiple of block {l - 1} {prev}")
        blk.append(b)
        prev = b
    if any(s % b for s, b in zip(shape, prev)):
        raise SpecError(f"the outermost block {prev} does not tile the shape {shape}")
    names = tuple(level_names) if level_names is not None else tuple(f"level{l}" for l in range(len(blk)))
    if len(names) != len(blk) or len(set(names)) != len(names):
        raise SpecError(f"level_names needs {len(blk)} distinct names, innermost first, got {level_names!r}")
    coords = np.asarray(topo.coords, dtype=np.int64)
    units, slots = [], []
    prev = (1,) * D
    for b in blk:
        grid = tuple(s // x for s, x in zip(shape, b))
        units.append(np.ravel_multi_index(tuple((coords // np.array(b)).T), grid))
        local = tuple(x // p for x, p in zip(b, prev))
        lc = (coords // np.array(prev)) % np.array(local)
        k = _near_square(local)
        row = np.ravel_multi_index(tuple(lc[:, :k].T), local[:k]) if k else np.zeros(topo.n, dtype=np.int64)
        col = np.ravel_multi_index(tuple(lc[:, k:].T), local[k:]) if k < D else np.zeros(topo.n, dtype=np.int64)
        slots.append(np.stack([row, col], axis=1))
        prev = b
    sl = np.stack(slots, axis=1)
    placement = Placement(names, np.stack(units, axis=1), sl[:, 0].astype(np.float64), sl)
    return topo.replace(placement=placement)
