"""Replications: a sweep or a saturation search once per seed, and the spread over the seeds.

A run's latency interval (:mod:`sim.confidence`, batch means) says how well
its window measured that one random traffic; it says nothing about how much
the answer itself -- the saturation throughput -- moves with the traffic's
randomness. Independent seeds do: the mean over seeds and Student's t
interval of it, the usual way to quote a simulated figure. Each seed's run
is exactly the run of :func:`sim.sweep` or :func:`sim.saturation` with that
seed, and with ``jobs > 1`` the loads of every seed share one pool of
workers (a few seeds keep many workers busy without speculation).

>>> import candidates as cd
>>> r = saturation_seeds(cd.ring(8), "singleflit", "uniform", seeds=[1, 2, 3], step=0.1)
>>> r.seeds, len(r.runs), min(r.saturations) <= r.saturation <= max(r.saturations)
([1, 2, 3], 3, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from common import defaults
from common.tables import cell_text, dataframe, html_records

from .confidence import ci95
from .engine import SweepResult, check_seeds, run_seeds, saturation_search, sweep_search

__all__ = ["LoadSummary", "ReplicatedSweep", "sweep_seeds", "saturation_seeds", "check_seeds"]

#: the columns of a replication's table in a notebook: (field of LoadSummary, header with its unit)
_COLUMNS = (("load", "load (phits/cycle/PE)"), ("offered", "offered (phits/cycle/PE)"),
            ("accepted", "accepted (phits/cycle/PE)"), ("accepted_ci95", "\u00b1 (95%)"),
            ("latency", "latency (cycles)"), ("latency_ci95", "\u00b1 (95%)"), ("unstable", "seeds unstable"),
            ("deadlocks", "seeds deadlocked"))


@dataclass(frozen=True)
class LoadSummary:
    """One load that every seed simulated: the means over the seeds and
    the half-widths of their 95% intervals (None with one seed; latency over
    the seeds whose run delivered packets).

    >>> import candidates as cd
    >>> from sim.config import preset
    >>> cfg = preset("singleflit", warmup=200, measure=1000)
    >>> x = sweep_seeds(cd.ring(8), cfg, "uniform", [0.2], seeds=[1, 2]).by_load()[0]
    >>> x.load, round(x.accepted, 2), x.accepted_ci95 < 0.02, round(x.latency), x.unstable, x.deadlocks
    (0.2, 0.2, True, 7, 0, 0)
    """

    load: float
    offered: float
    accepted: float
    accepted_ci95: float | None
    latency: float | None
    latency_ci95: float | None
    unstable: int
    deadlocks: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ReplicatedSweep:
    """One :class:`~sim.SweepResult` per seed (``runs[i]`` is seed
    ``seeds[i]``'s) and what they say together.

    >>> import candidates as cd
    >>> from sim.config import preset
    >>> cfg = preset("singleflit", warmup=200, measure=1000)
    >>> r = sweep_seeds(cd.ring(8), cfg, "uniform", [0.2, 0.4], seeds=[1, 2])
    >>> r.seeds, [s.loads for s in r.runs], len(r.to_dataframe())
    ([1, 2], [[0.2, 0.4], [0.2, 0.4]], 2)
    >>> round(r.saturation, 1), r.saturation_load, r.saturation_ci95 < 0.02    # both seeds at 0.4
    (0.4, 0.4, True)
    """

    seeds: list[int]
    runs: list[SweepResult]

    @property
    def saturations(self) -> list[float]:
        return [r.saturation for r in self.runs]

    @property
    def saturation(self) -> float:
        """The mean saturation throughput over the seeds."""
        return float(np.mean(self.saturations))

    @property
    def saturation_ci95(self) -> float | None:
        """Half-width of the 95% interval of :attr:`saturation` (Student's t over the seeds; None with one)."""
        return ci95(self.saturations)

    @property
    def saturation_load(self) -> float:
        """The mean over the seeds of the offered load at each one's saturation."""
        return float(np.mean([r.saturation_load for r in self.runs]))

    def by_load(self) -> list[LoadSummary]:
        """The loads every seed simulated (all of a sweep's; a saturation
        search's seeds may part), in load order."""
        common = set(self.runs[0].loads)
        for r in self.runs[1:]:
            common &= set(r.loads)
        out = []
        for x in sorted(common):
            pts = [next(p for p in r.points if p.load == x) for r in self.runs]
            lat = [p.latency for p in pts if p.latency is not None]
            out.append(LoadSummary(
                load=x,
                offered=float(np.mean([p.offered for p in pts])),
                accepted=float(np.mean([p.accepted for p in pts])),
                accepted_ci95=ci95([p.accepted for p in pts]),
                latency=float(np.mean(lat)) if lat else None,
                latency_ci95=ci95(lat),
                unstable=sum(1 for p in pts if not p.stable and not p.deadlock),
                deadlocks=sum(1 for p in pts if p.deadlock),
            ))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "seeds": list(self.seeds),
            "saturation": self.saturation,
            "saturation_ci95": self.saturation_ci95,
            "saturation_load": self.saturation_load,
            "saturations": self.saturations,
            "by_load": [s.to_dict() for s in self.by_load()],
            "runs": [r.to_dict() for r in self.runs],
        }

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with a row per load every seed simulated: the
        means over the seeds and their intervals (:meth:`by_load`, as
        ``to_dict()["by_load"]``). Needs pandas (the ``pandas`` extra)."""
        return dataframe(s.to_dict() for s in self.by_load())

    def _repr_html_(self) -> str:
        """A notebook's view: the mean saturation and its interval in a line, then a row per load."""
        ci = self.saturation_ci95
        pm = "" if ci is None else f" \u00b1 {cell_text(ci)} (95% interval, Student's t)"
        head = (f"saturation {cell_text(self.saturation)}{pm} phits/cycle/PE, the mean over {len(self.seeds)} "
                f"seeds ({', '.join(map(str, self.seeds))}), at offered load {cell_text(self.saturation_load)}")
        return html_records([s.to_dict() for s in self.by_load()], _COLUMNS, head)


def _replicate(search, topology, config, traffic_pattern, seeds, jobs, progress, threads=1) -> ReplicatedSweep:
    runs = run_seeds(search, topology, config, traffic_pattern, seeds, jobs, progress, threads)   # validates the seeds
    return ReplicatedSweep(list(runs), list(runs.values()))


def sweep_seeds(topology, config=None, traffic_pattern="uniform", loads: Iterable[float] | None = None, *,
                seeds: Sequence[int], jobs: int = 1,
                progress: Callable[[Any], None] | None = None, threads: int = 1) -> ReplicatedSweep:
    """:func:`sim.sweep` once per seed of ``seeds``. ``progress`` gets each
    point as :func:`sim.sweep`'s does, its seed in the event's ``key``;
    ``threads``: of each simulation.

    >>> import candidates as cd
    >>> from sim.config import preset
    >>> cfg = preset("singleflit", warmup=200, measure=1000)
    >>> r = sweep_seeds(cd.ring(8), cfg, "uniform", [0.2, 0.4], seeds=[1, 2])
    >>> [(x.load, round(x.accepted, 1)) for x in r.by_load()]
    [(0.2, 0.2), (0.4, 0.4)]
    """
    return _replicate(sweep_search(loads), topology, config, traffic_pattern, seeds, jobs, progress, threads)


def saturation_seeds(topology, config=None, traffic_pattern="uniform", *, seeds: Sequence[int],
                     step: float = defaults.LOAD_STEP, max_load: float = defaults.MAX_LOAD,
                     tolerance: float = defaults.SATURATION_TOLERANCE, definition: str = "accepted",
                     resolution: float = defaults.STABLE_RESOLUTION, jobs: int = 1,
                     progress: Callable[[Any], None] | None = None, threads: int = 1) -> ReplicatedSweep:
    """:func:`sim.saturation` once per seed of ``seeds`` (the arguments are its).

    >>> import candidates as cd
    >>> from sim.config import preset
    >>> cfg = preset("singleflit", warmup=200, measure=1000)
    >>> r = saturation_seeds(cd.ring(8), cfg, "uniform", seeds=[1, 2], step=0.2)
    >>> r.runs[0].loads, all(0.5 < s < 0.6 for s in r.saturations), r.saturation_ci95 < 0.05
    ([0.2, 0.4, 0.6, 0.8, 1.0], True, True)
    """
    search = saturation_search(step, max_load, tolerance, definition, resolution)
    return _replicate(search, topology, config, traffic_pattern, seeds, jobs, progress, threads)
