"""Study outputs: results.json, results.csv, winners/*.graphml and a
self-contained report.html (figures embedded as PNG data URIs).

The report reads as an architect defends a choice: the answer first (the
winner, its gains over the baseline with units and certified intervals,
the simulated confirmation, the cost), then performance against cost, the
ranking with units in every header, the evidence behind it, the winners
drawn (:mod:`synth.drawing`), and the study itself last as TOML.
Figures live in :mod:`synth.report_figures`.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import re
from pathlib import Path
from typing import Any

from candidates import from_spec, write_topology
from common.compiletime import compile_note
from common.errors import OutputPathError, ToposynthError
from common.paths import atomic_write_text
from common.tables import cell_text, html_table

from .answer import Answer, units
from .drawing import draw_topology
from .errors import RecordError, StudyError
from .machine import COST_MEASURES
from .records import CandidateRecord, validate_simulation
from .report_figures import (
    MAX_BARS,
    capacity_figure,
    pareto_figure,
    png,
    simulation_figure,
    sweep_figure,
    tradeoff_figure,
)
from .study import study_from_dict
from .study_table import study_columns, study_rows
from .toml_out import dumps, prune

__all__ = ["write_outputs", "render_report", "write_sweep_outputs"]

WINNERS = 3


def write_outputs(res, out: Path) -> None:
    out = Path(out)
    d = res.to_dict()
    text = json.dumps(d, indent=1) + "\n"
    # atomic: a failed or interrupted write leaves the previous results.json whole
    atomic_write_text(out / "results.json", text)
    _write_csv(d, out / "results.csv")
    from .evaluate import build_topology  # deferred: flows' solvers and numba, 0.6 s (docs/ARCHITECTURE.md)

    wdir = out / "winners"
    wdir.mkdir(exist_ok=True)
    for k, spec in enumerate(res.ranking[:WINNERS], 1):
        topo = build_topology(spec, res.study)
        write_topology(topo, wdir / f"{k}-{_slug(spec)}.graphml")
    # from the JSON just written, as `toposynth report` renders it; not re-validated: these records
    # are fresh, not read back from a file someone may have edited
    _write_page(out, json.loads(text))


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in "-_=" else "_" for c in spec)[:80]


def _write_csv(d: dict[str, Any], path: Path) -> None:
    """One row per candidate (:func:`synth.study_table.study_rows`); a value not measured is an empty cell."""
    cols = study_columns(d["study"]["traffic"]["scales"])
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for row in study_rows(d):
            w.writerow([_csv_cell(k, row[k]) for k in cols])


def _csv_cell(column: str, x: Any) -> Any:
    if x is None:
        return ""
    if column in ("seconds", "compile_seconds"):
        return f"{x:.3f}"
    return int(x) if isinstance(x, bool) else x


_CSS = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1.5em;color:#222;line-height:1.4}"
        "table{border-collapse:collapse;font-size:13px;margin:0.5em 0}"
        "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}"
        "th{background:#f3f3f3}td.l,th.l{text-align:left}tr.base td{background:#fff3f0}"
        ".answer{border:2px solid #2a6;border-radius:6px;padding:0.6em 1em;margin:1em 0;background:#f6fbf7}"
        ".answer p{font-size:16px;margin:0.3em 0}.answer h3{margin:0.2em 0;font-size:15px;color:#264}"
        ".note{color:#555;font-size:13px}.meta{color:#555;font-size:13px}figure{margin:1em 0}"
        "figcaption{font-size:13px;color:#444;max-width:900px}img{max-width:100%}"
        "td{white-space:nowrap}.figs{display:flex;flex-wrap:wrap;gap:1em}.figs figure{margin:0.5em 0}"
        "pre{background:#f6f6f6;padding:1em;overflow:auto;white-space:pre-wrap;font-size:12px}")


def _img(fig, ident: str) -> str:
    data = base64.b64encode(png(fig)).decode("ascii")
    return f"<img id='{ident}' alt='{html.escape(ident)}' src='data:image/png;base64,{data}'>"


def _table(rows: list[list[Any]], head: list[str], left: tuple[int, ...] = (0, 1), row_class=None) -> str:
    return html_table(head, rows, left=left, row_class=row_class)


def _e(x: Any) -> str:
    """Any value as HTML text: every value written into a page is escaped, whichever file it came
    from (a results.json is a file anyone may have edited)."""
    return html.escape(str(x))


def _pct(x: float) -> str:
    return f"{x * 100:+.1f}%"


_RERUN = "rerun `toposynth run STUDY --out DIR` to write it again (finished candidates are resumed)"


def _load(out: Path) -> dict[str, Any]:
    """``out/results.json``, checked: the records as
    :meth:`CandidateRecord.validate` wants them, the simulations as
    :func:`validate_simulation`, the ranking among the records, the study
    valid. One-line :class:`StudyError` otherwise."""
    if not out.is_dir():
        what = "does not exist" if not out.exists() else "is not a directory"
        raise StudyError(f"{out} {what}; give the --out directory of a `toposynth run`")
    path = out / "results.json"
    if not path.exists():
        sweep = " (a sweep: give one of its variant directories)" if (out / "sweep.json").exists() else ""
        raise StudyError(f"{out} holds no results.json{sweep}; run `toposynth run STUDY --out {out}` first")
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else f"not JSON: {exc}"
        raise StudyError(f"cannot read {path} ({why}); {_RERUN}") from None
    except RecursionError:  # the decoder recurses once per nesting level: no results nest this deep
        raise StudyError(f"cannot read {path} (JSON nested too deeply to be results); {_RERUN}") from None
    try:
        _check_results(d)
        study_from_dict(prune(d["study"]))
    except ToposynthError as exc:
        raise StudyError(f"{path} is damaged: {exc}; {_RERUN}") from None
    return d


def _check_results(d: Any) -> None:
    if not isinstance(d, dict):
        raise RecordError(f"not a results object (a JSON {type(d).__name__})")
    for key, kind in (("study", dict), ("records", list), ("ranking", list), ("fingerprint", str),
                      ("seconds", (int, float)), ("tradeoff", list), ("cross_check", list)):
        if not isinstance(d.get(key), kind):
            raise RecordError(f"field {key!r} missing or of the wrong type")
    for key in ("simulation", "answers"):
        if not isinstance(d.get(key, []), list):
            raise RecordError(f"field {key!r} is not a list")
    specs = set()
    for i, r in enumerate(d["records"]):
        try:
            specs.add(CandidateRecord.from_dict(r).validate().spec)
        except RecordError as exc:
            raise RecordError(f"record {i + 1}: {exc}") from None
    for s in d["ranking"]:
        if s not in specs:
            raise RecordError(f"ranked {s!r} has no record")
    for i, x in enumerate(d.get("simulation", [])):
        try:
            validate_simulation(x)
        except RecordError as exc:
            raise RecordError(f"simulation {i + 1}: {exc}") from None


def _classes(d: dict[str, Any]) -> list[tuple[int | None, list[str]]]:
    """(PEs, ranking) of every size class, the machine's first."""
    cl = d.get("classes") or {}
    if cl:
        return [(int(k), v) for k, v in cl.items()]
    return [(d.get("pes"), d["ranking"])]


def _cost_unit(measure: str) -> str:
    return COST_MEASURES.get(measure, measure)


#: cost columns of the answer and ranking tables: field, header with unit
_COSTS = [("routers", "routers"), ("links", "links"), ("radix", "radix (ports/router)"), ("ports", "ports"),
          ("wire_length", "wire length (m)"), ("wires", "wires"), ("pins", "connector pins"), ("cables", "cables")]


def _answer_section(d: dict[str, Any], u: dict[str, str]) -> str:
    """The answer first: each Answer's sentence, then winner(s) against the baseline, measure by measure."""
    answers = d.get("answers") or []
    if not answers:
        return "<h2>Answer</h2><p>These results predate stated answers: re-run the study to get one.</p>"
    parts = ["<h2 id='answer'>Answer</h2><div class='answer'>"]
    for a in answers:
        fields: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in a.items()}
        ans = Answer(**fields)
        parts.append(f"<h3>{html.escape(ans.heading())}</h3><p>{html.escape(ans.sentence(u))}</p>")
        for n in a.get("notes") or []:
            parts.append(f"<p class='note'>Note: {html.escape(n)}</p>")
    parts.append("</div>")
    parts.append(_answer_table(d, answers, u))
    return "".join(parts)


def _answer_table(d: dict[str, Any], answers: list[dict[str, Any]], u: dict[str, str]) -> str:
    """Measures as rows; the baseline and each answer's winner as columns; changes with certified intervals."""
    first = answers[0]
    base = first.get("baseline") if first.get("baseline_capacity") else None
    cols: list[tuple[str, dict[str, Any] | None]] = []
    if base is not None and base != first.get("winner"):
        cols.append((f"baseline: {base}", None))
    for ans in answers:
        # a winner that is the baseline is already its column; an answer against another reference (the
        # best listed candidate, for a searched one) is stated by its sentence
        if (ans.get("winner") is None or (ans.get("winner") == base and cols)
                or ans.get("baseline") != first.get("baseline")):
            continue
        cols.append((("winner" if ans["label"] == "best" else ans["label"]) + f": {ans['winner']}", ans))
    if not cols:
        return ""
    scales = {a.get("scale") for _, a in cols if a is not None and a.get("scale") is not None}
    one_scale = len(scales) <= 1
    n_seeds = d["study"].get("simulation", {}).get("seeds", 1)

    rows: list[list[Any]] = []

    def val(a, which):
        return (first if a is None else a).get(which)

    cap = [f"capacity \u03bb ({u['capacity_short']})"]
    capd = ["capacity vs baseline (certified interval)"]
    lat = [f"min average latency ({u['latency_short']})" + (f" at demand scale {next(iter(scales)):g}"
                                                            if len(scales) == 1 else "")]
    latd = ["latency vs baseline (certified interval)"]
    sat = ["simulated saturation (phits/cycle/PE)"]
    satd = ["saturation vs baseline"]
    for _, a in cols:
        c = val(a, "baseline_capacity") if a is None else a.get("capacity")
        cap.append(f"{c[0]:.4g} (certified \u2264 {c[1]:.4g})" if c else "")
        g = a.get("capacity_gain") if a else None
        capd.append(f"{_pct(g[0] - 1)} ({_interval(g[1] - 1, g[2] - 1)})" if g else "")
        lt = val(a, "baseline_latency") if a is None else a.get("latency")
        sc = "" if one_scale or a is None or a.get("scale") is None else f" at scale {a['scale']:g}"
        lat.append(f"{lt[0]:.4g} (certified \u2265 {lt[1]:.4g}){sc}" if lt else "")
        ch = a.get("latency_change") if a else None
        latd.append(f"{_pct(ch[0])} ({_interval(ch[1], ch[2])})" if ch else "")
        s = val(a, "baseline_saturation") if a is None else a.get("saturation")
        ci = val(a, "baseline_saturation_ci95") if a is None else a.get("saturation_ci95")
        sat.append((f"{s:.3g}" + ("" if ci is None else f" \u00b1 {ci:.2g} (95%, {n_seeds} seeds)"))
                   if s is not None else "not simulated")
        bs = a.get("baseline_saturation") if a else None
        satd.append(_pct(s / bs - 1) if a and s is not None and bs else "")
    # the capacity in the simulator's units: what the two numbers have to do with each other
    scale_of = {x["spec"]: x for x in d.get("simulation", []) if x.get("load_per_lambda") is not None}
    as_load = ["capacity as a simulated offered load (phits/cycle/PE)"]
    for _, a in cols:
        spec = base if a is None else a.get("winner")
        c = val(a, "baseline_capacity") if a is None else a.get("capacity")
        # the factor is the traffic's, the same for every candidate of one machine: a column not simulated too
        x = scale_of.get(spec) or next(iter(scale_of.values()), None)
        as_load.append(f"{c[0] * x['load_per_lambda']:.3g} (PE channels: ≤ {1 / x['busiest_pe']:.3g})"
                       if c and x else "")
    rows += [cap, capd, lat, latd, sat, satd, as_load]
    measure = first.get("cost_measure")
    for key, label in _COSTS:
        vals = [(val(a, "baseline_cost") if a is None else a.get("cost") or {}).get(key) for _, a in cols]
        if all(v is None for v in vals):
            continue
        rows.append([label + (" \u2014 the Pareto cost" if key == measure else "")]
                    + ["" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v)) for v in vals])
    rows = [r for r in rows if any(x not in ("", None) for x in r[1:])]
    note = ""
    if any(x not in ("", None) for x in as_load[1:]):
        x = next(iter(scale_of.values()))
        note = (f"<p class='note'>Capacity and saturation: the simulator offers the flow's demand set once at "
                f"{x['load_per_lambda']:.4g} phits/cycle/PE (it scales the same demands to an average load per PE), "
                f"so a capacity λ is an offered load of {x['load_per_lambda']:.4g} × λ that the "
                "network's links carry with free routing. The flow model leaves out the PEs' own channels: the "
                f"busiest PE sends or receives {x['busiest_pe']:.3g}× the average, so with one phit a cycle "
                f"per PE channel no network takes more than {1 / x['busiest_pe']:.3g} phits/cycle/PE for every PE; "
                "the simulated saturation (accepted load, averaged over PEs) also reflects the routing's "
                "restrictions and the routers' buffers.</p>")
    return _table(rows, ["measure"] + [c for c, _ in cols], left=(0,)) + note


def _saturation_cell(x: dict[str, Any]) -> Any:
    """A simulation record's saturation, with its interval over seeds when it has one."""
    ci = x.get("saturation_ci95")
    if x.get("saturation") is None or ci is None:
        return x.get("saturation")
    return f"{x['saturation']:.4g} \u00b1 {ci:.2g}"


def _interval(lo: float, hi: float) -> str:
    if abs(hi - lo) < 5e-4:
        return "exact: both certified optimal"
    return f"certified {_pct(lo)} \u2026 {_pct(hi)}"


def _ranking_table(d: dict[str, Any], ranked: list[str], u: dict[str, str], pareto: dict[str, Any]) -> str:
    by = {r["spec"]: r for r in d["records"]}
    sd = d["study"]
    base = sd["ranking"].get("baseline")
    scales = sd["traffic"]["scales"] if any(by[s].get("latency") for s in ranked) else []
    sims = {x["spec"]: x for x in d.get("simulation", []) if x.get("status") == "ok"}
    measure = pareto.get("cost")
    cost_cols = [(k, h) for k, h in _COSTS if k not in ("routers", "ports")
                 and any((by[s].get("cost") or {}).get(k) is not None for s in ranked)]
    # a column that is the same for every candidate says nothing: the routers of one machine often are
    show_routers = len({by[s].get("routers") for s in ranked}) > 1
    # distances between PEs, as the traffic sees them (a fat tree's PEs sit on its leaves); records written before
    # they were kept have the routers' only
    between = "between PEs " if all(by[s].get("pe_average_distance") is not None for s in ranked) else ""
    dist = ("pe_diameter", "pe_average_distance") if between else ("diameter", "average_distance")
    head = (["rank", "candidate"] + (["routers"] if show_routers else []) + [h for _, h in cost_cols]
            + [f"diameter {between}(hops)", f"avg distance {between}(hops)", f"capacity \u03bb ({u['capacity_short']})",
               f"certified \u2264 ({u['capacity_short']})"]
            + [f"latency @ {s:g} ({u['latency_short']})" for s in scales]
            + (["simulated saturation (phits/cycle/PE)"] if sims else [])
            + ([f"Pareto vs {measure}"] if pareto.get("capacity") is not None else []))
    # neighbours whose order the certificates do not decide (results written before ties were kept have none)
    ties = {k: v for k, v in (d.get("ties") or {}).items() if k in set(ranked)}
    if ties:
        head.append("tie (certified intervals overlap)")
    pos = {s: i for i, s in enumerate(ranked, 1)}
    rows = []
    for i, spec in enumerate(ranked, 1):
        r = by[spec]
        cap = r.get("capacity") or {}
        cost = r.get("cost") or {}
        lat = r.get("latency") or []
        fronts = [k for k in ("capacity", "latency") if spec in (pareto.get(k) or [])]
        rows.append([i, spec + (" (baseline)" if spec == base else "")] + ([r.get("routers")] if show_routers else [])
                    + [cost.get(k) for k, _ in cost_cols]
                    + [r.get(dist[0]), r.get(dist[1]), cap.get("lambda"), cap.get("upper_bound")]
                    + [cell_text(x.get("average_latency")) + (" (LP)" if x.get("solver") == "lp" else "") for x in lat]
                    + ([sims[spec]["saturation"] if spec in sims else ""] if sims else [])
                    + (["\u03bb, latency" if len(fronts) == 2 else "\u03bb" if fronts == ["capacity"] else
                        ", ".join(fronts)] if pareto.get("capacity") is not None else [])
                    + ([f"with rank {pos[ties[spec]]}" if spec in ties else ""] if ties else []))
    note = "" if show_routers else f"<p class='note'>Every candidate has {_e(by[ranked[0]].get('routers'))} routers.</p>"
    return note + _table(rows, head, row_class=lambda k: "base" if ranked[k] == base else None)


def _not_ranked(records: list[dict[str, Any]]) -> str:
    """Pruned and failed candidates: one line per pruning reason, a small table for the rest."""
    out = []
    pruned = [r for r in records if r["status"] == "pruned"]
    if pruned:
        reasons: dict[str, list[str]] = {}
        for r in pruned:
            reasons.setdefault(r.get("reason", ""), []).append(r["spec"])
        out.append("<p>Pruned before the PTAS: " + "; ".join(
            f"{len(v)} x {html.escape(k)} ({html.escape(', '.join(v[:6]) + (', ...' if len(v) > 6 else ''))})"
            for k, v in reasons.items()) + ".</p>")
    other = [r for r in records if r["status"] not in ("ok", "pruned")]
    if other:
        out.append(_table([[r["spec"], r["status"], r.get("reason", "")] for r in other],
                          ["candidate", "status", "reason"], left=(0, 1, 2)))
    return "".join(out)


def _bottlenecks(d: dict[str, Any], specs: list[str]) -> str:
    by = {r["spec"]: r for r in d["records"]}
    rows = []
    for spec in specs:
        r = by.get(spec)
        if r is None or r["status"] != "ok":
            continue
        for b in r["capacity"].get("bottlenecks", [])[:3]:
            res = b["resource"]
            # a bare arc "a->b" names routers by number: its position says more
            where = b.get("where") or res
            kind = _resource_kind(res, where)
            rows.append([spec + (" (baseline)" if spec == d["study"]["ranking"].get("baseline") else ""),
                         where, kind, b["utilisation"]])
    if not rows:
        return ""
    return ("<h2>Bottleneck resources</h2><p>The resources the flow saturates at the certified \u03bb, named by where "
            "they are (lattice coordinates of the link's ends, or packaging units).</p>"
            + _table(rows, ["candidate", "where", "resource", "utilisation at \u03bb"], left=(0, 1, 2)))


def _resource_kind(resource: str, where: str) -> str:
    """What kind of resource a bottleneck is, its position aside: "link" for
    an arc ("24->20"), "connector pins" for "node_card 13 connector pins"."""
    if resource.replace("->", "").isdigit():
        return "link"
    m = re.match(r"^[A-Za-z_]+ \d+ (.+)$", resource)
    if m:
        return m.group(1)
    return resource.replace(where, "").strip() or resource


def _study_toml(sd: dict[str, Any]) -> str:
    return dumps(prune(sd))


def render_report(out: str | Path) -> Path:
    """(Re)write ``out/report.html`` from ``out/results.json``: the answer
    first, then the Pareto figure, the ranking, the figures behind it, the
    winners drawn, and the study as TOML last. A missing directory, a
    missing or damaged ``results.json`` and an unwritable ``report.html``
    are a one-line :class:`~synth.errors.StudyError`.

    A study run in memory, its results written as ``run(study, out)``
    writes them, then the page:

    >>> import tempfile
    >>> from synth import run, study_from_dict
    >>> res = run(study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}}))
    >>> out = Path(tempfile.mkdtemp())
    >>> _ = (out / "results.json").write_text(json.dumps(res.to_dict()))
    >>> p = render_report(out)
    >>> p == out / "report.html", "complete:4" in p.read_text()
    (True, True)
    """
    out = Path(out)
    d = _load(out)
    try:
        page = _page(d)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        # _load checks the records and the parts it can; this is the rest of a hand-edited file
        raise StudyError(f"{out / 'results.json'} is damaged ({type(exc).__name__}: {exc}); {_RERUN}") from None
    return _write_page(out, page)


def _write_page(out: Path, page: "str | dict[str, Any]") -> Path:
    """Write ``out/report.html`` (a page, or the page of a results dict)."""
    if isinstance(page, dict):
        page = _page(page)
    path = out / "report.html"
    try:
        atomic_write_text(path, page)
    except OSError as exc:
        raise OutputPathError(f"cannot write {path}: {exc.strerror or exc}; remove what is in the way or make "
                              f"{out} writable (results.json is intact)") from None
    return path


def _page(d: dict[str, Any]) -> str:
    sd = d["study"]
    study = study_from_dict(prune(sd))
    u = units(study)
    base = sd["ranking"].get("baseline")
    if base:
        base = from_spec(base).spec or base
    scales = sd["traffic"]["scales"]
    classes = _classes(d)
    main_pes, ranking = classes[0]
    pareto = d.get("pareto") or {}
    statuses: dict[str, int] = {}
    for r in d["records"]:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    parts = ["<!doctype html><html><head><meta charset='utf-8'>",
             f"<title>toposynth study {html.escape(sd['name'])}</title><style>{_CSS}</style></head><body>",
             f"<h1>Study {html.escape(sd['name'])}</h1><p>{html.escape(sd['description'])}</p>"]
    parts.append(_answer_section(d, u))
    parts.append(f"<p class='meta'>Machine: {_e(main_pes)} PEs. Capacity \u03bb in {_e(u['capacity'])}; latency in "
                 f"{_e(u['latency'])}. {len(d['records'])} candidates: "
                 + ", ".join(f"{v} {_e(k)}" for k, v in sorted(statuses.items()))
                 + f"; {_e(d.get('resumed', 0))} taken from an earlier run; {d['seconds']:.1f} s"
                 + _e(compile_note(d.get("compile_seconds", 0.0))) + ". "
                 f"Fingerprint <code>{_e(d['fingerprint'])}</code>.</p>")
    winners = [a["winner"] for a in d.get("answers") or [] if a.get("winner")]
    measure = pareto.get("cost", "links")
    unit = _cost_unit(measure)
    cost_label = f"{measure.replace('_', ' ')} ({'' if unit == measure else unit + ', '}lower is cheaper)"
    main_records = [r for r in d["records"] if r["spec"] in set(ranking)]
    fig = pareto_figure(main_records, pareto, base, winners, scales[0] if scales else None, u, cost_label) \
        if pareto else None
    if fig is not None:
        parts.append("<h2>Performance against cost</h2><figure>" + _img(fig, "pareto") +
                     f"<figcaption>Every ranked candidate of the {_e(main_pes)}-PE machine against the study's cost "
                     f"measure ({html.escape(pareto['cost'])}, <code>ranking.cost</code>). Blue: the Pareto front "
                     "(no other candidate is at least as good for no more cost); red square: the baseline; star: "
                     "the winner (violet: the best at the baseline's cost). A name set apart from its point is joined to it "
                     "by a thin grey line.</figcaption></figure>")
    # the ranking, one table per size class; what was not ranked apart from it
    parts.append("<h2>Ranking</h2>")
    objective = sd["ranking"]["objective"]
    parts.append("<p>Ranked by " + ("capacity \u03bb" if objective == "capacity" else
                                    f"minimum average latency at demand scale {scales[0]:g}, ties by capacity"
                                    if scales else "capacity") + ". Capacity: the certified feasible \u03bb (PTAS) "
                 "and its certified upper bound (dual); latencies are the minimum average latency at each demand "
                 "scale (blank: that scale is not carried). A candidate whose certified interval overlaps the one "
                 "ranked above it is a tie with it: the solvers' tolerance could have ordered the two either way "
                 "(the exact LP's λ, where the cross-check solved it, narrows an interval to its point).</p>")
    for pes, ranked in classes:
        if len(classes) > 1:
            parts.append(f"<h3>{_e(pes)} PEs" + (" (the machine)" if pes == main_pes else " (another size, ranked apart)")
                         + "</h3>")
        if ranked:
            parts.append(_ranking_table(d, ranked, u, pareto if pes == main_pes else {}))
    if any(x.get("solver") == "lp" for r in d["records"] for x in r.get("latency") or []):
        parts.append("<p class='note'>Latencies marked (LP) are exact optima from HiGHS, solved where the PTAS "
                     "search stopped short of eps or the load sat inside the capacity's certified bracket (near a "
                     "candidate's capacity); the others are within eps of the optimum.</p>")
    nr = _not_ranked(d["records"])
    if nr:
        parts.append("<h3>Not ranked</h3>" + nr)
    same = d.get("same_network") or {}
    if same:
        rows = [[k, ", ".join(v)] for k, v in same.items()]
        parts.append("<h3>The same network</h3><p class='note'>These candidates were left out before evaluation: "
                     "each is the same network as the one it is listed with (isomorphic, with as many PEs on "
                     "corresponding routers; under a packaging, the same placed machine), so every flow figure "
                     "is the same.</p>" + _table(rows, ["evaluated as", "the same network"], left=(0, 1)))
    fig = capacity_figure(d["records"], ranking, base, u)
    if fig is not None:
        more = f" The first {MAX_BARS} of {len(ranking)} ranked are drawn." if len(ranking) > MAX_BARS else ""
        parts.append("<h2>Capacity</h2><figure>" + _img(fig, "capacity") + "<figcaption>Bars: certified feasible "
                     "\u03bb (PTAS); ticks: its certified upper bound; the true capacity lies between." + more
                     + "</figcaption></figure>")
    if scales and any(r.get("latency") for r in main_records):
        # one demand scale makes a column of dots, not a trade-off: the table says it all
        fig = tradeoff_figure(d["records"], ranking, d["tradeoff"], base, u) if len(scales) > 1 else None
        tr = [[t["scale"], t["best"] or "none feasible", t["average_latency"]] for t in d["tradeoff"]]
        parts.append("<h2>Latency\u2013throughput trade-off</h2>" + (_img(fig, "tradeoff") if fig else "")
                     + _table(tr, ["demand scale", "best candidate", f"min avg latency ({u['latency_short']})"],
                              left=(1,)))
    parts.append(_bottlenecks(d, ranking[:WINNERS] + ([base] if base and base not in ranking[:WINNERS] else [])))
    if d["cross_check"]:
        cc = [[c["spec"], c["ptas_lambda"], c["ptas_upper_bound"], c["lp_lambda"], c["relative_difference"],
               "yes" if c["within_eps"] else "NO", c["lp_seconds"]] for c in d["cross_check"]]
        cu = u["capacity_short"]
        parts.append("<h2>Exact LP cross-check (HiGHS)</h2>" + _table(
            cc, ["candidate", f"PTAS \u03bb ({cu})", f"PTAS upper bound ({cu})", f"LP \u03bb ({cu})",
                 "relative difference", "within eps", "LP time (s)"], left=(0,)))
    simd = d.get("simulation", [])
    if simd:
        sm = sd["simulation"]
        fig = simulation_figure(simd, base)
        seeds = sm.get("seeds", 1)
        rows_s = [[x["spec"] + (" (baseline)" if x["spec"] == base else ""), x["status"], x.get("routing", ""),
                   _saturation_cell(x), len(x.get("points", [])), x.get("reason", ""), x["seconds"]] for x in simd]
        # the simulator's first compile apart from the run times, where a run compiled it
        compiled = any(x.get("compile_seconds", 0.0) >= 0.05 for x in simd)
        if compiled:
            for row, x in zip(rows_s, simd):
                row.append(x.get("compile_seconds", 0.0))
        reps = "" if seeds == 1 else (f" Each candidate with {_e(seeds)} seeds ({_e(sd['seed'])} to {_e(sd['seed'] + seeds - 1)}): "
                                      "the saturation is their mean \u00b1 the half-width of its 95% interval "
                                      "(Student's t over the seeds); the figure draws every seed's curve.")
        parts.append(f"<h2>Simulation of the winners</h2><p>Cycle-level simulation (preset {html.escape(sm['preset'])}, "
                     f"load step {sm['step']:g} up to {sm['max_load']:g} phits/cycle/PE, the study's traffic as a "
                     f"destination distribution) until the accepted load falls below 95% of the offered.{reps}</p>"
                     + (_img(fig, "simulation") if fig is not None else "")
                     + _table(rows_s, ["candidate", "status", "routing", "saturation (phits/cycle/PE)", "loads",
                                       "note", "time (s)"] + (["compiling, first run (s)"] if compiled else []),
                              left=(0, 1, 2, 5)))
    else:
        parts.append("<p class='note'>Simulation of the winners: not requested (set [simulation] top).</p>")
    shown = list(dict.fromkeys(ranking[:WINNERS] + winners + ([base] if base in ranking else [])))
    if shown:
        parts.append("<h2>Winners</h2><p>The best ranked, the answers' winners and the baseline, drawn so that "
                     "a torus of three or more dimensions or a hypercube is not mistaken for a mesh; each caption "
                     "says which links are not drawn.</p><div class='figs'>")
        from .evaluate import build_topology  # deferred: flows' solvers and numba, 0.6 s (docs/ARCHITECTURE.md)

        for spec in shown:
            dr = draw_topology(build_topology(spec, study),
                               title=spec + (" (baseline)" if spec == base else ""))
            parts.append("<figure>" + _img(dr.figure, "drawing") + f"<figcaption>{html.escape(dr.caption)}"
                         "</figcaption></figure>")
        parts.append("</div>")
    parts.append("<h2>The study</h2><p>As TOML: save it as a file and <code>toposynth run FILE</code> "
                 "repeats the study.</p><pre id='study'>" + html.escape(_study_toml(sd)) + "</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_sweep_outputs(res, out: Path) -> Path:
    """``out/sweep.json`` and ``out/report.html`` of a sweep: each variant's
    winner, its gain over the baseline, its latency and the best capacity
    (for a pins sweep, the paper's Figs. 4 and 5), with links to the
    variants' own reports."""
    out = Path(out)
    summ = res.summary()
    (out / "sweep.json").write_text(json.dumps({"study": res.study.to_dict(), "summary": summ,
                                                "seconds": res.seconds, "compile_seconds": res.compile_seconds},
                                               indent=1) + "\n", encoding="utf-8")
    # units of the first variant: a swept pattern can change them, and each variant's own report says its own
    u = units(res.variants[0][1].study) if res.variants else units(res.study)
    scale = res.study.scales[0] if res.study.scales else None
    pins = any(isinstance(v, list) for v in res.study.physical.connector_pins.values())
    img = _img(sweep_figure(summ, scale, u), "sweep")
    rows = []
    for s, (_, vres) in zip(summ, res.variants):
        a = vres.answers[0] if vres.answers else None
        gain = a.capacity_gain if a is not None else None
        rows.append([s["variant"], s["winner"], _pct(gain[0] - 1) + f" ({_interval(gain[1] - 1, gain[2] - 1)})"
                     if gain else "", s["latency"], s["best_capacity"]])
    links = "".join(f"<li><a href='{html.escape(s['variant'])}/report.html'>{html.escape(s['variant'])}</a></li>"
                    for s in summ)
    cap = ("Per variant: the best certified capacity \u03bb of any candidate." if all(s["latency"] is None for s in summ)
           else "Per variant: the winner's minimum average latency (blue, left axis) and the best certified "
                "capacity \u03bb of any candidate (red, right axis).")
    lat_head = f"winner's min avg latency{f' at scale {scale:g}' if scale is not None else ''} ({u['latency_short']})"
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>toposynth sweep "
            f"{html.escape(res.study.name)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{'Physical sweep' if pins else 'Sweep'}: {html.escape(res.study.name)}</h1><p>{html.escape(res.study.description)}</p>"
            f"<figure>{img}<figcaption>{_e(cap)}</figcaption></figure>"
            + _table(rows, ["variant", "winner", "capacity vs baseline (certified interval)", lat_head,
                            f"best capacity \u03bb ({u['capacity_short']})"], left=(0, 1))
            + f"<h2>Variants</h2><ul>{links}</ul><p class='meta'>{res.seconds:.1f} s"
            + _e(compile_note(res.compile_seconds)) + ".</p>"
            "<h2>The study</h2><pre id='study'>" + html.escape(_study_toml(res.study.to_dict())) + "</pre></body></html>")
    path = out / "report.html"
    atomic_write_text(path, page)
    return path
