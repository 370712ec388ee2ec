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

from .engine import SweepResult
from .errors import SimError

__all__ = ["plot_sweeps"]


def plot_sweeps(sweeps: Mapping[str, SweepResult], path: str, *, title: str | None = None) -> str:
    """Write a two-panel figure (PNG, SVG or PDF by the file suffix):
    accepted vs offered load and mean latency vs offered load, one curve per
    labelled sweep. Returns ``path``."""
    # matplotlib's object API, not pyplot: the caller's backend (a notebook's inline plots) stays as it was
    from matplotlib.figure import Figure  # deferred: matplotlib takes 0.25 s to import (docs/ARCHITECTURE.md)

    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    top = 0.0
    for label, s in sweeps.items():
        pts = [p for p in s.points if not p.deadlock]
        off = [p.offered for p in pts]
        acc = [p.accepted for p in pts]
        lat = [p.latency if p.latency is not None else float("nan") for p in pts]
        ax1.plot(off, acc, "o-", label=f"{label} (sat. {s.saturation:.3g})")
        ax2.plot(off, lat, "o-", label=label)
        top = max([top, *off, *acc])
    ax1.plot([0, top], [0, top], ":", color="grey", lw=1)
    ax1.set_xlabel("offered load (phits/cycle/PE)")
    ax1.set_ylabel("accepted load (phits/cycle/PE)")
    ax1.legend(fontsize="small")
    ax1.grid(alpha=0.3)
    ax2.set_xlabel("offered load (phits/cycle/PE)")
    ax2.set_ylabel("mean latency from injection (cycles)")
    ax2.set_yscale("log")
    ax2.grid(alpha=0.3, which="both")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise SimError(f"cannot write plot {path!r}: {exc}") from None
    return path
