"""Ties: neighbours in a ranking whose order the certificates do not decide.

Every figure a ranking is made of is certified as an interval: a capacity
lies in ``[lambda, upper_bound]`` (the PTAS's feasible flow and its dual
bound), a minimum latency in ``[latency_bound, average_latency]``. When the
intervals of two neighbours overlap, the solvers' tolerance could have put
them either way round: the ranking lists them in its order but calls them
a tie. Under the latency objective two equal certified latencies are ordered
by capacity, so they tie only when their capacity intervals overlap too.
"""

from __future__ import annotations

from .records import CandidateRecord

__all__ = ["capacity_interval", "latency_interval", "overlap", "tied_with_above"]

#: relative slack in comparing certified ends (the solvers' own rounding)
_REL = 1e-9


def capacity_interval(r: CandidateRecord) -> tuple[float, float] | None:
    """``(lambda, upper_bound)`` of an evaluated record, else None."""
    c = r.capacity
    return None if c is None else (c.lam, c.upper_bound)


def latency_interval(r: CandidateRecord, i: int = 0) -> tuple[float, float] | None:
    """``(certified lower bound, latency)`` at the ``i``-th demand scale, else None."""
    x = r.latency[i] if i < len(r.latency) else None
    if x is None or x.average_latency is None:
        return None
    lat = float(x.average_latency)
    return (lat if x.latency_bound is None else float(x.latency_bound)), lat


def overlap(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """Whether two certified intervals share a point (within rounding).

    >>> overlap((0.40, 0.42), (0.41, 0.45)), overlap((0.40, 0.41), (0.415, 0.45))
    (True, False)
    """
    if a is None or b is None:
        return False
    slack = _REL * max(abs(a[1]), abs(b[1]), 1.0)
    return max(a[0], b[0]) <= min(a[1], b[1]) + slack


def _exact_equal(a: tuple[float, float], b: tuple[float, float]) -> bool:
    slack = _REL * max(abs(a[1]), abs(b[1]), 1.0)
    return max(a[1] - a[0], b[1] - b[0], abs(a[1] - b[1])) <= slack


def tied_with_above(objective: str, ranking: list[str], records: list[CandidateRecord],
                    exact: dict[str, float] | None = None) -> dict[str, str]:
    """For each ranked spec whose order against the one ranked just above
    it is not certified, that spec -> the one above (the first is never in
    it). ``exact``: lambdas the exact LP computed (the cross-check), which
    narrow a capacity interval to its point.

    >>> from synth.records import CandidateRecord, CapacityRecord
    >>> def rec(s, lam, ub):
    ...     return CandidateRecord(s, capacity=CapacityRecord(lam, ub, (ub - lam) / ub))
    >>> rs = [rec("a", 0.40, 0.42), rec("b", 0.39, 0.41), rec("c", 0.30, 0.31)]
    >>> tied_with_above("capacity", ["a", "b", "c"], rs)
    {'b': 'a'}
    """
    by = {r.spec: r for r in records}
    exact = exact or {}

    def cap(r: CandidateRecord) -> tuple[float, float] | None:
        return (exact[r.spec], exact[r.spec]) if r.spec in exact else capacity_interval(r)

    out: dict[str, str] = {}
    for up, down in zip(ranking, ranking[1:]):
        a, b = by[up], by[down]
        if objective == "capacity":
            tie = overlap(cap(a), cap(b))
        else:
            la, lb = latency_interval(a), latency_interval(b)
            if la is None or lb is None:
                # no latency at the first scale: ordered by capacity alone
                tie = la is None and lb is None and overlap(cap(a), cap(b))
            elif _exact_equal(la, lb):
                tie = overlap(cap(a), cap(b))
            else:
                tie = overlap(la, lb)
        if tie:
            out[down] = up
    return out
