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

Records read back from disk may be damaged or hand-edited: ``from_dict``
refuses a missing or mistyped field, and :meth:`CandidateRecord.validate`
an impossible value (lambda above its own certified upper bound, a latency
below its lower bound, NaN, negative seconds), each with a
:class:`~synth.errors.RecordError` of one line; :func:`validate_simulation`
does the same for a simulation record.

>>> bad = r.to_dict() | {"capacity": {**r.to_dict()["capacity"], "lambda": 99.0}}
>>> CandidateRecord.from_dict(bad).capacity.validate()
Traceback (most recent call last):
...
synth.errors.RecordError: lambda 99 above its upper bound 1.15
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from numbers import Integral, Real
from typing import Any

from .errors import RecordError
from .machine import Cost

__all__ = ["CandidateRecord", "CapacityRecord", "LatencyRecord", "Bottleneck", "STATUSES", "validate_simulation"]

#: the statuses of a candidate record
STATUSES = ("ok", "pruned", "failed")

#: relative slack of the certificate checks: lambda and its bound come from
#: the same floating-point run, so a valid record can miss by rounding only
_TOL = 1e-9


def _fmt(x: Any) -> str:
    return f"{x:.6g}" if isinstance(x, Real) and not isinstance(x, bool) else repr(x)


def _typed(d: Any, key: str, kind: str, *, required: bool = False, where: str = "") -> Any:
    """``d[key]`` checked to be of ``kind`` (``int``, ``real``, ``str``,
    ``bool``, ``dict``, ``list``) or absent/None; a bool is not a number."""
    name = where + key
    if key not in d or d[key] is None:
        if required:
            raise RecordError(f"missing field {name!r}")
        return None
    v = d[key]
    ok = {"int": isinstance(v, Integral) and not isinstance(v, bool),
          "real": isinstance(v, Real) and not isinstance(v, bool),
          "str": isinstance(v, str), "bool": isinstance(v, bool),
          "dict": isinstance(v, dict), "list": isinstance(v, list | tuple)}[kind]
    if not ok:
        what = {"int": "an integer", "real": "a number", "str": "a string", "bool": "true or false",
                "dict": "an object", "list": "a list"}[kind]
        raise RecordError(f"field {name!r} must be {what}, got {_short(v)}")
    return v


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _object(d: Any, what: str) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise RecordError(f"{what} must be a JSON object, got {type(d).__name__} {_short(d)}")
    return d


def _finite(name: str, v: Any, *, minimum: float | None = 0.0) -> None:
    """A number that must be finite (and at least ``minimum``)."""
    if v is None:
        return
    if not math.isfinite(v):
        raise RecordError(f"{name} is {v}, not a finite number")
    if minimum is not None and v < minimum:
        raise RecordError(f"{name} {_fmt(v)} is negative")


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
        d = _object(d, "capacity")
        w = "capacity."
        for k in ("lambda", "upper_bound", "gap"):
            _typed(d, k, "real", required=True, where=w)
        _typed(d, "seconds", "real", where=w)
        _typed(d, "status", "str", where=w)
        bns = []
        for b in _typed(d, "bottlenecks", "list", where=w) or ():
            b = _object(b, "a bottleneck")
            _typed(b, "resource", "str", required=True, where="bottleneck.")
            _typed(b, "utilisation", "real", required=True, where="bottleneck.")
            _typed(b, "where", "str", where="bottleneck.")
            bns.append(Bottleneck(**_known(Bottleneck, b)))
        return cls(d["lambda"], d["upper_bound"], d["gap"], d.get("seconds") or 0.0, d.get("status") or "optimal",
                   tuple(bns))

    def validate(self) -> "CapacityRecord":
        """Raise :class:`RecordError` unless ``lam`` is finite and >= 0, the
        upper bound finite and not below ``lam``, and the gap not NaN."""
        _finite("lambda", self.lam)
        _finite("upper bound", self.upper_bound)
        if self.lam > self.upper_bound * (1 + _TOL):
            raise RecordError(f"lambda {_fmt(self.lam)} above its upper bound {_fmt(self.upper_bound)}")
        if math.isnan(self.gap) or self.gap < 0:
            raise RecordError(f"capacity gap {self.gap} is not a number >= 0")
        _finite("capacity seconds", self.seconds)
        for b in self.bottlenecks:
            _finite(f"utilisation of {b.resource}", b.utilisation)
        return self


@dataclass(frozen=True)
class LatencyRecord:
    """The minimum average latency at one demand scale (``None`` where
    infeasible or undecided, with the reason), its certified lower bound,
    and the solver that gave it (``ptas`` or ``lp``; with ``lp``, what the
    PTAS search had reached; ``deviation`` under the queueing load model,
    with the latency's two parts -- router and wire delays, queueing waits --
    and the busiest channel's load over its width)."""

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
    zero_load_part: float | None = None
    queueing_part: float | None = None
    max_channel_load: float | None = None
    terminal_part: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        # the optional fields appear only when set, as the flow has always written them
        return {k: v for k, v in d.items()
                if v is not None or k in ("scale", "status", "average_latency", "latency_bound")}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LatencyRecord":
        d = _object(d, "a latency entry")
        w = "latency."
        _typed(d, "scale", "real", required=True, where=w)
        _typed(d, "status", "str", required=True, where=w)
        for k in ("average_latency", "latency_bound", "seconds", "ptas_latency", "ptas_bound", "zero_load_part",
                  "queueing_part", "max_channel_load", "terminal_part"):
            _typed(d, k, "real", where=w)
        for k in ("solver", "solver_status", "reason", "ptas_status"):
            _typed(d, k, "str", where=w)
        return cls(**_known(cls, d))

    def validate(self) -> "LatencyRecord":
        """Raise :class:`RecordError` unless the latency and its bound are
        finite, >= 0, and the latency is not below its certified bound."""
        at = f" at scale {_fmt(self.scale)}"
        # the scale is the study's, not a result: only NaN or a negative one is impossible
        if math.isnan(self.scale) or self.scale < 0:
            raise RecordError(f"demand scale {self.scale} is not a number >= 0")
        _finite("latency" + at, self.average_latency)
        _finite("latency bound" + at, self.latency_bound)
        _finite("latency seconds" + at, self.seconds)
        if (self.average_latency is not None and self.latency_bound is not None
                and self.average_latency < self.latency_bound * (1 - _TOL)):
            raise RecordError(f"latency {_fmt(self.average_latency)}{at} below its lower bound "
                              f"{_fmt(self.latency_bound)}")
        return self


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
    #: hop distances between PEs (routers without PEs only passed through; a fat tree's PEs sit on its leaves)
    pe_diameter: int | None = None
    pe_average_distance: float | None = None
    capacity: CapacityRecord | None = None
    latency: tuple[LatencyRecord, ...] = ()
    bound: dict[str, float] | None = None
    reason: str = ""
    seconds: float = 0.0
    #: the seconds its evaluation's kernels spent compiling on their first call in the process that
    #: evaluated it (not part of ``seconds``; 0 once compiled or loaded from numba's cache)
    compile_seconds: float = 0.0
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
        for k in ("diameter", "average_distance", "pe_diameter", "pe_average_distance"):
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
        d["compile_seconds"] = self.compile_seconds
        if self.fingerprint is not None:
            d["fingerprint"] = self.fingerprint
        d.update(self.extra)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CandidateRecord":
        """The record of a ``to_dict()`` dict; :class:`RecordError` (one
        line) on a missing or mistyped field. See :meth:`validate` for the
        values."""
        d = _object(d, "a record")
        _typed(d, "spec", "str", required=True)
        _typed(d, "status", "str", required=True)
        for k in ("routers", "pes", "links", "max_degree", "radix", "diameter", "pe_diameter"):
            _typed(d, k, "int")
        for k in ("family", "wiring", "reason", "fingerprint"):
            _typed(d, k, "str")
        for k in ("average_distance", "pe_average_distance", "seconds", "compile_seconds"):
            _typed(d, k, "real")
        if _typed(d, "cost", "dict") is not None:
            for k in ("routers", "pes", "radix", "ports", "links"):
                _typed(d["cost"], k, "int", required=True, where="cost.")
            _typed(d["cost"], "cables", "int", where="cost.")
            for k in ("wire_length", "wires", "pins"):
                _typed(d["cost"], k, "real", where="cost.")
        if _typed(d, "bound", "dict") is not None:
            for k in d["bound"]:
                _typed(d["bound"], k, "real", where="bound.")
        _typed(d, "latency", "list")
        known = _known(cls, d)
        extra = {k: v for k, v in d.items() if k not in known}
        if known.get("cost") is not None:
            known["cost"] = Cost(**_known(Cost, known["cost"]))
        if known.get("capacity") is not None:
            known["capacity"] = CapacityRecord.from_dict(known["capacity"])
        known["latency"] = tuple(LatencyRecord.from_dict(x) for x in known.get("latency") or ())
        if known.get("reason") is None:
            known.pop("reason", None)
        for k in ("seconds", "compile_seconds"):     # a record written before its field existed: 0
            if known.get(k) is None:
                known.pop(k, None)
        known.pop("extra", None)
        return cls(**known, extra=extra)

    def validate(self) -> "CandidateRecord":
        """Raise :class:`RecordError` (one line naming the value) unless the
        record is possible: a known status, a spec, seconds >= 0; an ``ok``
        record has its capacity and cost; lambda finite, >= 0 and not above
        its own certified upper bound; latencies finite and not below their
        lower bounds; costs and distances >= 0. Returns the record.

        >>> r = CandidateRecord("ring:6", "failed", reason="disconnected topology", seconds=-1.0)
        >>> r.validate()
        Traceback (most recent call last):
        ...
        synth.errors.RecordError: seconds -1 is negative
        """
        if self.status not in STATUSES:
            raise RecordError(f"status {self.status!r} is not one of {', '.join(STATUSES)}")
        if not self.spec:
            raise RecordError("the spec is empty")
        _finite("seconds", self.seconds)
        _finite("compile seconds", self.compile_seconds)
        if self.ok and (self.capacity is None or self.cost is None):
            raise RecordError(f"status ok without its {'capacity' if self.capacity is None else 'cost'}")
        if self.capacity is not None:
            self.capacity.validate()
        for x in self.latency:
            x.validate()
        _finite("average distance", self.average_distance)
        _finite("average distance between PEs", self.pe_average_distance)
        for k in ("routers", "pes", "links", "max_degree", "radix", "diameter", "pe_diameter"):
            _finite(k, getattr(self, k))
        if self.cost is not None:
            for k, v in self.cost.to_dict().items():
                _finite(f"cost {k}", v)
        for k, v in (self.bound or {}).items():
            if math.isnan(v):
                raise RecordError(f"bound {k} is NaN")
        return self


def validate_simulation(d: Any, max_load: float | None = None) -> dict[str, Any]:
    """Check a simulation record (a line of ``simulation.jsonl``, an entry of
    ``results.json``'s ``simulation``): a spec, status ``ok`` or ``failed``,
    seconds >= 0; an ``ok`` one has its routing and points (offered,
    accepted, latency, hops, deadlock, load), every offered ``load`` in
    [0, ``max_load``], and a saturation in [0, the highest accepted load of
    its points] (the saturation is an accepted load, which sampling can put
    a little above the offered load, so the points bound it, not
    ``max_load``). Returns ``d``; raises :class:`RecordError` (one line).

    >>> validate_simulation({"spec": "ring:6", "status": "ok", "saturation": 0.9, "routing": "dor",
    ...     "points": [{"offered": 0.5, "accepted": 0.5, "latency": 9.0, "hops": 1.2, "deadlock": False,
    ...                 "load": 0.5}], "seconds": 1.0}, max_load=1.0)
    Traceback (most recent call last):
    ...
    synth.errors.RecordError: saturation 0.9 above the highest accepted load of its points 0.5
    """
    d = _object(d, "a simulation record")
    _typed(d, "spec", "str", required=True)
    status = _typed(d, "status", "str", required=True)
    if status not in ("ok", "failed"):
        raise RecordError(f"simulation status {status!r} is not one of ok, failed")
    _finite("seconds", _typed(d, "seconds", "real"))
    _finite("compile_seconds", _typed(d, "compile_seconds", "real"))
    _typed(d, "fingerprint", "str")
    if status == "failed":
        _typed(d, "reason", "str")
        return d
    sat = _typed(d, "saturation", "real", required=True)
    _typed(d, "routing", "str", required=True)
    pts = _typed(d, "points", "list", required=True)
    top = 0.0
    for i, p in enumerate(pts):
        p = _object(p, "a simulation point")
        w = f"points[{i}]."
        for k in ("offered", "accepted", "load"):
            _finite(w + k, _typed(p, k, "real", required=True, where=w))
        for k in ("latency", "hops"):
            _finite(w + k, _typed(p, k, "real", where=w))
        _typed(p, "deadlock", "bool", required=True, where=w)
        if max_load is not None and p["load"] > max_load * (1 + _TOL):
            raise RecordError(f"{w}load {_fmt(p['load'])} above the study's max_load {_fmt(max_load)}")
        top = max(top, p["accepted"])
        _typed(p, "seed", "int", where=w)
    _finite("saturation", sat)
    if sat > top * (1 + _TOL):
        raise RecordError(f"saturation {_fmt(sat)} above the highest accepted load of its points {_fmt(top)}")
    # several seeds: the saturation is the mean of each seed's, with its 95% interval
    seeds = _typed(d, "seeds", "list")
    ci = _typed(d, "saturation_ci95", "real")
    if ci is not None:
        _finite("saturation_ci95", ci)
        if ci < 0:
            raise RecordError(f"saturation_ci95 {_fmt(ci)} is negative")
    if seeds is not None:
        sats = _typed(d, "saturations", "list", required=True)
        if len(sats) != len(seeds) or not all(isinstance(x, Real) and not isinstance(x, bool) for x in sats):
            raise RecordError(f"saturations must be one number per seed ({len(seeds)}), got {_short(sats)}")
        if abs(sum(sats) / len(sats) - sat) > _TOL * max(1.0, abs(sat)):
            raise RecordError(f"saturation {_fmt(sat)} is not the mean of the seeds' saturations {_short(sats)}")
    return d
