"""Synthesis by search on the study's workers: independent restarts in
parallel (loky processes or a dask cluster), checkpointed so that an
interrupted search resumes, the finalists' uniform capacity certified by a
flow solver.

The restarts are :func:`candidates.search.run_restart` tasks: restart ``k``
draws from its own stream of ``(seed, k)``, so the result does not depend
on how many run at once. The checkpoint folder holds ``search.json`` (what
the search is: a rerun with other parameters is refused) and each restart's
``restart-K.npz`` (its state every 30 s and at its end); workers write
``progress-K.json`` there (or, without a checkpoint, in a scratch folder of
the run) every few seconds for the parent's progress line.

>>> out = search(16, 3, moves=3000, restarts=2, seed=1, symmetry=1)
>>> out.result.diameter, out.result.best_restart in (0, 1), out.capacity is None
(3, True, True)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from candidates.errors import SpecError
from common import compiletime
from candidates.search import (
    SEARCH_VERSION,
    RestartResult,
    SearchProblem,
    SearchResult,
    finish_search,
    run_restart,
    search_problem,
)
from candidates.search import objective as objective_entry
from candidates.search.compile_notice import announce as announce_compile
from candidates.search.layout import Layout, max_length_allowed

from .backends import Executor
from .workload import Physical

__all__ = ["search", "SearchOutcome", "Finalist", "certify_capacity", "certify_physical", "placed_problem",
           "run_restarts", "check_connected", "open_checkpoint", "manifest"]

#: seconds between the progress files a worker writes
PROGRESS_EVERY = 3.0
#: the most demands a search's finalists are certified for by default under a packaging (uniform traffic
#: has n (n - 1): 512 routers 261,632, 4096 routers 16.8 million)
CERTIFY_MAX_DEMANDS = 1_000_000


@dataclass(frozen=True)
class Finalist:
    """A restart's best graph with its certified uniform capacity."""

    restart: int
    lam: float
    upper_bound: float
    gap: float
    method: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class SearchOutcome:
    """A search's result and, when certified, its finalists' capacities
    (``capacity``: the chosen graph's)."""

    result: SearchResult
    finalists: tuple[Finalist, ...] = ()
    capacity: Finalist | None = None
    #: why the finalists were not certified although the objective asks for it
    not_certified: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = self.result.to_dict()
        if self.capacity is not None:
            d["capacity"] = self.capacity.to_dict()
            d["finalists"] = [f.to_dict() for f in self.finalists]
        if self.not_certified:
            d["not_certified"] = self.not_certified
        return d


def manifest(problem: SearchProblem, moves: int | None, seconds: float | None, restarts: int) -> dict[str, Any]:
    def digest(links):
        return hashlib.sha256(np.ascontiguousarray(links).tobytes()).hexdigest()[:16] if len(links) else ""

    placed = {}
    if problem.allow is not None:
        placed["allowed"] = digest(problem.allow)
    if problem.resources is not None:
        placed["resources"] = digest(np.concatenate([problem.resources.capacity, problem.resources.unit.reshape(-1),
                                                     [float(problem.resources.uniform)]]))
    if problem.demands is not None:
        placed["demands"] = digest(np.concatenate([a.astype(np.float64) for a in problem.demands]))
    return {"search_version": SEARCH_VERSION, "routers": problem.routers, "degree": problem.degree,
            "objective": problem.objective, "weight": problem.weight, "seed": problem.seed,
            "symmetry": problem.lift.g, "regular": problem.regular, "fixed": digest(problem.fixed),
            "start": digest(problem.start), "temperature": problem.temperature, "moves": moves,
            "time": seconds, "restarts": restarts, **placed}


def open_checkpoint(folder: Path, manifest: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "search.json"
    if path.is_file():
        try:
            old = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            old = None
        if old != manifest:
            diff = sorted(k for k in manifest if old is None or old.get(k) != manifest[k])
            raise SpecError(f"{folder} holds the checkpoint of another search ({', '.join(diff) or 'unreadable'} "
                            "differ); use another checkpoint folder or delete this one to start afresh")
        return
    tmp = path.with_name("search.json.tmp")
    tmp.write_text(json.dumps(manifest, indent=1))
    os.replace(tmp, path)


def _restart_task(item: tuple) -> RestartResult:
    problem, k, moves, seconds, folder, progress_folder = item
    progress = None
    if progress_folder is not None:
        path = Path(progress_folder) / f"progress-{k}.json"

        def progress(p: dict[str, Any]) -> None:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(p))
            os.replace(tmp, path)

    return run_restart(problem, k, moves=moves, seconds=seconds, checkpoint=folder, progress=progress,
                       progress_every=PROGRESS_EVERY)


def search(routers: int, degree: int, *, objective: str = "aspl", weight: float | None = None, seed: int = 0,
           moves: int | None = 100_000, time_limit: float | None = None, restarts: int = 1,
           symmetry: int | str = "auto", regular: bool = True, fixed=None, start=None, temperature: float = 1.0,
           jobs: int = 1, backend: str = "loky",
           scheduler: str | None = None, checkpoint: str | os.PathLike | None = None,
           capacity: bool | None = None, eps: float = 0.01,
           progress: Callable[[dict[str, Any]], None] | None = None, layout: Layout | None = None,
           max_length: float | None = None, metric: str = "euclidean", physical: Physical | None = None,
           demands=None, pes: int = 1) -> SearchOutcome:
    """:func:`candidates.search.search_graph` with the restarts on ``jobs``
    workers (``backend`` loky or dask, ``scheduler`` a dask cluster), and --
    when ``capacity`` is True, or None and the objective asks for it -- every
    restart's best graph certified by ``flows`` (gap ``eps``), the search's
    answer being the finalist of highest certified capacity.
    ``progress(dict)`` gets the running restarts' figures every few seconds
    (a dict per restart, key ``restart``).

    Under a packaging (``physical``: a study's ``[physical]``, with a
    ``layout`` whose placement is the packaging's), the ``physical``
    objective prices links by its resources and ``demands`` (default
    uniform), ``max_length`` is the physical model's wire length in metres,
    and the finalists are certified by the physical flow (wires, pins; the
    packaging's wiring). Without one, ``max_length`` is measured between the
    layout's coordinates (``metric``) and finalists carry uniform traffic on
    unit links."""
    problem = placed_problem(routers, degree, objective=objective, weight=weight, seed=seed, symmetry=symmetry,
                             regular=regular, fixed=fixed, start=start, temperature=temperature, layout=layout,
                             max_length=max_length, metric=metric, physical=physical, demands=demands, pes=pes)
    _check_budget(restarts, moves, time_limit)
    if not 0 < eps < 1:
        raise SpecError(f"eps (the certified capacity's gap) must be in (0, 1), got {eps}")
    folder = None if checkpoint is None else Path(checkpoint)
    if folder is not None:
        open_checkpoint(folder, manifest(problem, moves, time_limit, restarts))
    # the search's time leaves out the kernels' first compiles, here and in the workers
    t0 = compiletime.clock()
    with Executor(backend, jobs, scheduler, notify=_notice) as ex:
        results = run_restarts(problem, ex, restarts, moves, time_limit, folder, progress)
    comp = ex.compile_seconds(t0)
    out = finish_search(problem, [results[k] for k in range(restarts)], moves, restarts, symmetry,
                        time.perf_counter() - t0 - comp, compile_seconds=comp)
    check_connected(out, results)
    want = problem.objective_entry.certify is not None if capacity is None else capacity
    if not want:
        return SearchOutcome(out)
    packaged = _packaged(physical)
    pairs = routers * (routers - 1)
    if capacity is None and packaged is not None and demands is None and pairs > CERTIFY_MAX_DEMANDS:
        # the physical flow of uniform traffic has a demand per router pair: beyond this, an LP out of reach
        return SearchOutcome(out, not_certified=(
            f"uniform traffic over {routers} routers is {pairs:,} demands, more than the physical flow is "
            f"certified for ({CERTIFY_MAX_DEMANDS:,}); the even split's capacity is a lower bound (give --traffic "
            "random:COUNT or local:COUNT to certify, or --capacity to try)"))
    certify = (lambda topo: certify_physical(topo, packaged, demands, eps)) if packaged is not None else (
        lambda topo: certify_capacity(topo, eps))
    return _certify(problem, out, results, moves, restarts, symmetry, certify, t0, ex)


def _packaged(physical: Physical | None) -> Physical | None:
    """``physical`` if it packages the routers (a packaging other than ``none``), else None."""
    return physical if physical is not None and physical.packaging != "none" else None


def _wire_length_allowed(layout: Layout, physical: Physical, max_length: float) -> np.ndarray:
    """Router pairs whose wire (the physical model's length) is at most ``max_length`` metres."""
    from flows.physical import link_lengths  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)

    assert layout.placement is not None  # a packaging's layout (placed_problem checks it)
    pk, _ = physical.packaging_and_technology()
    n = layout.n
    ok = np.zeros((n, n), dtype=bool)
    cols = np.arange(n)
    for a in range(0, n, 256):   # rows in blocks: the pair arrays stay small
        rows = np.arange(a, min(a + 256, n))
        u = np.repeat(rows, n)
        v = np.tile(cols, len(rows))
        ok[rows] = (link_lengths(layout.placement, pk, u, v) <= max_length * (1 + 1e-9)).reshape(len(rows), n)
    np.fill_diagonal(ok, False)
    return ok


def placed_problem(routers: int, degree: int, *, layout: Layout | None = None, max_length: float | None = None,
                   metric: str = "euclidean", physical: Physical | None = None, demands=None, pes: int = 1,
                   **kw) -> SearchProblem:
    """:func:`candidates.search.search_problem` with the placement's
    constraints (see :func:`search`): the allowed links of ``max_length``,
    the packaging's resources when the objective prices them."""
    objective = kw.get("objective", "aspl")
    packaged = _packaged(physical)
    allowed, constraints, resources = None, {}, None
    if packaged is not None:
        if layout is None or layout.placement is None:
            raise SpecError("a search under a packaging needs the routers' placement: a layout of the packaging's "
                            "blocks (--blocks)")
        pk, tech = packaged.packaging_and_technology()
        from flows.physical import link_resources  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)

        # the latency share counts a router's delay at its radix: its links and its ``pes`` PEs
        resources = link_resources(layout.placement, pk, packaged.wiring, technology=tech, pes=pes,
                                   max_degree=degree)
    if max_length is not None:
        if layout is None:
            raise SpecError("a maximum link length needs the routers' positions: --grid or a packaging")
        if packaged is not None:
            allowed = _wire_length_allowed(layout, packaged, float(max_length))
            constraints = {"layout": layout.name, "max_length_m": float(max_length)}
        else:
            allowed = max_length_allowed(layout.coords, max_length, metric)
            constraints = {"layout": layout.name, "max_length": float(max_length), "metric": metric}
    return search_problem(routers, degree, allowed=allowed,
                          resources=resources if objective_entry(objective).needs_packaging else None,
                          demands=demands, layout=layout, constraints=constraints, **kw)


def _check_budget(restarts, moves, time_limit) -> None:
    if isinstance(restarts, bool) or not isinstance(restarts, int) or restarts < 1:
        raise SpecError(f"restarts must be a positive integer, got {restarts!r}")
    if moves is None and time_limit is None:
        raise SpecError("a search needs a budget: --moves, --time, or both")
    if moves is not None and (isinstance(moves, bool) or not isinstance(moves, int) or moves < 1):
        raise SpecError(f"moves must be a positive integer, got {moves!r}")
    if time_limit is not None and not float(time_limit) > 0:
        raise SpecError(f"the time limit must be a positive number of seconds, got {time_limit!r}")


def run_restarts(problem: SearchProblem, ex: Executor, restarts: int, moves: int | None, time_limit: float | None,
                 folder: Path | None, progress=None) -> dict[int, RestartResult]:
    """Restarts ``0 .. restarts - 1`` of ``problem`` on the executor's workers
    (inline: one after the other), checkpointed in ``folder``."""
    results: dict[int, RestartResult] = {}
    if ex.inline:
        for k in range(restarts):
            results[k] = run_restart(problem, k, moves=moves, seconds=time_limit, checkpoint=folder,
                                     progress=progress)
        return results
    # the workers compile without a word (common.workers): the notice is this process's
    announce_compile()
    with tempfile.TemporaryDirectory(prefix="toposynth-search-") as scratch:
        # the workers' progress files: beside the checkpoints, or in a scratch folder of this run
        pfolder = None if progress is None else (folder if folder is not None else Path(scratch))
        for k in range(restarts):
            ex.submit(_restart_task, (problem, k, moves, time_limit, None if folder is None else str(folder),
                                      None if pfolder is None else str(pfolder)))
        _collect(ex, results, pfolder, progress)
    return results


def _notice(message: str) -> None:
    print(f"toposynth: {message}", file=sys.stderr, flush=True)


def check_connected(out: SearchResult, results: dict[int, RestartResult]) -> None:
    """Refuse, in one line, a search whose best graph is not connected."""
    if out.diameter < 0:
        best = min(results.values(), key=lambda r: (r.primary, r.restart))
        raise SpecError(f"the search found no connected graph ({best.unreachable:.0f} router pairs apart after "
                        f"{best.moves:,} moves): the degree, the placement's constraints or the budget are too tight; "
                        "raise the degree, the maximum length or the moves")


def _collect(ex: Executor, results: dict[int, RestartResult], folder: Path | None, progress) -> None:
    """Wait for the submitted restarts, reporting the workers' progress files."""
    last = 0.0
    while ex.busy:
        for f in ex.finished(feed=True):
            r = f.result()
            results[r.restart] = r
        ex.raise_failed()
        if not ex.busy:
            break
        time.sleep(0.2)
        now = time.perf_counter()
        if progress is not None and folder is not None and now - last >= PROGRESS_EVERY:
            last = now
            for p in sorted(folder.glob("progress-*.json")):
                try:
                    d = json.loads(p.read_text())
                except (OSError, json.JSONDecodeError):
                    continue
                if d.get("restart") not in results:
                    progress(d)
    for f in ex.finished():
        r = f.result()
        results[r.restart] = r


def certify_capacity(topo, eps: float) -> Finalist:
    """The certified uniform capacity of ``topo`` (every router sends one
    unit spread over the others; one unit per link direction)."""
    import flows  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)
    from flows.problem import Demands, FlowProblem  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    t = time.perf_counter()
    r = flows.solve(FlowProblem.from_topology(topo, Demands.uniform(topo.n)), eps=eps, topology=topo)
    return Finalist(-1, float(r.lam), float(r.upper_bound), float(r.gap), str(r.extra.get("method", "")),
                    time.perf_counter() - t)


def certify_physical(topo, physical: Physical, demands, eps: float) -> Finalist:
    """The certified capacity of a placed ``topo`` under the packaging
    (flow in wires; ``demands``, default uniform)."""
    import flows  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)
    from flows.problem import Demands  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    t = time.perf_counter()
    d = demands if demands is not None else Demands.uniform(topo.n)
    r = flows.solve(physical.problem(topo, d), eps=eps)
    return Finalist(-1, float(r.lam), float(r.upper_bound), float(r.gap), str(r.extra.get("method", "")),
                    time.perf_counter() - t)


def _certify(problem, out: SearchResult, results: dict[int, RestartResult], moves, restarts, symmetry,
             certify: Callable, t0: float, ex: Executor) -> SearchOutcome:
    finalists = []
    for k in sorted(results):
        one = finish_search(problem, [results[k]], moves, 1, symmetry, 0.0)
        finalists.append(replace(certify(one.topology), restart=k))
    best = max(finalists, key=lambda f: (f.lam, -f.restart))
    # the answer is the finalist of the highest certified capacity (ties: the lower restart)
    comp = ex.compile_seconds(t0)
    res = finish_search(problem, [results[k] for k in sorted(results)], moves, restarts, symmetry,
                        time.perf_counter() - t0 - comp, chosen=best.restart, compile_seconds=comp)
    return SearchOutcome(res, tuple(finalists), best)
