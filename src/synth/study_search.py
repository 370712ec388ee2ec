"""Searched candidates of a study: ``[candidates] search = [{...}, ...]``.

Each entry asks for the best network the search finds for the study's
machine, under the study's packaging and traffic, and puts it in the pool
beside the listed candidates -- ranked, cross-checked and simulated like
them::

    [candidates]
    specs = ["torus:8x8x8"]
    search = [{label = "searched", degree = 11, moves = 20000, restarts = 2}]

Fields: ``label`` (default ``search-K``), ``routers`` (default: the
machine's PEs), ``degree`` (default: the machine's radix less one PE),
``objective`` (default ``physical`` under a packaging, else ``aspl``),
``weight``, ``moves`` (default 100000) or ``time`` (seconds per restart:
not reproducible), ``seed`` (default the study's), ``restarts``,
``symmetry``, ``regular`` (default true), ``start`` and ``fixed`` (specs),
``temperature``, and where the routers sit: ``grid = "5x4"`` with
``max_length`` (grid units, ``metric``; default the machine's
``max_length``, each value of a sweep its own search) on a chip; under a packaging the
study's ``physical.blocks`` (router i at the i-th point of the outermost
block in C order) or the ``start`` topology's own placement, and
``max_length`` in metres of wire.

The search runs before the pool is evaluated, its restarts on the run's
workers; with ``--out`` the graph goes to ``OUT/searched/LABEL.json`` (with
its placement and provenance) and each restart's checkpoint to
``OUT/searched/LABEL-HASH/``, so that a run interrupted during its search
resumes it, and a finished one is read back, not searched again. The
candidate's spec is ``graph:`` that file.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from candidates import from_spec, mesh, read_topology, write_topology
from candidates.search import OBJECTIVES
from candidates.search.layout import Layout, box_layout, grid_layout
from common.defaults import SEARCH_MAX_MOVES, SEARCH_MAX_RESTARTS, SEARCH_MOVES_PER_SECOND
from common.size import format_seconds
from common import compiletime
from common.errors import ToposynthError

from .errors import StudyError

__all__ = ["search_entries", "run_study_searches", "SEARCH_ENTRY_FIELDS", "check_search_budget"]

SEARCH_ENTRY_FIELDS = ("label", "routers", "degree", "objective", "weight", "moves", "time", "seed", "restarts",
                       "symmetry", "regular", "start", "fixed", "temperature", "grid", "max_length", "metric")


def _err(k: int, key: str, msg: str) -> StudyError:
    return StudyError(f"study field candidates.search[{k}].{key}: {msg}")


def check_search_budget(moves: int | None, restarts: int, error: Callable[[str, str], Exception]) -> None:
    """Refuse a search budget beyond what a machine can do (``error(field, message)`` makes the error):
    the search would not fail, it would run for years or hold a result per restart."""
    if moves is not None and moves > SEARCH_MAX_MOVES:
        raise error("moves", f"{moves:,} moves a restart would take about {format_seconds(moves / SEARCH_MOVES_PER_SECOND)} "
                             f"at {SEARCH_MOVES_PER_SECOND:,.0f} moves/s; at most {SEARCH_MAX_MOVES:,} (or give time)")
    if restarts > SEARCH_MAX_RESTARTS:
        raise error("restarts", f"{restarts:,} restarts: at most {SEARCH_MAX_RESTARTS:,} (each keeps a result and "
                                f"a checkpoint until the search ends)")


def search_entries(raw: Any, *, pes: int | None, radix: int | None, packaging: str, seed: int) -> tuple[dict, ...]:
    """Validated search entries, their defaults filled in (what the study's
    fingerprint records)."""
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise StudyError("study field candidates.search: must be a list of tables, e.g. "
                         "[{degree = 4, moves = 50000}]")
    out = []
    labels: set[str] = set()
    for k, e in enumerate(raw):
        unknown = sorted(set(e) - set(SEARCH_ENTRY_FIELDS))
        if unknown:
            raise _err(k, unknown[0], f"unknown field; valid: {', '.join(SEARCH_ENTRY_FIELDS)}")
        d: dict[str, Any] = {}
        d["label"] = str(e.get("label", f"search-{k}"))
        if not d["label"] or any(c in d["label"] for c in "/\\: ") or d["label"] in labels:
            raise _err(k, "label", f"must be a unique name without spaces, '/', '\\\\' or ':', got {d['label']!r}")
        labels.add(d["label"])

        def integer(key: str, default: Any, minimum: int = 1) -> Any:
            v = e.get(key, default)
            if v is None:
                return None
            if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
                raise _err(k, key, f"must be an integer >= {minimum}, got {v!r}")
            return v

        d["routers"] = integer("routers", pes)
        if d["routers"] is None:
            raise _err(k, "routers", "needed when the study's machine has no pes")
        d["degree"] = integer("degree", None if radix is None else radix - 1)
        if d["degree"] is None:
            raise _err(k, "degree", "needed when the study's machine has no radix (network ports per router)")
        objective = e.get("objective", "physical" if packaging != "none" else "aspl")
        if objective not in OBJECTIVES:
            raise _err(k, "objective", f"unknown objective {objective!r}; valid: {', '.join(OBJECTIVES)}")
        if OBJECTIVES[objective].needs_packaging and packaging == "none":
            raise _err(k, "objective", f"{objective} prices links by a packaging: set physical.packaging")
        d["objective"] = objective
        if "weight" in e:
            w = e["weight"]
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w <= 1:
                raise _err(k, "weight", f"must be a number in [0, 1] (the share of latency), got {w!r}")
            d["weight"] = float(w)
        d["moves"] = integer("moves", None if "time" in e else 100_000)
        d["restarts"] = integer("restarts", 1)
        check_search_budget(d["moves"], d["restarts"], lambda key, msg: _err(k, key, msg))
        if "time" in e:
            d["time"] = _number(e, "time", k, 0.0, None)
        d["seed"] = integer("seed", seed, 0)
        sym = e.get("symmetry", 1 if (packaging != "none" or "grid" in e) else "auto")
        if sym != "auto":
            sym = integer("symmetry", 1)
        d["symmetry"] = sym
        reg = e.get("regular", True)
        if not isinstance(reg, bool):
            raise _err(k, "regular", f"must be true or false, got {reg!r}")
        d["regular"] = reg
        for key in ("start", "fixed"):
            if key in e:
                try:
                    from_spec(str(e[key]))
                except ToposynthError as exc:
                    raise _err(k, key, f"{e[key]!r}: {exc}") from None
                d[key] = str(e[key])
        if "temperature" in e:
            d["temperature"] = _number(e, "temperature", k, 0.0, None)
        if "grid" in e:
            if packaging != "none":
                raise _err(k, "grid", "places routers on a chip; under a packaging they sit in physical.blocks")
            try:
                cols, rows = (int(x) for x in str(e["grid"]).lower().split("x"))
            except ValueError:
                raise _err(k, "grid", f"must be COLUMNSxROWS, e.g. \"5x4\", got {e['grid']!r}") from None
            if cols * rows != d["routers"]:
                raise _err(k, "grid", f"{cols}x{rows} holds {cols * rows} routers, the search {d['routers']}")
            d["grid"] = f"{cols}x{rows}"
        if "max_length" in e:
            if "grid" not in d and packaging == "none":
                raise _err(k, "max_length", "needs the routers' positions: a grid, or a packaging")
            d["max_length"] = _number(e, "max_length", k, 0.0, None)
        if "metric" in e:
            if e["metric"] not in ("euclidean", "manhattan"):
                raise _err(k, "metric", f"must be euclidean or manhattan, got {e['metric']!r}")
            d["metric"] = e["metric"]
        out.append(d)
    return tuple(out)


def _number(e: dict, key: str, k: int, low: float, high: float | None) -> float:
    v = e[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > low or (high is not None and v > high):
        rng = f"in ({low:g}, {high:g}]" if high is not None else f"> {low:g}"
        raise _err(k, key, f"must be a number {rng}, got {v!r}")
    return float(v)


def _layout(entry: dict, study, start):
    """Where the entry's routers sit: a grid, the study's blocks, or the start's placement."""
    n = entry["routers"]
    if "grid" in entry:
        cols, rows = (int(x) for x in entry["grid"].split("x"))
        return grid_layout(cols, rows), None
    physical = study.physical
    if physical.packaging == "none":
        return None, None
    if start is not None and start.placement is not None and start.n == n:
        coords = start.coords if start.coords is not None else np.zeros((n, 1), np.int64)
        return Layout(coords, start.shape or (n,), start.placement, name=f"the placement of {start.spec}"), start
    if not physical.blocks:
        raise StudyError(f"study field candidates.search ({entry['label']}): under a packaging the routers sit in "
                         "physical.blocks (or a start topology's placement): give blocks")
    box = physical.blocks[-1]
    if int(np.prod(box)) != n:
        raise StudyError(f"study field candidates.search ({entry['label']}): the outermost block "
                         f"{'x'.join(map(str, box))} holds {int(np.prod(box))} routers, the search {n}")
    placed = physical.place(mesh(box))
    return box_layout(box, placed.placement), placed


def _key(entry: dict, study, what: dict) -> str:
    """What the entry's graph depends on: the entry, the search's manifest
    (``what``), and under a packaging the physical model and the traffic."""
    d = {"entry": entry, "max_length": study.machine.max_length, "search": what}
    if study.physical.packaging != "none":
        d["physical"] = study.physical.to_dict()
        d["traffic"] = study.traffic.to_dict()
    return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:12]


def run_study_searches(study, out: str | os.PathLike | None, ex, progress: bool) -> list[str]:
    """Run the study's search entries (restarts on ``ex``'s workers) and
    return their candidates' specs (``graph:`` the written graphs)."""
    if not study.search:
        return []
    from candidates.search import finish_search  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    from .search import check_connected, manifest, open_checkpoint, placed_problem, run_restarts  # deferred: numba

    if out is not None:
        folder = Path(out) / "searched"
    else:
        # a run without --out: the graphs live as long as the process (workers read them while it runs)
        folder = Path(tempfile.mkdtemp(prefix="toposynth-searched-"))
        atexit.register(shutil.rmtree, folder, True)
    folder.mkdir(parents=True, exist_ok=True)
    specs = []
    for entry in study.search:
        path = folder / f"{entry['label']}.json"
        spec = f"graph:{path}"
        start = from_spec(entry["start"]) if "start" in entry else None
        fixed = from_spec(entry["fixed"]) if "fixed" in entry else None
        layout, template = _layout(entry, study, start)
        demands = None
        if entry["objective"] in ("physical",) and study.traffic.pattern != "uniform":
            demands = study.traffic.demands(template)
        kw = {k: entry[k] for k in ("objective", "seed", "symmetry", "regular", "temperature", "weight")
              if k in entry}
        max_length = entry.get("max_length", study.machine.max_length)
        problem = placed_problem(entry["routers"], entry["degree"], layout=layout,
                                 max_length=max_length, metric=entry.get("metric", "euclidean"),
                                 physical=study.physical, demands=demands, fixed=fixed, start=start,
                                 pes=max(1, (study.machine.pes or entry["routers"]) // entry["routers"]), **kw)
        moves, seconds, restarts = entry.get("moves"), entry.get("time"), entry["restarts"]
        what = manifest(problem, moves, seconds, restarts)
        # the graph and its checkpoints belong to exactly this search: a changed entry, packaging, traffic or
        # version of the search searches afresh in a folder of its own
        key = _key(entry, study, what)
        if path.is_file():
            try:
                if read_topology(path).params.get("study_search_key") == key:
                    specs.append(spec)
                    continue
            except ToposynthError:
                pass      # a damaged file: search again (the checkpoints make it quick)
        ck = folder / f"{entry['label']}-{key}"
        open_checkpoint(ck, what)
        if progress:
            print(f"toposynth: search {entry['label']!r}: {entry['routers']} routers of degree {entry['degree']}, "
                  f"objective {entry['objective']}, {restarts} restart(s) of "
                  f"{f'{moves:,} moves' if moves else f'{seconds:g} s'}", file=sys.stderr)
        # the search's time leaves out the kernels' first compiles, here and in the workers
        t0 = compiletime.clock()
        results = run_restarts(problem, ex, restarts, moves, seconds, ck)
        comp = ex.compile_seconds(t0)
        res = finish_search(problem, [results[k] for k in range(restarts)], moves, restarts, entry["symmetry"],
                            time.perf_counter() - t0 - comp, compile_seconds=comp)
        check_connected(res, results)
        topo = res.topology
        topo = topo.replace(params={**topo.params, "label": entry["label"], "study_search_key": key,
                                    "search_seconds": round(res.seconds, 3),
                                    "search_cpu_seconds": round(res.cpu_seconds, 3),
                                    "search_compile_seconds": round(res.compile_seconds, 3)})
        tmp = path.with_name(path.name + ".tmp.json")
        write_topology(topo, tmp)
        tmp.replace(path)
        if progress:
            print(f"toposynth: search {entry['label']!r}: diameter {res.diameter}, ASPL {res.aspl:.4f}"
                  + (f", {res.split_physical:.4g} x the traffic by an even split" if res.split_physical else "")
                  + f" ({res.seconds:.0f} s"
                  + compiletime.compile_note(res.compile_seconds, inside=True) + ")",
                  file=sys.stderr)
        specs.append(spec)
    return specs
