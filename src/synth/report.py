"""Study outputs: results.json, results.csv, winners/*.graphml and a
self-contained report.html (figures embedded as PNG data URIs)."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
from pathlib import Path
from typing import Any

__all__ = ["write_outputs", "render_report", "write_sweep_outputs"]

WINNERS = 3


def write_outputs(res, out: Path) -> None:
    from candidates import write_topology

    from .evaluate import build_topology

    out = Path(out)
    d = res.to_dict()
    (out / "results.json").write_text(json.dumps(d, indent=1) + "\n", encoding="utf-8")
    _write_csv(d, out / "results.csv")
    wdir = out / "winners"
    wdir.mkdir(exist_ok=True)
    for k, spec in enumerate(res.ranking[:WINNERS], 1):
        topo = build_topology(spec, res.study)
        write_topology(topo, wdir / f"{k}-{_slug(spec)}.graphml")
    render_report(out)


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_=" else "_" for c in spec)[:80]


def _write_csv(d: dict[str, Any], path: Path) -> None:
    """One row per candidate: rank in its size class, structure, cost,
    capacity and latency with their certificates, simulated saturation,
    baseline and Pareto flags."""
    scales = d["study"]["traffic"]["scales"]
    cost_cols = ["pes", "routers", "radix", "ports", "links", "wire_length", "wires", "pins", "cables"]
    cols = (["rank", "size_class", "spec", "status", "baseline", "max_degree", "diameter", "average_distance"]
            + [f"cost_{c}" for c in cost_cols] + ["wiring", "lambda", "upper_bound", "gap"]
            + [f"latency@{s:g}" for s in scales] + [f"latency_bound@{s:g}" for s in scales]
            + [f"latency_solver@{s:g}" for s in scales]
            + ["pareto_capacity", "pareto_latency", "sim_saturation", "sim_routing", "seconds", "reason"])
    classes = {int(k): v for k, v in (d.get("classes") or {}).items()} or {d.get("pes"): d["ranking"]}
    rank = {s: i + 1 for ranked in classes.values() for i, s in enumerate(ranked)}
    order = {s: (k, i) for k, ranked in enumerate(classes.values()) for i, s in enumerate(ranked)}
    base = d["study"]["ranking"]["baseline"]
    sims = {x["spec"]: x for x in d.get("simulation", [])}
    pareto = d.get("pareto") or {}
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in sorted(d["records"], key=lambda r: order.get(r["spec"], (10 ** 9, 0))):
            cap = r.get("capacity") or {}
            lat = r.get("latency") or [{} for _ in scales]
            cost = r.get("cost") or {}
            sm = sims.get(r["spec"], {})
            w.writerow([rank.get(r["spec"], ""), r.get("pes", ""), r["spec"], r["status"], int(r["spec"] == base),
                        r.get("max_degree", ""), r.get("diameter", ""), r.get("average_distance", "")]
                       + ["" if cost.get(c) is None else cost[c] for c in cost_cols]
                       + [r.get("wiring") or "", cap.get("lambda", ""), cap.get("upper_bound", ""), cap.get("gap", "")]
                       + [x.get("average_latency", "") if x.get("average_latency") is not None else "" for x in lat]
                       + [x.get("latency_bound", "") if x.get("latency_bound") is not None else "" for x in lat]
                       # records written before the LP fallback existed have no solver: theirs was the PTAS
                       + [x.get("solver", "ptas") if x.get("average_latency") is not None else "" for x in lat]
                       + [int(r["spec"] in pareto.get("capacity", [])), int(r["spec"] in pareto.get("latency", [])),
                          sm.get("saturation", "") if sm.get("status") == "ok" else "", sm.get("routing", "")]
                       + [f"{r.get('seconds', 0):.3f}", r.get("reason", "")])


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _figures(d: dict[str, Any]) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = {}
    ok = [r for r in d["records"] if r["status"] == "ok"]
    order = {s: i for i, s in enumerate(d["ranking"])}
    ok.sort(key=lambda r: order[r["spec"]])
    baseline = d["study"]["ranking"]["baseline"]
    if ok:
        fig, ax = plt.subplots(figsize=(7, 0.35 * len(ok) + 1))
        names = [r["spec"] for r in ok][::-1]
        lam = [r["capacity"]["lambda"] for r in ok][::-1]
        ub = [r["capacity"]["upper_bound"] for r in ok][::-1]
        colors = ["tab:red" if n == baseline else "tab:blue" for n in names]
        ax.barh(names, lam, color=colors)
        ax.errorbar(ub, names, fmt="|", color="k", label="certified upper bound")
        ax.set_xlabel("capacity lambda (demand multiple carried)")
        ax.legend(loc="lower right")
        figs["capacity"] = _png(fig)
    scales = d["study"]["traffic"]["scales"]
    if scales and ok and any(r.get("latency") for r in ok):
        fig, ax = plt.subplots(figsize=(7, 4))
        show = ok[:6] + [r for r in ok[6:] if r["spec"] == baseline]
        for r in show:
            pts = [(x["scale"], x["average_latency"]) for x in r["latency"] if x["average_latency"] is not None]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, "o-" if r["spec"] != baseline else "s--", label=r["spec"], alpha=0.8)
        best = [(t["scale"], t["average_latency"]) for t in d["tradeoff"] if t["best"]]
        if best:
            xs, ys = zip(*best)
            ax.plot(xs, ys, "k-", lw=3, alpha=0.3, label="best at each demand")
        ax.set_xlabel("demand scale (throughput per demand)")
        ax.set_ylabel("minimum average latency")
        if ax.get_legend_handles_labels()[0]:  # every point can be infeasible (no curve drawn)
            ax.legend(fontsize=7)
        figs["tradeoff"] = _png(fig)
    sims = [x for x in d.get("simulation", []) if x["status"] == "ok"]
    if sims:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
        for x in sims:
            off = [p["offered"] for p in x["points"]]
            style = "s--" if x["spec"] == baseline else "o-"
            a1.plot(off, [p["accepted"] for p in x["points"]], style, label=x["spec"])
            lat = [(p["offered"], p["latency"]) for p in x["points"] if p["latency"] is not None]
            if lat:
                a2.plot(*zip(*lat), style, label=x["spec"])
        a1.plot([0, max(p["offered"] for x in sims for p in x["points"])] * 1, [0, max(
            p["offered"] for x in sims for p in x["points"])], "k:", lw=0.8)
        a1.set_xlabel("offered load (phits/cycle/PE)")
        a1.set_ylabel("accepted load")
        a2.set_xlabel("offered load (phits/cycle/PE)")
        a2.set_ylabel("mean packet latency (cycles)")
        a2.set_yscale("log")
        a1.legend(fontsize=7)
        figs["simulation"] = _png(fig)
    return figs


def _drawing(spec: str, study) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import networkx as nx

    from .evaluate import build_topology

    topo = build_topology(spec, study)
    G = topo.to_networkx(multigraph=False)
    if topo.coords is not None and topo.shape is not None:
        pos = _nested_grid(topo.coords, topo.shape)
    elif topo.n <= 200:
        pos = nx.spring_layout(G, seed=0)
    else:  # a force layout of a large graph costs more than the whole evaluation
        pos = nx.circular_layout(G)
    fig, ax = plt.subplots(figsize=(4, 3.2))
    nx.draw_networkx(G, pos, ax=ax, node_size=40, with_labels=False, width=0.6)
    ax.set_title(spec, fontsize=8)
    ax.axis("off")
    return _png(fig)


def _nested_grid(coords, shape) -> dict[int, tuple[float, float]]:
    """2-D positions of lattice coordinates: dimensions alternate between x
    and y, each outer one a grid of blocks of the inner ones (with a gap)."""
    import numpy as np

    D = len(shape)
    x = np.zeros(len(coords))
    y = np.zeros(len(coords))
    sx = sy = 1.0
    for k in range(D - 1, -1, -1):          # innermost = last dimension
        if (D - 1 - k) % 2 == 0:
            x += coords[:, k] * sx
            sx *= shape[k] + 0.5
        else:
            y += coords[:, k] * sy
            sy *= shape[k] + 0.5
    return {v: (float(x[v]), float(y[v])) for v in range(len(coords))}


def _table(rows: list[list[Any]], head: list[str]) -> str:
    h = "".join(f"<th>{html.escape(str(x))}</th>" for x in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "" if x is None else str(x)


def render_report(out: str | Path) -> Path:
    """(Re)write ``out/report.html`` from ``out/results.json``."""
    from .study import StudyError, study_from_dict

    out = Path(out)
    try:
        d = json.loads((out / "results.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise StudyError(f"{str(out)!r} holds no readable results.json ({exc}); run `toposynth run --out DIR` first") from None
    sd = d["study"]
    study = study_from_dict({k: v for k, v in {
        "name": sd["name"], "seed": sd["seed"], "description": sd["description"],
        "candidates": {k2: v2 for k2, v2 in sd["candidates"].items() if v2 not in (None, [], {})},
        "traffic": {k2: v2 for k2, v2 in sd["traffic"].items() if v2 is not None},
        "physical": {k2: v2 for k2, v2 in sd["physical"].items() if v2 not in ([], {})},
        "ranking": {k2: v2 for k2, v2 in sd["ranking"].items() if v2 is not None},
        "cross_check": sd["cross_check"], "simulation": sd.get("simulation", {})}.items()})
    figs = _figures(d)
    scales = sd["traffic"]["scales"]
    rank = {s: i + 1 for i, s in enumerate(d["ranking"])}
    rows = []
    for r in sorted(d["records"], key=lambda r: rank.get(r["spec"], 10 ** 9)):
        cap = r.get("capacity") or {}
        lat = r.get("latency") or []
        rows.append([rank.get(r["spec"], "-"), r["spec"] + (" (baseline)" if r["spec"] == sd["ranking"]["baseline"] else ""),
                     r["status"], r.get("routers"), r.get("links"), r.get("max_degree"), r.get("diameter"),
                     r.get("average_distance"), cap.get("lambda"), cap.get("gap")]
                    + [_fmt(x.get("average_latency")) + (" (LP)" if x.get("solver") == "lp" else "") for x in lat]
                    + [r.get("reason", "")])
    head = ["rank", "candidate", "status", "routers", "links", "degree", "diameter", "avg distance", "lambda", "gap"] + \
        [f"latency @ {s:g}" for s in (scales if any(r.get("latency") for r in d["records"]) else [])] + ["note"]
    statuses = {}
    for r in d["records"]:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    pruned = [r for r in d["records"] if r["status"] == "pruned"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>toposynth study {html.escape(sd['name'])}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}"
        "td:nth-child(2){text-align:left}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head><body>",
        f"<h1>Study {html.escape(sd['name'])}</h1><p>{html.escape(sd['description'])}</p>",
        f"<p>{len(d['records'])} candidates: " + ", ".join(f"{v} {k}" for k, v in sorted(statuses.items())) +
        f"; {d.get('resumed', 0)} taken from an earlier run; {d['seconds']:.1f} s. "
        f"Fingerprint <code>{d['fingerprint']}</code>.</p>",
        "<h2>The study</h2><pre>" + html.escape(json.dumps(sd, indent=1)) + "</pre>",
        "<h2>Ranking</h2>", _table(rows, head),
    ]
    if any(x.get("solver") == "lp" for r in d["records"] for x in r.get("latency") or []):
        parts.append("<p>Latencies marked (LP) are exact optima from HiGHS, solved where the PTAS search stopped "
                     "short of eps or the load sat inside the capacity's certified bracket (near a candidate's capacity); the others are within eps of the optimum.</p>")
    if pruned:
        reasons: dict[str, int] = {}
        for r in pruned:
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        parts.append("<p>Pruned before the PTAS: " + "; ".join(f"{v} x {html.escape(k)}" for k, v in reasons.items()) + "</p>")
    if "capacity" in figs:
        parts.append(f"<h2>Capacity</h2><p>Bars: certified feasible lambda (PTAS); ticks: its dual upper bound.</p>"
                     f"<img src='{figs['capacity']}'>")
    if "tradeoff" in figs:
        tr = [[t["scale"], t["best"] or "none feasible", t["average_latency"]] for t in d["tradeoff"]]
        parts.append("<h2>Latency–throughput trade-off</h2>"
                     f"<img src='{figs['tradeoff']}'>" + _table(tr, ["demand scale", "best candidate", "min avg latency"]))
    btl = []
    for spec in d["ranking"][:WINNERS]:
        r = next(x for x in d["records"] if x["spec"] == spec)
        for b in r["capacity"]["bottlenecks"][:3]:
            btl.append([spec, b["resource"], b["utilisation"]])
    if btl:
        parts.append("<h2>Bottleneck resources of the winners</h2>" + _table(btl, ["candidate", "resource", "utilisation at lambda"]))
    if d["cross_check"]:
        cc = [[c["spec"], c["ptas_lambda"], c["ptas_upper_bound"], c["lp_lambda"], c["relative_difference"],
               "yes" if c["within_eps"] else "NO", c["lp_seconds"]] for c in d["cross_check"]]
        parts.append("<h2>Exact LP cross-check (HiGHS)</h2>" + _table(
            cc, ["candidate", "PTAS lambda", "PTAS upper bound", "LP lambda", "relative difference", "within eps",
                 "LP seconds"]))
    if d["ranking"]:
        parts.append("<h2>Winners</h2>")
        for spec in d["ranking"][:WINNERS]:
            parts.append(f"<img src='{_drawing(spec, study)}'>")
    simd = d.get("simulation", [])
    if simd:
        sm = d["study"]["simulation"]
        rows_s = [[x["spec"] + (" (baseline)" if x["spec"] == sd["ranking"]["baseline"] else ""), x["status"],
                   x.get("saturation"), len(x.get("points", [])), x.get("reason", ""), x["seconds"]] for x in simd]
        parts.append(f"<h2>Simulation of the winners</h2><p>Cycle-level simulation (preset {html.escape(sm['preset'])}, "
                     f"load step {sm['step']:g} up to {sm['max_load']:g} phits/cycle/PE, the study's traffic as a "
                     "destination distribution) until the accepted load falls below 95% of the offered.</p>"
                     + (f"<img src='{figs['simulation']}'>" if "simulation" in figs else "")
                     + _table(rows_s, ["candidate", "status", "saturation (phits/cycle/PE)", "loads", "note", "seconds"]))
    else:
        parts.append("<p>Simulation of the winners: not requested (set [simulation] top).</p>")
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def write_sweep_outputs(res, out: Path) -> Path:
    """``out/sweep.json`` and ``out/report.html`` of a physical sweep: the
    winner's latency and the best capacity against the swept pin counts
    (the paper's Fig. 4), the winner of each variant (its Fig. 5), links to
    the variants' own reports."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    summ = res.summary()
    (out / "sweep.json").write_text(json.dumps({"study": res.study.to_dict(), "summary": summ,
                                                "seconds": res.seconds}, indent=1) + "\n", encoding="utf-8")
    x = list(range(len(summ)))
    fig, a1 = plt.subplots(figsize=(7, 3.8))
    lat = [s["latency"] for s in summ]
    a1.plot([i for i, v in zip(x, lat) if v is not None], [v for v in lat if v is not None], "o-", label="latency")
    a1.set_xticks(x, [s["variant"] for s in summ], rotation=30, fontsize=7)
    a1.set_ylabel(f"winner's min latency at scale {res.study.scales[0]:g}" if res.study.scales else "latency")
    a2 = a1.twinx()
    a2.plot(x, [s["best_capacity"] for s in summ], "s--", color="tab:red", label="best capacity")
    a2.set_ylabel("best capacity lambda")
    fig.legend(loc="upper right", fontsize=7)
    img = _png(fig)
    rows = [[s["variant"], s["winner"], s["latency"], s["best_capacity"]] for s in summ]
    links = "".join(f"<li><a href='{html.escape(s['variant'])}/report.html'>{html.escape(s['variant'])}</a></li>"
                    for s in summ)
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>toposynth sweep "
            f"{html.escape(res.study.name)}</title><style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}"
            "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px}</style></head><body>"
            f"<h1>Physical sweep: {html.escape(res.study.name)}</h1><p>{html.escape(res.study.description)}</p>"
            f"<img src='{img}'>" + _table(rows, ["variant", "winner", "winner's latency", "best capacity"]) +
            f"<h2>Variants</h2><ul>{links}</ul><p>{res.seconds:.1f} s.</p></body></html>")
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path
