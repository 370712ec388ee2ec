"""The figures of a study report, from the dict of ``results.json``.

Every figure names its units on the axes and has a legend entry for every
kind of mark it draws (the baseline included). Each returns a matplotlib
figure or ``None`` when the results hold nothing to plot.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from common.figures import load_curve, past_saturation, past_saturation_legend, plain_log_axis

__all__ = ["pareto_figure", "capacity_figure", "tradeoff_figure", "simulation_figure", "sweep_figure", "png",
           "MAX_BARS"]

#: Most candidates drawn as bars in the capacity figure (the baseline is added when it falls outside).
MAX_BARS = 30

_BASE = dict(color="tab:red", marker="s", markersize=8, markerfacecolor="none", markeredgewidth=1.6, ls="")
#: line colours of candidates: tab10 without its red, which marks the baseline
_PALETTE = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:gray", "tab:olive",
            "tab:cyan"]
_WIN = dict(color="goldenrod", marker="*", markersize=12, ls="", markeredgecolor="k", markeredgewidth=0.5)


def _subplots(nrows: int = 1, ncols: int = 1, **kw):
    """A figure and its axes through matplotlib's object API: no pyplot, so the caller's backend (a
    notebook's inline plots) and pyplot's list of open figures are left as they were."""
    from matplotlib.figure import Figure  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    figsize = kw.pop("figsize", None)
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kw)


def png(fig, dpi: int = 90) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def _first_latency(r: dict[str, Any]) -> float | None:
    lat = r.get("latency") or []
    return lat[0].get("average_latency") if lat else None


def pareto_figure(records: list[dict[str, Any]], pareto: dict[str, Any], baseline: str | None, winners: list[str],
                  scale: float | None, u: dict[str, str], cost_label: str):
    """Capacity and latency (at the first demand scale) against the study's
    cost measure: every candidate, the Pareto front of each, the baseline
    and the winners marked."""
    m = pareto.get("cost")
    ok = [r for r in records if r["status"] == "ok" and (r.get("cost") or {}).get(m) is not None]
    if not ok:
        return None
    panels = [("capacity", f"capacity \u03bb ({u['capacity_short']}, higher is better)",
               lambda r: r["capacity"]["lambda"])]
    if any(_first_latency(r) is not None for r in ok) and scale is not None:
        panels.append(("latency", f"min average latency at demand scale {scale:g}\n({u['latency_short']}, "
                                  "lower is better)", _first_latency))
    fig, axes = _subplots(1, len(panels), figsize=(5.2 * len(panels), 3.9), squeeze=False)
    labelled = set(winners) | ({baseline} if baseline else set())
    todo = []
    for ax, (key, ylabel, value) in zip(axes[0], panels):
        pts = [(r["spec"], r["cost"][m], value(r)) for r in ok if value(r) is not None]
        front = set(pareto.get(key) or [])
        others = [p for p in pts if p[0] not in front]
        ax.plot([p[1] for p in others], [p[2] for p in others], "o", color="0.6", ms=5, label="candidate")
        fr = sorted((p for p in pts if p[0] in front), key=lambda p: p[1])
        if fr:
            # the front as a staircase: what the best design at each cost achieves
            xs, ys = [fr[0][1]], [fr[0][2]]
            for p in fr[1:]:
                xs += [p[1], p[1]]
                ys += [ys[-1], p[2]]
            ax.plot(xs, ys, "-", color="tab:blue", lw=1, alpha=0.6)
            ax.plot([p[1] for p in fr], [p[2] for p in fr], "o-", color="tab:blue", ms=6, lw=0, label="Pareto front")
        for spec, x, y in pts:
            if spec == baseline:
                ax.plot([x], [y], label=f"baseline ({short_name(spec)})", **_BASE)
            if spec in winners:
                ax.plot([x], [y], label="winner" if spec == winners[0] else "best at the baseline's cost", **(
                    _WIN if spec == winners[0] else dict(_WIN, color="orchid")))
        named = [p for p in pts if p[0] in labelled] + [p for p in pts if p[0] in front and p[0] not in labelled]
        if len(pts) <= 12:
            named += [p for p in pts if p[0] not in front and p[0] not in labelled]
        todo.append((ax, named, [(p[1], p[2]) for p in pts]))
        ax.set_xlabel(cost_label)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.grid(alpha=0.3)
        ax.margins(x=0.12, y=0.1)
        # one entry per kind of mark, in drawing order (a spec on the front and marked adds no duplicate)
        h, lab = ax.get_legend_handles_labels()
        seen: dict[str, Any] = {}
        for hh, ll in zip(h, lab):
            seen.setdefault(ll, hh)
        # under the axes: inside, it would take the room the labels of a crowded corner need
        ax.legend(seen.values(), seen.keys(), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3,
                  frameon=False)
    fig.tight_layout()
    # the labels last: their places are measured on the final layout, in the renderer's boxes
    fig.draw_without_rendering()
    for ax, named, marks in todo:
        _labels(ax, named, marks)
    return fig


def short_name(spec: str) -> str:
    """A candidate's name for a figure: a graph file by its name alone (a
    searched design's file is its label), any other spec as it is.

    >>> short_name("graph:/runs/chip/searched/found.json"), short_name("torus:8x8")
    ('graph:found.json', 'torus:8x8')
    """
    if spec.startswith("graph:"):
        return "graph:" + Path(spec[6:]).name
    return spec


#: where a label may sit around its point, in order of preference: its offset (points) and the text's alignment
#: there (the anchor, the text's side towards the point, stays next to the point)
_SPOTS = (((6, 0), "left", "center"), ((-6, 0), "right", "center"), ((0, 6), "center", "bottom"),
          ((0, -6), "center", "top"), ((5, 5), "left", "bottom"), ((5, -5), "left", "top"),
          ((-5, 5), "right", "bottom"), ((-5, -5), "right", "top"), ((6, 3), "left", "center"),
          ((6, -3), "left", "center"), ((-6, 3), "right", "center"), ((-6, -3), "right", "center"))
#: the rings of spots, as multiples of the first ring's offsets; beyond the first a leader line joins label and point
_RINGS = (1.0, 2.2, 3.4, 4.6, 5.8, 7.0)
#: half the side of the square a point's marker covers (points)
_MARK = 3.5
#: a label's text: small, on a pale backing that keeps the front's staircase and the grid from striking it through
_LABEL = dict(fontsize=6.5, textcoords="offset points", bbox=dict(boxstyle="square,pad=0.15", fc="white", ec="none",
                                                                   alpha=0.75))


def _overlap(a, b) -> float:
    """The area two display boxes share (0 when apart)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _inside(box, frame) -> bool:
    return box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1


def _labels(ax, pts: list[tuple[str, float, float]], marks: list[tuple[float, float]]) -> None:
    """Name the points ``pts``, first ones first, each next to its point at
    the first spot (``_SPOTS``, ring by ring) where its text stays inside
    the axes and clears the labels already placed, their leader lines and
    the other points' markers (``marks``, data coordinates); where no spot
    is clear, the inside one that spoils least (:func:`_cost`). Needs the
    figure laid out and drawn: the boxes are the renderer's."""
    tr = ax.transData
    frame = ax.get_window_extent()
    r = _MARK * ax.figure.dpi / 72
    markers = [(float(px), float(py)) for px, py in tr.transform(marks)] if marks else []
    placed: list = []
    leaders: list[tuple[float, float]] = []
    for spec, x, y in pts:
        px0, py0 = tr.transform((x, y))
        own = (float(px0), float(py0))
        others = [_square(px, py, r) for px, py in markers if abs(px - own[0]) + abs(py - own[1]) > 1e-6]
        ann = ax.annotate(short_name(spec), (x, y), xytext=(0, 0), **_LABEL)
        ring, spot, box = _best_spot(ann, own, frame, placed, others, leaders)
        if ring > 1:
            # far from its point: a leader line says whose label it is
            ann.remove()
            ann = ax.annotate(short_name(spec), (x, y), xytext=(0, 0), **_LABEL,
                              arrowprops=dict(arrowstyle="-", color="0.5", lw=0.5, shrinkA=0, shrinkB=_MARK))
            _put(ann, ring, spot)
            leaders += _leader(own, box)
        else:
            _put(ann, ring, spot)
        placed.append(box)


def _square(px: float, py: float, r: float):
    from matplotlib.transforms import Bbox  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    return Bbox([[px - r, py - r], [px + r, py + r]])


def _leader(own: tuple[float, float], box) -> list[tuple[float, float]]:
    """Points along the leader line from a point to its label's centre (where
    matplotlib starts it), the ends left out: what other labels must not cover."""
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    return [(own[0] + (cx - own[0]) * t / 12, own[1] + (cy - own[1]) * t / 12) for t in range(2, 11)]


def _put(ann, ring: float, spot) -> None:
    (dx, dy), ha, va = spot
    ann.xyann = (dx * ring, dy * ring)
    ann.set_horizontalalignment(ha)
    ann.set_verticalalignment(va)


def _best_spot(ann, own: tuple[float, float], frame, labels: list, markers: list, leaders: list[tuple[float, float]]):
    """The ring, spot and text box of ``ann`` (its point at ``own``): the
    first clear one inside ``frame``, else the inside one of least cost
    (:func:`_cost`), the nearer ring on a tie; else (no spot inside: a text
    wider than the axes) the first."""
    best = None
    for ring in _RINGS:
        for spot in _SPOTS:
            _put(ann, ring, spot)
            box = ann.get_window_extent()
            if not _inside(box, frame):
                continue
            cost = _cost(box, own if ring > 1 else None, labels, markers, leaders)
            if cost == 0:
                return ring, spot, box
            if best is None or cost < best[0]:
                best = (cost, ring, spot, box)
    if best is None:
        _put(ann, _RINGS[0], _SPOTS[0])
        return _RINGS[0], _SPOTS[0], ann.get_window_extent()
    return best[1:]


def _cost(box, own: tuple[float, float] | None, labels: list, markers: list, leaders: list[tuple[float, float]]):
    """What a label at ``box`` spoils, in display area: three times the text
    it covers of the ``labels`` placed (two names run into each other,
    neither reads), the ``markers`` it hides, and a third of its area if it
    lies on a leader line or (``own``: its point, when it needs a leader
    line) its leader line crosses a label -- a line under a text still
    reads, which is what a crowded cluster, ringed by labels, comes down to."""
    cost = 3 * sum(_overlap(box, b) for b in labels) + sum(_overlap(box, b) for b in markers)
    crossed = any(box.contains(*p) for p in leaders) or (
        own is not None and any(b.contains(*p) for b in labels for p in _leader(own, box)))
    return cost + box.width * box.height / 3 * crossed


def capacity_figure(records: list[dict[str, Any]], ranking: list[str], baseline: str | None, u: dict[str, str]):
    """Certified capacity of the ranked candidates (bars, in ranking order) with their dual upper bounds."""
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)
    from matplotlib.patches import Patch  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    by = {r["spec"]: r for r in records}
    show = [s for s in ranking if by[s]["status"] == "ok"][:MAX_BARS]
    if baseline is not None and baseline in by and by[baseline]["status"] == "ok" and baseline not in show:
        show.append(baseline)
    if not show:
        return None
    fig, ax = _subplots(figsize=(7, 0.3 * len(show) + 1.3))
    names = show[::-1]
    lam = [by[s]["capacity"]["lambda"] for s in names]
    ub = [by[s]["capacity"]["upper_bound"] for s in names]
    colors = ["tab:red" if s == baseline else "tab:blue" for s in names]
    ax.barh(names, lam, color=colors)
    ax.plot(ub, names, "|", color="k", ms=10, mew=1.5)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel(f"capacity \u03bb ({u['capacity_short']})")
    handles = [Patch(color="tab:blue", label="certified \u03bb (feasible flow, PTAS)"),
               Line2D([], [], color="k", marker="|", ls="", ms=10, mew=1.5, label="certified upper bound (dual)")]
    if baseline in show:
        handles.insert(1, Patch(color="tab:red", label=f"baseline ({baseline})"))
    ax.legend(handles=handles, fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
    fig.tight_layout()
    return fig


def tradeoff_figure(records: list[dict[str, Any]], ranking: list[str], tradeoff: list[dict[str, Any]],
                    baseline: str | None, u: dict[str, str], top: int = 6):
    """Minimum average latency against the demand scale for the first
    ``top`` ranked candidates and the baseline, and the best at each scale."""
    by = {r["spec"]: r for r in records}
    show = [s for s in ranking[:top]] + ([baseline] if baseline in ranking[top:] else [])
    fig, ax = _subplots(figsize=(7, 4))
    palette = iter(_PALETTE * 2)
    for s in show:
        pts = [(x["scale"], x["average_latency"]) for x in by[s].get("latency") or [] if x["average_latency"] is not None]
        if pts:
            xs, ys = zip(*pts)
            if s == baseline:
                ax.plot(xs, ys, "s--", color="tab:red", label=f"{s} (baseline)")
            else:
                ax.plot(xs, ys, "o-", label=s, alpha=0.85, color=next(palette))
    best = [(t["scale"], t["average_latency"]) for t in tradeoff if t.get("best")]
    if best:
        xs, ys = zip(*best)
        ax.plot(xs, ys, "k-", lw=4, alpha=0.25, label="best at each demand scale")
    if not ax.get_legend_handles_labels()[0]:  # every point infeasible: nothing to show
        return None
    ax.set_xlabel(f"demand scale (multiple of the demand set carried, {u['capacity_short']})")
    ax.set_ylabel(f"min average latency ({u['latency_short']})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def simulation_figure(sims: list[dict[str, Any]], baseline: str | None):
    """Accepted load and packet latency against offered load, per simulated
    candidate; the points past saturation hollow on dotted lines."""
    sims = [x for x in sims if x.get("status") == "ok"]
    if not sims:
        return None
    fig, (a1, a2) = _subplots(1, 2, figsize=(10, 3.8))
    top = max(p["offered"] for x in sims for p in x["points"])
    palette = iter(_PALETTE * 2)
    a1.plot([0, top], [0, top], "k:", lw=0.8, label="accepted = offered")
    beyond = False
    for x in sims:
        kw = dict(ls="--", marker="s", color="tab:red") if x["spec"] == baseline else dict(
            ls="-", marker="o", color=next(palette))
        label = x["spec"] + (" (baseline)" if x["spec"] == baseline else "")
        by_seed: dict[Any, list] = {}
        for p in x["points"]:                    # one curve per seed (a record of several seeds)
            by_seed.setdefault(p.get("seed"), []).append(p)
        for i, pts in enumerate(by_seed.values()):
            pts = sorted(pts, key=lambda p: p["load"])
            past = past_saturation([p["offered"] for p in pts], [p["accepted"] for p in pts],
                                   [p["deadlock"] for p in pts])
            beyond = beyond or any(past)
            lab = label if i == 0 else None
            line = load_curve(a1, [p["offered"] for p in pts], [p["accepted"] for p in pts], past, lab, **kw)
            kw["color"] = line.get_color()
            lat = [(p["offered"], p["latency"], q) for p, q in zip(pts, past) if p["latency"] is not None]
            if lat:
                lx, ly, lp = zip(*lat)
                load_curve(a2, lx, ly, lp, lab, **kw)
        if x.get("saturation") is not None:
            a1.axvline(x["saturation"], color=kw["color"], lw=0.6, alpha=0.5)
    a1.plot([], [], color="0.5", lw=0.6, label="saturation throughput (highest accepted load)")
    a1.set_xlabel("offered load (phits/cycle/PE)")
    a1.set_ylabel("accepted load (phits/cycle/PE)")
    a2.set_xlabel("offered load (phits/cycle/PE)")
    a2.set_ylabel("mean packet latency (cycles)")
    a2.set_yscale("log")
    plain_log_axis(a2.yaxis)
    a1.legend(fontsize=7, loc="upper left")      # above the diagonal accepted = offered: no curve there
    a2.legend(fontsize=7)
    for a in (a1, a2):
        a.grid(alpha=0.3)
    past_saturation_legend(fig, beyond)
    return fig


def sweep_figure(summary: list[dict[str, Any]], scale: float | None, u: dict[str, str]):
    """The winner's latency and the best capacity of every variant of a sweep."""
    x = list(range(len(summary)))
    fig, a1 = _subplots(figsize=(7, 3.8))
    lat = [s["latency"] for s in summary]
    if all(v is None for v in lat):
        # a capacity-only study: no empty latency axis beside the capacities
        a1.plot(x, [s["best_capacity"] for s in summary], "s--", color="tab:red", label="best certified capacity \u03bb")
        a1.set_xticks(x, [s["variant"] for s in summary], rotation=30, fontsize=7, ha="right")
        a1.set_xlabel("variant")
        a1.set_ylabel(f"capacity \u03bb ({u['capacity_short']})", color="tab:red")
        a1.legend(fontsize=7, loc="best")
        fig.tight_layout()
        return fig
    a1.plot([i for i, v in zip(x, lat) if v is not None], [v for v in lat if v is not None], "o-", color="tab:blue",
            label="winner's min average latency" + (f" at demand scale {scale:g}" if scale is not None else ""))
    a1.set_xticks(x, [s["variant"] for s in summary], rotation=30, fontsize=7, ha="right")
    a1.set_xlabel("variant")
    a1.set_ylabel(f"min average latency ({u['latency_short']})", color="tab:blue")
    a2 = a1.twinx()
    a2.plot(x, [s["best_capacity"] for s in summary], "s--", color="tab:red", label="best certified capacity \u03bb")
    a2.set_ylabel(f"capacity \u03bb ({u['capacity_short']})", color="tab:red")
    h1, l1 = a1.get_legend_handles_labels()
    h2, l2 = a2.get_legend_handles_labels()
    a1.legend(h1 + h2, l1 + l2, fontsize=7, loc="best")
    fig.tight_layout()
    return fig
