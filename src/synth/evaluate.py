"""Evaluate one candidate of a study: a plain function of (spec, study).

It runs in worker processes (loky, dask), so it takes only picklable
values and returns a JSON-ready record; a candidate that cannot be
evaluated (disconnected, infeasible, a solver error) comes back as a record
with ``status = "failed"`` and the reason, never as an exception.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from candidates import distance_stats, from_spec, pe_distances
from candidates.topology import Topology
from common import compiletime
from common.errors import ToposynthError

from .records import CandidateRecord
from .study import Study

__all__ = ["evaluate", "announce_compile", "build_topology", "build_problem", "study_demands", "bounds", "problem_bounds",
           "resource_position", "router_position", "STUDY_SOLVER"]

#: the flow solver (``flows.solve``'s name, ``toposynth flow --solver``'s spelling) that certifies a
#: candidate's capacity and latency at the study's eps: the PTAS, whose phase count also budgets the
#: latency search; the exact LP answers where that search stops short (``_latency_at``) and in the
#: cross-check of the winners
STUDY_SOLVER = "ptas"


def announce_compile(study: Study) -> None:
    """The notice before the flow solver the study's evaluations run compiles its kernels for the first
    time (nothing when numba's cache holds them): from the process that starts the evaluations, since
    the worker processes evaluating do not speak (common.workers)."""
    from flows.compile_notice import prepare  # deferred: loads numba only when candidates are evaluated

    prepare(STUDY_SOLVER)
    if study.latency_model == "queueing" and study.objective in ("latency", "both"):
        prepare("deviation")


def build_topology(spec: str, study: Study) -> Topology:
    """The candidate with the study's placement (``physical.blocks``) applied
    to lattices that have none."""
    return study.physical.place(from_spec(spec))


def study_demands(topo: Topology, study: Study):
    """The study's demands on this candidate's routers (same seed, same demands)."""
    return study.traffic.demands(topo)


def build_problem(topo: Topology, study: Study):
    """The flow problem of a candidate under the study's traffic and
    physical model (the candidate's own wiring: ``Physical.wiring_for``)."""
    return study.physical.problem(topo, study.traffic.demands(topo))


def evaluate(spec: str, study: Study, best: float | None = None) -> CandidateRecord:
    """The record of one candidate: structure and cost, capacity (PTAS,
    certified), and the minimum latency at each demand scale. ``best``: the
    best value of the ranking objective so far (lambda, or the latency at
    the first scale) among candidates of the same PE count; a candidate
    whose cheap certified bound (:func:`bounds`) cannot beat it is pruned
    before the PTAS, and so is one over a budget of ``[machine]``.

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["ring:6"]}, "traffic": {"pattern": "uniform"},
    ...                      "ranking": {"objective": "capacity"}})
    >>> r = evaluate("ring:6", s)
    >>> r.status, r.capacity.lam <= 10 / 9 <= r.capacity.upper_bound     # LP optimum 10/9
    ('ok', True)
    >>> r.cost.links, r.cost.radix                       # 2 network ports + 1 PE per router
    (6, 3)
    """
    return CandidateRecord.from_dict(_evaluate(spec, study, best))


def _evaluate(spec: str, study: Study, best: float | None) -> dict[str, Any]:
    import flows  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    # measured in the process that evaluates (a worker's own compiles): the kernels' first compile is not the
    # candidate's time
    t0 = compiletime.clock()
    rec: dict[str, Any] = {"spec": spec, "status": "ok"}
    try:
        topo = build_topology(spec, study)
        deg = topo.degree
        phys = study.physical
        cost = phys.cost(topo)
        rec.update(routers=topo.n, pes=topo.num_terminals, links=topo.num_links, max_degree=int(deg.max()),
                   radix=cost.radix, family=topo.family,
                   wiring=phys.wiring_for(topo.spec) if phys.packaging != "none" else None, cost=cost.to_dict())
        if study.max_degree is not None and deg.max() > study.max_degree:
            rec.update(status="pruned", reason=f"router degree {int(deg.max())} > max_degree {study.max_degree}")
            return rec
        over = study.machine.over_budget(cost)
        if over:
            rec.update(status="pruned", reason=f"over budget: {over}")
            return rec
        ds = distance_stats(topo)
        if not ds.connected:
            rec.update(status="failed", reason="disconnected topology")
            return rec
        pe = pe_distances(topo, ds)
        rec.update(diameter=ds.diameter, average_distance=ds.average_distance, pe_diameter=pe.diameter,
                   pe_average_distance=pe.average_distance)
        problem = build_problem(topo, study)
        if best is not None:
            b = problem_bounds(problem)
            if study.objective == "capacity" and b["capacity"] < best:
                rec.update(status="pruned", bound=b, reason="its capacity bound cannot beat the best lambda so far")
                return rec
            if study.objective != "capacity" and b["latency"] > best:
                rec.update(status="pruned", bound=b, reason="its latency bound cannot beat the best latency so far")
                return rec
        cap = flows.solve(problem, study.eps, solver=STUDY_SOLVER)
        rec["capacity"] = _summary(cap, problem, topo)
        if phys.packaging != "none":
            cost = phys.cost(topo, problem, cap.arc_flow)
            rec["cost"] = cost.to_dict()
        if study.objective in ("latency", "both"):
            cols = flows.lp_columns(problem, "latency")
            rec["latency"] = [_latency_at(problem, s, cap, study, cols) for s in study.scales]
        over = study.machine.over_budget(cost)
        if over:  # the wire-length budget: known only once the flow has chosen the wires
            rec.update(status="pruned", reason=f"over budget: {over}")
    except ToposynthError as exc:
        rec.update(status="failed", reason=str(exc))
    except Exception as exc:  # a solver error must not stop the sweep
        rec.update(status="failed", reason=f"{type(exc).__name__}: {exc}")
    finally:
        # every record, pruned and failed ones included, says what it cost
        rec["seconds"], rec["compile_seconds"] = compiletime.run_seconds(t0)
    return rec


def _latency_at(problem, s: float, cap, study: Study, cols: int) -> dict[str, Any]:
    """The latency record of one demand scale.

    The PTAS search certifies the minimum latency within eps in well under a
    second on most candidates, even at 98.5% of capacity (a torus with
    random demands: 0.6 s, the LP 96 s; docs/results/flows.md), but on some it needs runs far
    finer than eps near capacity (a BG/L midplane candidate under uniform
    wiring 1.5% below capacity ran for more than 6 minutes). So the search
    gets a phase budget of one capacity run (at least 5000 phases), and
    where it stops short of eps, or the scale lies inside the capacity's
    certified bracket, the exact HiGHS LP answers when it has at most
    ``study.lp_limit`` columns (``cols``, :func:`flows.lp_columns`; about
    100 s at 570000). ``solver`` says which one gave the number.
    """
    import flows  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    fits = 0 < cols <= study.lp_limit
    if s > cap.upper_bound:
        return {"scale": s, "status": "infeasible", "average_latency": None, "latency_bound": None,
                "reason": f"capacity lambda <= {cap.upper_bound:.4g} < {s}"}
    if study.queueing is not None:
        # the queueing load model: flow deviation, which decides a scale inside the capacity's bracket itself
        cap_s = dataclasses.replace(cap, lam=cap.lam / s, upper_bound=cap.upper_bound / s)
        r = flows.solve(problem.scaled(s), study.eps, solver="deviation", objective="latency", capacity=cap_s,
                        queueing=study.queueing)
        rec = {"scale": s, "status": "ok" if r.average_latency is not None else
               ("undecided" if r.status == "undecided" else "infeasible"),
               "average_latency": r.average_latency, "latency_bound": r.latency_bound, "seconds": r.seconds,
               "solver": "deviation", "solver_status": r.status}
        if r.average_latency is None:
            rec["reason"] = r.extra.get("message", "")
        else:
            rec.update({k: r.extra[k] for k in ("zero_load_part", "queueing_part", "max_channel_load",
                                                "terminal_part") if k in r.extra})
        return rec
    ptas = None
    if s > cap.lam and not fits:
        # within the capacity's certified bracket: deciding it needs a much finer run
        return {"scale": s, "status": "undecided", "average_latency": None, "latency_bound": None,
                "reason": f"at capacity within eps: lambda in [{cap.lam:.4g}, {cap.upper_bound:.4g}]; "
                          f"raise ranking.lp_limit to {cols} to decide it exactly"}
    if s <= cap.lam:
        # the capacity run serves every scale: lambda(s * d) = lambda(d) / s, same flow
        cap_s = dataclasses.replace(cap, lam=cap.lam / s, upper_bound=cap.upper_bound / s)
        r = flows.solve(problem.scaled(s), study.eps, solver=STUDY_SOLVER, objective="latency", capacity=cap_s,
                        max_phases=max(5000, cap.iterations) if fits else 100000)
        ptas = {"scale": s, "status": "ok" if r.average_latency is not None else
                ("undecided" if r.status == "undecided" else "infeasible"),
                "average_latency": r.average_latency, "latency_bound": r.latency_bound, "seconds": r.seconds,
                "solver": "ptas", "solver_status": r.status,
                **({} if r.average_latency is not None else {"reason": r.extra.get("message", "")})}
        if r.status == "optimal" or r.average_latency is None or not fits:
            return ptas
    r = flows.solve(problem.scaled(s), 0.0, solver="lp", objective="latency")
    out = {"scale": s, "status": "ok" if r.status == "optimal" else r.status,
           "average_latency": r.average_latency, "latency_bound": r.latency_bound, "seconds": r.seconds,
           "solver": "lp", "solver_status": r.status}
    if r.status == "infeasible":
        out["reason"] = r.extra.get("message", "")
    if ptas is not None:
        # what the PTAS search reached before the LP took over
        out.update(seconds=r.seconds + ptas["seconds"], ptas_latency=ptas["average_latency"],
                   ptas_bound=ptas["latency_bound"], ptas_status=ptas["solver_status"])
    return out


def _summary(r, problem, topo: Topology) -> dict[str, Any]:
    order = np.argsort(-r.utilisation, kind="stable")[:5]
    return {
        "lambda": r.lam, "upper_bound": r.upper_bound, "gap": r.gap, "seconds": r.seconds, "status": r.status,
        "bottlenecks": [{"resource": problem.resource_names[i], "where": resource_position(problem.resource_names[i], topo),
                         "utilisation": float(r.utilisation[i])} for i in order.tolist()],
    }


_ARC = re.compile(r"(\d+)->(\d+)")
_ROUTER = re.compile(r"router (\d+)")


def router_position(topo: Topology, v: int) -> str:
    """Where router ``v`` is, for a person: its lattice coordinates, its
    packaging units (``node_card 3 / compute_card 12``), or its number."""
    parts = []
    if topo.coords is not None:
        parts.append("(" + ",".join(str(int(x)) for x in topo.coords[v]) + ")")
    if topo.placement is not None:
        pl = topo.placement
        parts.append(" / ".join(f"{lv} {int(pl.unit[v, l])}" for l, lv in reversed(list(enumerate(pl.levels)))
                                if l < len(pl.levels) - 1 or pl.unit[:, l].max() > 0))
    return " ".join(p for p in parts if p) or f"router {v}"


def resource_position(name: str, topo: Topology) -> str:
    """A resource name with router numbers replaced by positions:
    ``"25->17"`` on an 8x4 torus becomes ``"(6,1)->(4,1)"``."""
    m = _ARC.search(name)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        if max(a, b) < topo.n:
            link = f"{router_position(topo, a)} -> {router_position(topo, b)}"
            return link if name == m.group(0) else f"{name[:m.start()]}{link}{name[m.end():]}"
    m = _ROUTER.search(name)
    if m and int(m.group(1)) < topo.n:
        return name[:m.start()] + "router " + router_position(topo, int(m.group(1))) + name[m.end():]
    return name


def _pair_dist(problem, length: np.ndarray) -> np.ndarray:
    """Shortest-path distance of every demand under channel lengths."""
    import scipy.sparse as sp  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
    from scipy.sparse.csgraph import dijkstra  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    dem = problem.demands
    # parallel channels: keep the shortest (csgraph sums duplicates otherwise)
    order = np.lexsort((length, problem.arc_dst, problem.arc_src))
    a_s, a_d, a_l = problem.arc_src[order], problem.arc_dst[order], length[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (a_s[1:] != a_s[:-1]) | (a_d[1:] != a_d[:-1])
    # csgraph treats explicit zeros as missing edges: lift them to a tiny length
    w = np.maximum(a_l[first], 1e-300)
    G = sp.csr_matrix((w, (a_s[first], a_d[first])), shape=(problem.n, problem.n))
    srcs, inv = np.unique(dem.src, return_inverse=True)
    D = dijkstra(G, directed=True, indices=srcs)
    return D[inv, dem.dst]


def bounds(spec: str, study: Study) -> dict[str, float]:
    """Cheap certified bounds, for pruning before the PTAS.

    ``capacity``: an upper bound on lambda by weak LP duality, ``D(y) /
    alpha(y)`` for two fixed dual vectors (every resource at 1, and at
    1/capacity); ``latency``: a lower bound on the average latency at any
    scale (every demand on its latency-shortest path, no congestion).

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["ring:6"]}})
    >>> b = bounds("ring:6", s)        # uniform on a 6-ring: 12 arcs / (6 x 1.8 hops) = 10/9, the optimum
    >>> round(b["capacity"], 6), round(b["latency"], 6)
    (1.111111, 1.8)
    """
    return problem_bounds(build_problem(build_topology(spec, study), study))


def problem_bounds(problem) -> dict[str, float]:
    """:func:`bounds` of a problem already built."""
    dem = problem.demands
    best = np.inf
    for y in (np.ones(problem.num_resources), 1.0 / problem.capacity):
        length = np.asarray(problem.R.T @ y).reshape(-1)
        alpha = float(dem.amount @ _pair_dist(problem, length))
        if alpha > 0:
            best = min(best, float(problem.capacity @ y) / alpha)
    lat = float(dem.amount @ _pair_dist(problem, np.asarray(problem.latency, dtype=np.float64))) / dem.total
    return {"capacity": best, "latency": lat}
