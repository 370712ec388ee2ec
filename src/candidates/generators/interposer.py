"""Published 20-router interposer networks on a 5 x 4 grid (chip scale).

The network-on-interposer designs of Kite (Bharadwaj, Yin, Beckmann,
Krishna, DAC 2020) and the baselines it compares with, as NetSmith (Green et
al., ICPP 2024) gives them for 20 routers of 4 network ports each: router
``i`` at ``(x, y) = (i mod 5, i div 5)`` on a grid of unit spacing, links no
longer than the design's class allows -- small ``<= 1.5`` (lengths 1 and
sqrt 2), medium ``<= 2`` (and 2), large ``<= 2.5`` (and sqrt 5).

====================  =====  ======  ===================================
design                links  class   longest link
====================  =====  ======  ===================================
``mesh``                31   small   1
``folded_torus``        40   medium  2 (the 5 x 4 torus, folded)
``kite_small``          38   small   sqrt 2
``kite_medium``         40   medium  2
``kite_large``          36   large   sqrt 5
``butter_donut``        36   large   sqrt 5 (adapted to 20 routers)
``double_butterfly``    32   large   sqrt 5 (adapted to 20 routers)
====================  =====  ======  ===================================

The link lists are those of NetSmith's artefact (repository
cgreen18/netsmith_icpp24, ``topo_maps/20r/*.map``, "the topologies used for
[its] results section"; the mesh from its gem5 tree cgreen18/auto_top_gem5,
``cmesh_x.map``): the Kite paper does not list its links, so these are
NetSmith's renderings of the published designs. Every one of them has
links in both directions (NetSmith's own designs, which have one-way
channels, are not here: toposynth's links are two-way).

>>> t = interposer("kite_small")
>>> t.n, t.num_links, t.shape, t.coords[7].tolist()
(20, 38, (5, 4), [2, 1])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import SpecError
from ..registry import Family, keyed_fields, register
from ..topology import Topology

__all__ = ["interposer", "interposer_size", "INTERPOSER_DESIGNS", "LENGTH_CLASSES"]

#: the longest link each length class allows (grid units)
LENGTH_CLASSES = {"small": 1.5, "medium": 2.0, "large": 2.5}

#: design -> (length class, links between routers i at (i mod 5, i div 5))
INTERPOSER_DESIGNS: dict[str, tuple[str, tuple[tuple[int, int], ...]]] = {
    "mesh": ("small", (
        (0, 1), (0, 5), (1, 2), (1, 6), (2, 3), (2, 7), (3, 4), (3, 8), (4, 9), (5, 6), (5, 10), (6, 7), (6, 11),
        (7, 8), (7, 12), (8, 9), (8, 13), (9, 14), (10, 11), (10, 15), (11, 12), (11, 16), (12, 13), (12, 17),
        (13, 14), (13, 18), (14, 19), (15, 16), (16, 17), (17, 18), (18, 19))),
    "folded_torus": ("medium", (
        (0, 1), (0, 2), (0, 5), (0, 10), (1, 3), (1, 6), (1, 11), (2, 4), (2, 7), (2, 12), (3, 4), (3, 8), (3, 13),
        (4, 9), (4, 14), (5, 6), (5, 7), (5, 15), (6, 8), (6, 16), (7, 9), (7, 17), (8, 9), (8, 18), (9, 19),
        (10, 11), (10, 12), (10, 15), (11, 13), (11, 16), (12, 14), (12, 17), (13, 14), (13, 18), (14, 19),
        (15, 16), (15, 17), (16, 18), (17, 19), (18, 19))),
    "kite_small": ("small", (
        (0, 1), (0, 5), (0, 6), (1, 2), (1, 5), (1, 7), (2, 3), (2, 6), (2, 8), (3, 4), (3, 7), (3, 9), (4, 8),
        (4, 9), (5, 10), (5, 11), (6, 10), (6, 12), (7, 11), (7, 13), (8, 12), (8, 14), (9, 13), (9, 14),
        (10, 15), (10, 16), (11, 15), (11, 17), (12, 16), (12, 18), (13, 17), (13, 19), (14, 18), (14, 19),
        (15, 16), (16, 17), (17, 18), (18, 19))),
    "kite_medium": ("medium", (
        (0, 1), (0, 2), (0, 5), (0, 10), (1, 3), (1, 7), (1, 11), (2, 4), (2, 6), (2, 8), (3, 4), (3, 7), (3, 13),
        (4, 9), (4, 14), (5, 6), (5, 7), (5, 15), (6, 8), (6, 16), (7, 9), (8, 9), (8, 18), (9, 19), (10, 11),
        (10, 12), (10, 15), (11, 13), (11, 17), (12, 14), (12, 16), (12, 18), (13, 14), (13, 17), (14, 19),
        (15, 16), (15, 17), (16, 18), (17, 19), (18, 19))),
    "kite_large": ("large", (
        (0, 1), (0, 5), (0, 7), (0, 11), (1, 8), (2, 5), (2, 9), (2, 11), (2, 13), (3, 4), (3, 6), (4, 7), (4, 9),
        (4, 13), (5, 6), (5, 12), (6, 15), (6, 17), (7, 10), (7, 14), (8, 9), (8, 17), (8, 19), (9, 12), (10, 11),
        (10, 15), (10, 17), (11, 18), (12, 15), (12, 19), (13, 14), (13, 16), (14, 17), (14, 19), (15, 16),
        (18, 19))),
    "butter_donut": ("large", (
        (0, 1), (0, 2), (0, 6), (1, 3), (1, 5), (1, 12), (2, 4), (2, 11), (2, 13), (3, 4), (3, 9), (3, 12), (4, 8),
        (5, 6), (5, 7), (6, 8), (6, 17), (7, 9), (7, 16), (7, 18), (8, 9), (8, 17), (10, 11), (10, 12), (10, 16),
        (11, 13), (11, 15), (12, 14), (13, 14), (13, 19), (14, 18), (15, 16), (15, 17), (16, 18), (17, 19),
        (18, 19))),
    "double_butterfly": ("large", (
        (0, 1), (0, 6), (1, 2), (1, 5), (1, 12), (2, 3), (2, 11), (2, 13), (3, 4), (3, 9), (3, 12), (4, 8), (5, 6),
        (6, 7), (6, 17), (7, 8), (7, 16), (7, 18), (8, 9), (8, 17), (10, 11), (10, 16), (11, 12), (11, 15),
        (12, 13), (13, 14), (13, 19), (14, 18), (15, 16), (16, 17), (17, 18), (18, 19))),
}

_COLS, _ROWS = 5, 4


def _check(name) -> str:
    key = str(name).lower().replace("-", "_")
    if key not in INTERPOSER_DESIGNS:
        raise SpecError(f"interposer: unknown design {name!r}; valid: {', '.join(INTERPOSER_DESIGNS)}")
    return key


def interposer_size(name: str) -> tuple[int, int]:
    """(routers, links) of a design, without building it."""
    return _COLS * _ROWS, len(INTERPOSER_DESIGNS[_check(name)][1])


def interposer(name: str) -> Topology:
    """The published 20-router interposer design ``name`` (see the module's
    table), its routers on the 5 x 4 grid (``coords``, ``shape``), its
    length class and longest link in ``params``."""
    key = _check(name)
    cls, links = INTERPOSER_DESIGNS[key]
    i = np.arange(_COLS * _ROWS)
    coords = np.stack([i % _COLS, i // _COLS], axis=1)
    arr = np.asarray(links, dtype=np.int64)
    d = coords[arr[:, 0]] - coords[arr[:, 1]]
    longest = float(np.sqrt((d.astype(float) ** 2).sum(axis=1)).max())
    return Topology(n=_COLS * _ROWS, links=arr, family="interposer", spec=f"interposer:{key}", coords=coords,
                    shape=(_COLS, _ROWS),
                    params={"design": key, "length_class": cls, "max_length": LENGTH_CLASSES[cls],
                            "longest_link": round(longest, 6), "grid": f"{_COLS}x{_ROWS}"},
                    vertex_transitive=False)


# ---------------------------------------------------------------- the interposer family of the registry
_fields = keyed_fields("interposer", ("design",), (), ())


def _args(pos: list[str], kw: dict[str, str]) -> dict[str, Any]:
    if len(pos) == 1 and not kw:     # interposer:kite_small
        return {"design": pos[0]}
    return _fields(pos, kw)


register(Family("interposer", "a published 20-router network-on-interposer on a 5x4 grid (Kite, DAC 2020, and its "
                "baselines, as NetSmith gives them): " + ", ".join(INTERPOSER_DESIGNS),
                (("design", ", ".join(INTERPOSER_DESIGNS)),), "interposer:kite_small",
                lambda pos, kw: interposer(_args(pos, kw)["design"]),
                lambda pos, kw: (*interposer_size(_args(pos, kw)["design"]), 2)))
