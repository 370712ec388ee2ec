"""The simulator's records: one run (:class:`SimResult`), where a running
simulation is (:class:`SimProgress`), a load sweep (:class:`SweepResult`).

They sit below the engine and the load searches, which both build them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from candidates import Topology
from common.tables import cell_text, dataframe, flatten, html_fields, html_records

from .config import SimConfig

__all__ = ["SimResult", "SimProgress", "SweepResult", "sweep_result", "percentiles", "per_dimension"]


@dataclass
class SimResult:
    """One simulation run.

    Loads are phits/cycle per terminal (processing element); latencies are
    in cycles. ``latency`` is the mean from injection (entering the
    injection queue) to delivery; ``latency_generation`` includes the time
    in the source queue. ``deadlock`` is True when the watchdog fired (no
    movement at all, or a transit packet stuck at the head of its VC for
    ``watchdog`` cycles); the run then stops early. ``packet_phits`` is the
    mean length of the measured packets, so ``latency - (packet_phits - 1)``
    is the latency with each packet's own serialisation taken out (under
    virtual cut-through, when its first phit arrived).

    In a notebook a run shows as a table (``_repr_html_``), and
    :meth:`to_dataframe` gives :meth:`to_dict` as a pandas DataFrame.

    Uniform traffic at 0.2 phits/cycle/PE on a ring of 8, single-phit
    packets, a short window: every offered phit is accepted, and packets
    make the ring's 16/7 hops on average.

    >>> import candidates as cd, sim
    >>> cfg = sim.preset("singleflit", warmup=200, measure=1000)
    >>> r = sim.simulate(cd.ring(8), cfg, "uniform", 0.2, seed=1)
    >>> r.spec, r.routing, r.traffic, r.load, r.deadlock, r.conservation, r.stable
    ('ring:8', 'dor/dateline', 'uniform', 0.2, False, True, True)
    >>> abs(r.accepted - 0.2) < 0.01, abs(r.hops - 16 / 7) < 0.1, round(r.latency)
    (True, True, 7)
    """

    spec: str
    routing: str
    traffic: str
    load: float
    offered: float
    accepted: float
    injected_rate: float
    latency: float | None
    latency_generation: float | None
    latency_percentiles: dict[str, float | None]
    latency_generation_percentiles: dict[str, float | None]
    latency_max: int | None
    hops: float | None
    min_hops: float | None
    packets: int
    deadlock: bool
    deadlock_kind: str
    drained: bool
    cycles: int
    seconds: float
    injected: int
    delivered: int
    in_flight: int
    conservation: bool
    source_overflow: int
    starvation: int
    escape_fraction: float | None
    utilisation: dict[str, dict[str, float]]
    channel_utilisation: np.ndarray = field(repr=False)
    config: SimConfig = field(repr=False)
    seed: int = 0
    #: (n, n) mean latency (from injection) of the measured packets of every
    #: (source router, destination router) pair, NaN where none arrived;
    #: only with ``simulate(..., pair_latency=True)``
    pair_latency: np.ndarray | None = field(default=None, repr=False)
    pair_packets: np.ndarray | None = field(default=None, repr=False)
    #: half-width of the 95% confidence interval of ``latency_generation``
    #: (batch means over sample periods; None with fewer than two)
    latency_ci95: float | None = None
    #: False when the offered load is beyond saturation: the network deadlocked,
    #: the measured packets' mean latency passed ``latency_threshold`` at a drain check
    #: (BookSim2's rule; ``measurement="booksim"``: also at the end of a sample period),
    #: or (``measurement="fixed"``) they did not all arrive within ``drain`` cycles
    stable: bool = True
    cpu_seconds: float = 0.0
    packet_phits: float | None = None
    #: wall seconds the simulator's kernels spent compiling on their first call in the
    #: process (0 once compiled or loaded from numba's cache); not in ``seconds`` nor ``cpu_seconds``
    compile_seconds: float = 0.0

    @property
    def router_cycles_per_second(self) -> float:
        n = self.config_routers
        return n * self.cycles / self.seconds if self.seconds > 0 else float("nan")

    config_routers: int = field(default=0, repr=False)

    def to_dict(self, channels: bool = False) -> dict[str, Any]:
        """JSON-ready dict; ``channels=True`` adds the per-channel utilisation."""
        d = {
            "spec": self.spec,
            "routing": self.routing,
            "traffic": self.traffic,
            "load": self.load,
            "offered": self.offered,
            "accepted": self.accepted,
            "injected_rate": self.injected_rate,
            "latency": self.latency,
            "latency_generation": self.latency_generation,
            "latency_percentiles": self.latency_percentiles,
            "latency_generation_percentiles": self.latency_generation_percentiles,
            "latency_max": self.latency_max,
            "hops": self.hops,
            "min_hops": self.min_hops,
            "packets": self.packets,
            "deadlock": self.deadlock,
            "deadlock_kind": self.deadlock_kind,
            "drained": self.drained,
            "cycles": self.cycles,
            "seconds": self.seconds,
            "router_cycles_per_second": self.router_cycles_per_second,
            "injected": self.injected,
            "delivered": self.delivered,
            "in_flight": self.in_flight,
            "conservation": self.conservation,
            "source_overflow": self.source_overflow,
            "starvation": self.starvation,
            "escape_fraction": self.escape_fraction,
            "utilisation": self.utilisation,
            "seed": self.seed,
            "latency_ci95": self.latency_ci95,
            "stable": self.stable,
            "cpu_seconds": self.cpu_seconds,
            "compile_seconds": self.compile_seconds,
            "packet_phits": self.packet_phits,
            "config": self.config.to_dict(),
        }
        if channels:
            d["channel_utilisation"] = self.channel_utilisation.tolist()
        return d

    def to_dataframe(self) -> Any:
        """:meth:`to_dict` as a one-row pandas DataFrame, nested fields
        flattened (``config.routing``, ``utilisation.x.mean``,
        ``latency_percentiles.p99``): runs stack with ``pandas.concat``.
        Needs pandas (the ``pandas`` extra)."""
        return dataframe([flatten(self.to_dict())])

    def _repr_html_(self) -> str:
        """A notebook's view: what was offered, accepted and how long it took in a line, then the measured
        fields of :meth:`to_dict` (the configuration is its ``config``)."""
        fields = {k: v for k, v in flatten(self.to_dict()).items() if not k.startswith("config.")}
        return html_fields(fields, _run_headline(self))


@dataclass(frozen=True)
class SimProgress:
    """Where a running simulation is (what :func:`simulate`'s ``progress``
    receives, between batches of cycles): ``cycles`` simulated of about
    ``planned`` (warm-up + measurement; the drain and BookSim2's sample
    periods can add more), the ``phase`` (``warm-up``, ``measurement``,
    ``drain``), the accepted load so far in the measurement (None while
    warming up), and the wall seconds since the run started."""

    load: float
    cycles: int
    planned: int
    phase: str
    accepted: float | None
    elapsed: float

    def to_dict(self) -> dict[str, Any]:
        return {"load": self.load, "cycles": self.cycles, "planned": self.planned, "phase": self.phase,
                "accepted": self.accepted, "elapsed": self.elapsed}


@dataclass
class SweepResult:
    """A load sweep: one :class:`SimResult` per load and the saturation
    throughput (the highest accepted load of the sweep).

    A ring of 8 under dimension order accepts what it is offered up to
    about 0.55 phits/cycle/PE (below the 0.7 at which the busiest channel
    of its routing would be full, :func:`candidates.channel_loads`):

    >>> import candidates as cd, sim
    >>> cfg = sim.preset("singleflit", warmup=200, measure=1000)
    >>> s = sim.sweep(cd.ring(8), cfg, "uniform", [0.2, 0.4, 0.8], seed=1)
    >>> s.loads, [round(p.accepted, 1) for p in s.points[:2]]
    ([0.2, 0.4, 0.8], [0.2, 0.4])
    >>> 0.5 < s.saturation < 0.6, s.saturation_load
    (True, 0.8)
    """

    points: list[SimResult]
    saturation: float
    saturation_load: float

    @property
    def loads(self) -> list[float]:
        return [p.load for p in self.points]

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": [p.to_dict() for p in self.points],
            "saturation": self.saturation,
            "saturation_load": self.saturation_load,
        }

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with a row per load: each run's
        :meth:`SimResult.to_dataframe` row (``to_dict()["points"]``,
        flattened). Needs pandas (the ``pandas`` extra).

        >>> import candidates as cd, sim
        >>> s = sim.sweep(cd.ring(6), "singleflit", "uniform", [0.1, 0.3], seed=0)
        >>> list(s.to_dataframe()["load"]), "<table>" in s._repr_html_()
        ([0.1, 0.3], True)
        """
        return dataframe(flatten(p.to_dict()) for p in self.points)

    def _repr_html_(self) -> str:
        """A notebook's view: the saturation in a line, then a row per load."""
        if self.points:
            p = self.points[0]
            what = f"load sweep of {p.spec} ({p.routing} routing, {p.traffic} traffic)"
        else:
            what = "load sweep"
        head = (f"{what}: saturation {cell_text(self.saturation)} phits/cycle/PE accepted at offered load "
                f"{cell_text(self.saturation_load)}; {len(self.points)} loads")
        return html_records([flatten(p.to_dict()) for p in self.points], _SWEEP_COLUMNS, head)


#: the columns of a sweep's table in a notebook: (field of SimResult.to_dict(), flattened; header with its unit)
_SWEEP_COLUMNS = (("load", "load (phits/cycle/PE)"), ("offered", "offered (phits/cycle/PE)"),
                  ("accepted", "accepted (phits/cycle/PE)"), ("latency", "latency (cycles)"),
                  ("latency_percentiles.p99", "99th percentile (cycles)"), ("hops", "hops"),
                  ("stable", "stable"), ("deadlock", "deadlock"), ("seconds", "seconds (s)"))


def _run_headline(r: SimResult) -> str:
    lat = "no packet measured" if r.latency is None else f"latency {cell_text(r.latency)} cycles"
    if r.deadlock:
        state = f"deadlock ({r.deadlock_kind})"
    else:
        state = "stable" if r.stable else "beyond saturation"
    return (f"{r.spec}, {r.routing} routing, {r.traffic} traffic at load {cell_text(r.load)}: accepted "
            f"{cell_text(r.accepted)} of offered {cell_text(r.offered)} phits/cycle/PE, {lat}, hops "
            f"{cell_text(r.hops)}; {state}; {r.cycles} cycles in {cell_text(r.seconds)} s")


def sweep_result(points: list[SimResult]) -> SweepResult:
    """The sweep of ``points``: its saturation is the highest accepted load of a run without deadlock."""
    ok = [p for p in points if not p.deadlock]
    if not ok:
        return SweepResult(points, 0.0, 0.0)
    best = max(ok, key=lambda p: p.accepted)
    return SweepResult(points, float(best.accepted), float(best.load))


def percentiles(hist: np.ndarray, qs: Sequence[float] = (50, 95, 99)) -> dict[str, float | None]:
    """The percentiles ``qs`` of a latency histogram (bin = cycles; the last bin holds the longer ones)."""
    total = int(hist.sum())
    out: dict[str, float | None] = {}
    if total == 0:
        return {f"p{int(q)}": None for q in qs}
    cum = np.cumsum(hist)
    for q in qs:
        k = int(np.searchsorted(cum, q / 100.0 * total))
        out[f"p{int(q)}"] = float(min(k, len(hist) - 1))
    return out


def per_dimension(topo: Topology, util: np.ndarray) -> dict[str, dict[str, float]]:
    """Mean / max / min channel utilisation of every dimension, and of all channels."""
    per_dim: dict[str, dict[str, float]] = {}
    for k, name in enumerate(topo.dims):
        sel = topo.arc_dim == k
        if sel.any():
            per_dim[name] = {"mean": float(util[sel].mean()), "max": float(util[sel].max()),
                             "min": float(util[sel].min()), "channels": int(sel.sum())}
    if util.size:
        per_dim["all"] = {"mean": float(util.mean()), "max": float(util.max()), "min": float(util.min()),
                          "channels": int(util.size)}
    return per_dim
