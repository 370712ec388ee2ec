"""Reproduce 'topology-synthesis-mcf-bgl' with toposynth: Tables I and II, Figs. 3-6, board sensitivity.

    python benchmarks/repro_mcf_bgl.py [--quick] [--record] [--jobs N] [--workdir DIR]
                                       [--parts table1,pins,table2,sensitivity]
                                       [--load-model linear|queueing] [--progress]

Parts:

- table1: the built-in Blue Gene/L midplane study (synth) at T = 2048, 3072, 4096 random demands
  (40% inside a compute card, 50% inside a node card, 10% across) against the 8x8x8 torus with
  uniform wiring (the real machine: its links all alike, as the paper's torus), the compositions
  with flexible wiring; its pool varies the row graphs (part (a)) and the column and upper-level
  graphs (part (b)); the trade-off curves (the paper's Table I and Fig. 3);
- pins: the node-card pins sweep at demand scale 1.6 (Fig. 4; the bgl-pins pool) and the winner's
  row graph at each pin count (Fig. 5: how many long links it has), beside the uniform-wired torus;
- table2: the NAS skeletons BT, SP (121 processes), CG, LU, MG (128), class B, placed on the
  512-node midplane by simulated annealing on the packaging distance, as demands: per application
  the optimum of the pool, the optimum for the aggregate of the five (evaluated on each), the
  optimum under uniform wiring, and the 3D torus with uniform wiring (the paper's four columns;
  the torus with flexible wiring beside them for reference), at fractions of the uniform-wired
  torus's capacity (Table II); the aggregate's trade-off curve against the torus (Fig. 6);
- sensitivity: the board data the paper does not publish, varied one assumption at a time
  (connector pins per compute card and per node card, cross-sections, router pins, wire and
  router delays): the row graphs (rings of 4 elsewhere) against the torus, every design with
  flexible wiring, capacity ratio and latency reduction.

Quick: the first 8 row graphs of part (a) (Table II: 6; pins: 8; sensitivity: 6 and fewer settings)
with all of part (b); full: all 194 row graphs (pins: the first 24; sensitivity: the first 24).
Table I and pins: 690 + 305 evaluations of about 1-1.5 s each on a free core (full: about 12
minutes with --jobs 2 on an idle 2-core machine, 77 minutes measured with its cores shared by
other jobs). Table II is dominated by the uniform-wired evaluations (1-4 minutes each; 15 in
quick mode, 30 in full mode): full mode took 18 minutes with --jobs 2 on a nearly idle 2-core
machine, quick mode 77 minutes with --jobs 1 on the same machine shared by other jobs.
``--workdir`` keeps every study's
records (synth.run resumes them: an interrupted run continues where it stopped). Writes a
section of the results book (docs/results/topology-synthesis-mcf-bgl.md) with the paper's numbers beside ours, and figures/mcf_bgl_*.png.

The paper does not publish its board data; ours (flows.Packaging.bluegene_l) are assumptions,
so absolute numbers (wires, ns) cannot match its (unnamed demand units, us). What can be
compared are ratios and trends.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _record import recorded, record_subsection, table

from common.paths import atomic_write_text
from synth.evaluate import build_topology, evaluate
from synth.runner import run
from synth.study import BUILTIN_STUDIES, study_from_dict

PAPER_TABLE1 = {  # T: (capacity optimal, torus, min latency optimal, max latency optimal, torus latency) in us
    2048: (2.0, 1.1, 5.86, 6.49, 6.63),
    3072: (1.3, 0.7, 6.05, 6.56, 10.54),
    4096: (0.8, 0.3, 6.59, 6.99, 15.06),
}
PAPER_FIG4 = "latency -8% with 20 more pins, -13% with 40, -14% at 320 (from 200)"
#: benchmark: (optimal, aggregate, uniform, 3D torus) average latency in us
PAPER_TABLE2 = {
    "bt": (1.30, 1.44, 1.67, 2.00),
    "cg": (0.96, 1.01, 1.36, 1.76),
    "lu": (1.05, 1.38, 1.60, 1.69),
    "mg": (0.89, 0.90, 1.15, 1.65),
    "sp": (2.24, 2.49, 2.73, 3.60),
}
#: the same table's normalised latencies (aggregate, uniform, 3D torus) as printed in brackets; they are what we
#: compare with, and they differ from the quotients of the absolute values above for LU (printed 1.32 / 1.59 /
#: 1.60, quotients 1.31 / 1.52 / 1.61) and by a rounding step elsewhere
PAPER_TABLE2_RATIOS = {
    "bt": (1.11, 1.29, 1.54),
    "cg": (1.05, 1.41, 1.84),
    "lu": (1.32, 1.59, 1.60),
    "mg": (1.02, 1.29, 1.83),
    "sp": (1.11, 1.22, 1.61),
}
#: processes per NAS kernel (the paper: 121 for BT and SP, 128 for the others; class B)
APPS = {"bt": 121, "cg": 128, "lu": 128, "mg": 128, "sp": 121}
TORUS = "torus:8x8x8"
#: Table II latencies are taken at these fractions of the 8x8x8 torus's capacity for the traffic;
#: the optima are chosen at the first (light enough for every wiring to carry it)
LOADS = (0.25, 0.6)
#: the aggregate's trade-off curve (Fig. 6), as fractions of the torus's capacity
FIG6_LOADS = (0.1, 0.4, 0.8, 1.0, 1.2)
FIGS = Path(__file__).with_name("figures")
#: the latency's load model of every study the script builds (--load-model): "linear" (the paper's: router and
#: wire delay per unit of flow, the same at every load) or "queueing" (plus Kleinrock's wait on every channel,
#: flows.queueing, at the study defaults: under the bgl packaging a 256-byte packet on one 1.4 Gb/s wire, M/M/1)
LOAD_MODEL = "linear"
#: report every candidate evaluation on stderr (--progress)
PROGRESS = False


# the script works on the records' JSON form (the interchange format it also stores and compares)
#: where single evaluations (the torus's, outside any study run) are kept when --workdir is given, so a
#: rerun (--record after a long run) reads them back instead of solving again
EVAL_CACHE: Path | None = None


def _evaluate(spec: str, study) -> dict:
    if EVAL_CACHE is None:
        return evaluate(spec, study).to_dict()
    key = hashlib.sha256(f"{spec}\n{study.fingerprint()}".encode()).hexdigest()[:20]
    path = EVAL_CACHE / f"{key}.json"
    if path.exists():
        return json.loads(path.read_text())
    d = evaluate(spec, study).to_dict()
    EVAL_CACHE.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(d) + "\n")
    return d


def _records(res) -> list[dict]:
    return [r.to_dict() for r in res.records]


def _record(res, spec: str) -> dict:
    return res.record(spec).to_dict()


def _study(d: dict):
    """The study of dict ``d`` under the script's load model (``ranking.latency_model``; unchanged when linear)."""
    if LOAD_MODEL != "linear":
        d = copy.deepcopy(d)
        d.setdefault("ranking", {})["latency_model"] = LOAD_MODEL
    return study_from_dict(d)


def _queueing() -> bool:
    return LOAD_MODEL == "queueing"


def _parts(rec: dict | None, i: int = 0) -> dict:
    """The queueing model's parts of a record's latency at scale ``i``: the router-and-wire part, the queues'
    waits, and the busiest channel's utilisation (flow / width); all None under the linear model."""
    lat = (rec or {}).get("latency") if (rec or {}).get("status") == "ok" else None
    x = lat[i] if lat and i < len(lat) and lat[i].get("average_latency") is not None else {}
    return {k: x.get(k) for k in ("zero_load_part", "queueing_part", "max_channel_load")}


def _base_study(rows_limit: int | None) -> dict:
    """The bgl-midplane study (our Table I pool: all 194 row graphs at their minimum cut width)."""
    d = copy.deepcopy(BUILTIN_STUDIES["bgl-midplane"])
    if rows_limit:
        d["candidates"]["hierarchy"]["limit"] = rows_limit
    d["ranking"]["prune"] = False          # every candidate's numbers, for the trade-off
    return d


def _run(d: dict, workdir: Path | None, name: str, jobs: int):
    """synth.run into workdir/name (resumable) or a temporary directory."""
    study = _study(d)
    if workdir is not None:
        return run(study, workdir / name, jobs=jobs, progress=PROGRESS)
    with tempfile.TemporaryDirectory() as tmp:
        return run(study, tmp, jobs=jobs, progress=PROGRESS)


def _lat(rec: dict, i: int = 0) -> float | None:
    lat = rec.get("latency") if rec.get("status") == "ok" else None
    return lat[i]["average_latency"] if lat and i < len(lat) else None


def _cap(rec: dict) -> float | None:
    return rec["capacity"]["lambda"] if rec.get("status") == "ok" else None


def _best_latency(records: list[dict], i: int = 0) -> dict | None:
    ok = [r for r in records if _lat(r, i) is not None]
    return min(ok, key=lambda r: (_lat(r, i), -_cap(r))) if ok else None


def _best_capacity(records: list[dict]) -> dict | None:
    ok = [r for r in records if r.get("status") == "ok"]
    return max(ok, key=_cap) if ok else None


def _f(x: float | None, fmt: str = ".3f") -> str:
    return "-" if x is None else format(x, fmt)


#: short names of the six connected 4-node graphs (the column and upper-level pools)
GRAPH4 = {"path:4": "P4", "g6:Cs": "star", "ring:4": "C4", "g6:C{": "paw", "g6:C}": "diamond", "complete:4": "K4"}


def _factors(spec: str) -> list[str] | None:
    """The four factor specs (row, column, upper row, upper column) of a bgl composition."""
    if not spec or not spec.startswith("bgl:"):
        return None
    return spec[4:].split("*")


def _short(spec: str | None) -> str:
    """A midplane composition by its row graph, and its column and upper-level graphs when they
    are not the default rings of 4.

    >>> _short("bgl:g6:GpS_OK*ring:4*ring:4*ring:4"), _short(None), _short("torus:8x8x8")
    ('g6:GpS_OK', '-', 'torus:8x8x8')
    >>> _short("bgl:g6:Gr`GpK*g6:C}*complete:4*complete:4")
    'g6:Gr`GpK, columns diamond, upper K4 x K4'
    """
    if spec is None:
        return "-"
    f = _factors(spec)
    if f is None or len(f) != 4:
        return spec
    if f[1:] == ["ring:4"] * 3:
        return f[0]
    return f"{f[0]}, columns {GRAPH4.get(f[1], f[1])}, upper {GRAPH4.get(f[2], f[2])} x {GRAPH4.get(f[3], f[3])}"


def row_graph_info(spec: str) -> dict:
    """Edges of a bgl candidate's row graph (vertex i at position i of the row) and its long links."""
    import networkx as nx

    f = _factors(spec)
    g6 = f[0] if f else ""
    if not g6.startswith("g6:"):
        return {"edges": [], "long": 0, "span": 0, "max_span": 0}
    G = nx.from_graph6_bytes(g6[3:].encode())
    edges = sorted((min(u, v), max(u, v)) for u, v in G.edges())
    spans = [v - u for u, v in edges]
    return {"edges": edges, "long": sum(1 for s in spans if s > 1), "span": sum(spans), "max_span": max(spans)}


def _figname(stem: str, rows_limit: int | None) -> str:
    """Quick mode and the queueing model write their own files: a quick run must not overwrite the full run's
    figures, nor one load model the other's."""
    return f"mcf_bgl_{stem}{'_queueing' if _queueing() else ''}{'_quick' if rows_limit else ''}.png"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---------------------------------------------------------------------------------------------- Table I


def _neck(rec: dict | None) -> str | None:
    """The first bottleneck of a record's capacity, by kind (node-card pins, uniform share, ...)."""
    b = (((rec or {}).get("capacity") or {}).get("bottlenecks") or [])
    if not b:
        return None
    res = b[0]["resource"]
    return "a channel's uniform share" if "uniform share" in res else _resource_kind(res)


def _flexible_torus(d: dict, count: int) -> dict:
    """The 8x8x8 torus with flexible wiring at one demand count (for reference beside the real,
    uniform-wired one)."""
    dt = copy.deepcopy(d)
    dt["candidates"] = {"specs": [TORUS]}
    dt["traffic"]["count"] = count
    dt["physical"]["wiring"] = "flexible"
    return _evaluate(TORUS, _study(dt))


def _evaluations(sw) -> dict:
    """How many candidate evaluations a sweep holds, how many were resumed, and their CPU seconds."""
    recs = [r for _, res in sw.variants for r in _records(res)]
    return {"records": len(recs), "resumed": sum(res.resumed for _, res in sw.variants),
            "seconds": sum(r.get("seconds", 0.0) for r in recs)}


def table1(rows_limit: int | None, jobs: int, workdir: Path | None) -> tuple[str, dict]:
    d = _base_study(rows_limit)
    sw = _run(d, workdir, "table1", jobs)
    rows, grid_rows = [], []
    curves = {}
    data = {}
    scales = d["traffic"]["scales"]
    for label, res in sw.variants:
        T = res.study.traffic.count
        ok = [r for r in _records(res) if r["status"] == "ok"]
        torus = _record(res, TORUS)
        assert torus["wiring"] == "uniform", "the baseline must be the uniform-wired torus"
        ftorus = _flexible_torus(d, T)
        others = [r for r in ok if r["spec"] != TORUS]
        rings = [r for r in others if _factors(r["spec"])[1:] == ["ring:4"] * 3]
        best_cap, best_ring = _best_capacity(others), _best_capacity(rings)
        lat_t = _lat(torus)
        best_lat = _best_latency(others)
        lat_best = _lat(best_lat)
        p = PAPER_TABLE1[T]
        tr = [{"scale": sc, "best": b and b["spec"], "average_latency": b and _lat(b, i), **_parts(b, i),
               "runner_up": r2 and r2["spec"], "runner_up_latency": r2 and _lat(r2, i)}
              for i, sc in enumerate(scales) for b in [_best_latency(others, i)]
              for r2 in [_best_latency([r for r in others if b and r["spec"] != b["spec"]], i)]]
        curves[T] = tr
        lats = [x["average_latency"] for x in tr if x["average_latency"] is not None]
        rows.append([T, f"{_cap(best_cap):.3f}", f"{_cap(torus):.3f}", f"{_cap(best_cap) / _cap(torus):.2f}",
                     f"{p[0] / p[1]:.2f}", f"{_cap(best_ring) / _cap(torus):.2f}", f"{_cap(ftorus):.3f}",
                     _f(lat_best, ".2f"), _f(lat_t, ".2f"),
                     "-" if lat_t is None or lat_best is None else f"{lat_t / lat_best:.2f}", f"{p[4] / p[2]:.2f}"])
        data[T] = {"best_capacity": _cap(best_cap), "best_capacity_spec": best_cap["spec"],
                   "best_ring_capacity": _cap(best_ring), "best_ring_spec": best_ring["spec"],
                   "torus_capacity": _cap(torus), "torus_flexible_capacity": _cap(ftorus),
                   "torus_latencies": [_lat(torus, i) for i in range(len(scales))],
                   "torus_parts": [_parts(torus, i) for i in range(len(scales))],
                   "capacities": {r["spec"]: _cap(r) for r in others},
                   "torus_bottleneck": _neck(torus), "best_bottleneck": _neck(best_cap),
                   "best_latency": lat_best, "torus_latency": lat_t, "best_spec": best_lat["spec"],
                   "tradeoff": tr, "min_latency": min(lats) if lats else None, "max_latency": max(lats) if lats else None,
                   "evaluated": len(ok)}
        grid_rows.append([T, _short(best_cap["spec"]), data[T]["best_bottleneck"], _short(best_ring["spec"]),
                          _short(best_lat["spec"]), data[T]["torus_bottleneck"],
                          " / ".join(_f(_lat(torus, i), ".2f") for i in range(len(scales))),
                          " / ".join(_f(x["average_latency"], ".2f") for x in tr)])
    pool = (f"the first {rows_limit} row graphs of part (a)" if rows_limit else "all 194 row graphs of part (a)") + \
        " and the 36 column and upper-level graphs of part (b)"
    out = [
        _model_text() + f"Table I (bgl-midplane pool: {pool}; capacity in demand multiples, flow in wires; latency "
        f"in ns at demand scale {scales[0]}). Baseline: the 8x8x8 torus with uniform wiring (its links all alike, as the real "
        "machine's and the paper's torus); the compositions with flexible wiring (the paper's design flow). "
        "'rings only': the best of part (a), columns and upper level rings of 4 (the pool recorded before); "
        "'torus, flexible': the same torus if the flow could choose its wires (reference only).\n\n" + table(
            ["T", "best capacity", "torus capacity", "best / torus", "paper", "rings only / torus",
             "torus, flexible", "best latency", "torus latency", "torus / best", "paper torus / best (min)"], rows),
        "Which candidates, and the trade-off (the paper's Fig. 3: the best latency at each demand scale "
        f"{' / '.join(f'{x:g}' for x in scales)}; '-': nothing in the pool, or not the torus, carries that "
        "load):\n\n" + table(
            ["T", "best capacity", "bound by", "best with rings only", "best latency", "torus bound by",
             "torus latency per scale", "best latency per scale"], grid_rows)]
    if _queueing():
        out.append(_queueing_curve_text(data, scales))
    # the column and upper-level graphs of part (b), at the first demand count
    T0, res0 = sw.variants[0][1].study.traffic.count, sw.variants[0][1]
    names = list(GRAPH4)
    row = "g6:Gr`GpK"
    grid = []
    for c in names:
        line = [GRAPH4[c]]
        for u in names:
            r = _record(res0, f"bgl:{row}*{c}*{u}*{u}")
            line.append("-" if _cap(r) is None else f"{_cap(r):.2f} ({_f(_lat(r), '.2f')})")
        grid.append(line)
    data["evaluations"] = _evaluations(sw)
    data["grid"] = {(c, u): (_cap(_record(res0, f"bgl:{row}*{c}*{u}*{u}")), _lat(_record(res0, f"bgl:{row}*{c}*{u}*{u}")))
                    for c in names for u in names}
    out.append(f"Part (b) at T = {T0}: row graph {row}, the column graph (rows of the table) and the upper-level "
               "graph (columns; the same along the midplane's rows and columns) over the six connected 4-node graphs; "
               f"capacity (latency in ns at scale {scales[0]}). Uniform-wired torus: "
               f"{data[T0]['torus_capacity']:.2f} ({_f(data[T0]['torus_latency'], '.2f')}).\n\n"
               + table(["columns \\ upper"] + [GRAPH4[u] for u in names], grid))
    try:
        plt = _plt()
        fig, ax = plt.subplots(figsize=(6, 4))
        for k, (T, tr) in enumerate(curves.items()):
            pts = [(x["scale"], x["average_latency"]) for x in tr if x["average_latency"] is not None]
            if pts:
                ax.plot(*zip(*pts), "o-", color=f"C{k}", label=f"best, T = {T}")
            tp = [(sc, lt) for sc, lt in zip(scales, data[T]["torus_latencies"]) if lt is not None]
            if tp:
                ax.plot(*zip(*tp), "s--", color=f"C{k}", label=f"torus (uniform), T = {T}")
        ax.set_xlabel("demand scale")
        ax.set_ylabel("minimum average latency (ns)")
        ax.legend(fontsize=7)
        fig.savefig(FIGS / _figname("tradeoff", rows_limit), dpi=90, bbox_inches="tight")
        plt.close(fig)
        out.append(f"Trade-off curves (the paper's Fig. 3): `benchmarks/figures/{_figname('tradeoff', rows_limit)}`.")
    except Exception as exc:  # the numbers matter more than the picture
        out.append(f"(figure not written: {exc})")
    return "\n\n".join(out), data


def _model_text() -> str:
    """What the latencies of a part are, under the queueing model (empty under the linear one)."""
    if not _queueing():
        return ""
    q = _study(_base_study(1)).queueing
    return (f"Load model: queueing (--load-model queueing): a unit of flow pays the router and wire delay of every "
            f"channel it crosses plus Kleinrock's wait tau rho / (1 - rho) there (rho = flow / width; flexible "
            f"wiring chooses the widths with the flow within the board and connector resources), tau = "
            f"{q.tau:.1f} ns (the study default: service {q.service:.1f} ns, a 256-byte packet on one 1.4 Gb/s "
            f"wire, variability {q.variability:g}, M/M/1; not fitted to the paper); minimised by flow deviation, "
            "certified within eps = 5%. Capacities do not depend on the load model. ")


def _pct_or(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _queueing_curve_text(data: dict, scales: list[float]) -> str:
    """Table I's trade-off under the queueing model: at each demand count and scale the best candidate, its
    latency's two parts and how loaded it is, and the uniform-wired torus's."""
    rows = []
    for T, d in data.items():
        if not isinstance(T, int):
            continue
        for i, x in enumerate(d["tradeoff"]):
            tp, tl = d["torus_parts"][i], d["torus_latencies"][i]
            cap = d["capacities"].get(x["best"]) if x["best"] else None
            rows.append([T, f"{x['scale']:g}", _short(x["best"]), _f(x["average_latency"], ".1f"),
                         _f(x["zero_load_part"], ".2f"), _f(x["queueing_part"], ".1f"),
                         _pct_or(x["max_channel_load"]), _pct_or(cap and x["scale"] / cap),
                         _f(tl, ".1f"), _f(tp["zero_load_part"], ".2f"), _f(tp["queueing_part"], ".1f"),
                         _pct_or(tp["max_channel_load"]), _pct_or(x["scale"] / d["torus_capacity"])])
    return ("Under the queueing model, the trade-off point by point: the best candidate at each demand count T and "
            "scale, its average latency (ns) = router and wire part + queueing part, its busiest channel's "
            "utilisation (flow / width of the latency-optimal flow) and the scale as a share of its capacity; the "
            "same for the uniform-wired torus ('-': it cannot carry the scale).\n\n" + table(
                ["T", "scale", "best", "latency", "router + wire", "queueing", "busiest channel", "of capacity",
                 "torus latency", "torus router + wire", "torus queueing", "torus busiest channel",
                 "torus: of capacity"], rows))


# ---------------------------------------------------------------------------------------------- Figs. 4/5


def pins_sweep(rows_limit: int | None, jobs: int, workdir: Path | None) -> tuple[str, list]:
    d = copy.deepcopy(BUILTIN_STUDIES["bgl-pins"])
    if rows_limit:
        d["candidates"]["hierarchy"]["limit"] = rows_limit
    lim = d["candidates"]["hierarchy"]["limit"]
    d["ranking"]["prune"] = False
    sw = _run(d, workdir, "pins", jobs)
    summ = sw.summary()
    summ[0]["evaluations"] = _evaluations(sw)
    base = summ[0]["latency"]
    rows = []
    for s, (_, res) in zip(summ, sw.variants):
        info = row_graph_info(s["winner"]) if s["winner"] else {"edges": [], "long": 0, "span": 0}
        s["row_graph"] = info
        torus = _record(res, TORUS)
        s["torus_capacity"] = _cap(torus)
        s["torus_latency"] = _lat(torus)
        caps = [r for r in _records(res) if r["status"] == "ok" and r["spec"] != TORUS]
        s["best_capacity_spec"] = _best_capacity(caps)["spec"]
        s["winner_capacity"] = _cap(_record(res, s["winner"])) if s["winner"] else None
        s["winner_parts"] = _parts(_record(res, s["winner"]) if s["winner"] else None)
        s["torus_parts"] = _parts(torus)
        rows.append([s["variant"], _short(s["winner"]), "-" if s["latency"] is None else f"{s['latency']:.3f}",
                     "-" if s["latency"] is None or base is None else f"{100 * (s['latency'] / base - 1):+.1f}%",
                     f"{s['best_capacity']:.3f}", _short(s["best_capacity_spec"]), f"{s['torus_capacity']:.3f}",
                     _f(s["torus_latency"], ".3f"), len(info["edges"]), info["long"], info["span"],
                     " ".join(f"{u}-{v}" for u, v in info["edges"])])
    text = (f"Pins sweep (the paper's Figs. 4 and 5; scale 1.6, T = 2048; bgl-pins pool: the first {lim} row "
            "graphs with rings of 4 and the 36 column and upper-level graphs of part (b)): the winner, its minimum "
            "latency (ns), the change from 200 pins, the best capacity and which candidate has it, the uniform-wired "
            "torus's capacity and latency ('-': it cannot carry scale 1.6), and the winner's row graph (Fig. 5): "
            "links, long links (joining routers more than one position apart), total span in positions, the links. "
            f"Paper: {PAPER_FIG4}; its Fig. 5 shows long links in the winner when pins are scarce and fewer as pins "
            "grow.\n\n" + table(
                ["pins", "winner", "latency", "change", "best capacity", "best capacity by", "torus capacity",
                 "torus latency", "links", "long links", "span", "row graph"], rows))
    if _queueing():
        text += ("\n\nUnder the queueing model, the winner's latency (ns) = router and wire part + queueing part, its "
                 "busiest channel's utilisation, and scale 1.6 as a share of its capacity:\n\n" + table(
                     ["pins", "latency", "router + wire", "queueing", "busiest channel", "of capacity"],
                     [[s["variant"], _f(s["latency"], ".1f"), _f(s["winner_parts"]["zero_load_part"], ".2f"),
                       _f(s["winner_parts"]["queueing_part"], ".1f"), _pct_or(s["winner_parts"]["max_channel_load"]),
                       _pct_or(s["winner_capacity"] and 1.6 / s["winner_capacity"])] for s in summ]))
    try:
        plt = _plt()
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
        pins = [int(s["variant"].split("=")[1]) for s in summ]
        a1.plot(pins, [s["latency"] for s in summ], "o-", label="ours (ns)")
        a1.set_xlabel("network pins per node card")
        a1.set_ylabel("winner's minimum latency (ns)")
        a1.set_title("Fig. 4 (scale 1.6, T = 2048)")
        b = a1.twinx()
        b.plot(pins, [s["best_capacity"] for s in summ], "s--", color="C1", label="best")
        b.plot(pins, [s["torus_capacity"] for s in summ], "^:", color="C2", label="torus (uniform)")
        b.legend(fontsize=7, loc="center right")
        b.set_ylabel("best capacity (demand multiples)", color="C1")
        for k, s in enumerate(summ):
            y = len(summ) - 1 - k
            a2.plot(range(8), [y] * 8, "ko", ms=4)
            for u, v in s["row_graph"]["edges"]:
                if v - u == 1:
                    a2.plot([u, v], [y, y], "k-", lw=1)
                else:
                    xs = np.linspace(u, v, 30)
                    a2.plot(xs, y + 0.12 * (v - u) * np.sin(np.pi * (xs - u) / (v - u)), "C3-", lw=1)
            a2.text(-0.5, y, f"{pins[k]}", ha="right", va="center", fontsize=8)
        a2.set_axis_off()
        a2.set_title("Fig. 5: the winner's row graph (long links red)")
        fig.savefig(FIGS / _figname("pins", rows_limit), dpi=90, bbox_inches="tight")
        plt.close(fig)
        text += f"\n\nFigs. 4 and 5: `benchmarks/figures/{_figname('pins', rows_limit)}`."
    except Exception as exc:
        text += f"\n\n(figure not written: {exc})"
    return text, summ


# ---------------------------------------------------------------------------------------------- Table II


def locations(topo) -> np.ndarray:
    """Router -> physical location 0..511 of a placed midplane candidate: node card (row-major on
    the midplane's 4 x 4 grid) x 32 + compute card (row-major on the node card) x 2 + position on
    the compute card. The bgl compositions and the block-placed torus lay out compute cards on a
    node card differently (2 x 8 and 4 x 4); both have 16, numbered row-major."""
    sl = topo.placement.slot_grid()
    nc = sl[:, 2, 0] * (sl[:, 2, 1].max() + 1) + sl[:, 2, 1]
    cc = sl[:, 1, 0] * (sl[:, 1, 1].max() + 1) + sl[:, 1, 1]
    sub = sl[:, 0, 0] * (sl[:, 0, 1].max() + 1) + sl[:, 0, 1]
    loc = nc * 32 + cc * 2 + sub
    if sorted(loc.tolist()) != list(range(topo.n)) or topo.n != 512:
        raise ValueError(f"{topo.spec}: the placement does not give 512 distinct locations")
    return loc


def location_distance() -> np.ndarray:
    """The packaging distance the placement anneals on (a latency estimate that ignores congestion
    and is the same for every candidate): 1 on the same compute card, 2 on the same node card,
    2 + the Manhattan distance of the node cards on the midplane otherwise."""
    loc = np.arange(512)
    card, nc = loc // 2, loc // 32
    r, c = nc // 4, nc % 4
    far = 2.0 + np.abs(r[:, None] - r[None, :]) + np.abs(c[:, None] - c[None, :])
    D = np.where(card[:, None] == card[None, :], 1.0, np.where(nc[:, None] == nc[None, :], 2.0, far))
    np.fill_diagonal(D, 0.0)
    return D


def app_location_matrix(app: str, seed: int = 1, steps: int | None = None) -> tuple[np.ndarray, dict]:
    """The bytes of a NAS class-B skeleton at the paper's process count, placed on the midplane's
    512 locations by simulated annealing (synth.mapping.anneal) on location_distance(), normalised
    to one unit of demand per process on average."""
    from flows import Demands
    from sim.nas import nas
    from sim.trace import SEND

    from synth.mapping import anneal

    P = APPS[app]
    tr = nas(app, P, "B", seed=seed, iterations=2)   # every iteration sends the same: 2 of them suffice
    M = tr.byte_matrix()
    M *= P / M.sum()
    d = copy.deepcopy(BUILTIN_STUDIES["bgl-midplane"])
    ref = build_topology("bgl:ring:8*ring:4*ring:4*ring:4", _study(d))
    loc = locations(ref)
    D = location_distance()[np.ix_(loc, loc)]
    res = anneal(Demands.from_matrix(M), ref, seed=seed, distance=D, num_tasks=P, steps=steps)
    where = loc[res.placement.router]
    L = np.zeros((512, 512))
    np.add.at(L, (where[:, None].repeat(P, 1), where[None, :].repeat(P, 0)), M)
    used = np.bincount(where // 32, minlength=16)
    return L, {"processes": P, "pairs": int((M > 0).sum()), "messages": int((tr.kind == SEND).sum()),
               "anneal_start": res.start_cost, "anneal_cost": res.cost, "node_cards_used": int((used > 0).sum()),
               "share_same_card": float(L[(np.arange(512)[:, None] // 2) == (np.arange(512)[None, :] // 2)].sum() / L.sum()),
               "share_same_node_card": float(L[(np.arange(512)[:, None] // 32) == (np.arange(512)[None, :] // 32)].sum()
                                             / L.sum())}


def _demand_file(L: np.ndarray, topo, folder: Path, name: str) -> str:
    """The location matrix as router demands of this candidate family, in a CSV named by content."""
    from flows import Demands

    loc = locations(topo)
    dem = Demands.from_matrix(L[np.ix_(loc, loc)])
    body = "src,dst,amount\n" + "".join(f"{s},{t},{a!r}\n" for s, t, a in
                                        zip(dem.src.tolist(), dem.dst.tolist(), dem.amount.tolist()))
    h = hashlib.sha256(body.encode()).hexdigest()[:12]
    path = folder / f"{name}-{h}.csv"
    if not path.exists():
        path.write_text(body)
    return str(path)


def _app_study(rows_limit: int | None, csv: str, scales: list[float], wiring: str, torus: bool) -> dict:
    d = _base_study(rows_limit)
    d["name"] = "bgl-nas"
    if torus:
        d["candidates"] = {"specs": [TORUS]}
    else:
        d["candidates"] = {"specs": [x for x in d["candidates"]["specs"] if x != TORUS],
                           "hierarchy": d["candidates"]["hierarchy"]}
    d["traffic"] = {"pattern": "file", "file": csv, "scales": list(scales)}
    d["physical"] = {**d["physical"], "wiring": wiring}
    # prune: a candidate whose zero-load latency bound cannot beat the best so far (at the first
    # scale) skips the PTAS; only optima are reported, so this changes no number in Table II
    d["ranking"] = {"objective": "both" if scales else "capacity", "eps": 0.05, "prune": True}
    return d


def _traffic_runs(name: str, L: np.ndarray, rows_limit: int | None, jobs: int, workdir: Path | None,
                  demand_dir: Path, fractions: tuple[float, ...], uniform: bool) -> dict:
    """The uniform-wired torus's capacity first (it fixes the demand scales), then the torus with
    uniform and flexible wiring and the pool at those scales, with flexible wiring (and, for the
    UNIFORM_TOP best of it, uniform wiring)."""
    d0 = _base_study(1)
    torus_t = build_topology(TORUS, _study(d0))
    bgl_t = build_topology("bgl:ring:8*ring:4*ring:4*ring:4", _study(d0))
    csv_t = _demand_file(L, torus_t, demand_dir, f"{name}-torus")
    csv_b = _demand_file(L, bgl_t, demand_dir, f"{name}-bgl")
    cap = _evaluate(TORUS, _study(_app_study(rows_limit, csv_t, [], "uniform", True)))
    lam_t = _cap(cap)
    scales = [float(f"{f * lam_t:.4g}") for f in fractions]
    out = {"scales": scales, "torus_lambda": lam_t}
    for wiring in ("uniform", "flexible"):    # the torus: the real machine's wiring, and the flow's
        out[f"torus_{wiring}"] = _evaluate(TORUS, _study(_app_study(rows_limit, csv_t, scales, wiring, True)))
    for wiring in ("flexible", "uniform") if uniform else ("flexible",):
        d = _app_study(rows_limit, csv_b, scales, wiring, False)
        tag = wiring
        if wiring == "uniform":
            # uniform wiring costs 10-100x more per candidate in flows (measured: 7-80 s for capacity plus
            # 5-110 s for latency): only the best candidates under flexible wiring
            top = UNIFORM_TOP if rows_limit is None else UNIFORM_TOP_QUICK
            ok = sorted((r for r in out["pool_flexible"] if _lat(r, 0) is not None), key=lambda r: _lat(r, 0))
            d["candidates"] = {"specs": [r["spec"] for r in ok[:top]]}
            tag = f"uniform-top{top}"
        res = _run(d, workdir, f"table2-{name}-{tag}", jobs)
        out[f"pool_{wiring}"] = _records(res)
        out[f"resumed_{wiring}"] = res.resumed
        out[f"study_{wiring}"] = d
    return out


#: candidates evaluated under uniform wiring in Table II (the best under flexible wiring), full and quick
UNIFORM_TOP = 6
UNIFORM_TOP_QUICK = 3


def table2_data(rows_limit: int | None, jobs: int, workdir: Path | None, apps: tuple[str, ...] = tuple(APPS),
                fractions: tuple[float, ...] = LOADS, fig6: tuple[float, ...] = FIG6_LOADS) -> dict:
    """Everything Table II (and Fig. 6) needs; see the module docstring. The optima are chosen
    by latency at the first load; ``rows[load][app]`` has them at every load."""
    t0 = time.perf_counter()
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory()
        demand_dir = Path(tmp.name)
    else:
        demand_dir = workdir / "demands"
        demand_dir.mkdir(parents=True, exist_ok=True)
    try:
        mats, info, runs = {}, {}, {}
        for app in apps:
            mats[app], info[app] = app_location_matrix(app)
            runs[app] = _traffic_runs(app, mats[app], rows_limit, jobs, workdir, demand_dir, fractions, True)
        agg = sum(mats.values()) / len(mats)
        runs["aggregate"] = _traffic_runs("aggregate", agg, rows_limit, jobs, workdir, demand_dir,
                                          tuple(fractions) + tuple(fig6), False)
        agg_opt = _best_latency(runs["aggregate"]["pool_flexible"], 0)
        rows: dict = {f: {} for f in fractions}
        for app in apps:
            r = runs[app]
            opt = _best_latency(r["pool_flexible"], 0)
            uni = _best_latency(r["pool_uniform"], 0)
            agg_rec = next((x for x in r["pool_flexible"] if agg_opt and x["spec"] == agg_opt["spec"]), None)
            if agg_opt and (agg_rec is None or agg_rec["status"] != "ok"):   # pruned there: evaluate it
                agg_rec = _evaluate(agg_opt["spec"], _study(r["study_flexible"]))
            best = _best_capacity(r["pool_flexible"])
            best_u = _best_capacity(r["pool_uniform"])
            for i, f in enumerate(fractions):
                rows[f][app] = {
                    "scale": r["scales"][i],
                    "optimal": opt and opt["spec"], "optimal_latency": opt and _lat(opt, i),
                    "optimal_capacity": opt and _cap(opt),
                    "best_capacity": best and _cap(best),
                    "aggregate": agg_opt and agg_opt["spec"], "aggregate_latency": agg_rec and _lat(agg_rec, i),
                    "aggregate_capacity": agg_rec and _cap(agg_rec),
                    "uniform": uni and uni["spec"], "uniform_latency": uni and _lat(uni, i),
                    "uniform_capacity": uni and _cap(uni),
                    "best_uniform_capacity": best_u and _cap(best_u),
                    # the paper's 3D torus: the real machine, links all alike (uniform wiring)
                    "torus_latency": _lat(r["torus_uniform"], i), "torus_capacity": _cap(r["torus_uniform"]),
                    "torus_flexible_latency": _lat(r["torus_flexible"], i),
                    "torus_flexible_capacity": _cap(r["torus_flexible"]),
                    # the queueing model's parts of each column's latency (None under the linear model)
                    "parts": {"optimal": _parts(opt, i), "aggregate": _parts(agg_rec, i),
                              "uniform": _parts(uni, i), "torus": _parts(r["torus_uniform"], i)},
                    "evaluated": sum(1 for x in r["pool_flexible"] if x["status"] == "ok"),
                    "evaluated_uniform": sum(1 for x in r["pool_uniform"] if x["status"] == "ok"),
                }
    finally:
        if tmp is not None:
            tmp.cleanup()
    for r in runs.values():
        r.pop("study_flexible", None)
        r.pop("study_uniform", None)
    return {"apps": list(apps), "info": info, "runs": runs, "rows": rows, "fractions": list(fractions),
            "fig6": list(fig6), "seconds": time.perf_counter() - t0}


def table2_text(data: dict, rows_limit: int | None) -> str:
    tab = data["rows"]
    out = []
    pool = (f"first {rows_limit} row graphs" if rows_limit else "all 194 row graphs") + \
        " and the 36 column and upper-level graphs of part (b); uniform wiring: the " + \
        f"{UNIFORM_TOP_QUICK if rows_limit else UNIFORM_TOP} best under flexible wiring"
    inf = data["info"]
    out.append(
        _model_text() + "Table II (NAS class B skeletons of sim.nas, BT/SP on 121 processes, CG/LU/MG on 128, placed on the "
        "midplane by simulated annealing on the packaging distance; bytes per pair normalised to one demand unit "
        f"per process; pool: {pool}, the torus apart). Traffic after placement:\n\n" + table(
            ["app", "processes", "pairs", "node cards used", "inside a compute card", "inside a node card"],
            [[a.upper(), inf[a]["processes"], inf[a]["pairs"], inf[a]["node_cards_used"],
              f"{100 * inf[a]['share_same_card']:.0f}%", f"{100 * inf[a]['share_same_node_card']:.0f}%"]
             for a in data["apps"]]))
    for f, rows in tab.items():
        body = []
        for app in data["apps"]:
            r = rows[app]
            o = r["optimal_latency"]
            p = PAPER_TABLE2[app]

            def rel(x):
                return "-" if x is None else f"{x:.2f}" if o is None else f"{x:.2f} ({x / o:.2f})"

            body.append([app.upper(), f"{r['scale']:.4g}", _short(r["optimal"]), _f(o, ".2f"),
                         rel(r["aggregate_latency"]), rel(r["uniform_latency"]), rel(r["torus_latency"]),
                         rel(r["torus_flexible_latency"]),
                         f"{p[0]:.2f} / " + " / ".join(f"{x:.2f}" for x in PAPER_TABLE2_RATIOS[app])])
        out.append(
            f"Table II, latency (ns; in brackets normalised to the per-application optimum) at {f:g} x the "
            "uniform-wired torus's capacity for that traffic (scale in demand units; the optima are those chosen at "
            f"{data['fractions'][0]:g} x; '-': the design cannot carry this load). Aggregate: the pool's optimum for the "
            "mean of the five placed patterns, evaluated on each; uniform: the optimum when every board "
            "cross-section and connector is split equally over the links using it; 3D torus: the 8x8x8 torus with "
            "uniform wiring (the real machine's equal links, the paper's torus); last, for reference, the same "
            "torus if the flow chose its wires. Paper: optimum (us) / aggregate / uniform / 3D torus "
            "normalised, as printed in its brackets.\n\n" + table(
                ["app", "scale", "optimum", "optimal", "aggregate", "uniform", "3D torus", "torus, flexible",
                 "paper opt / agg / uni / torus"], body))
        if _queueing():
            def part(x):
                return "-" if x["zero_load_part"] is None else \
                    f"{x['zero_load_part']:.2f} / {x['queueing_part']:.1f} / {_pct_or(x['max_channel_load'])}"

            cols = ("optimal", "aggregate", "uniform", "torus")
            out.append(f"Under the queueing model, at {f:g} x: each column's latency split into its router and wire "
                       "part / its queueing part (ns) / its busiest channel's utilisation.\n\n" + table(
                           ["app"] + list(cols), [[a.upper()] + [part(rows[a]["parts"][c]) for c in cols]
                                                  for a in data["apps"]]))
    rows = tab[data["fractions"][0]]
    body = []
    for app in data["apps"]:
        r = rows[app]
        body.append([app.upper(), _f(r["optimal_capacity"]), _f(r["best_capacity"]), _f(r["aggregate_capacity"]),
                     _f(r["uniform_capacity"]), _f(r["best_uniform_capacity"]), _f(r["torus_capacity"]),
                     _f(r["torus_flexible_capacity"]),
                     _f(r["best_capacity"] / r["torus_capacity"], ".2f") if r["torus_capacity"] else "-"])
    out.append("Table II, capacity (demand multiples): the per-app "
               "optimum, the best capacity among the candidates evaluated (not pruned), the aggregate's optimum on the app, the uniform-wiring optimum "
               "and the best uniform capacity, the 3D torus (uniform wiring) and, for reference, the torus with "
               "flexible wiring, best / 3D torus. The paper "
               "gives no capacities for Table II; its Fig. 6 says the optimum carries 'much larger' traffic.\n\n"
               + table(["app", "optimum", "best evaluated", "aggregate opt.", "uniform opt.", "best uniform",
                        "3D torus", "torus, flexible", "best / torus"], body))
    recs = [rec for run in data["runs"].values() for key, v in run.items() if key.startswith("pool_") for rec in v]
    torus = [v for run in data["runs"].values() for key, v in run.items() if key.startswith("torus_")
             and isinstance(v, dict)]
    solvers: dict[str, int] = {}
    for x in (x for rec in recs + torus for x in rec.get("latency") or []):
        if x.get("average_latency") is not None:
            solvers[x.get("solver", "ptas")] = solvers.get(x.get("solver", "ptas"), 0) + 1
    resumed = sum(v for run in data["runs"].values() for key, v in run.items() if key.startswith("resumed_"))
    out.append(f"Candidate evaluations: {len(recs)}, {resumed} of them taken from an earlier run in --workdir; "
               f"their own evaluation time adds up to {sum(r.get('seconds', 0) for r in recs) / 60:.0f} CPU-minutes "
               "(the run time below counts only this run).")
    if solvers and _queueing():
        lats = [x for rec in recs + torus for x in rec.get("latency") or [] if x.get("average_latency") is not None]
        short = sum(1 for x in lats if x.get("solver_status") != "optimal")
        out.append(f"Latencies: all {len(lats)} by flow deviation under the queueing model, "
                   f"{len(lats) - short} certified within eps = 5% of the optimum (the optimum is at most 5% lower)"
                   + (f", {short} stopped short of eps (their bound is still certified)" if short else "")
                   + "; differences below 5% between two designs are not significant.")
    elif solvers:
        out.append(f"Latencies: {solvers.get('lp', 0)} of {sum(solvers.values())} are exact LP optima (HiGHS), "
                   "computed near a design's capacity, where the PTAS search (its budget: the phases of one capacity "
                   "run) stopped short of eps or the load lay inside the certified capacity bracket; the others are PTAS values certified within eps = 5% of the optimum (the "
                   "optimum is at most 5% lower), so differences below 5% between two designs are not significant.")
    ag = data["runs"]["aggregate"]
    curve = []
    for j, s in enumerate(ag["scales"]):
        b = _best_latency(ag["pool_flexible"], j)
        curve.append((s, b and _lat(b, j), _lat(ag["torus_uniform"], j), b and b["spec"],
                      _lat(ag["torus_flexible"], j)))
    curve.sort()
    out.append("Fig. 6 (aggregate traffic; the uniform-wired torus's capacity "
               f"{ag['torus_lambda']:.3f}, the flexible torus's {_cap(ag['torus_flexible']):.3f}): best minimum "
               "latency (ns) of the pool and of the 3D torus (uniform wiring; and, for reference, flexible) per demand "
               f"scale; `benchmarks/figures/{_figname('fig6', rows_limit)}`.\n\n" + table(
                   ["scale", "optimum", "3D torus", "torus, flexible", "winner"],
                   [[f"{s:.4g}", _f(a, ".2f"), _f(t, ".2f"), _f(tf, ".2f"), _short(w)] for s, a, t, w, tf in curve]))
    if _queueing():
        qrows = []
        for j, s in sorted(enumerate(ag["scales"]), key=lambda x: x[1]):
            b = _best_latency(ag["pool_flexible"], j)
            bp, tp = _parts(b, j), _parts(ag["torus_uniform"], j)
            qrows.append([f"{s:.4g}", _f(bp["zero_load_part"], ".2f"), _f(bp["queueing_part"], ".1f"),
                          _pct_or(bp["max_channel_load"]), _pct_or(b and s / _cap(b)),
                          _f(tp["zero_load_part"], ".2f"), _f(tp["queueing_part"], ".1f"),
                          _pct_or(tp["max_channel_load"]), _pct_or(s / ag["torus_lambda"])])
        out.append("Fig. 6 under the queueing model: the optimum's and the 3D torus's latency split into the router "
                   "and wire part and the queueing part (ns), the busiest channel's utilisation and the scale as a "
                   "share of the design's capacity.\n\n" + table(
                       ["scale", "optimum: router + wire", "queueing", "busiest channel", "of capacity",
                        "3D torus: router + wire", "queueing", "busiest channel", "of capacity"], qrows))
    try:
        plt = _plt()
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([c[0] for c in curve if c[1]], [c[1] for c in curve if c[1]], "o-", label="optimum of the pool")
        ax.plot([c[0] for c in curve if c[2]], [c[2] for c in curve if c[2]], "s-", label="8x8x8 torus (uniform)")
        ax.plot([c[0] for c in curve if c[4]], [c[4] for c in curve if c[4]], "^:", label="torus, flexible wiring")
        ax.set_xlabel("demand scale (aggregate NAS traffic)")
        ax.set_ylabel("minimum average latency (ns)")
        ax.legend()
        fig.savefig(FIGS / _figname("fig6", rows_limit), dpi=90, bbox_inches="tight")
        plt.close(fig)
        fig, ax = plt.subplots(figsize=(8, 3.8))
        cols = ["aggregate_latency", "uniform_latency", "torus_latency"]
        names = ["aggregate", "uniform", "torus"]
        x = np.arange(len(data["apps"]))
        for k, (c, nm) in enumerate(zip(cols, names)):
            ours = [(rows[a][c] or np.nan) / rows[a]["optimal_latency"] for a in data["apps"]]
            paper = [PAPER_TABLE2_RATIOS[a][k] for a in data["apps"]]
            ax.bar(x + (2 * k - 2.5) * 0.13, ours, 0.13, color=f"C{k}", label=f"{nm} (ours)")
            ax.bar(x + (2 * k - 1.5) * 0.13, paper, 0.13, color=f"C{k}", alpha=0.4, hatch="//", label=f"{nm} (paper)")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(x, [a.upper() for a in data["apps"]])
        ax.set_ylabel("latency / per-app optimum")
        ax.set_title(f"Table II at {data['fractions'][0]:g} x torus capacity")
        # the legend below the plot: inside, it hides the tallest bars
        ax.legend(ncol=3, fontsize=7, loc="lower center", bbox_to_anchor=(0.5, -0.32))
        fig.savefig(FIGS / _figname("table2", rows_limit), dpi=90, bbox_inches="tight")
        plt.close(fig)
        out.append(f"Table II as bars, ours beside the paper's: `benchmarks/figures/{_figname('table2', rows_limit)}`.")
    except Exception as exc:
        out.append(f"(figures not written: {exc})")
    return "\n\n".join(out)


# ---------------------------------------------------------------------------------------------- sensitivity

#: one board assumption changed at a time from flows.Packaging.bluegene_l() (and Technology()):
#: label -> (board changes per level, router pins, technology overrides)
SETTINGS: dict[str, tuple[dict, int | None, dict]] = {
    "ours (baseline)": ({}, None, {}),
    "node-card pins 400": ({"node_card": {"connectors": 1, "pins_per_connector": 400}}, None, {}),
    "node-card pins 800": ({"node_card": {"connectors": 1, "pins_per_connector": 800}}, None, {}),
    "compute-card pins 240": ({"compute_card": {"pins_per_connector": 240}}, None, {}),
    "compute-card pins 480": ({"compute_card": {"pins_per_connector": 480}}, None, {}),
    "all pins x4 (480 / 800)": ({"compute_card": {"pins_per_connector": 480},
                                 "node_card": {"connectors": 1, "pins_per_connector": 800}}, None, {}),
    "no connector limit": ({"compute_card": {"connectors": 0}, "node_card": {"connectors": 0}}, None, {}),
    "no connector limit, cross-sections / 4": (
        {"compute_card": {"connectors": 0, "wire_pitch_m": 0.004}, "node_card": {"connectors": 0, "wire_pitch_m": 0.004},
         "midplane": {"wire_pitch_m": 0.004}}, None, {}),
    "router pins 96, no connector limit": ({"compute_card": {"connectors": 0}, "node_card": {"connectors": 0}}, 96, {}),
    "router pins 96 + our connectors": ({}, 96, {}),
    "wire delay 3.55 ns/m": ({}, None, {"wire_delay_ns_per_m": 3.55}),
    "wire delay 14.2 ns/m": ({}, None, {"wire_delay_ns_per_m": 14.2}),
    "router delay x2 (FO4 64 ps)": ({}, None, {"fo4_ns": 0.064}),
}
QUICK_SETTINGS = ("ours (baseline)", "node-card pins 400", "node-card pins 800", "compute-card pins 480",
                  "no connector limit", "router pins 96, no connector limit", "wire delay 14.2 ns/m")


def _resource_kind(name: str) -> str:
    for key, kind in (("node_card", "node-card"), ("compute_card", "compute-card"), ("midplane", "midplane"),
                      ("router", "router")):
        if name.startswith(key):
            what = "pins" if "pins" in name else "cross-section" if "cross-section" in name else name
            return f"{kind} {what}"
    return name


def sensitivity_data(rows_limit: int | None, jobs: int, workdir: Path | None,
                     settings: tuple[str, ...] = tuple(SETTINGS), count: int = 2048, load: float = 0.5) -> list[dict]:
    """For each board setting: the torus's capacity, then the pool (first rows_limit row graphs and
    the torus) at ``load`` x that capacity, local traffic of ``count`` demands as in Table I."""
    from flows.physical import Packaging

    base_boards = Packaging.bluegene_l().to_dict()["boards"]
    out = []
    for label in settings:
        changes, rpins, tech = SETTINGS[label]
        boards = [{**b, **changes.get(b["level"], {})} for b in base_boards]
        for b in boards:
            if b["connector_run_m"] is None:
                del b["connector_run_m"]
        d = _base_study(rows_limit)
        d["name"] = "bgl-sensitivity"
        # as recorded: the row graphs with rings of 4 against the torus, every one with flexible wiring
        d["candidates"]["specs"] = [TORUS]
        d["traffic"] = {**d["traffic"], "count": count}
        d["physical"] = {"packaging": "custom", "wiring": "flexible", "blocks": d["physical"]["blocks"],
                         "boards": boards, "pins_per_wire": 2, **({"router_pins": rpins} if rpins else {}),
                         **({"technology": tech} if tech else {})}
        dc = copy.deepcopy(d)
        dc["candidates"] = {"specs": [TORUS]}
        dc["traffic"]["scales"] = []
        dc["ranking"]["objective"] = "capacity"
        lam_t = _cap(_evaluate(TORUS, _study(dc)))
        d["traffic"]["scales"] = [float(f"{load * lam_t:.4g}")]
        slug = hashlib.sha256(label.encode()).hexdigest()[:8]
        res = _run(d, workdir, f"sensitivity-{slug}", jobs)
        torus = _record(res, TORUS)
        others = [r for r in _records(res) if r["spec"] != TORUS]
        bc, bl = _best_capacity(others), _best_latency(others)
        out.append({"setting": label, "scale": d["traffic"]["scales"][0],
                    "torus_capacity": _cap(torus), "best_capacity": _cap(bc), "best_capacity_spec": bc["spec"],
                    "torus_latency": _lat(torus), "best_latency": _lat(bl), "best_latency_spec": bl and bl["spec"],
                    "torus_bottleneck": _resource_kind(torus["capacity"]["bottlenecks"][0]["resource"]),
                    "best_bottleneck": _resource_kind(bc["capacity"]["bottlenecks"][0]["resource"]),
                    "capacities": sorted(_cap(r) for r in others if _cap(r) is not None)})
    return out


def sensitivity_text(data: list[dict], rows_limit: int | None) -> str:
    rows = []
    for s in data:
        ratio = s["best_capacity"] / s["torus_capacity"]
        red = None if s["best_latency"] is None or s["torus_latency"] is None else 1 - s["best_latency"] / s["torus_latency"]
        rows.append([s["setting"], f"{s['torus_capacity']:.3f}", f"{s['best_capacity']:.3f}", f"{ratio:.2f}",
                     f"{s['capacities'][len(s['capacities']) // 2]:.3f}", s["torus_bottleneck"], s["best_bottleneck"],
                     _f(s["torus_latency"], ".2f"), _f(s["best_latency"], ".2f"),
                     "-" if red is None else f"{100 * red:.0f}%", _short(s["best_capacity_spec"])])
    text = ("Board-data sensitivity (T = 2048 local demands as Table I; pool: the first "
            f"{rows_limit or 194} row graphs and the torus; latency at 0.5 x the torus's capacity in that "
            "setting). One assumption of flows.Packaging.bluegene_l (compute card 120 pins, node card 200, "
            "2 / 6 / 6 signal layers, 1 mm pitch; 7.1 ns/m; no router pin limit) changed at a time. Paper: best / "
            "torus capacity 1.8 (T = 2048) to 2.7 (4096); latency 12-56% lower.\n\n" + table(
                ["setting", "torus capacity", "best capacity", "best / torus", "median candidate",
                 "torus bound by", "best bound by", "torus latency", "best latency", "latency reduction",
                 "best (capacity)"], rows))
    try:
        plt = _plt()
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 0.45 * len(data) + 1.5), sharey=True)
        y = np.arange(len(data))[::-1]
        a1.barh(y, [s["best_capacity"] / s["torus_capacity"] for s in data], color="C0")
        a1.axvspan(1.8, 2.7, color="C1", alpha=0.2, label="paper (Table I)")
        a1.axvline(1.0, color="k", lw=0.8)
        a1.set_yticks(y, [s["setting"] for s in data], fontsize=8)
        a1.set_xlabel("best capacity / torus capacity")
        a1.legend(fontsize=7)
        a2.barh(y, [100 * (1 - s["best_latency"] / s["torus_latency"]) if s["best_latency"] and s["torus_latency"]
                    else 0 for s in data], color="C2")
        a2.axvspan(12, 56, color="C1", alpha=0.2, label="paper (12-56%)")
        a2.set_xlabel("latency reduction vs torus (%)")
        a2.legend(fontsize=7)
        fig.savefig(FIGS / _figname("sensitivity", rows_limit), dpi=90, bbox_inches="tight")
        plt.close(fig)
        text += f"\n\nAs bars: `benchmarks/figures/{_figname('sensitivity', rows_limit)}`."
    except Exception as exc:
        text += f"\n\n(figure not written: {exc})"
    return text


# ---------------------------------------------------------------------------------------------- notes

def _match_text(t1: dict, Ts: list[int], tol: float = 0.15) -> str:
    """Which of Table I's capacities match the paper within ``tol`` (relative)."""
    def close(a, b):
        return abs(a / b - 1) <= tol

    tor = [T for T in Ts if close(t1[T]["torus_capacity"], PAPER_TABLE1[T][1])]
    rat = [T for T in Ts if close(t1[T]["best_capacity"] / t1[T]["torus_capacity"], PAPER_TABLE1[T][0] / PAPER_TABLE1[T][1])]
    miss = [T for T in Ts if T not in rat]
    out = (f"Within {100 * tol:.0f}% of the paper: the torus's capacity at T = {', '.join(map(str, tor)) or 'none'} "
           "(in the paper's unnamed units; may be partly coincidence), the best / torus ratio at T = "
           f"{', '.join(map(str, rat)) or 'none'}.")
    if miss:
        out += (" Not matched: the ratio at T = " + ", ".join(
            f"{T} ({t1[T]['best_capacity'] / t1[T]['torus_capacity']:.2f} against "
            f"{PAPER_TABLE1[T][0] / PAPER_TABLE1[T][1]:.2f}; torus {t1[T]['torus_capacity']:.2f} against "
            f"{PAPER_TABLE1[T][1]:.1f})" for T in miss) + ".")
    return out


def t1_notes(t1: dict | None, pins: list | None, rows_limit: int | None) -> str:
    """The notes under Table I and the pins sweep, with every number taken from this run."""
    out = ["Notes on Table I and Figs. 3-5. Absolute numbers differ by construction: the paper's demand units and "
           "microseconds come from its unpublished board data, ours are wires and ns under the assumptions of "
           "flows.Packaging.bluegene_l. The baseline is now the uniform-wired torus (the real machine cannot move "
           "wires between its links; the paper's torus is the same fixed design, 'no topology optimizations')."]
    if t1:
        Ts = [T for T in PAPER_TABLE1 if T in t1]
        tc = ", ".join(f"{t1[T]['torus_capacity']:.2f}" for T in Ts)
        pc = ", ".join(f"{PAPER_TABLE1[T][1]:.1f}" for T in Ts)
        ratio = ", ".join(f"{t1[T]['best_capacity'] / t1[T]['torus_capacity']:.2f}" for T in Ts)
        pratio = ", ".join(f"{PAPER_TABLE1[T][0] / PAPER_TABLE1[T][1]:.2f}" for T in Ts)
        ring = ", ".join(f"{t1[T]['best_ring_capacity'] / t1[T]['torus_capacity']:.2f}" for T in Ts)
        gain = ", ".join(f"{100 * (t1[T]['best_capacity'] / t1[T]['best_ring_capacity'] - 1):.0f}%" for T in Ts)
        flex = ", ".join(f"{t1[T]['torus_capacity'] / t1[T]['torus_flexible_capacity']:.2f}" for T in Ts)
        bn = sorted({str(t1[T]["best_bottleneck"]) for T in Ts})
        tn = sorted({str(t1[T]["torus_bottleneck"]) for T in Ts})
        lr = ", ".join("-" if not (t1[T]["torus_latency"] and t1[T]["best_latency"]) else
                       f"{t1[T]['torus_latency'] / t1[T]['best_latency']:.2f}" for T in Ts)
        plr = ", ".join(f"{PAPER_TABLE1[T][4] / PAPER_TABLE1[T][2]:.2f}" for T in Ts)
        spread = ", ".join("-" if not t1[T]["min_latency"] else
                           f"+{100 * (t1[T]['max_latency'] / t1[T]['min_latency'] - 1):.0f}%" for T in Ts)
        pspread = ", ".join(f"+{100 * (PAPER_TABLE1[T][3] / PAPER_TABLE1[T][2] - 1):.0f}%" for T in Ts)
        tlat = ", ".join(_f(t1[T]["torus_latency"], ".2f") for T in Ts)
        g = t1.get("grid", {})
        k4 = g.get(("ring:4", "complete:4"), (None, None))[0]
        c4 = g.get(("ring:4", "ring:4"), (None, None))[0]
        kc = g.get(("complete:4", "ring:4"), (None, None))[0]
        grid_txt = ""
        if k4 and c4 and kc:
            grid_txt = (f" In part (b) (row g6:Gr`GpK, T = {Ts[0]}) the upper level decides the capacity: complete "
                        f"graphs of 4 there carry {k4:.2f} against {c4:.2f} with rings (+{100 * (k4 / c4 - 1):.0f}% at "
                        f"the same pins: fewer node cards crossed, less transit through their connectors), while "
                        f"complete columns inside the node card carry {kc:.2f} (the node-card pins still bind).")
        out.append(
            f"Capacity at T = {', '.join(map(str, Ts))}: the uniform-wired torus carries {tc} (paper {pc}; flow "
            f"limited by {', '.join(tn)}; it is {flex} x the same torus with flexible wiring). The best "
            f"composition carries {ratio} x the torus (paper {pratio}); with rings of 4 on the columns and the upper "
            f"level (the pool recorded before) {ring} x, so varying the column and upper-level graphs adds {gain}."
            + grid_txt + f" The best compositions are limited by {', '.join(bn)}."
            + " " + _match_text(t1, Ts))
        sc0 = _base_study(None)["traffic"]["scales"][0]
        load = ", ".join(f"{100 * sc0 / t1[T]['torus_capacity']:.0f}%" for T in Ts)
        grow = ("-" if not (t1[Ts[0]]["torus_latency"] and t1[Ts[-1]]["torus_latency"]) else
                f"{100 * (t1[Ts[-1]]['torus_latency'] / t1[Ts[0]]['torus_latency'] - 1):+.0f}%")
        pgrow = f"{100 * (PAPER_TABLE1[Ts[-1]][4] / PAPER_TABLE1[Ts[0]][4] - 1):+.0f}%"
        out.append(
            f"Latency at scale {sc0:g}: torus / best = {lr} (paper, torus / the optimum's minimum latency: {plr}). "
            f"The torus's latency {tlat} ns grows with T by {grow} from T = {Ts[0]} to {Ts[-1]} (paper {pgrow}: "
            f"6.63 / 10.54 / 15.06 us) while scale {sc0:g} loads it to {load} of its capacity; the paper's torus "
            "latencies look like a torus driven to or past its capacity (its own Table I: 0.3 at T = 4096), which a "
            "minimum-latency flow at a load it can carry does not reproduce. The best latency rises over the demand "
            f"scales it carries by {spread} (paper, from the minimum to the maximum demand: {pspread}): with flexible "
            "wiring a design's latency stays at its zero-load value until its capacity nears, so no other topology "
            "takes over at higher load in our pool.")
    if pins:
        base = pins[0]
        ch = []
        for s_ in pins[1:]:
            if s_["latency"] is not None and base["latency"]:
                ch.append(f"{s_['variant'].split('=')[1]}: {100 * (s_['latency'] / base['latency'] - 1):+.1f}%")
        tcap = [s_["torus_capacity"] for s_ in pins]
        out.append(
            "Pins (Fig. 4, scale 1.6, T = 2048): the winner's latency changes from 200 pins by "
            + (", ".join(ch) or "-") + f" (paper: {PAPER_FIG4}); the best capacity goes from "
            f"{pins[0]['best_capacity']:.2f} to {pins[-1]['best_capacity']:.2f}, the uniform-wired torus's from "
            f"{tcap[0]:.2f} to {tcap[-1]:.2f}"
            + (" (it cannot carry scale 1.6 at any pin count)" if all(s_["torus_latency"] is None for s_ in pins)
               else "") + " (changes below the PTAS's eps = 5% are not significant). At 200 pins the winner "
            f"has {_f(pins[0]['winner_capacity'] and pins[0]['winner_capacity'] / 1.6, '.2f')} x scale 1.6 "
            "as capacity: it is not congested, so more pins "
            "cannot lower its latency; the paper's winner at 1.6 was congested.")
    ev = [x["evaluations"] for x in ((t1 or {}), (pins or [{}])[0]) if x.get("evaluations")]
    if ev:
        n, r_, sec = (sum(e[k] for e in ev) for k in ("records", "resumed", "seconds"))
        out.append(f"Candidate evaluations: {n}, {r_} of them taken from an earlier run in --workdir; their own "
                   f"evaluation time adds up to {sec / 60:.0f} CPU-minutes (the run time below counts only this run).")
    return " ".join(out[:1]) + ("\n\n" + "\n\n".join(out[1:]) if len(out) > 1 else "")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workdir", type=Path, default=None,
                    help="keep (and resume) every study's records here instead of a temporary directory")
    ap.add_argument("--parts", default="table1,pins,table2,sensitivity")
    ap.add_argument("--load-model", choices=("linear", "queueing"), default="linear",
                    help="the latency's load model of every study (ranking.latency_model); queueing records its own "
                         "subsections and figures, and keeps its studies under WORKDIR/queueing")
    ap.add_argument("--progress", action="store_true", help="report every candidate evaluation on stderr")
    args = ap.parse_args(argv)
    global LOAD_MODEL, PROGRESS
    LOAD_MODEL, PROGRESS = args.load_model, args.progress
    if args.workdir is not None and _queueing():
        args.workdir = args.workdir / "queueing"
    global EVAL_CACHE
    EVAL_CACHE = None if args.workdir is None else args.workdir / "evaluations"
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    valid = ("table1", "pins", "table2", "sensitivity")
    if any(p not in valid for p in parts):
        ap.error(f"--parts: valid parts are {', '.join(valid)}")
    if args.record and ("table1" in parts) != ("pins" in parts):
        ap.error("--record: Table I and the pins sweep are recorded together: give both or neither")
    FIGS.mkdir(exist_ok=True)
    rows_limit = 8 if args.quick else None
    groups: list[tuple[str, list[str]]] = []  # (the book's subsection, its texts)
    t_all = time.perf_counter()

    def timed(label: str, t0: float) -> str:
        return f"Run time (--jobs {args.jobs}): {label} {(time.perf_counter() - t0) / 60:.1f} min."

    if "table1" in parts or "pins" in parts:
        out, t0 = [], time.perf_counter()
        t1 = pins = None
        if "table1" in parts:
            text, t1 = table1(rows_limit, args.jobs, args.workdir)
            out.append(text)
        if "pins" in parts:
            text, pins = pins_sweep(rows_limit, args.jobs, args.workdir)
            out.append(text)
        notes = t1_notes_queueing(t1, pins, rows_limit) if _queueing() else t1_notes(t1, pins, rows_limit)
        out += [notes, timed("Table I and pins", t0)]
        groups.append((_title("table1"), out))
    if "table2" in parts:
        t0 = time.perf_counter()
        lim = 6 if args.quick else None
        data = table2_data(lim, args.jobs, args.workdir)
        notes = table2_notes_queueing(data, lim) if _queueing() else table2_notes(data, lim)
        groups.append((_title("table2"), [table2_text(data, lim), notes, timed("Table II", t0)]))
    if "sensitivity" in parts:
        t0 = time.perf_counter()
        lim = 6 if args.quick else 24
        sdata = sensitivity_data(lim, args.jobs, args.workdir, QUICK_SETTINGS if args.quick else tuple(SETTINGS))
        groups.append((_title("sensitivity"), [sensitivity_text(sdata, lim),
                                                NOTES_SENS_QUEUEING if _queueing() else NOTES_SENS,
                                                timed("sensitivity", t0)]))
    print("\n\n".join("\n\n".join(texts) for _, texts in groups))
    print(f"\nTotal {(time.perf_counter() - t_all) / 60:.1f} min.")
    if args.record:
        section = "Reproduction: topology-synthesis-mcf-bgl" + (" (quick)" if args.quick else "")
        for title, texts in groups:
            record_subsection(section, title, "\n\n".join(texts), legacy_title=PART_TITLES["table1"])


#: the results book's subsection of each part (``--record`` replaces only the parts it ran)
PART_TITLES = {"table1": "Table I, Fig. 3 and the pins sweep (Figs. 4/5)", "table2": "Table II and Fig. 6",
               "sensitivity": "Board-data sensitivity"}
#: ... and its suffix under the queueing load model (its own subsections: the linear model's stay as recorded)
QUEUEING_SUFFIX = " under the queueing model"


def _title(part: str) -> str:
    return PART_TITLES[part] + (QUEUEING_SUFFIX if _queueing() else "")


def _span(xs) -> str:
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    lo, hi = min(xs), max(xs)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}"


def _pct(xs) -> str:
    lo, hi = f"{100 * min(xs):.0f}", f"{100 * max(xs):.0f}"
    return f"{lo}%" if lo == hi else f"{lo}-{hi}%"


def table2_notes(data: dict, rows_limit: int | None) -> str:
    """The notes under Table II, with every number taken from this run."""
    apps, fr = data["apps"], data["fractions"]
    tab = data["rows"]
    inf = data["info"]

    def ratio(f, key):
        return [tab[f][a][key] / tab[f][a]["optimal_latency"] if tab[f][a][key] and tab[f][a]["optimal_latency"]
                else None for a in apps]

    breaks = []
    for f in fr:
        for a in apps:
            r = tab[f][a]
            chain = [r["optimal_latency"], r["aggregate_latency"], r["uniform_latency"], r["torus_latency"]]
            if None in chain:
                breaks.append(f"{a.upper()} at {f:g} x (a design cannot carry the load)")
            # equal to 0.1% counts as ordered: far below the PTAS's eps
            elif not (chain[0] <= chain[1] * 1.001 and chain[1] <= chain[2] * 1.001 and chain[2] < chain[3]):
                names = ["optimum", "aggregate", "uniform", "torus"]
                bad = [f"{names[i]} {chain[i]:.3f} > {names[i + 1]} {chain[i + 1]:.3f}" for i in range(3)
                       if chain[i] > chain[i + 1] * 1.001]
                breaks.append(f"{a.upper()} at {f:g} x ({', '.join(bad)})")
    order = ("holds for every application at both loads" if not breaks else
             "holds except for " + "; ".join(breaks) + " - differences within the PTAS's eps = 5%, so not significant")
    lat = {f: {k: ratio(f, k) for k in ("aggregate_latency", "uniform_latency", "torus_latency")} for f in fr}
    f0 = fr[0]
    cap = {a: tab[f0][a] for a in apps}
    best_torus = [c["best_capacity"] / c["torus_capacity"] for c in cap.values() if c["best_capacity"] and c["torus_capacity"]]
    uni_flex = [c["best_uniform_capacity"] / c["best_capacity"] for c in cap.values()
                if c["best_uniform_capacity"] and c["best_capacity"]]
    tor_uni = [c["torus_capacity"] / c["torus_flexible_capacity"] for c in cap.values()
               if c["torus_capacity"] and c["torus_flexible_capacity"]]
    best_ftorus = [c["best_capacity"] / c["torus_flexible_capacity"] for c in cap.values()
                   if c["best_capacity"] and c["torus_flexible_capacity"]]

    def neck(rec):
        b = ((rec or {}).get("capacity") or {}).get("bottlenecks") or []
        return b[0]["resource"] if b else None

    necks = [neck(rec) for a in apps for rec in data["runs"][a]["pool_flexible"]]
    total = sum(1 for n in necks if n is not None)
    pins = sum(1 for n in necks if n is not None and "connector pins" in n)
    torus_share = sum(1 for a in apps if "uniform share" in (neck(data["runs"][a]["torus_uniform"]) or ""))
    best_specs = [_best_capacity(data["runs"][a]["pool_flexible"])["spec"] for a in apps]
    upper_k4 = sum(1 for x in best_specs if (_factors(x) or [""] * 4)[2:] == ["complete:4"] * 2)
    same_card = [inf[a]["share_same_card"] for a in apps]
    ag = data["runs"].get("aggregate")
    over = []  # (scale, best latency or None) at and above the torus's capacity
    if ag:
        for j, sc in enumerate(ag["scales"]):
            if sc >= ag["torus_lambda"] * (1 - 1e-9):
                b = _best_latency(ag["pool_flexible"], j)
                over.append((sc, b and _lat(b, j)))
    if not over:
        fig6 = ""
    elif all(x is None for _, x in over):
        fig6 = "; at and above the 3D torus's capacity (Fig. 6) no design carries the aggregate traffic"
    else:
        fig6 = ("; at " + ", ".join(f"{sc:.4g}" for sc, x in over if x is not None) +
                " (at or above the 3D torus's capacity, Fig. 6) the best design still carries the aggregate traffic, "
                "as in the paper's Fig. 6")
    same_nc = [inf[a]["share_same_node_card"] for a in apps]
    drift = max((abs(tab[f][a]["optimal_latency"] / tab[fr[0]][a]["optimal_latency"] - 1) for f in fr for a in apps
                 if tab[f][a]["optimal_latency"] and tab[fr[0]][a]["optimal_latency"]), default=None)
    pool = (f"the first {rows_limit} row graphs (trees and near-trees of the enumeration)" if rows_limit
            else "all 194 row graphs") + " with rings of 4, and the 36 column and upper-level graphs of part (b)"
    return (
        "Notes on Table II. Placement: the paper anneals on an unstated distance; we anneal (synth.mapping.anneal) "
        "on a packaging distance that is the same for every candidate (compute card 1, node card 2, else 2 + "
        f"node-card Manhattan distance), so {_pct(same_nc)} of each application's bytes stay on a node card and "
        f"{_pct(same_card)} on a compute card; the "
        "traffic is then mapped to every candidate by physical location. Loads: the paper does not say at which "
        "traffic it measured Table II; we take " + " and ".join(f"{f:g}" for f in fr) + " of the uniform-wired "
        f"torus's capacity for each application. Pool: {pool}. The 3D torus column is the torus with uniform "
        "wiring, as the real machine (and the paper: its torus is a fixed design, and it is worse than its uniform "
        "column). "
        "The paper's normalised latencies are quoted as printed in its brackets (its LU row: 1.32 / 1.59 / 1.60, "
        "where its absolute values give 1.31 / 1.52 / 1.61). "
        f"What agrees with the paper: the ordering optimum <= aggregate <= uniform < 3D torus {order}; the aggregate "
        f"optimum is {_span(lat[f0]['aggregate_latency'])} x the per-application optimum (paper "
        f"{_span([PAPER_TABLE2_RATIOS[a][0] for a in apps])}: the aggregate pattern is representative); "
        "the optimum beats the 3D torus everywhere; uniform wiring costs latency and, more, capacity (the best "
        f"uniform capacity is {_span(uni_flex)} x the best flexible one, the uniform torus "
        f"{_span(tor_uni)} x the flexible torus). The 3D torus is "
        + ", ".join(f"{_span(lat[f]['torus_latency'])} x the optimum at {f:g} x" for f in fr)
        + f" (paper {_span([PAPER_TABLE2_RATIOS[a][2] for a in apps])}) and uniform wiring "
        + ", ".join(f"{_span(lat[f]['uniform_latency'])} x" for f in fr)
        + f" (paper {_span([PAPER_TABLE2_RATIOS[a][1] for a in apps])}). "
        + (f"The optimum's latency changes by at most {100 * drift:.1f}% between the loads: the flexible designs are "
           "uncongested there, so their latency is the zero-load latency, which differs by hop count and wire length "
           "only; the uniform designs feel the higher load. " if drift is not None and drift < 0.02 else "")
        + f"Capacity: the best design carries {_span(best_torus)} x the 3D torus's capacity ({_span(best_ftorus)} x "
        f"the flexible torus's; for {upper_k4} of {len(apps)} applications the best has complete graphs on the "
        "upper level); the first bottleneck of "
        f"{pins} of {total} evaluated flexible designs is a board's connector pins, of the 3D torus for "
        f"{torus_share} of {len(apps)} applications one channel's uniform share{fig6}. "
        "Absolute latencies are ns under our delay model (paper: us).")


def _section(quick: bool) -> str:
    """This reproduction's section of the results book (docs/results/topology-synthesis-mcf-bgl.md), full or
    quick."""
    return "Reproduction: topology-synthesis-mcf-bgl" + (" (quick)" if quick else "")


def recorded_linear(part: str, quick: bool) -> dict:
    """The linear model's subsection of ``part`` as recorded in the results book (in the section of the same mode):
    ``{"date": its date, "tables": [[{header: cell}, ...], ...]}``, or ``{}`` when it is not there. The queueing
    notes quote the linear model's figures from it, beside their own.

    >>> recorded_linear("no such part", False)
    {}
    """
    title = PART_TITLES.get(part)
    text = recorded(_section(quick)) if title else ""
    sec = re.search(rf"^## {re.escape(_section(quick))}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    sub = sec and re.search(rf"^### {re.escape(title)}\n(.*?)(?=^### |\Z)", sec.group(1), re.S | re.M)
    if not sub:
        return {}
    body = sub.group(1)
    date = re.search(r"^_`[^`]*` — (.*?)_\s*$", body, re.M)
    tables: list[list[dict]] = []
    head: list[str] | None = None
    for line in body.splitlines():
        if not line.startswith("|"):
            head = None
            continue
        cells = [c.strip() for c in line.strip()[1:-1].split("|")]
        if head is None:
            head = cells
            tables.append([])
        elif not all(set(c) <= {"-"} for c in cells):
            tables[-1].append(dict(zip(head, cells)))
    return {"date": date.group(1) if date else None, "tables": tables}


def _linear_table(lin: dict, header: str) -> list[dict]:
    """The first recorded table with column ``header``."""
    return next((t for t in lin.get("tables", []) if t and header in t[0]), [])


def _num(cell: str | None) -> float | None:
    """The first number in a table cell ('-': None).

    >>> _num("12.22 (1.02)"), _num("-"), _num("+0.0%"), _num(None)
    (12.22, None, 0.0, None)
    """
    m = re.search(r"[-+]?\d+(?:\.\d+)?", cell or "")
    return float(m.group(0)) if m else None


def _nums(cell: str | None) -> list[float | None]:
    """Every value of a 'a / b / c' cell ('-': None)."""
    return [_num(x) for x in (cell or "").split(" / ")] if cell else []


def _chg(a: float | None, b: float | None) -> str:
    """b against a, in percent."""
    return "-" if a is None or b is None or a == 0 else f"{100 * (b / a - 1):+.0f}%"


def _curve_shape(lats: list[float | None]) -> str:
    """How a latency curve over evenly spaced scales grows: its increments, and whether they grow.

    >>> _curve_shape([1.0, 2.0, 4.0]), _curve_shape([1.0, 1.0, 1.0]), _curve_shape([1.0, None, None])
    ('increments +1 / +2: super-linear', 'increments +0 / +0: flat', 'one point')
    """
    xs = [x for x in lats if x is not None]
    if len(xs) < 2:
        return "one point"
    inc = [b - a for a, b in zip(xs, xs[1:])]
    text = "increments " + " / ".join(f"{d:+.0f}" for d in inc)
    if all(abs(d) <= 1e-3 * xs[0] for d in inc):
        return text + ": flat"
    if len(inc) < 2:
        return text + ": two points"
    return text + (": super-linear" if all(b > a for a, b in zip(inc, inc[1:])) else ": not super-linear")


def t1_notes_queueing(t1: dict | None, pins: list | None, rows_limit: int | None) -> str:
    """The notes under Table I and the pins sweep under the queueing model: the paper, the linear model (as
    recorded in its own subsection of the results book) and this run side by side, and which load effects appear."""
    lin = recorded_linear("table1", bool(rows_limit))
    when = f"its subsection above, recorded {lin['date']}" if lin.get("date") else "not recorded in this section"
    lt = {r["T"]: r for r in _linear_table(lin, "paper torus / best (min)")}
    lc = {r["T"]: r for r in _linear_table(lin, "best latency per scale")}
    lp = {r["pins"]: r for r in _linear_table(lin, "long links")}
    rows: list[list] = []
    out = [f"Notes on Table I and Figs. 3-5 under the queueing model. The paper (us), the linear model ({when}, "
           "the same pool; ns) and the queueing model (this run; ns) side by side. The demand ranges differ: the "
           "paper's Table I gives the optimum's latency at its minimum and maximum demand (not stated); ours are the "
           "scales " + " / ".join(f"{x:g}" for x in _base_study(None)["traffic"]["scales"]) + " that the optimum "
           "carries."]
    sc = _base_study(None)["traffic"]["scales"]
    if t1:
        Ts = [T for T in PAPER_TABLE1 if T in t1]
        for T in Ts:
            p, q = PAPER_TABLE1[T], t1[T]
            lcur = [x for x in _nums(lc.get(str(T), {}).get("best latency per scale")) if x is not None]
            rows.append([f"Table I, T = {T}: optimum, min / max latency", f"{p[2]:.2f} / {p[3]:.2f} ({_chg(p[2], p[3])})",
                         f"{min(lcur):.2f} / {max(lcur):.2f} ({_chg(min(lcur), max(lcur))})" if lcur else "-",
                         f"{_f(q['min_latency'], '.0f')} / {_f(q['max_latency'], '.0f')} "
                         f"({_chg(q['min_latency'], q['max_latency'])})"])
        for T in Ts:
            p, q = PAPER_TABLE1[T], t1[T]
            lt_t, lt_b = (_num(lt.get(str(T), {}).get(k)) for k in ("torus latency", "best latency"))
            rows.append([f"Table I, T = {T}: torus latency; torus / optimum (min)", f"{p[4]:.2f}; {p[4] / p[2]:.2f}",
                         "-" if lt_t is None or lt_b is None else f"{lt_t:.2f}; {lt_t / lt_b:.2f}",
                         "-" if not (q["torus_latency"] and q["best_latency"]) else
                         f"{q['torus_latency']:.0f}; {q['torus_latency'] / q['best_latency']:.2f}"])
        lt0, ltn = (_num(lt.get(str(T), {}).get("torus latency")) for T in (Ts[0], Ts[-1]))
        rows.append([f"Table I: torus latency, T = {Ts[0]} -> {Ts[-1]}", _chg(PAPER_TABLE1[Ts[0]][4], PAPER_TABLE1[Ts[-1]][4]),
                     _chg(lt0, ltn), _chg(t1[Ts[0]]["torus_latency"], t1[Ts[-1]]["torus_latency"])])
        wins = {T: [x["best"] for x in t1[T]["tradeoff"] if x["best"]] for T in Ts}
        rows.append(["Fig. 3: different winners along the curve, T = " + " / ".join(map(str, Ts)),
                     "yes ('different points indicate that different topologies are used')",
                     "not listed per scale (a flat curve)",
                     " / ".join(str(len(set(w))) for w in wins.values()) + " distinct"])
        rows.append([f"Fig. 3: the optimum's curve over scales {' / '.join(f'{x:g}' for x in sc)}, T = {Ts[0]}",
                     "straight at low traffic, then super-linear",
                     _curve_shape(_nums(lc.get(str(Ts[0]), {}).get("best latency per scale"))),
                     _curve_shape([x["average_latency"] for x in t1[Ts[0]]["tradeoff"]])])
    if pins:
        base = pins[0]["latency"]
        lbase = _num(lp.get(pins[0]["variant"], {}).get("latency"))
        later = pins[1:]
        rows.append(["Fig. 4: winner's latency from 200 pins at " + " / ".join(s_["variant"].split("=")[1] for s_ in later),
                     "-8% / -13% / - / -14%" if [s_["variant"] for s_ in later] == [
                         "node_card=220", "node_card=240", "node_card=280", "node_card=320"] else PAPER_FIG4,
                     " / ".join(_chg(lbase, _num(lp.get(s_["variant"], {}).get("latency"))) for s_ in later),
                     " / ".join(_chg(base, s_["latency"]) for s_ in later)])
        rows.append(["Fig. 5: winner's long links, " + " / ".join(s_["variant"].split("=")[1] for s_ in pins) + " pins",
                     "long links when pins are scarce, fewer as pins grow",
                     " / ".join(lp.get(s_["variant"], {}).get("long links", "-") for s_ in pins),
                     " / ".join(str(s_["row_graph"]["long"]) for s_ in pins)])
    out.append(table(["claim", "paper", "linear", "queueing"], rows))
    if t1:
        T0 = Ts[0]
        x0 = t1[T0]["tradeoff"][0]
        ratio = [t1[T]["tradeoff"][0]["queueing_part"] / t1[T]["tradeoff"][0]["zero_load_part"] for T in Ts
                 if t1[T]["tradeoff"][0]["queueing_part"] is not None]
        busy = [t1[T]["tradeoff"][0]["max_channel_load"] for T in Ts if t1[T]["tradeoff"][0]["max_channel_load"]]
        tbusy = [t1[T]["torus_parts"][0]["max_channel_load"] for T in Ts if t1[T]["torus_parts"][0]["max_channel_load"]]
        changed = [T for T in Ts if len(set(wins[T])) > 1]
        top = {T: t1[T]["best_capacity"] for T in Ts}
        win_cap = {T: t1[T]["capacities"].get(wins[T][0]) for T in Ts if wins[T]}
        q = _study(_base_study(1)).queueing
        out.append(
            "What the queueing model changes. The optimum's latency now grows with the demand ("
            f"{_curve_shape([x['average_latency'] for x in t1[T0]['tradeoff']]).replace(':', ' ns per step:')} "
            f"at T = {T0}; linear: {_curve_shape(_nums(lc.get(str(T0), {}).get('best latency per scale')))}). "
            "Its size does not match the paper's: "
            f"from the smallest to the largest scale carried the optimum's latency rises by "
            + ", ".join(_chg(t1[T]["min_latency"], t1[T]["max_latency"]) for T in Ts)
            + " at T = " + ", ".join(map(str, Ts)) + " (paper "
            + ", ".join(_chg(PAPER_TABLE1[T][2], PAPER_TABLE1[T][3]) for T in Ts) + "). Already at the smallest scale the "
            f"queueing part is {min(ratio):.0f}-{max(ratio):.0f} x the router-and-wire part "
            f"({x0['zero_load_part']:.1f} ns at T = {T0}) "
            f"although the optimum's busiest channel is only {_pct(busy)} full: a packet's service time "
            f"({q.service:.0f} ns on one wire) is about {q.service / x0['zero_load_part']:.0f} x the whole zero-load "
            "path, so every wait outweighs every router and wire delay. The paper's latencies stay within 6-11% of "
            "their minimum over its demand range, so its load term is small beside its zero-load latency; ours is "
            "not, at the model's default service time (not tuned here).")
        out.append(
            ("The winner does not change along the curve: at every demand count and scale the same candidate wins ("
             + "; ".join(sorted({_short(w) for T in Ts for w in wins[T]})) + "; the linear model's winner: "
             + "; ".join(sorted({lc.get(str(T), {}).get("best latency", "-") for T in Ts})) + "). Its capacity, "
             + ", ".join(f"{win_cap[T]:.3f}" for T in Ts if T in win_cap) + ", is "
             + ("within eps = 5% of " if all(win_cap.get(T, 0) >= 0.95 * top[T] for T in Ts) else "below ")
             + "the pool's largest (" + ", ".join(f"{top[T]:.3f}" for T in Ts) + "): the design with the least "
             "router and wire delay is also about the least loaded, so a load-dependent wait keeps it ahead and no "
             "design trades hops for capacity against it. The runner-up ("
             + "; ".join(sorted({_short(x["runner_up"]) for T in Ts for x in t1[T]["tradeoff"] if x["runner_up"]}))
             + ") trails it by at most " + _chg(1.0, max(
                 (x["runner_up_latency"] / x["average_latency"] for T in Ts for x in t1[T]["tradeoff"]
                  if x["average_latency"] and x["runner_up_latency"]), default=None))
             + " over the points of the curve, below eps = 5%: which of the two wins is not significant. The paper's switch to 'topologies with more even link "
             "distributions' needs a pool whose fastest design at zero load is not also about its widest."
             if not changed else
             "The winner changes along the curve at T = " + ", ".join(map(str, changed)) + ": "
             + "; ".join(f"T = {T}: " + " -> ".join(_short(w) for w in wins[T]) for T in changed) + ".")
            + " The uniform-wired torus is " + ", ".join(
                f"{t1[T]['torus_latency'] / t1[T]['best_latency']:.1f}" for T in Ts if t1[T]["torus_latency"])
            + f" x the optimum at scale {sc[0]:g} (paper "
            + ", ".join(f"{PAPER_TABLE1[T][4] / PAPER_TABLE1[T][2]:.2f}" for T in Ts) + "; linear "
            + ", ".join(lt.get(str(T), {}).get("torus / best", "-") for T in Ts) + "), and its latency "
            f"grows with T ({_chg(t1[Ts[0]]['torus_latency'], t1[Ts[-1]]['torus_latency'])} from T = {Ts[0]} to "
            f"{Ts[-1]}, paper {_chg(PAPER_TABLE1[Ts[0]][4], PAPER_TABLE1[Ts[-1]][4])}): scale {sc[0]:g} fills its busiest channel to {_pct(tbusy)} as T grows. This "
            "load effect of the paper (a fixed torus driven towards its capacity) now appears, larger than the "
            "paper's.")
    if pins:
        ch = [(s_["variant"].split("=")[1], s_["latency"] / base - 1) for s_ in pins[1:] if s_["latency"] and base]
        wp = [s_["winner_parts"] for s_ in pins]
        same = len({s_["winner"] for s_ in pins}) == 1
        out.append(
            "Pins (Fig. 4, scale 1.6, T = 2048): "
            + ("more node-card pins now lower the winner's latency: " if ch and all(c < 0 for _, c in ch) else
               "the winner's latency changes with the node-card pins: ")
            + ", ".join(f"{k} pins {100 * c:+.0f}%" for k, c in ch) + " from 200 (paper -8% at 220, -13% at 240, "
            "-14% at 320; linear " + ", ".join(_chg(lbase, _num(lp.get(s_["variant"], {}).get("latency")))
                                               for s_ in pins[1:]) + "). The wider node-card connectors widen the winner's channels: its busiest "
            "channel goes from " + " / ".join(_pct_or(x["max_channel_load"]) for x in wp) + " full and scale 1.6 "
            "from " + " / ".join(_pct_or(s_["winner_capacity"] and 1.6 / s_["winner_capacity"]) for s_ in pins)
            + " of its capacity, while its router-and-wire part stays at "
            + _span([x["zero_load_part"] for x in wp]) + " ns: the whole change is the queueing part ("
            + " / ".join(_f(x["queueing_part"], ".0f") for x in wp) + " ns). "
            + ("The winner is the same at every pin count (" + _short(pins[0]["winner"]) + "), so its row graph "
               "and its long links do not change (Fig. 5): our pool varies the column and upper-level graphs only "
               "with that one row graph, and the row graphs with rings elsewhere cannot carry scale 1.6."
               if same else "The winners: " + " / ".join(_short(s_["winner"]) for s_ in pins) + "."))
    return "\n\n".join(out)


def _bracket(cell: str | None) -> float | None:
    """The normalised value in brackets of a Table II cell ('12.22 (1.02)': 1.02)."""
    m = re.search(r"\(([\d.]+)\)", cell or "")
    return float(m.group(1)) if m else None


def table2_notes_queueing(data: dict, rows_limit: int | None) -> str:
    """The notes under Table II and Fig. 6 under the queueing model: the paper, the linear model (as recorded in
    its own subsection of the results book) and this run side by side, and which load effects appear."""
    apps, fr, tab = data["apps"], data["fractions"], data["rows"]
    lin = recorded_linear("table2", bool(rows_limit))
    when = f"its subsection above, recorded {lin['date']}" if lin.get("date") else "not recorded in this section"
    ltabs = [{r["app"].lower(): r for r in t} for t in lin.get("tables", [])
             if t and "paper opt / agg / uni / torus" in t[0]]
    lfig6 = _linear_table(lin, "winner")
    cols = ("aggregate", "uniform", "torus")
    lcol = {"aggregate": "aggregate", "uniform": "uniform", "torus": "3D torus"}

    def q_ratio(f, a, c):
        r = tab[f][a]
        return r[f"{c}_latency"] / r["optimal_latency"] if r[f"{c}_latency"] and r["optimal_latency"] else None

    def l_ratio(k, a, c):
        return _bracket(ltabs[k].get(a, {}).get(lcol[c])) if k < len(ltabs) else None

    def trio(xs):
        return " / ".join(_f(x, ".2f") for x in xs)

    body = []
    for a in apps:
        line = [a.upper(), trio(PAPER_TABLE2_RATIOS[a])]
        for k, f in enumerate(fr):
            line += [trio([l_ratio(k, a, c) for c in cols]), trio([q_ratio(f, a, c) for c in cols])]
        body.append(line)
    heads = ["app", "paper"] + [h for f in fr for h in (f"linear, {f:g} x", f"queueing, {f:g} x")]
    out = [f"Notes on Table II and Fig. 6 under the queueing model. Latency over the per-application optimum, "
           "aggregate / uniform / 3D torus: the paper, the linear model "
           f"({when}, the same pool and loads) and the queueing model (this run) at each load.\n\n"
           + table(heads, body)]
    rows = []
    paper_r = {c: [PAPER_TABLE2_RATIOS[a][i] for a in apps] for i, c in enumerate(cols)}
    names = {"aggregate": "aggregate / optimum", "uniform": "uniform / optimum", "torus": "3D torus / optimum"}
    for c in cols:
        rows.append([names[c], _span(paper_r[c]),
                     ", ".join(_span([l_ratio(k, a, c) for a in apps]) for k in range(len(fr))),
                     ", ".join(_span([q_ratio(f, a, c) for a in apps]) for f in fr)])

    def ordered(lats):
        return None not in lats and lats[0] <= lats[1] * 1.001 and lats[1] <= lats[2] * 1.001 and lats[2] < lats[3]

    q_ord = [sum(1 for a in apps if ordered([tab[f][a][k] for k in ("optimal_latency", "aggregate_latency",
                                                                     "uniform_latency", "torus_latency")]))
             for f in fr]
    l_ord = [sum(1 for a in apps if ordered([_num(t.get(a, {}).get(k)) for k in ("optimal", "aggregate", "uniform",
                                                                                  "3D torus")])) for t in ltabs]
    rows.append(["optimum <= aggregate <= uniform < 3D torus (applications)", f"{len(apps)} of {len(apps)}",
                 ", ".join(f"{n} of {len(apps)}" for n in l_ord) or "-",
                 ", ".join(f"{n} of {len(apps)}" for n in q_ord)])
    if len(fr) > 1:
        l_opt = [_chg(_num(ltabs[0].get(a, {}).get("optimal")), _num(ltabs[-1].get(a, {}).get("optimal")))
                 for a in apps] if len(ltabs) > 1 else ["-"]
        q_opt = [_chg(tab[fr[0]][a]["optimal_latency"], tab[fr[-1]][a]["optimal_latency"]) for a in apps]
        rows.append([f"optimum's latency, {fr[0]:g} x -> {fr[-1]:g} x (" + "/".join(a.upper() for a in apps) + ")",
                     "-", " / ".join(l_opt), " / ".join(q_opt)])
    ag = data["runs"]["aggregate"]
    curve = sorted((sc, _best_latency(ag["pool_flexible"], j), j) for j, sc in enumerate(ag["scales"]))
    q_curve = [(sc, b and _lat(b, j), b and b["spec"], _lat(ag["torus_uniform"], j)) for sc, b, j in curve]
    l_curve = [(_num(r.get("scale")), _num(r.get("optimum")), r.get("winner"), _num(r.get("3D torus")))
               for r in lfig6]
    q_car = [x for x in q_curve if x[1] is not None]
    l_car = [x for x in l_curve if x[1] is not None]
    rows.append(["Fig. 6: optimum's latency, lowest -> highest scale carried", "super-linear",
                 f"{l_car[0][1]:.2f} -> {l_car[-1][1]:.2f} ({_chg(l_car[0][1], l_car[-1][1])})" if l_car else "-",
                 f"{q_car[0][1]:.0f} -> {q_car[-1][1]:.0f} ({_chg(q_car[0][1], q_car[-1][1])})" if q_car else "-"])
    rows.append(["Fig. 6: distinct winners along the curve", "several ('different optimal topologies are selected')",
                 str(len({x[2] for x in l_car})) if l_car else "-", str(len({x[2] for x in q_car}))])
    rows.append(["Fig. 6: 3D torus / optimum, lowest -> highest scale both carry", "-",
                 " -> ".join(f"{x[3] / x[1]:.2f}" for x in (l_car[0], [x for x in l_car if x[3]][-1])) if l_car else "-",
                 " -> ".join(f"{x[3] / x[1]:.2f}" for x in (q_car[0], [x for x in q_car if x[3]][-1]))
                 if q_car and q_car[0][3] else "-"])
    out.append("The claims side by side (ranges over the five applications; the linear and queueing columns at "
               + " and ".join(f"{f:g} x" for f in fr) + " the uniform-wired torus's capacity):\n\n"
               + table(["claim", "paper", "linear", "queueing"], rows))
    # why: how loaded each column's design is, and how much of its latency is the queues'
    f0, f1 = fr[0], fr[-1]

    def part(f, c, k):
        return [tab[f][a]["parts"][c][k] for a in apps if tab[f][a]["parts"][c][k] is not None]

    def share(f, c):
        return [x["queueing_part"] / (x["queueing_part"] + x["zero_load_part"]) for a in apps
                for x in [tab[f][a]["parts"][c]] if x["queueing_part"] is not None]

    uni_cost = [q_ratio(f, a, "uniform") for f in fr for a in apps if q_ratio(f, a, "uniform")]
    zl = {c: [tab[f0][a]["parts"][c]["zero_load_part"] / tab[f0][a]["parts"]["optimal"]["zero_load_part"]
              for a in apps if tab[f0][a]["parts"][c]["zero_load_part"] and tab[f0][a]["parts"]["optimal"]["zero_load_part"]]
          for c in ("uniform", "torus")}
    out.append(
        "What the queueing model changes. The queueing part is " + ", ".join(
            f"{_pct(share(f, 'optimal'))} of the optimum's latency at {f:g} x" for f in fr)
        + f" (its busiest channel {_pct(part(f0, 'optimal', 'max_channel_load'))} full at {f0:g} x, "
        f"{_pct(part(f1, 'optimal', 'max_channel_load'))} at {f1:g} x), so every column's latency is now mostly "
        "waiting, and the ratios measure how loaded each design is rather than its hops and wires. "
        + ("Uniform wiring now costs latency on the paper's scale: the uniform optimum is "
           if uni_cost and max(uni_cost) >= 1.2 else "Uniform wiring costs latency: the uniform optimum is ")
        + ", ".join(f"{_span([q_ratio(f, a, 'uniform') for a in apps])} x the optimum at {f:g} x" for f in fr)
        + f" (paper {_span(paper_r['uniform'])}; linear "
        + ", ".join(_span([l_ratio(k, a, "uniform") for a in apps]) for k in range(len(ltabs))) + "): its channels "
        "cannot take the widths the traffic needs, so its busiest channel is "
        f"{_pct(part(f0, 'uniform', 'max_channel_load'))} full at {f0:g} x and "
        f"{_pct(part(f1, 'uniform', 'max_channel_load'))} at {f1:g} x, while its router-and-wire part is "
        f"{_span(zl['uniform'])} x the optimum's. The 3D torus (uniform wiring) is "
        + ", ".join(f"{_span([q_ratio(f, a, 'torus') for a in apps])} x the optimum at {f:g} x" for f in fr)
        + f" (paper {_span(paper_r['torus'])}), its busiest channel {_pct(part(f0, 'torus', 'max_channel_load'))} "
        f"and {_pct(part(f1, 'torus', 'max_channel_load'))} full, its router-and-wire part {_span(zl['torus'])} x "
        "the optimum's. The aggregate's optimum is "
        + ", ".join(f"{_span([q_ratio(f, a, 'aggregate') for a in apps])} x" for f in fr)
        + f" the per-application optimum (paper {_span(paper_r['aggregate'])}).")
    if q_car:
        win = [x[2] for x in q_car]
        out.append(
            f"Fig. 6: the optimum's latency over the aggregate's scales {', '.join(f'{x[0]:.4g}' for x in q_car)} is "
            + ", ".join(f"{x[1]:.0f}" for x in q_car) + " ns ("
            + _curve_shape([x[1] for x in q_car]).split(":")[-1].strip()
            + " in the scale, which is not evenly spaced here: "
            + " / ".join(f"{x:g}" for x in sorted(set(data["fractions"]) | set(data["fig6"])))
            + " x the torus's capacity; linear: "
            + (f"{_chg(l_car[0][1], l_car[-1][1])} from the first to the last scale it carries" if l_car else "-")
            + "), "
            + ("with one winner at every scale (" + _short(win[0]) + ")" if len(set(win)) == 1 else
               "with winners " + " -> ".join(_short(w) for w in win))
            + ". The paper reads its super-linear curve as 'different optimal topologies are selected'; here the "
            "curve bends because the queues fill, " + ("with no change of topology." if len(set(win)) == 1 else
                                                       "and the topology changes too."))
    return "\n\n".join(out)


NOTES_SENS_QUEUEING = (
    "Notes on the sensitivity study under the queueing model. The capacities do not depend on the load model (the "
    "linear model's subsection discusses them); the latencies, at 0.5 x the torus's capacity in each setting, are "
    "router and wire delays plus the queues' waits, and are not interpreted further here.")


NOTES_SENS = (
    "Notes on the sensitivity study. With our board numbers the connector pins bind everywhere (node-card pins "
    "for the torus, compute-card pins for the early row graphs), so the capacity ratio stays at 0.7-1.0 and "
    "raising one kind of pins only moves the bottleneck to the other (node-card pins 200 -> 800: torus +7%, "
    "then compute-card pins bind). The paper's 1.8-2.7x capacity advantage appears only when pins stop being "
    "the limit: with no connector limit the capacity is set by board cross-sections and the best composition "
    "carries 2.5x the torus (the torus saturates its compute cards' 2-layer, 5.5 cm cross-section, the "
    "compositions spread their wires over the node card and midplane) - the paper's range. A router-pin limit "
    "(96 pins per router, no connector limit) makes hop count the currency and again favours neither strongly "
    "(0.83 in the quick pool). Latency: the reduction against the torus stays at 1-4% under every board setting "
    "at half the torus's load; a slower wire (14.2 ns/m) widens it most, since the compositions' advantage is "
    "shorter wiring. So the paper's capacity claims are consistent with boards whose connectors have ample pins "
    "(contradicting its own statement that pins saturate), and its latency claims need loads near the torus's "
    "capacity.")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
