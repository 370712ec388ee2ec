"""The latency-throughput curve: average latency against demand scale.

One capacity run (the PTAS) fixes the scale at which the network saturates;
the curve's points are demand scales up to a fraction of it, each solved for
minimum average latency under the load model -- ``"queueing"`` by flow
deviation (:mod:`flows.deviation`), each point warm-started from the last;
``"linear"`` by :func:`flows.solve` (flat until capacity: the zero-load
latency, the linear model's point).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.tables import cell_text, dataframe, html_records

from .deviation import DeviationState, deviation
from .problem import DEFAULT_EPS, FlowError, FlowProblem
from .ptas import max_concurrent_flow
from .queueing import LOAD_MODELS, QueueingModel
from .result import FlowResult
from .solve import solve

__all__ = ["CurvePoint", "LatencyCurve", "latency_curve"]

#: the columns of a curve's table in a notebook: (field of CurvePoint, header with its unit)
_COLUMNS = (("scale", "demand scale (x demands)"), ("load", "load (of capacity)"),
            ("average_latency", "average latency (per unit of demand)"), ("latency_bound", "certified lower bound"),
            ("gap", "gap"), ("status", "status"), ("zero_load_part", "zero-load part"),
            ("queueing_part", "queueing part"), ("max_channel_load", "busiest channel's load"),
            ("seconds", "seconds (s)"))


@dataclass(frozen=True)
class CurvePoint:
    """One point of a :class:`LatencyCurve`: the demand ``scale`` (a
    multiple of the problem's demands), ``load`` (the scale over the
    capacity lambda), the certified ``average_latency`` and its lower bound
    ``latency_bound`` (latency units of the problem per unit of demand),
    their relative ``gap``, the solver's ``status``, and under the queueing
    model its ``zero_load_part`` / ``queueing_part`` and ``max_channel_load``.

    A ring of 3 at half its capacity: one hop, and as long again waiting
    (M/M/1 at utilisation 1/2):

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> q = latency_curve(FlowProblem.from_topology(cd.ring(3), Demands.uniform(3)), scales=[1.0], eps=1e-4).points[0]
    >>> q.scale, round(q.load, 3), round(q.average_latency, 3), q.status
    (1.0, 0.5, 2.0, 'optimal')
    >>> round(q.zero_load_part, 3), round(q.queueing_part, 3), round(q.max_channel_load, 3)
    (1.0, 1.0, 0.5)
    """

    scale: float
    load: float
    average_latency: float | None
    latency_bound: float | None
    gap: float | None
    status: str
    seconds: float
    zero_load_part: float | None = None
    queueing_part: float | None = None
    max_channel_load: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LatencyCurve:
    """Average latency against demand scale for one network (see :func:`latency_curve`).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> c = latency_curve(FlowProblem.from_topology(cd.ring(3), Demands.uniform(3)), points=2, up_to=0.5, eps=1e-4)
    >>> c.load_model, round(c.capacity, 3), c.certified
    ('queueing', 2.0, True)
    >>> [(round(q.load, 2), round(q.average_latency, 3)) for q in c.points]
    [(0.25, 1.333), (0.5, 2.0)]
    """

    load_model: str
    capacity: float
    capacity_bound: float
    points: tuple[CurvePoint, ...]
    queueing: QueueingModel | None = None
    seconds: float = 0.0

    @property
    def certified(self) -> bool:
        return all(p.status in ("optimal", "decided") for p in self.points)

    def to_dict(self) -> dict[str, Any]:
        return {"load_model": self.load_model, "capacity": self.capacity, "capacity_bound": self.capacity_bound,
                "queueing": None if self.queueing is None else self.queueing.to_dict(), "seconds": self.seconds,
                "points": [p.to_dict() for p in self.points]}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame of the points, one row each (the fields of
        :class:`CurvePoint`, as ``to_dict()["points"]``). Needs pandas (the
        ``pandas`` extra)."""
        return dataframe(p.to_dict() for p in self.points)

    def _repr_html_(self) -> str:
        """A notebook's view: the capacity and the load model in a line, then a row per point."""
        head = (f"latency curve, {self.load_model} load model: capacity lambda = {cell_text(self.capacity)} x the "
                f"demands (certified <= {cell_text(self.capacity_bound)}); {len(self.points)} points, "
                f"{'every one certified' if self.certified else 'not all certified'}; {cell_text(self.seconds)} s")
        return html_records([p.to_dict() for p in self.points], _COLUMNS, head)


def _point(scale: float, lam: float, r: FlowResult) -> CurvePoint:
    gap = r.extra.get("latency_gap")
    return CurvePoint(scale, scale / lam, r.average_latency, r.latency_bound, gap, r.status, r.seconds,
                      r.extra.get("zero_load_part"), r.extra.get("queueing_part"), r.extra.get("max_channel_load"))


def latency_curve(problem: FlowProblem, *, load_model: str = "queueing", queueing: QueueingModel | None = None,
                  points: int = 20, up_to: float = 0.95, scales: list[float] | None = None,
                  eps: float = DEFAULT_EPS, capacity: FlowResult | None = None,
                  progress: Callable[[dict], None] | None = None) -> LatencyCurve:
    """Minimum average latency at ``points`` demand scales evenly spaced up to
    ``up_to`` times the capacity lambda (or at the given ``scales``, in
    multiples of the problem's demands), each certified to ``eps``.

    ``capacity``: a :func:`flows.max_concurrent_flow` result for this very
    problem (else a PTAS run at ``eps``, or the default eps if finer); the scales are fractions of its
    feasible lambda, so every point of ``up_to < 1`` lies below capacity.
    ``progress`` is called after each point with ``{"point", "of", "scale",
    "average_latency", "seconds"}``.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(3), Demands.uniform(3))
    >>> c = latency_curve(p, points=2, up_to=0.5, eps=1e-4)
    >>> [round(q.load, 2) for q in c.points], [round(q.average_latency, 3) for q in c.points]
    ([0.25, 0.5], [1.333, 2.0])
    >>> list(c.to_dataframe()["load"].round(2)), "<table>" in c._repr_html_()
    ([0.25, 0.5], True)
    """
    if load_model not in LOAD_MODELS:
        raise FlowError(f"unknown load model {load_model!r}; use one of {', '.join(LOAD_MODELS)}")
    if scales is None:
        if not (isinstance(points, int) and points >= 1):
            raise FlowError(f"a curve needs at least one point, got {points}")
        if not (0 < up_to < 1):
            raise FlowError(f"up_to must be in (0, 1) (a fraction of the capacity), got {up_to}")
    elif not scales or not all(isinstance(s, (int, float)) and math.isfinite(s) and s > 0 for s in scales):
        raise FlowError("scales must be finite positive numbers (multiples of the demands)")
    t0 = time.perf_counter()
    # the capacity only places the points: the flows' default eps is close enough (a finer one costs
    # a minute on a 512-router random instance)
    cap = max_concurrent_flow(problem, eps=max(eps, DEFAULT_EPS)) if capacity is None else capacity
    lam = float(cap.lam)
    if not lam > 0:
        raise FlowError("the network carries none of these demands (capacity 0)")
    todo = [float(s) for s in scales] if scales is not None else [lam * up_to * (i + 1) / points
                                                                  for i in range(points)]
    model = QueueingModel() if queueing is None else queueing
    out: list[CurvePoint] = []
    state: DeviationState | None = None
    for i, sc in enumerate(todo):
        p = problem.scaled(sc)
        # the capacity run serves every scale: lambda and its flow over the scale
        cap_s = FlowResult(cap.solver, cap.objective, cap.lam / sc, cap.upper_bound / sc, cap.arc_flow,
                           cap.utilisation, cap.resource_names, cap.seconds, cap.status, cap.iterations,
                           extra=dict(cap.extra))
        if load_model == "queueing":
            r, st = deviation(p, model, eps, capacity=cap_s, start=state)
            state = st if st is not None else state
        else:
            r = solve(p, eps, objective="latency", capacity=cap_s)
        out.append(_point(sc, lam, r))
        if progress is not None:
            progress({"point": i + 1, "of": len(todo), "scale": sc, "average_latency": r.average_latency,
                      "seconds": time.perf_counter() - t0})
    return LatencyCurve(load_model, lam, float(cap.upper_bound), tuple(out),
                        model if load_model == "queueing" else None, time.perf_counter() - t0)
