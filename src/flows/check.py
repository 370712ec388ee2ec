"""Cross-checking the PTAS against the exact LP (both through :func:`flows.solve`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .problem import DEFAULT_EPS, FlowProblem
from .solve import solve

__all__ = ["CrossCheck", "cross_check"]


@dataclass(frozen=True)
class CrossCheck:
    """PTAS and LP on one problem: ``ok`` when the PTAS's lambda is within
    ``eps`` of the LP optimum and its dual bound is not below it.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> c = cross_check(FlowProblem.from_topology(cd.ring(6), Demands.uniform(6)), eps=0.05)
    >>> c.ok, round(c.lp_lambda, 6), c.ptas_lambda <= c.lp_lambda <= c.ptas_upper_bound, c.relative_difference < 0.05
    (True, 1.111111, True, True)
    """

    ptas_lambda: float
    ptas_upper_bound: float
    lp_lambda: float
    relative_difference: float
    eps: float
    within_eps: bool
    bound_valid: bool
    ptas_seconds: float
    lp_seconds: float

    @property
    def ok(self) -> bool:
        return self.within_eps and self.bound_valid

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def cross_check(problem: FlowProblem, eps: float = DEFAULT_EPS, *, tol: float = 1e-7) -> CrossCheck:
    """Run the PTAS and HiGHS on the same problem and compare.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> cross_check(FlowProblem.from_topology(cd.rtt(3), Demands.uniform(18))).ok
    True
    """
    r = solve(problem, eps, solver="ptas")
    e = solve(problem, 0.0, solver="lp")
    rel = (e.lam - r.lam) / e.lam
    return CrossCheck(
        ptas_lambda=r.lam,
        ptas_upper_bound=r.upper_bound,
        lp_lambda=e.lam,
        relative_difference=rel,
        eps=eps,
        within_eps=r.lam * (1 + eps) >= e.lam * (1 - tol) and r.lam <= e.lam * (1 + tol),
        bound_valid=r.upper_bound >= e.lam * (1 - tol),
        ptas_seconds=r.seconds,
        lp_seconds=e.seconds,
    )
