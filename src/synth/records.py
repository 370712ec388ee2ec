"""What the design flow records per candidate, typed.

:func:`synth.evaluate.evaluate` returns a :class:`CandidateRecord`; the
sweep keeps them, ranks them and writes them (``records.jsonl``,
``results.json``) through ``to_dict()``, and reads them back with
``from_dict()``: the JSON form is the interchange format (the report and
outside tools read it), the classes are what Python code passes around.

>>> r = CandidateRecord.from_dict({"spec": "ring:6", "status": "ok", "capacity": {"lambda": 1.1,
...     "upper_bound": 1.15, "gap": 0.04, "seconds": 0.01, "status": "optimal", "bottlenecks": []},
...     "latency": [{"scale": 0.5, "status": "ok", "average_latency": 1.8, "latency_bound": 1.8}]})
>>> r.capacity.lam, r.latency[0].average_latency, r.ok
(1.1, 1.8, True)
>>> CandidateRecord.from_dict(r.to_dict()) == r
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .machine import Cost

__all__ = ["CandidateRecord", "CapacityRecord", "LatencyRecord", "Bottleneck"]


def _known(cls, d: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


@dataclass(frozen=True)
class Bottleneck:
    """A resource at (or near) full utilisation at lambda; ``where``: its position for a person."""

    resource: str
    utilisation: float
    where: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CapacityRecord:
    """The certified capacity: feasible ``lam`` (JSON ``lambda``) and its dual ``upper_bound``."""

    lam: float
    upper_bound: float
    gap: float
    seconds: float = 0.0
    status: str = "optimal"
    bottlenecks: tuple[Bottleneck, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"lambda": self.lam, "upper_bound": self.upper_bound, "gap": self.gap, "seconds": self.seconds,
                "status": self.status, "bottlenecks": [b.to_dict() for b in self.bottlenecks]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CapacityRecord":
        return cls(d["lambda"], d["upper_bound"], d["gap"], d.get("seconds", 0.0), d.get("status", "optimal"),
                   tuple(Bottleneck(**_known(Bottleneck, b)) for b in d.get("bottlenecks", ())))


@dataclass(frozen=True)
class LatencyRecord:
    """The minimum average latency at one demand scale (``None`` where
    infeasible or undecided, with the reason), its certified lower bound,
    and the solver that gave it (``ptas`` or ``lp``; with ``lp``, what the
    PTAS search had reached)."""

    scale: float
    status: str
    average_latency: float | None = None
    latency_bound: float | None = None
    seconds: float | None = None
    solver: str | None = None
    solver_status: str | None = None
    reason: str | None = None
    ptas_latency: float | None = None
    ptas_bound: float | None = None
    ptas_status: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        # the optional fields appear only when set, as the flow has always written them
        return {k: v for k, v in d.items()
                if v is not None or k in ("scale", "status", "average_latency", "latency_bound")}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LatencyRecord":
        return cls(**_known(cls, d))


@dataclass(frozen=True)
class CandidateRecord:
    """One candidate's evaluation. ``status``: ``ok``, ``pruned`` (over
    ``max_degree`` or a budget, or a cheap certified ``bound`` that cannot
    beat the best so far) or ``failed``, with the ``reason``."""

    spec: str
    status: str = "ok"
    routers: int | None = None
    pes: int | None = None
    links: int | None = None
    max_degree: int | None = None
    radix: int | None = None
    family: str | None = None
    wiring: str | None = None
    cost: Cost | None = None
    diameter: int | None = None
    average_distance: float | None = None
    capacity: CapacityRecord | None = None
    latency: tuple[LatencyRecord, ...] = ()
    bound: dict[str, float] | None = None
    reason: str = ""
    seconds: float = 0.0
    #: the study fingerprint the record was computed for (resuming reuses only matching records)
    fingerprint: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def latency_at(self, i: int = 0) -> float | None:
        """The minimum latency at the ``i``-th demand scale (``None``: not measured or infeasible)."""
        return self.latency[i].average_latency if i < len(self.latency) else None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"spec": self.spec, "status": self.status}
        for k in ("routers", "pes", "links", "max_degree", "radix", "family", "wiring"):
            if getattr(self, k) is not None or k == "wiring" and self.routers is not None:
                d[k] = getattr(self, k)
        if self.cost is not None:
            d["cost"] = self.cost.to_dict()
        for k in ("diameter", "average_distance"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.capacity is not None:
            d["capacity"] = self.capacity.to_dict()
        if self.latency:
            d["latency"] = [x.to_dict() for x in self.latency]
        if self.bound is not None:
            d["bound"] = dict(self.bound)
        if self.reason:
            d["reason"] = self.reason
        d["seconds"] = self.seconds
        if self.fingerprint is not None:
            d["fingerprint"] = self.fingerprint
        d.update(self.extra)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CandidateRecord":
        known = _known(cls, d)
        extra = {k: v for k, v in d.items() if k not in known}
        if known.get("cost") is not None:
            known["cost"] = Cost(**_known(Cost, known["cost"]))
        if known.get("capacity") is not None:
            known["capacity"] = CapacityRecord.from_dict(known["capacity"])
        known["latency"] = tuple(LatencyRecord.from_dict(x) for x in known.get("latency") or ())
        known.pop("extra", None)
        return cls(**known, extra=extra)
