"""Drawings of candidate topologies that do not lie about their structure.

A nested 2-D grid makes a 3-D torus or a hypercube look like a mesh: the
links of the outer dimensions run on top of each other and the wrap-around
links vanish. Here every drawing says what it shows and what it leaves out:

- a ring (one lattice dimension, or a graph whose routers all have degree
  2) on a circle, other links as chords;
- a 2-D lattice as one grid: neighbour links as lines coloured by
  dimension, wrap-around links as dashed stubs at both ends (labelled with
  the far end when the wrap is twisted, i.e. shifts another coordinate);
- a lattice of 3 or more dimensions as small multiples: one grid panel per
  slice of the outer dimensions; the links between slices are not drawn and
  the caption states their rule (including twisted wraps);
- a hypercube (every dimension of size 2) projected with one direction and
  colour per dimension, every link drawn;
- a lattice whose links are not all unit steps (a product with arbitrary
  factor graphs, as the Blue Gene/L compositions) as its factor graphs, one
  panel per dimension, when it is their Cartesian product;
- a graph whose first coordinate groups its routers (a dragonfly's groups)
  as groups on a circle, each group's routers on a small circle;
- a graph with routers that serve no PEs (a fat tree) in layers by their
  distance from the routers that do; with more than ``MAX_LAYERED_LINKS``
  links (drawn one by one they make a solid band), the groups below the
  top row (a fat tree's pods) boxed, the first with every link to the top
  row and the others' links there bundled into one line each, counted in
  the caption;
- a placed graph whose links are not lattice steps (a searched machine) on
  its packaging: each level's units on their parent's slot grid, the cards
  and boards as rectangles, every link drawn, coloured by the packaging
  level it crosses (the long ones, between boards, on top);
- a graph on a 2-D grid of coordinates (a chip) at its coordinates, links
  longer than one step as arcs coloured by length;
- any other graph with a force layout (Kamada-Kawai) when small, its
  spectral layout when large, coloured by packaging unit when placed.

Every drawing is a :class:`Drawing` (a matplotlib figure with counts of what
was drawn and the caption); each costs well under a second, 512 routers
included.

>>> from candidates import from_spec
>>> d = draw_topology(from_spec("torus:4x4x2"))
>>> d.kind, d.nodes, d.links, d.stubs, d.hidden
('small multiples', 32, 48, 16, 32)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Drawing", "draw_topology", "MAX_PANELS", "MAX_LAYERED_LINKS"]

#: Most slices drawn as panels; a lattice with more draws the first ones and says so.
MAX_PANELS = 16
#: Most links a drawing in layers (a fat tree) draws one by one: beyond, the links from the groups below the top
#: row up to it merge into a band (fattree:k=16's 1,024 links between two rows), so one group's stand for all
MAX_LAYERED_LINKS = 300
_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan",
           "tab:gray", "tab:red"]


@dataclass
class Drawing:
    """One topology drawn: ``kind`` of drawing, ``nodes`` router markers
    drawn, ``links`` drawn as lines, ``stubs`` wrap-around links drawn as a
    stub at each end, ``hidden`` links not drawn (the caption says which and
    how they run), ``figure`` the matplotlib figure."""

    spec: str
    kind: str
    nodes: int
    links: int
    stubs: int
    hidden: int
    caption: str
    figure: Any = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("spec", "kind", "nodes", "links", "stubs", "hidden", "caption")}


def draw_topology(topo, title: str | None = None) -> Drawing:
    """Draw ``topo`` in the form that shows its structure (see the module docstring)."""
    title = title or topo.spec or topo.family
    if topo.coords is not None and topo.shape is not None:
        shape = tuple(int(s) for s in topo.shape)
        lat = _Lattice(topo, shape)
        if len(shape) == 1:
            d = _ring(topo, title, order=np.argsort(topo.coords[:, 0], kind="stable"))
        elif all(s == 2 for s in shape) and len(shape) >= 3:
            d = _hypercube(topo, lat, title)
        elif all(lat.regular):
            d = _panels(topo, lat, title)
        elif lat.is_product():
            d = _factors(topo, lat, title)
        elif topo.placement is not None:
            d = _placed(topo, title)
        elif len(shape) == 2:
            d = _on_grid(topo, title)
        else:
            d = _graph(topo, title)
    elif topo.placement is not None and len(topo.placement.levels) > 1:
        d = _placed(topo, title)
    elif topo.n > 2 and np.all(topo.degree == 2) and _connected(topo):
        d = _ring(topo, title, order=_cycle_order(topo))
    else:
        d = _graph(topo, title)
    c = np.unique(np.asarray(topo.terminals))
    if len(c) == 1 and c[0] > 1:
        d.caption += f" Every router serves {int(c[0])} PEs."
    return d


class _Lattice:
    """How the links of a lattice run: per link its displacement and whether
    it is a unit step; per dimension whether it is regular (unit steps and
    wrap-arounds from the last slice to the first) and product-like (its
    links change only its own coordinate)."""

    def __init__(self, topo, shape: tuple[int, ...]):
        C = np.asarray(topo.coords)
        L = np.asarray(topo.links)
        self.C, self.L, self.shape = C, L, shape
        self.dim = np.asarray(topo.link_dim)
        self.delta = C[L[:, 1]] - C[L[:, 0]]
        D = len(shape)
        self.step = np.abs(self.delta).sum(axis=1) == 1
        own = np.array([self.delta[i, self.dim[i]] if self.dim[i] < D else 0 for i in range(len(L))], dtype=np.int64)
        self.own = own
        others = np.abs(self.delta).sum(axis=1) - np.abs(own)
        self.regular = []
        self.product_like = []
        for k in range(D):
            m = self.dim == k
            ok = np.abs(own[m]) == 1
            wrap = np.abs(own[m]) == shape[k] - 1
            self.regular.append(bool(np.all(ok | wrap)))
            self.product_like.append(bool(np.all(others[m] == 0)))
        self.wrap = ~self.step

    def is_product(self) -> bool:
        """Every dimension's links change only its coordinate, and every fibre
        (line along a dimension) carries the same graph."""
        if not all(self.product_like) or np.any(self.dim >= len(self.shape)):
            return False
        n = len(self.C)
        for k, s in enumerate(self.shape):
            m = self.dim == k
            pairs = {(int(a), int(b)) for a, b in np.sort(self.C[self.L[m]][:, :, k], axis=1)}
            if m.sum() != (n // s) * len(pairs):
                return False
        return True

    def fibre(self, k: int) -> list[tuple[int, int]]:
        """The links of dimension ``k`` along the line through the origin, as pairs of its coordinate."""
        m = (self.dim == k) & np.all(np.delete(self.C[self.L[:, 0]], k, axis=1) == 0, axis=1)
        return [(int(self.C[a, k]), int(self.C[b, k])) for a, b in self.L[m]]


def _figure(w: float, h: float, ncols: int = 1, nrows: int = 1):
    # matplotlib's object API, not pyplot: the caller's backend (a notebook's inline plots) stays as it was
    from matplotlib.figure import Figure  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    fig = Figure(figsize=(w, h))
    return fig, fig.subplots(nrows, ncols, squeeze=False).ravel()


def _dim_name(topo, k: int) -> str:
    return str(topo.dims[k]) if k < len(topo.dims) else f"class {k}"


def _xy(p: np.ndarray) -> tuple[float, float]:
    """A point as the (x, y) pair matplotlib's patches take."""
    return float(p[0]), float(p[1])


def _lines(ax, P: np.ndarray, pairs: np.ndarray, color, **kw) -> None:
    # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)
    from matplotlib.collections import LineCollection

    if len(pairs):
        # a list of (2, 2) segments, as LineCollection documents (and types) it
        ax.add_collection(LineCollection(list(np.stack([P[pairs[:, 0]], P[pairs[:, 1]]], axis=1)), colors=color, **kw))


def _panels(topo, lat: _Lattice, title: str) -> Drawing:
    """A 2-D lattice as one grid; 3-D and up as one panel per slice of the outer dimensions."""
    # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    C, L, shape = lat.C, lat.L, lat.shape
    D = len(shape)
    outer = shape[2:]
    P_all = int(np.prod(outer)) if outer else 1
    P = min(P_all, MAX_PANELS)
    slice_of = np.ravel_multi_index(C[:, 2:].T, outer) if outer else np.zeros(len(C), dtype=np.int64)
    ncols = max(1, min(P, 4 if shape[0] <= 8 else 2 if shape[0] <= 12 else 1))
    nrows = -(-P // ncols)
    cell = min(0.42, (3.2 if P == 1 else 2.2) / max(shape[0], shape[1]))
    pw, ph = shape[0] * cell + 0.9, shape[1] * cell + 0.9
    fig, axes = _figure(pw * ncols + 0.3, ph * nrows + 0.9, ncols, nrows)
    pos = C[:, :2].astype(float)
    same = slice_of[L[:, 0]] == slice_of[L[:, 1]]
    in_panel = same & (lat.dim < 2)
    drawn_line = in_panel & lat.step
    stub = in_panel & ~lat.step
    hidden = ~in_panel
    twisted = stub & (np.abs(lat.delta[:, :2]).sum(axis=1) != np.abs(lat.own))
    label_stubs = bool(np.any(twisted))
    shown = slice_of < P
    for p, ax in enumerate(axes):
        ax.set_axis_off()
        if p >= P:
            continue
        ax.set_aspect("equal")
        on = slice_of == p
        for k in (0, 1):
            m = drawn_line & (lat.dim == k) & on[L[:, 0]]
            _lines(ax, pos, L[m], _COLORS[k], linewidths=1.2, zorder=1)
            ms = np.where(stub & (lat.dim == k) & on[L[:, 0]])[0]
            if not len(ms):
                continue
            # at end 0 the link leaves against the sign of its own-coordinate jump, at end 1 along it
            direction = np.zeros((len(ms), 2, 2))
            direction[:, 0, k] = -np.sign(lat.own[ms])
            direction[:, 1, k] = np.sign(lat.own[ms])
            base = pos[L[ms]]                       # (m, 2 ends, 2)
            tips = base + 0.42 * direction
            ax.add_collection(LineCollection(list(np.stack([base, tips], axis=2).reshape(-1, 2, 2)), colors=_COLORS[k],
                                             linewidths=1.2, linestyles=(0, (2, 1)), zorder=1))
            if label_stubs:
                far = L[ms][:, ::-1]
                for j in range(len(ms)):
                    for e in (0, 1):
                        f = far[j, e]
                        t = tips[j, e] + 0.14 * direction[j, e]
                        ax.text(t[0], t[1], f"{C[f, 0]},{C[f, 1]}", fontsize=5.5, ha="center", va="center",
                                color=_COLORS[k])
        ax.scatter(pos[on, 0], pos[on, 1], s=18, c="k", zorder=2)
        ax.set_xlim(-0.9, shape[0] - 0.1)
        ax.set_ylim(-1.2, shape[1] - 0.1)
        if outer:
            idx = np.unravel_index(p, outer)
            ax.set_title(", ".join(f"{_dim_name(topo, 2 + j)}={int(i)}" for j, i in enumerate(idx)), fontsize=8)
        ax.text(shape[0] / 2 - 0.5, -1.15, f"{_dim_name(topo, 0)} \u2192 0..{shape[0] - 1}", fontsize=6,
                ha="center", va="bottom")
        ax.text(-0.85, shape[1] / 2 - 0.5, f"{_dim_name(topo, 1)} \u2192 0..{shape[1] - 1}", fontsize=6,
                ha="left", va="center", rotation=90)
    handles = [Line2D([], [], color=_COLORS[k], lw=1.2, label=f"{_dim_name(topo, k)} link") for k in (0, 1)]
    if stub.any():
        handles.append(Line2D([], [], color="k", lw=1.2, ls=(0, (2, 1)),
                              label="wrap-around link (stub at each end" + (", labelled with the far end)"
                                                                             if label_stubs else ")")))
    handles.append(Line2D([], [], color="k", marker="o", ls="", markersize=4, label="router"))
    if hidden.any():
        handles.append(Line2D([], [], ls="", label=f"not drawn: {int(hidden.sum())} links between panels (caption)"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=6, frameon=False)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    caption = [f"{topo.n} routers, {len(L)} links"]
    if outer:
        caption.append(f"one panel per slice of {', '.join(_dim_name(topo, k) for k in range(2, D))}"
                       + (f" (the first {P} of {P_all} slices)" if P < P_all else ""))
    caption += _wrap_rules(topo, lat, stub, range(2), "drawn as stubs")
    if hidden.any():
        caption.append(f"{int(hidden.sum())} links between slices are not drawn")
        caption += _wrap_rules(topo, lat, hidden, range(2, D), None)
    return Drawing(topo.spec, "grid" if not outer else "small multiples", int(shown.sum()),
                   int((drawn_line & shown[L[:, 0]]).sum()), int((stub & shown[L[:, 0]]).sum()), int(hidden.sum()),
                   "; ".join(caption) + ".", fig)


def _coord_text(topo, shape, fixed: dict[int, str]) -> str:
    return "(" + ",".join(fixed.get(k, _dim_name(topo, k)) for k in range(len(shape))) + ")"


def _wrap_rules(topo, lat: _Lattice, mask: np.ndarray, dims, what: str | None) -> list[str]:
    """Per dimension, how its links in ``mask`` run: neighbour steps, and
    the wrap from the last slice to the first with the shift of any other
    coordinate (a twist)."""
    out = []
    shape = lat.shape
    for k in dims:
        m = mask & (lat.dim == k)
        if not m.any():
            continue
        name = _dim_name(topo, k)
        steps = int((m & lat.step).sum())
        wraps = np.where(m & (np.abs(lat.own) == shape[k] - 1) & ~lat.step)[0]
        odd = int(m.sum()) - steps - len(wraps)
        parts = []
        if what is None and steps:
            parts.append(f"{steps} {name} links join each router to the same position in the neighbouring {name} slice")
        if len(wraps):
            shifts = set()
            for i in wraps:
                a, b = lat.L[i]
                if lat.C[a, k] < lat.C[b, k]:
                    a, b = b, a                      # a in the last slice, b in the first
                sh = (lat.C[b] - lat.C[a]) % np.array(shape)
                sh = np.where(2 * sh > np.array(shape), sh - np.array(shape), sh)   # +6 of 8 reads as -2
                sh[k] = 0
                shifts.add(tuple(int(x) for x in sh))
            rule = f"{len(wraps)} {name} wrap-around links{' ' + what if what else ''}: "
            last = {k: str(shape[k] - 1)}
            if len(shifts) == 1:
                sh = next(iter(shifts))
                first = {j: (f"{_dim_name(topo, j)}{s:+d}" if j != k else "0") for j, s in enumerate(sh) if s or j == k}
                twist = any(sh)
                rule += (f"{_coord_text(topo, shape, last)} \u2014 {_coord_text(topo, shape, first)}"
                         + (" (twisted)" if twist else ""))
            else:
                rule += f"slice {shape[k] - 1} to slice 0 with {len(shifts)} different shifts of the other coordinates"
            parts.append(rule)
        if odd:
            parts.append(f"{odd} other {name} links")
        out += parts
    return out


def _hypercube(topo, lat: _Lattice, title: str) -> Drawing:
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    D = len(lat.shape)
    ang = np.pi * np.arange(D) / D
    # unequal lengths keep the 2^D projected corners apart (equal ones make some coincide)
    vec = np.stack([np.cos(ang), np.sin(ang)], axis=1) * (1 + 0.18 * np.arange(D))[:, None]
    P = lat.C.astype(float) @ vec
    size = 4.2 if D <= 6 else 6
    fig, axes = _figure(size, size * 0.8)
    ax = axes[0]
    ax.set_aspect("equal")
    ax.set_axis_off()
    for k in range(D):
        _lines(ax, P, lat.L[lat.dim == k], _COLORS[k % len(_COLORS)], linewidths=1.0 if D <= 6 else 0.4,
               alpha=0.85, zorder=1)
    ax.scatter(P[:, 0], P[:, 1], s=14 if D <= 6 else 4, c="k", zorder=2)
    ax.autoscale_view()
    handles = [Line2D([], [], color=_COLORS[k % len(_COLORS)], lw=1.2, label=f"{_dim_name(topo, k)} link")
               for k in range(D)] + [Line2D([], [], color="k", marker="o", ls="", markersize=4, label="router")]
    ax.legend(handles=handles, fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    caption = (f"{topo.n} routers, {len(lat.L)} links, all drawn: a {D}-dimensional hypercube projected with one "
               f"direction and colour per dimension (lines cross in the projection, not in the network)")
    return Drawing(topo.spec, "hypercube", topo.n, len(lat.L), 0, 0, caption + ".", fig)


def _circle(n: int, order: np.ndarray) -> np.ndarray:
    t = 2 * np.pi * np.arange(n) / n
    P = np.zeros((n, 2))
    P[order] = np.stack([np.cos(t), np.sin(t)], axis=1)
    return P


def _ring(topo, title: str, order: np.ndarray) -> Drawing:
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    n = topo.n
    P = _circle(n, order)
    L = np.asarray(topo.links)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    gap = np.abs(rank[L[:, 0]] - rank[L[:, 1]])
    around = (gap == 1) | (gap == n - 1)
    fig, axes = _figure(3.6, 3.4)
    ax = axes[0]
    ax.set_aspect("equal")
    ax.set_axis_off()
    _lines(ax, P, L[around], _COLORS[0], linewidths=1.2)
    _lines(ax, P, L[~around], _COLORS[1], linewidths=0.8)
    ax.scatter(P[:, 0], P[:, 1], s=14, c="k", zorder=2)
    ax.autoscale_view()
    handles = [Line2D([], [], color=_COLORS[0], lw=1.2, label="ring link")]
    if (~around).any():
        handles.append(Line2D([], [], color=_COLORS[1], lw=0.8, label="chord"))
    handles.append(Line2D([], [], color="k", marker="o", ls="", markersize=4, label="router"))
    ax.legend(handles=handles, fontsize=6, loc="lower center", bbox_to_anchor=(0.5, -0.12), ncol=3, frameon=False)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    cap = f"{n} routers on a circle in ring order, {len(L)} links, all drawn"
    if (~around).any():
        cap += f" ({int((~around).sum())} chords)"
    return Drawing(topo.spec, "ring", n, len(L), 0, 0, cap + ".", fig)


def _factors(topo, lat: _Lattice, title: str) -> Drawing:
    """A Cartesian product drawn as its factor graphs, one panel each."""
    D = len(lat.shape)
    fig, axes = _figure(1.9 * D + 0.2, 2.3, D, 1)
    nodes = links = 0
    for k, ax in enumerate(axes):
        s = lat.shape[k]
        ax.set_aspect("equal")
        ax.set_axis_off()
        pairs = np.array(lat.fibre(k), dtype=np.int64).reshape(-1, 2)
        P = _circle(s, np.arange(s)) if s > 2 else np.array([[-1.0, 0.0], [1.0, 0.0]])[:s]
        _lines(ax, P, pairs, _COLORS[k % len(_COLORS)], linewidths=1.2)
        ax.scatter(P[:, 0], P[:, 1], s=16, c="k", zorder=2)
        for v in range(s):
            ax.annotate(str(v), P[v] * 1.22, fontsize=6, ha="center", va="center")
        ax.set_xlim(-1.45, 1.45)
        ax.set_ylim(-1.45, 1.45)
        ax.set_title(f"{_dim_name(topo, k)}: {s} positions, {len(pairs)} links", fontsize=7,
                     color=_COLORS[k % len(_COLORS)])
        nodes += s
        links += len(pairs)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    sizes = " x ".join(str(s) for s in lat.shape)
    caption = (f"{topo.n} routers = {sizes}: the Cartesian product of the {D} graphs drawn (a router is one position "
               f"in each; it links to the routers that differ in one position along that graph's link). "
               f"The {len(lat.L)} links of the product are not drawn one by one")
    if topo.placement is not None:
        caption += f"; packaged as {', '.join(topo.placement.levels)}"
    return Drawing(topo.spec, "factors", nodes, links, 0, len(lat.L), caption + ".", fig)


def _connected(topo) -> bool:
    from scipy.sparse import csr_matrix  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
    # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
    from scipy.sparse.csgraph import connected_components

    L = np.asarray(topo.links)
    A = csr_matrix((np.ones(len(L)), (L[:, 0], L[:, 1])), shape=(topo.n, topo.n))
    return connected_components(A, directed=False)[0] == 1


def _cycle_order(topo) -> np.ndarray:
    nb: dict[int, list[int]] = {v: [] for v in range(topo.n)}
    for a, b in np.asarray(topo.links):
        nb[int(a)].append(int(b))
        nb[int(b)].append(int(a))
    order, prev, v = [0], -1, 0
    while len(order) < topo.n:
        nxt = nb[v][0] if nb[v][0] != prev else nb[v][1]
        prev, v = v, nxt
        order.append(v)
    return np.array(order)


def _clusters(topo) -> np.ndarray | None:
    """Group index of each router when an irregular topology's coordinates
    group it (a dragonfly's groups, a Slim Fly's two subgraphs): some link
    class stays inside the groups of the first coordinate, and there are
    2..n/2 groups; else None."""
    c = topo.coords
    if c is None or topo.shape is not None or c.ndim != 2 or c.shape[1] < 2 or topo.n < 8:
        return None
    groups = np.unique(c[:, 0], return_inverse=True)[1].reshape(-1)
    k = int(groups.max()) + 1
    if not 2 <= k <= topo.n // 2:
        return None
    L, dim = np.asarray(topo.links), np.asarray(topo.link_dim)
    inside = groups[L[:, 0]] == groups[L[:, 1]]
    classes = np.unique(dim)
    if not any(np.all(inside[dim == d]) for d in classes) or np.all(inside):
        return None
    return groups


def _clustered(groups: np.ndarray) -> dict[int, tuple[float, float]]:
    k = int(groups.max()) + 1
    centres = _circle(k, np.arange(k))
    size = np.bincount(groups, minlength=k)
    # small circles that do not touch: radius below half the distance between neighbouring centres
    r = 0.8 * np.sin(np.pi / k) if k > 2 else 0.4
    pos = {}
    seen = np.zeros(k, dtype=np.int64)
    for v, g in enumerate(groups):
        ang = 2 * np.pi * seen[g] / size[g]
        seen[g] += 1
        pos[v] = (float(centres[g][0] + r * np.cos(ang)), float(centres[g][1] + r * np.sin(ang)))
    return pos


def _layers(topo) -> np.ndarray | None:
    """Hops from each router to the nearest router with PEs, when routers
    without PEs exist (a fat tree's aggregation and core switches); None if
    some router is unreachable."""
    from scipy.sparse import csr_matrix  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
    from scipy.sparse.csgraph import shortest_path  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    L = np.asarray(topo.links)
    n = topo.n
    # one super-source joined to every router with PEs: its BFS distances minus one are the layers
    carriers = np.flatnonzero(np.asarray(topo.terminals).reshape(-1))
    rows = np.concatenate([L[:, 0], carriers])
    cols = np.concatenate([L[:, 1], np.full(len(carriers), n)])
    A = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n + 1, n + 1))
    d = shortest_path(A, directed=False, unweighted=True, indices=n)[:n]
    if not np.all(np.isfinite(d)):
        return None
    return (d - 1).astype(np.int64)


def _layered(topo, layers: np.ndarray) -> dict[int, tuple[float, float]]:
    """Rows by layer, each spread over the same width; a router of an upper
    row sits at the mean position of its neighbours one row down (one
    barycentre pass: enough to keep a fat tree's pods apart)."""
    L = np.asarray(topo.links)
    x = np.zeros(topo.n)
    for k in range(int(layers.max()) + 1):
        members = np.flatnonzero(layers == k)
        if k > 0:
            below = np.zeros(topo.n)
            cnt = np.zeros(topo.n)
            for a, b in ((L[:, 0], L[:, 1]), (L[:, 1], L[:, 0])):
                m = (layers[a] == k) & (layers[b] == k - 1)
                np.add.at(below, a[m], x[b[m]])
                np.add.at(cnt, a[m], 1)
            key = np.where(cnt[members] > 0, below[members] / np.maximum(cnt[members], 1), 0.5)
            members = members[np.argsort(key, kind="stable")]
        x[members] = (np.arange(len(members)) + 0.5) / len(members)
    return {v: (float(x[v]), float(layers[v]) * 0.35) for v in range(topo.n)}


def _groups(topo, layers: np.ndarray) -> np.ndarray:
    """The groups below the top row of a drawing in layers: the routers
    joined to each other without it (a fat tree's pods, a k-ary n-tree's
    subtrees), per router its group's number (-1 on the top row), numbered
    in the order of their first routers of the bottom row (which
    :func:`_layered` puts in index order: group 0 is drawn leftmost)."""
    from scipy.sparse import csr_matrix  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
    # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
    from scipy.sparse.csgraph import connected_components

    L = np.asarray(topo.links)
    below = layers < layers.max()
    m = below[L[:, 0]] & below[L[:, 1]]
    A = csr_matrix((np.ones(int(m.sum())), (L[m, 0], L[m, 1])), shape=(topo.n, topo.n))
    comp = connected_components(A, directed=False)[1]
    # every group reaches the bottom row: a router one row up has a neighbour there, joined below the top
    labels, first = np.unique(comp[layers == 0], return_index=True)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(labels))
    at = np.minimum(np.searchsorted(labels, comp), len(labels) - 1)     # the top row's own components: masked
    return np.where(below, rank[at], -1)


def _counted(parts: list[tuple[int, str]]) -> str:
    """``[(1024, "inside"), (0, "within"), (64, "up")]`` as "the 1024 inside and the 64 up" (none left out)."""
    return " and ".join(f"the {c} {what}" for c, what in parts if c)


def _widen(P: np.ndarray, layers: np.ndarray, wide: np.ndarray, share: float = 0.25) -> np.ndarray:
    """Below the top row, give the routers ``wide`` (the first group, at the
    left of each row) ``share`` of the width and the others the rest, each
    part evenly spread: the group whose links are drawn gets room to show
    them, the rest stay in order."""
    P = P.copy()
    for k in range(int(layers.max())):
        row = np.flatnonzero(layers == k)
        row = row[np.argsort(P[row, 0], kind="stable")]
        w = wide[row]
        if w.all() or not w.any():
            continue
        cut = max(share, w.mean())
        P[row[w], 0] = cut * (np.arange(w.sum()) + 0.5) / w.sum()
        P[row[~w], 0] = cut + (1 - cut) * (np.arange((~w).sum()) + 0.5) / (~w).sum()
    return P


def _layered_groups(topo, layers: np.ndarray, title: str) -> Drawing:
    """A drawing in layers with too many links to draw one by one (a fat
    tree of many pods): the routers in rows as :func:`_layered` puts them,
    each group below the top row (:func:`_groups`) in a box with the links
    inside it, the first group's links to the top row drawn one by one and
    every other group's as one orange line, as thick as their count, to the
    mean of the top routers they reach."""
    n, L = topo.n, np.asarray(topo.links)
    group = _groups(topo, layers)
    pos = _layered(topo, layers)
    P = _widen(np.array([pos[v] for v in range(n)], dtype=float), layers, group == 0)
    k = _GroupLinks(group, L)
    width = float(np.clip(0.08 * np.bincount(layers).max(), 4.2, 9.5))     # a router's dot and a gap apiece
    fig, axes = _figure(width, 3.8)
    ax = axes[0]
    ax.set_axis_off()
    _group_boxes(ax, P, layers, group)
    # the first group in colour; the others' inside links grey and thin, a texture that shows them wired alike
    _lines(ax, P, L[k.drawn & k.first], "tab:blue", linewidths=0.6, alpha=0.9, zorder=1)
    _lines(ax, P, L[k.drawn & ~k.first], "0.55", linewidths=0.3, alpha=0.7, zorder=1)
    counts = _bundles(ax, P, L, group, k, top_y=float(layers.max()) * 0.35)      # _layered's row height
    ax.scatter(P[:, 0], P[:, 1], s=6 if n > 100 else 12, c="k", zorder=2)
    ax.autoscale_view()
    _group_legend(fig, bool((k.drawn & ~k.first).any()), wide=width > 7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout(rect=(0, 0.07 if width > 7 else 0.12, 1, 1))
    pes = int(np.count_nonzero(np.asarray(topo.terminals)))
    return Drawing(topo.spec, "layers", n, int(k.drawn.sum()), 0, int((~k.drawn).sum()),
                   _groups_caption(n, len(L), pes, int(group.max()) + 1, k, counts), fig)


class _GroupLinks:
    """The links of a drawing by groups, as masks: ``inside`` a group, ``up``
    from a group to the top row, ``top`` within the top row, ``first``
    touching the first group, and ``drawn`` one by one: the first group's,
    the top row's, and every group's inside links while they stay few
    enough to show apart (each group in its box), the first group's alone
    beyond. ``owner``: the group of an inside or upward link."""

    def __init__(self, group: np.ndarray, L: np.ndarray):
        g = group[L]                                    # (links, 2): -1 at a top-row end
        self.inside = (g[:, 0] == g[:, 1]) & (g[:, 0] >= 0)
        self.up = (g[:, 0] < 0) ^ (g[:, 1] < 0)
        self.top = (g[:, 0] < 0) & (g[:, 1] < 0)
        self.owner = g.max(axis=1)
        self.first = self.owner == 0
        self.all_inside = int(self.inside.sum()) <= 4 * MAX_LAYERED_LINKS
        self.drawn = (self.inside & (self.all_inside | self.first)) | (self.up & self.first) | self.top


def _group_boxes(ax, P: np.ndarray, layers: np.ndarray, group: np.ndarray) -> None:
    from matplotlib.patches import Rectangle  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    fallback = 1.0 / np.bincount(layers).max()         # the gap between two routers of the widest row
    for k in range(int(group.max()) + 1):
        mine = group == k
        xs = np.sort(P[mine & (layers == 0), 0])
        pad = 0.45 * (float(np.diff(xs).min()) if len(xs) > 1 else fallback)   # just short of the next group's box
        x0, x1 = P[mine, 0].min() - pad, P[mine, 0].max() + pad
        ax.add_patch(Rectangle((x0, -0.03), x1 - x0, P[mine, 1].max() + 0.06, lw=0.6 if k == 0 else 0.4,
                               ec="tab:blue" if k == 0 else "0.6", fill=False, zorder=0))


def _bundles(ax, P: np.ndarray, L: np.ndarray, group: np.ndarray, k: _GroupLinks, top_y: float) -> list[int]:
    """Each group but the first: its links to the top row as one line from
    the top of its box to the mean of the top routers they reach, as thick
    as their number. Returns the numbers, one per group that has any."""
    ups = [m for m in (np.flatnonzero(k.up & (k.owner == j)) for j in range(1, int(group.max()) + 1)) if len(m)]
    most = max((len(m) for m in ups), default=1)
    for m in ups:
        low = np.where(group[L[m, 0]] >= 0, L[m, 0], L[m, 1])
        high = np.where(group[L[m, 0]] >= 0, L[m, 1], L[m, 0])
        ax.plot([P[low, 0].mean(), P[high, 0].mean()], [P[low, 1].max(), top_y], color="tab:orange",
                lw=0.5 + 2.5 * len(m) / most, alpha=0.45, solid_capstyle="butt", zorder=1)
    return [len(m) for m in ups]


def _group_legend(fig, grey: bool, wide: bool) -> None:
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    handles = [Line2D([], [], color="tab:blue", lw=1, label="link of the first group")]
    if grey:
        handles.append(Line2D([], [], color="0.55", lw=0.6, label="link inside another group"))
    handles += [Line2D([], [], color="tab:orange", lw=2.5, alpha=0.45, label="another group's links to the top row "
                                                                              "(not drawn): one line, width = number"),
                Line2D([], [], color="k", marker="o", ls="", markersize=3, label="router")]
    # under the figure, not the axes: a legend wider than the axes would make tight_layout squeeze them
    fig.legend(handles=handles, fontsize=6, loc="lower center", ncol=4 if wide else 2, frameon=False)


def _groups_caption(n: int, links: int, pes: int, groups: int, k: _GroupLinks, counts: list[int]) -> str:
    shown = [(int((k.inside & k.drawn).sum()), "inside the groups (grey but the first's)" if k.all_inside else
              "inside the first group (left, blue box)"),
             (int((k.up & k.first).sum()), "from the first group to the top row"),
             (int(k.top.sum()), "within the top row")]
    spread = "" if not counts else f": {counts[0]}" if min(counts) == max(counts) else \
        f": {min(counts)} to {max(counts)}"
    left = [(int((k.up & ~k.first).sum()), f"from the other {groups - 1} groups to the top row (each group's as one "
             f"orange line to the mean of the top routers it reaches, as thick as their number{spread})"),
            (int((k.inside & ~k.drawn).sum()), "inside the other groups")]
    return (f"{n} routers, {links} links in layers: the {pes} routers with PEs at the bottom, each row one hop "
            f"further from them, ordered under their neighbours. Below the top row the routers form {groups} groups "
            f"joined without it (boxed; in a fat tree, the pods). Drawn: {int(k.drawn.sum())} links, "
            f"{_counted(shown)}. Not drawn: {int((~k.drawn).sum())} links, {_counted(left)}.")


def _graph(topo, title: str) -> Drawing:
    """Kamada-Kawai up to 100 routers (it shows symmetry and clusters), the
    spectral layout beyond (cheap, and places the graph by its slowest
    modes); nodes coloured by their card when the topology is placed."""
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    G = topo.to_networkx(multigraph=False)
    n = topo.n
    clusters = None
    term = np.asarray(topo.terminals).reshape(-1)
    layers = _layers(topo) if term.size == n and 0 < np.count_nonzero(term) < n else None
    if n <= 2:
        pos = {v: (float(v), 0.0) for v in range(n)}
        how = "in a row"
    elif (clusters := _clusters(topo)) is not None:
        pos = _clustered(clusters)
        how = (f"in {int(clusters.max()) + 1} groups (the routers that share their first coordinate), the groups on "
               "a circle and each group's routers on a small one; links inside a group dark, between groups light")
    elif layers is not None and len(topo.links) > MAX_LAYERED_LINKS and _groups(topo, layers).max() > 0:
        return _layered_groups(topo, layers, title)
    elif layers is not None:
        pos = _layered(topo, layers)
        how = (f"in layers: the {int(np.count_nonzero(term))} routers with PEs at the bottom, each row "
               "one hop further from them, ordered under their neighbours")
    elif len(G.edges) >= 0.4 * n * (n - 1) / 2:
        pos = dict(enumerate(_circle(n, np.arange(n))))
        how = "on a circle (dense: most pairs are linked)"
    elif n <= 100:
        pos = nx.kamada_kawai_layout(G)
        how = "Kamada-Kawai layout (graph distances as lengths)"
    else:
        pos = nx.spectral_layout(G)
        how = "spectral layout (the Laplacian's two slowest eigenvectors)"
    P = np.array([pos[v] for v in range(n)], dtype=float)
    L = np.asarray(topo.links)
    fig, axes = _figure(4.2, 3.6)
    ax = axes[0]
    ax.set_aspect("equal")
    ax.set_axis_off()
    if clusters is not None:
        inside = clusters[L[:, 0]] == clusters[L[:, 1]]
        _lines(ax, P, L[~inside], "tab:gray", linewidths=0.5 if n <= 100 else 0.2, alpha=0.5)
        _lines(ax, P, L[inside], "tab:blue", linewidths=0.8, alpha=0.9)
        handles = [Line2D([], [], color="tab:blue", lw=1, label="link inside a group"),
                   Line2D([], [], color="tab:gray", lw=1, label="link between groups")]
    else:
        _lines(ax, P, L, "tab:blue", linewidths=0.8 if n <= 100 else 0.3, alpha=0.8)
        handles = [Line2D([], [], color="tab:blue", lw=1, label="link")]
    caption = f"{n} routers, {len(L)} links, all drawn; {how}"
    pl = topo.placement
    if pl is not None and len(pl.levels) > 1:
        units = np.unique(pl.unit[:, 1], return_inverse=True)[1]
        ax.scatter(P[:, 0], P[:, 1], s=12, c=units, cmap="tab20", zorder=2)
        handles.append(Line2D([], [], color="gray", marker="o", ls="", markersize=4,
                              label=f"router (colour: its {pl.levels[1].replace('_', ' ')})"))
        caption += f"; colour: the {pl.levels[1].replace('_', ' ')} holding the router"
    else:
        ax.scatter(P[:, 0], P[:, 1], s=12 if n <= 100 else 4, c="k", zorder=2)
        handles.append(Line2D([], [], color="k", marker="o", ls="", markersize=4, label="router"))
    ax.autoscale_view()
    ax.legend(handles=handles, fontsize=6, loc="lower center", bbox_to_anchor=(0.5, -0.1), ncol=3, frameon=False)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return Drawing(topo.spec, "graph", n, len(L), 0, 0, caption + ".", fig)


def _placed_positions(pl) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """Router positions (x, y) when every level's units sit on their parent's
    slot grid, a gap between neighbouring units; with each level's cell size
    (x, y) and unit extent."""
    slots = pl.slot_grid()                                  # (n, L, 2): (row, column)
    L = slots.shape[1]
    cells, extents = [], []
    ext = np.array([1.0, 1.0])                              # a router's cell
    for lv in range(L):
        rows, cols = slots[:, lv].max(axis=0) + 1
        cell = np.array([1.0, 1.0]) if lv == 0 else ext + 0.35 * (lv + 1)   # a child unit and a gap
        cells.append(cell)
        ext = np.array([cols * cell[0], rows * cell[1]])
        extents.append(ext)
    pos = np.zeros((slots.shape[0], 2))
    for lv in range(L):
        pos[:, 0] += slots[:, lv, 1] * cells[lv][0]
        pos[:, 1] += slots[:, lv, 0] * cells[lv][1]
    return pos, cells, extents


def _placed(topo, title: str) -> Drawing:
    """A placed machine in two panels: the first unit of the level below the
    outermost (a node card) with its routers on their cards and every link
    inside it, coloured by the packaging level it stays within; and the
    outermost board with those units as boxes, the links between each two
    drawn as one line as thick as their count (the long links)."""
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)
    from matplotlib.patches import Rectangle  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    pl = topo.placement
    P, cells, extents = _placed_positions(pl)
    slots = pl.slot_grid()
    L = len(pl.levels)
    links = np.asarray(topo.links)
    same = pl.unit[links[:, 0]] == pl.unit[links[:, 1]]
    lvl = np.where(same.any(axis=1), np.argmax(same, axis=1), L)
    inner = L - 2                                   # the level whose units the right panel shows as boxes
    name = [x.replace("_", " ") for x in pl.levels]
    fig, axes = _figure(8.4, 4.0, ncols=2)
    # left: unit 0 of level `inner`, its routers and cards, the links inside it
    ax = axes[0]
    ax.set_aspect("equal")
    ax.set_axis_off()
    mine = np.flatnonzero(pl.unit[:, inner] == pl.unit[0, inner])
    inside = np.isin(links[:, 0], mine) & np.isin(links[:, 1], mine)
    for lv in range(1, inner + 1):
        _, first = np.unique(pl.unit[mine, lv - 1], return_index=True)
        for v in mine[first]:
            origin = np.zeros(2)
            for up in range(lv, inner + 1):
                origin += [slots[v, up, 1] * cells[up][0], slots[v, up, 0] * cells[up][1]]
            w, h = extents[lv - 1]
            ax.add_patch(Rectangle(_xy(origin - 0.4), w - 0.2, h - 0.2, fill=False, lw=0.5, ec="0.6", zorder=0))
    Q = np.zeros((topo.n, 2))
    for lv in range(inner + 1):
        Q[:, 0] += slots[:, lv, 1] * cells[lv][0]
        Q[:, 1] += slots[:, lv, 0] * cells[lv][1]
    colors = ["0.35", "tab:blue", "tab:orange", "tab:red", "tab:purple"]
    handles = []
    for k in range(inner + 1):
        m = inside & (lvl == k)
        if m.any():
            _lines(ax, Q, links[m], colors[k], linewidths=0.8, alpha=0.8, zorder=1 + k)
            handles.append(Line2D([], [], color=colors[k], lw=1, label=f"{int(m.sum())} inside a {name[k]}"))
    leaving = np.isin(links[:, 0], mine) ^ np.isin(links[:, 1], mine)
    ax.scatter(Q[mine, 0], Q[mine, 1], s=14, c="k", zorder=10)
    ax.autoscale_view()
    ax.invert_yaxis()
    ax.legend(handles=handles, fontsize=6, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    ax.set_title(f"{name[inner]} {int(pl.unit[0, inner])}: {len(mine)} routers, {int(leaving.sum())} links leave it",
                 fontsize=8)
    # right: the outermost board, the units of level `inner` as boxes, links between them summed
    ax = axes[1]
    ax.set_aspect("equal")
    ax.set_axis_off()
    u = pl.unit[:, inner]
    units, first = np.unique(u, return_index=True)
    centre = {}
    w, h = extents[inner]
    for U, v in zip(units, first):
        origin = np.zeros(2)
        for up in range(inner + 1, L):
            origin += [slots[v, up, 1] * cells[up][0], slots[v, up, 0] * cells[up][1]]
        ax.add_patch(Rectangle(_xy(origin), w, h, fill=True, fc="0.93", ec="0.4", lw=0.6, zorder=0))
        centre[int(U)] = origin + [w / 2, h / 2]
        ax.text(*centre[int(U)], str(int(U)), ha="center", va="center", fontsize=6, zorder=5)
    across = lvl > inner
    pairs, count = np.unique(np.sort(np.stack([u[links[across, 0]], u[links[across, 1]]], axis=1), axis=1),
                             axis=0, return_counts=True)
    top = max(int(count.max()), 1) if len(count) else 1
    for (a, b), c in zip(pairs, count):
        xa, ya = centre[int(a)]
        xb, yb = centre[int(b)]
        ax.plot([xa, xb], [ya, yb], color="tab:orange", lw=0.3 + 3.0 * c / top, alpha=0.6, zorder=1)
    ax.autoscale_view()
    ax.invert_yaxis()
    ax.set_title(f"{name[-1]}: {int(across.sum())} links between {name[inner]}s (width: how many, at most {top})",
                 fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    by_level = ", ".join(f"{int((lvl == k).sum())} inside a {name[k]}" for k in range(L) if (lvl == k).any())
    cables = int((lvl == L).sum())
    caption = (f"{topo.n} routers where the packaging puts them ({' on '.join(name)}), {len(links)} links: {by_level}"
               + (f", {cables} cables between {name[-1]}s" if cables else "")
               + f". Left: {name[inner]} {int(pl.unit[0, inner])} with every link inside it; right: the "
               f"{name[inner]}s on the {name[-1]}, one line per pair joined, as thick as its number of links.")
    return Drawing(topo.spec, "placement", topo.n, int(inside.sum()) + len(pairs), 0,
                   len(links) - int(inside.sum()) - int(across.sum()), caption, fig)


def _on_grid(topo, title: str) -> Drawing:
    """Routers at their 2-D coordinates (a chip's grid, unit spacing); links
    of one step straight, longer ones as arcs coloured by their length."""
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)
    from matplotlib.patches import FancyArrowPatch  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    P = np.asarray(topo.coords, dtype=float)
    links = np.asarray(topo.links)
    length = np.sqrt(((P[links[:, 0]] - P[links[:, 1]]) ** 2).sum(axis=1))
    fig, axes = _figure(4.2, 3.6)
    ax = axes[0]
    ax.set_aspect("equal")
    ax.set_axis_off()
    kinds = sorted(set(np.round(length, 6).tolist()))
    handles = []
    for i, ell in enumerate(kinds):
        m = np.isclose(length, ell)
        color = _COLORS[i % len(_COLORS)]
        for a, b in links[m]:
            style = "arc3,rad=0" if ell <= 1 + 1e-9 else "arc3,rad=0.18"
            ax.add_patch(FancyArrowPatch(P[a], P[b], connectionstyle=style, arrowstyle="-", color=color, lw=1.0,
                                         shrinkA=3, shrinkB=3, zorder=1))
        handles.append(Line2D([], [], color=color, lw=1, label=f"{int(m.sum())} of length {ell:.3g}"))
    ax.scatter(P[:, 0], P[:, 1], s=18, c="k", zorder=2)
    pad = 0.6
    ax.set_xlim(P[:, 0].min() - pad, P[:, 0].max() + pad)
    ax.set_ylim(P[:, 1].max() + pad, P[:, 1].min() - pad)
    ax.legend(handles=handles, fontsize=6, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    caption = (f"{topo.n} routers at their grid coordinates, {len(links)} links, all drawn: one step straight, longer "
               f"ones as arcs; longest {length.max():.3g}.")
    return Drawing(topo.spec, "grid", topo.n, len(links), 0, 0, caption, fig)
