"""What the report's figures and the simulator's plots draw alike: log axes
labelled with plain numbers, and load curves that set the points past
saturation apart from the stable ones.

Both work on matplotlib objects the caller made through the object API
(no pyplot), and import matplotlib only when called.

>>> plain_number(30.0), plain_number(200.0), plain_number(0.05), plain_number(2.5)
('30', '200', '0.05', '2.5')
>>> past_saturation([0.1, 0.5, 0.6, 0.7], [0.1, 0.5, 0.52, 0.69], [False, False, False, False])
[False, False, True, True]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from . import defaults

__all__ = ["plain_number", "log_labels", "plain_log_axis", "past_saturation", "load_curve", "past_saturation_legend",
           "PAST_SATURATION"]

#: the legend's words for the hollow, dotted marks of :func:`load_curve`
PAST_SATURATION = (f"hollow marks, dotted: past saturation (accepted < {defaults.SATURATION_TOLERANCE:.0%} of offered, "
                   "or unstable)")


def plain_number(x: float) -> str:
    """A tick value as people write it: ``30``, ``200``, ``0.05`` (no ``3x10^1``)."""
    return f"{x:g}"


def log_labels(decades: float) -> tuple[int, ...] | None:
    """The leading digits labelled on a log axis spanning ``decades`` (about
    3 inches tall or wide): every tick of a short axis, fewer as the
    decades crowd in, so that labels never run into each other; None:
    every tick the locator gives (an axis shorter than the gap between two
    leading digits)."""
    if decades < 0.3:
        return None
    if decades <= 0.6:
        return (1, 2, 3, 4, 5, 6, 7, 8, 9)
    if decades <= 1.5:
        return (1, 2, 3, 5)
    if decades <= 3:
        return (1, 2, 5)
    return (1,)


def plain_log_axis(axis) -> None:
    """Label the log-scaled ``axis`` (``ax.yaxis``) with plain numbers on its
    major and minor ticks, which ticks by :func:`log_labels` of the decades
    in view at drawing time (the limits can change after this call)."""
    from matplotlib.ticker import FuncFormatter  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    def label(x: float, pos: Any = None) -> str:
        lo, hi = sorted(axis.get_view_interval())
        if x <= 0 or lo <= 0:
            return ""
        keep = log_labels(math.log10(hi / lo))
        lead = x / 10 ** math.floor(math.log10(x) + 1e-9)
        if keep is None or any(abs(lead - d) < 1e-6 * d for d in keep):
            return plain_number(x)
        return ""

    axis.set_major_formatter(FuncFormatter(label))
    axis.set_minor_formatter(FuncFormatter(label))


def past_saturation(offered: Sequence[float], accepted: Sequence[float], unstable: Sequence[bool],
                    tolerance: float = defaults.SATURATION_TOLERANCE) -> list[bool]:
    """Per point of one sweep, in the order of its loads: whether it lies
    past the sweep's saturation, i.e. it or a point of lower load accepted
    less than ``tolerance`` of its offered load or was unstable (deadlock,
    latency runaway). The points beyond the first saturated one count too:
    an accepted load that comes back above the line there is noise, not a
    stable network."""
    out, past = [], False
    for o, a, u in zip(offered, accepted, unstable):
        past = past or bool(u) or a < tolerance * o
        out.append(past)
    return out


def load_curve(ax, x: Sequence[float], y: Sequence[float], past: Sequence[bool], label: str | None = None,
               **kw) -> Any:
    """Plot one curve of a load sweep: its stable points as ``kw`` says,
    the points past saturation (``past``, a suffix of the points) hollow on
    a dotted line that starts at the last stable point, so the curve stays
    one. Returns the line that carries ``label`` (its colour is the curve's)."""
    stable = [(a, b) for a, b, p in zip(x, y, past) if not p]
    beyond = [(a, b) for a, b, p in zip(x, y, past) if p]
    line = None
    if stable:
        line, = ax.plot(*zip(*stable), label=label, **kw)
        kw = dict(kw, color=line.get_color())
    if beyond:
        # the segment from the last stable point draws the transition, dotted like the rest
        pts = stable[-1:] + beyond
        dotted, = ax.plot(*zip(*pts), **dict(kw, ls=":", markerfacecolor="none", markevery=list(range(
            len(pts) - len(beyond), len(pts))), label=label if line is None else None))
        line = line or dotted
    return line


def past_saturation_legend(fig, shown: bool) -> None:
    """Lay ``fig`` out (tight), with one legend entry under its panels for
    :func:`load_curve`'s hollow, dotted marks when ``shown``: they mean the
    same in every panel."""
    from matplotlib.lines import Line2D  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    if not shown:
        fig.tight_layout()
        return
    mark = Line2D([], [], color="0.35", ls=":", marker="o", markerfacecolor="none", label=PAST_SATURATION)
    fig.legend(handles=[mark], loc="lower center", fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
