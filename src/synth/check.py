"""A study checked without running it: its pool, its machine and its size (``toposynth run --check``).

Everything :func:`synth.run` validates before its first evaluation is checked here too (the study file, every
candidate spec, the machine's PE count against each candidate's, the packaging), and each candidate's flow
problem's memory is estimated by :func:`flows.size.flow_cost` without building its demands. No time is
estimated: that estimate, made on tori with uniform and random traffic, overstates local traffic tenfold. Searched candidates
(``[candidates] search``) are not known before their searches run: they are counted, not sized.

>>> from synth.study import study_from_dict
>>> c = check_study(study_from_dict({"candidates": {"specs": ["torus:4x4", "hypercube:4", "ring:16"]}}))
>>> [(v.candidates, v.same_network) for v in c.variants]
[(2, {'torus:4x4': ['hypercube:4']})]
>>> c.variants[0].largest.routers, c.variants[0].largest.demands
(16, 240)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from candidates import Topology, from_spec
from flows.size import flow_cost

from .machine import check_machine
from .pool import candidate_pool
from .study import Study

__all__ = ["CandidateSize", "VariantCheck", "StudyCheck", "check_study"]


@dataclass(frozen=True)
class CandidateSize:
    """One candidate's flow problem, estimated: ``demands`` is an upper bound where the traffic is built
    from the topology (a NAS skeleton, a mapped mix), exact otherwise."""

    spec: str
    routers: int
    channels: int
    pes: int
    demands: int
    memory_bytes: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class VariantCheck:
    """One variant of the study (the whole study when it sweeps nothing)."""

    label: str
    candidates: int
    pes: int
    same_network: dict[str, list[str]]
    largest: CandidateSize
    #: the largest memory estimate of any candidate (the one that decides whether the run fits)
    memory_bytes: float
    sizes: tuple[CandidateSize, ...] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sizes"] = [s.to_dict() for s in self.sizes]
        return d


@dataclass(frozen=True)
class StudyCheck:
    """What ``toposynth run --check`` reports: the study is valid (else :func:`check_study` raised), and how
    big each variant is."""

    name: str
    variants: tuple[VariantCheck, ...]
    searches: int
    latency_scales: int
    #: flow solves per candidate: the capacity, and one per latency scale when latency is ranked
    flow_runs: int
    simulated_winners: int
    baseline: str | None

    @property
    def memory_bytes(self) -> float:
        return max(v.memory_bytes for v in self.variants)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "valid": True, "variants": [v.to_dict() for v in self.variants],
                "searches": self.searches, "latency_scales": self.latency_scales, "flow_runs": self.flow_runs,
                "simulated_winners": self.simulated_winners, "baseline": self.baseline,
                "memory_bytes": self.memory_bytes}


def _demand_count(study: Study, routers: int, pes: int) -> int:
    t = study.traffic
    if t.pattern in ("random", "local") and isinstance(t.count, int):
        return t.count
    if t.pattern == "file" and t.file is not None:
        with open(t.file, encoding="utf-8") as fh:
            return max(0, sum(1 for line in fh if line.strip()) - 1)
    # every pair of routers that hold PEs (uniform; and the most a skeleton or a mapped mix can have)
    return routers * (routers - 1) if pes >= routers else pes * (pes - 1)


def _size(study: Study, spec: str, pes: int, built: Topology | None) -> CandidateSize:
    topo = study.physical.place(built if built is not None else from_spec(spec))
    demands = _demand_count(study, topo.n, pes)
    solver = "deviation" if study.latency_model == "queueing" else "ptas"
    cost = flow_cost(topo.n, topo.num_arcs, demands, min(topo.n, max(1, demands)), solver=solver,
                     uniform=study.traffic.pattern == "uniform")
    return CandidateSize(spec, topo.n, topo.num_arcs, pes, demands, cost.nbytes)


def check_study(study: Study) -> StudyCheck:
    """Check ``study`` as :func:`synth.run` would before evaluating anything, and size it; raises the
    run's own one-line errors (:class:`synth.errors.StudyError` and its kind) where it would."""
    out = []
    for label, sub in study.variants():
        # as synth.run does: the baseline in canonical spelling stands for its network
        base = None if sub.baseline is None else (from_spec(sub.baseline).spec or sub.baseline)
        pool = candidate_pool(sub, keep=base)
        pes = check_machine(sub.machine, pool.sizes, base)
        from .runner import check_simulation_routing  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

        check_simulation_routing(sub, pool, base)
        sizes = tuple(_size(sub, spec, p, pool.topologies.get(spec)) for spec, p in pool.sizes.items())
        largest = max(sizes, key=lambda s: (s.memory_bytes, s.routers))
        out.append(VariantCheck(label or sub.name, len(sizes), pes, dict(pool.same), largest,
                                largest.memory_bytes, sizes))
    runs = 1 + (len(study.scales) if study.objective in ("latency", "both") else 0)
    return StudyCheck(study.name, tuple(out), len(study.search), len(study.scales), runs, study.sim_top,
                      study.baseline)
