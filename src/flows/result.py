"""Results of the flow solvers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from common.tables import cell_text, dataframe, flatten, html_fields

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
    ``seconds`` is the solver's run time; ``compile_seconds`` the time its
    numba kernels took to compile on their first call in the process (0 once
    compiled or loaded from numba's cache), not part of ``seconds``.

    In a notebook a result shows as a table (``_repr_html_``), and
    :meth:`to_dataframe` gives :meth:`to_dict` as a pandas DataFrame.

    Uniform traffic on a ring of 6, solved exactly: every demand can be
    routed 10/9 times, and routed at that scale the busiest channel is
    full; at unit demand the flow travels 9/5 hops per unit.

    >>> import candidates as cd
    >>> from flows import Demands, FlowProblem, solve_lp
    >>> p = FlowProblem.from_topology(cd.ring(6), Demands.uniform(6))
    >>> r = solve_lp(p)
    >>> r.solver, r.objective, r.status, round(r.lam, 6), round(r.upper_bound, 6), round(r.gap, 6)
    ('lp', 'concurrent', 'optimal', 1.111111, 1.111111, 0.0)
    >>> r.arc_flow.shape, round(float(r.utilisation.max()), 6)
    ((12,), 1.0)
    >>> r = solve_lp(p, "latency")
    >>> r.objective, round(r.average_latency, 6), round(r.latency_bound, 6)
    ('latency', 1.8, 1.8)
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
    compile_seconds: float = 0.0

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
            "compile_seconds": self.compile_seconds,
            "iterations": self.iterations,
            "max_utilisation": float(self.utilisation.max()) if len(self.utilisation) else 0.0,
            "bottlenecks": [{"resource": n, "utilisation": u} for n, u in self.bottlenecks()],
        }
        if self.average_latency is not None:
            d["average_latency"] = self.average_latency
            d["latency_bound"] = self.latency_bound
        d.update(self.extra)
        return d

    def to_dataframe(self) -> Any:
        """:meth:`to_dict` as a one-row pandas DataFrame, nested fields
        flattened (``lp.rows``): the results of several runs stack with
        ``pandas.concat``. Needs pandas (the ``pandas`` extra).

        >>> import candidates as cd
        >>> from flows import Demands, FlowProblem, solve_lp
        >>> df = solve_lp(FlowProblem.from_topology(cd.ring(6), Demands.uniform(6))).to_dataframe()
        >>> len(df), round(float(df["lambda"].iloc[0]), 6)
        (1, 1.111111)
        """
        return dataframe([flatten(self.to_dict())])

    def _repr_html_(self) -> str:
        """A notebook's view: the answer with its certificate in a line, then every field of :meth:`to_dict`."""
        d = flatten(self.to_dict())
        d["bottlenecks"] = [f"{b['resource']} ({cell_text(b['utilisation'])})" for b in d["bottlenecks"]]
        return html_fields(d, self._headline())

    def _headline(self) -> str:
        if self.objective == "latency" and self.average_latency is not None:
            what = (f"average latency {cell_text(self.average_latency)} per unit of demand, in the arcs' latency "
                    f"unit (certified >= {cell_text(self.latency_bound)})")
        else:
            what = (f"lambda = {cell_text(self.lam)} x the demands (certified <= {cell_text(self.upper_bound)}, "
                    f"gap {cell_text(self.gap)})")
        return f"{what}; {self.solver}, {self.status}, {cell_text(self.seconds)} s"
