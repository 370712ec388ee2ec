"""A study's results as one table: a row per candidate, the columns of ``results.csv``.

The rows are read from the results' JSON form (``StudyResult.to_dict()``,
``results.json``): ``results.csv`` writes them, and
``StudyResult.to_dataframe()`` and a notebook's table show them. A value
not measured is None (an empty cell in the CSV file).

>>> d = {"study": {"traffic": {"scales": [0.5]}, "ranking": {"baseline": "ring:4"}}, "pes": 4,
...      "ranking": ["complete:4", "ring:4"], "records": [
...          {"spec": "ring:4", "status": "ok", "pes": 4, "capacity": {"lambda": 1.5},
...           "latency": [{"scale": 0.5, "average_latency": 1.6}], "seconds": 0.1},
...          {"spec": "complete:4", "status": "ok", "pes": 4, "capacity": {"lambda": 3.0},
...           "latency": [{"scale": 0.5, "average_latency": 1.0}], "seconds": 0.1}]}
>>> [(r["rank"], r["spec"], r["baseline"], r["lambda"], r["latency@0.5"]) for r in study_rows(d)]
[(1, 'complete:4', False, 3.0, 1.0), (2, 'ring:4', True, 1.5, 1.6)]
"""

from __future__ import annotations

from typing import Any

__all__ = ["COST_COLUMNS", "study_columns", "study_rows"]

#: the cost figures of a record, each a column ``cost_NAME``
COST_COLUMNS = ("pes", "routers", "radix", "ports", "links", "wire_length", "wires", "pins", "cables")


def study_columns(scales: list[float]) -> list[str]:
    """The columns of a study's table with these demand scales."""
    return (["rank", "size_class", "spec", "status", "baseline", "max_degree", "diameter", "average_distance",
             "pe_diameter", "pe_average_distance"]
            + [f"cost_{c}" for c in COST_COLUMNS] + ["wiring", "lambda", "upper_bound", "gap"]
            + [f"latency@{s:g}" for s in scales] + [f"latency_bound@{s:g}" for s in scales]
            + [f"latency_solver@{s:g}" for s in scales]
            + ["pareto_capacity", "pareto_latency", "sim_saturation", "sim_routing", "seconds", "compile_seconds",
               "reason"])


def study_rows(d: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per candidate of the results ``d``, ranked ones first (by
    size class, then rank), then the others in pool order: its rank in its
    size class, structure, cost, capacity and latency with their
    certificates, simulated saturation, baseline and Pareto flags."""
    scales = d["study"]["traffic"]["scales"]
    classes: dict[int | None, list[str]] = (
        {int(k): v for k, v in (d.get("classes") or {}).items()} or {d.get("pes"): d["ranking"]})
    rank = {s: i + 1 for ranked in classes.values() for i, s in enumerate(ranked)}
    order = {s: (k, i) for k, ranked in enumerate(classes.values()) for i, s in enumerate(ranked)}
    base = d["study"]["ranking"]["baseline"]
    sims = {x["spec"]: x for x in d.get("simulation", [])}
    pareto = d.get("pareto") or {}
    rows = []
    for r in sorted(d["records"], key=lambda r: order.get(r["spec"], (10 ** 9, 0))):
        cap = r.get("capacity") or {}
        cost = r.get("cost") or {}
        sm = sims.get(r["spec"], {})
        row: dict[str, Any] = {"rank": rank.get(r["spec"]), "size_class": r.get("pes"), "spec": r["spec"],
                               "status": r["status"], "baseline": r["spec"] == base,
                               "max_degree": r.get("max_degree"), "diameter": r.get("diameter"),
                               "average_distance": r.get("average_distance"), "pe_diameter": r.get("pe_diameter"),
                               "pe_average_distance": r.get("pe_average_distance")}
        row |= {f"cost_{c}": cost.get(c) for c in COST_COLUMNS}
        row |= {"wiring": r.get("wiring") or None, "lambda": cap.get("lambda"), "upper_bound": cap.get("upper_bound"),
                "gap": cap.get("gap")}
        lat = r.get("latency") or []
        at = [(f"{s:g}", lat[i] if i < len(lat) else {}) for i, s in enumerate(scales)]
        row |= {f"latency@{s}": x.get("average_latency") for s, x in at}
        row |= {f"latency_bound@{s}": x.get("latency_bound") for s, x in at}
        # records written before the LP fallback existed have no solver: theirs was the PTAS
        row |= {f"latency_solver@{s}": x.get("solver", "ptas") if x.get("average_latency") is not None else None
                for s, x in at}
        row |= {"pareto_capacity": r["spec"] in pareto.get("capacity", []),
                "pareto_latency": r["spec"] in pareto.get("latency", []),
                "sim_saturation": sm.get("saturation") if sm.get("status") == "ok" else None,
                "sim_routing": sm.get("routing"), "seconds": r.get("seconds", 0),
                # records written before compile time was kept apart: their seconds include it
                "compile_seconds": r.get("compile_seconds"), "reason": r.get("reason")}
        rows.append(row)
    return rows
