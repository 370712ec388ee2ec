"""Results of the flow solvers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["FlowResult"]


@dataclass(frozen=True, eq=False)
class FlowResult:
    """What a solver found.

    ``lam`` is the best feasible throughput factor found (every demand can be
    routed ``lam`` times); ``upper_bound`` a certified bound on the optimum
    (equal to ``lam`` for the exact LP); ``gap = upper_bound / lam - 1``.
    ``arc_flow`` routes ``lam`` times the demands (objective
    ``"concurrent"``) or the demands themselves (``"latency"``), and
    ``utilisation[r]`` is resource r's use over its capacity under it.
    For the latency objective ``average_latency`` is the flow-weighted
    latency per unit of demand and ``latency_bound`` a certified lower bound.
    """

    solver: str
    objective: str
    lam: float
    upper_bound: float
    arc_flow: np.ndarray
    utilisation: np.ndarray
    resource_names: tuple[str, ...]
    seconds: float
    status: str = "optimal"
    iterations: int = 0
    average_latency: float | None = None
    latency_bound: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def certified(self) -> bool:
        """Whether this is a certified answer: within the solver's eps
        (``optimal``), a certified yes/no (``decided``) or a certified
        infeasibility; not when a phase budget or time limit stopped it."""
        return self.status in ("optimal", "decided", "infeasible")

    @property
    def gap(self) -> float:
        if self.lam <= 0:
            return math.inf
        return max(0.0, self.upper_bound / self.lam - 1.0)

    def bottlenecks(self, tol: float = 1e-3, limit: int = 10) -> list[tuple[str, float]]:
        """The most used resources (utilisation within ``tol`` of the maximum)."""
        if len(self.utilisation) == 0:
            return []
        top = float(self.utilisation.max())
        idx = np.flatnonzero(self.utilisation >= top - tol)
        idx = idx[np.argsort(-self.utilisation[idx], kind="stable")][:limit]
        return [(self.resource_names[i], float(self.utilisation[i])) for i in idx]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "solver": self.solver,
            "objective": self.objective,
            "lambda": self.lam,
            "upper_bound": self.upper_bound,
            "gap": self.gap,
            "status": self.status,
            "seconds": self.seconds,
            "iterations": self.iterations,
            "max_utilisation": float(self.utilisation.max()) if len(self.utilisation) else 0.0,
            "bottlenecks": [{"resource": n, "utilisation": u} for n, u in self.bottlenecks()],
        }
        if self.average_latency is not None:
            d["average_latency"] = self.average_latency
            d["latency_bound"] = self.latency_bound
        d.update(self.extra)
        return d
