"""Plots of load sweeps: accepted vs offered load and latency vs load.

>>> import tempfile, os, candidates as cd
>>> from sim import sweep
>>> s = sweep(cd.ring(6), "singleflit", "uniform", [0.1, 0.3], seed=0)
>>> path = os.path.join(tempfile.mkdtemp(), "ring.png")
>>> plot_sweeps({"ring:6": s}, path) == path and os.path.getsize(path) > 0
True
"""

from __future__ import annotations

from typing import Mapping

from common.figures import load_curve, past_saturation, past_saturation_legend, plain_log_axis

from .engine import SweepResult
from .errors import SimError

__all__ = ["plot_sweeps", "sweeps_figure"]


def plot_sweeps(sweeps: Mapping[str, SweepResult], path: str, *, title: str | None = None) -> str:
    """Write :func:`sweeps_figure` to ``path`` (PNG, SVG or PDF by the file
    suffix). Returns ``path``."""
    fig = sweeps_figure(sweeps, title=title)
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise SimError(f"cannot write plot {path!r}: {exc}") from None
    return path


def sweeps_figure(sweeps: Mapping[str, SweepResult], *, title: str | None = None):
    """A two-panel matplotlib figure: accepted vs offered load and mean
    latency vs offered load, one curve per labelled sweep, its points past
    saturation (accepted below 95% of offered, or unstable) hollow on a
    dotted line; deadlocked runs left out."""
    # matplotlib's object API, not pyplot: the caller's backend (a notebook's inline plots) stays as it was
    from matplotlib.figure import Figure  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    top = 0.0
    beyond = False
    for label, s in sweeps.items():
        pts = sorted(s.points, key=lambda p: p.load)
        # a deadlocked run has no meaningful accepted load or latency: it is not drawn, but it still marks
        # the points after it as past saturation
        past = [q for p, q in zip(pts, past_saturation([p.offered for p in pts], [p.accepted for p in pts],
                                                        [p.deadlock or not p.stable for p in pts]))
                if not p.deadlock]
        pts = [p for p in pts if not p.deadlock]
        beyond = beyond or any(past)
        off = [p.offered for p in pts]
        line = load_curve(ax1, off, [p.accepted for p in pts], past, f"{label} (sat. {s.saturation:.3g})", marker="o")
        lat = [(p.offered, p.latency, q) for p, q in zip(pts, past) if p.latency is not None]
        if lat and line is not None:
            lx, ly, lp = zip(*lat)
            load_curve(ax2, lx, ly, lp, label, marker="o", color=line.get_color())
        top = max([top, *off, *(p.accepted for p in pts)])
    ax1.plot([0, top], [0, top], ":", color="grey", lw=1)
    ax1.set_xlabel("offered load (phits/cycle/PE)")
    ax1.set_ylabel("accepted load (phits/cycle/PE)")
    ax1.grid(alpha=0.3)
    ax2.set_xlabel("offered load (phits/cycle/PE)")
    ax2.set_ylabel("mean latency from injection (cycles)")
    ax2.set_yscale("log")
    plain_log_axis(ax2.yaxis)
    ax2.grid(alpha=0.3, which="both")
    ax1.legend(fontsize="small", loc="upper left")      # above the diagonal accepted = offered: no curve there
    if title:
        fig.suptitle(title)
    past_saturation_legend(fig, beyond)
    return fig
