"""The design flow: study -> candidate pool -> ranking -> LP cross-check -> results.

Candidate evaluations run on one :class:`synth.backends.Executor` per run
(in-process, a loky process pool, or a dask cluster). Every finished
record is appended to ``DIR/records.jsonl`` at once (flushed and synced), so
an interrupted sweep loses nothing finished -- on Ctrl-C the results that
completed but were not yet written are written before the run stops -- and
the same command resumes it: candidates already recorded for the same study
fingerprint are not evaluated again. A damaged or impossible record is not
trusted: it is set aside to ``DIR/records.rejected.jsonl`` with one warning
and evaluated again (:mod:`synth.record_log`); the output directory is
checked before any work.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

import sim
from candidates import from_spec
from common import compiletime
from common.errors import OutputPathError
from common.paths import atomic_write_text
from common.tables import cell_text, dataframe, flatten, html_records
from sim import SimError
from sim.compile_notice import prepare as prepare_sim_compile
from sim.routers import ROUTER_REGISTRY
from sim.routing import with_class_vcs
from sim.search import LoadSearch, SearchSet
from sim.threads import ThreadPlan, check_threads, default_threads

from . import report
from .answer import Answer, study_answers, units
from .backends import BACKENDS, Executor, NoWorkers
from .evaluate import announce_compile, build_problem, build_topology, evaluate
from .machine import check_machine, pareto_front
from .pool import candidate_pool
from .record_log import open_log, prepare_out_dir, read_log
from .records import CandidateRecord, validate_simulation
from .study import Study, StudyError
from .study_search import run_study_searches
from .study_table import study_rows
from .ties import tied_with_above

__all__ = ["run", "StudyResult", "SweepStudyResult", "rank", "BACKENDS", "backend_settings"]


@dataclass
class StudyResult:
    """Records of every candidate (in pool order), the ranking of the
    machine's candidates, the cross-check, the simulations, and the answer.

    ``pes``: the machine's processing elements; ``classes``: with
    ``machine.compare_sizes``, the ranking of every size class (PEs ->
    specs), never mixed; ``pareto``: per performance measure, the specs on
    the front of that measure against the cost ``study.cost``.

    In a notebook a result shows as a table (``_repr_html_``): the answer,
    then a row per candidate; :meth:`to_dataframe` gives the rows of
    ``results.csv`` as a pandas DataFrame.

    >>> from synth.study import study_from_dict
    >>> res = run(study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}}))
    >>> [r.spec for r in res.records], res.ranking, res.pes
    (['ring:4', 'complete:4'], ['complete:4', 'ring:4'], 4)
    >>> res.answers[0].winner, res.answers[0].capacity, res.pareto
    ('complete:4', (3.0, 3.0), {'cost': 'links', 'capacity': ['ring:4', 'complete:4']})
    """

    study: Study
    records: list[CandidateRecord]
    ranking: list[str]
    cross_check: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    resumed: int = 0
    simulation: list[dict[str, Any]] = field(default_factory=list)
    pes: int | None = None
    classes: dict[int, list[str]] = field(default_factory=dict)
    pareto: dict[str, str | list[str]] = field(default_factory=dict)   # "cost": the measure; its fronts
    answers: list[Answer] = field(default_factory=list)
    #: candidates left out as the same network as a kept one (kept spec -> the others), not evaluated
    same_network: dict[str, list[str]] = field(default_factory=dict)
    #: ranked specs whose order against the one ranked just above is not certified (spec -> that one), every
    #: size class (:mod:`synth.ties`)
    ties: dict[str, str] = field(default_factory=dict)
    #: wall seconds of the run during which it or a worker compiled numba kernels (a cold cache's first
    #: run), not part of ``seconds``
    compile_seconds: float = 0.0

    def record(self, spec: str) -> CandidateRecord:
        for r in self.records:
            if r.spec == spec:
                return r
        raise KeyError(spec)

    def tradeoff(self) -> list[dict[str, Any]]:
        """For every demand scale, the candidate of least latency (the
        paper's Fig. 3 curve), and the largest scale any candidate carries."""
        out = []
        ranked = set(self.ranking)
        for i, s in enumerate(self.study.scales):
            best = None
            for r in self.records:
                if r.spec not in ranked or not r.ok:
                    continue
                lat = r.latency_at(i)
                if lat is not None and (best is None or lat < best[1]):
                    best = (r.spec, lat)
            out.append({"scale": s, "best": best[0] if best else None, "average_latency": best[1] if best else None})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"study": self.study.to_dict(), "fingerprint": self.study.fingerprint(), "pes": self.pes,
                "answers": [a.to_dict() for a in self.answers],
                "records": [r.to_dict() for r in self.records], "ranking": self.ranking,
                "classes": {str(k): v for k, v in self.classes.items()}, "pareto": self.pareto,
                "tradeoff": self.tradeoff(), "cross_check": self.cross_check,
                "simulation": self.simulation, "seconds": self.seconds, "compile_seconds": self.compile_seconds,
                "resumed": self.resumed, "same_network": self.same_network, "ties": self.ties}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with a row per candidate, ranked ones first:
        the columns of ``results.csv`` (:mod:`synth.study_table`), a value
        not measured None. Needs pandas (the ``pandas`` extra).

        >>> from synth.study import study_from_dict
        >>> res = run(study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}}))
        >>> res.to_dataframe()[["rank", "spec", "lambda"]].values.tolist()
        [[1, 'complete:4', 3.0], [2, 'ring:4', 1.5]]
        """
        return dataframe(study_rows(self.to_dict()))

    def _repr_html_(self) -> str:
        """A notebook's view: the answer in a paragraph, then a row per candidate with units in the headers."""
        u = units(self.study)
        ok = sum(1 for r in self.records if r.ok)
        head = [f"study {self.study.name!r}: {len(self.records)} candidates, {ok} evaluated, ranked by "
                f"{self.study.objective}; {cell_text(self.seconds)} s" + compiletime.compile_note(self.compile_seconds)]
        head += [f"{a.heading()}: {a.sentence(u)}" for a in self.answers]
        columns = [("rank", "rank"), ("spec", "candidate"), ("status", "status"), ("baseline", "baseline"),
                   ("size_class", "PEs"), ("cost_routers", "routers"), ("cost_links", "links"),
                   ("max_degree", "max degree"), ("diameter", "diameter"),
                   ("lambda", f"lambda ({u['capacity_short']})"), ("gap", "gap")]
        columns += [(f"latency@{s:g}", f"latency at {s:g} ({u['latency_short']})") for s in self.study.scales]
        columns += [("sim_saturation", "simulated saturation (phits/cycle/PE)"), ("seconds", "seconds (s)"),
                    ("reason", "reason")]
        return html_records(study_rows(self.to_dict()), columns, head)


@dataclass
class SweepStudyResult:
    """A physical sweep (pin counts given as lists): one StudyResult per variant."""

    study: Study
    variants: list[tuple[str, StudyResult]]
    seconds: float = 0.0
    #: as :attr:`StudyResult.compile_seconds`, over every variant
    compile_seconds: float = 0.0

    def summary(self) -> list[dict[str, Any]]:
        """Per variant: the winner, its latency at the first scale, the best
        capacity of the machine's candidates (the paper's Figs. 4 and 5) and
        the winner's capacity gain over the baseline (point, low, high)."""
        out = []
        for label, res in self.variants:
            top = res.ranking[0] if res.ranking else None
            lat = res.record(top).latency_at(0) if top else None
            ranked = set(res.ranking)
            best_cap = max((_lam(r) for r in res.records if r.spec in ranked), default=None)
            gain = res.answers[0].capacity_gain if res.answers else None
            out.append({"variant": label, "pins": dict(res.study.physical.connector_pins),
                        "winner": top, "latency": lat, "best_capacity": best_cap,
                        "capacity_gain": None if gain is None else list(gain)})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"study": self.study.to_dict(), "summary": self.summary(), "seconds": self.seconds,
                "compile_seconds": self.compile_seconds,
                "variants": {label: res.to_dict() for label, res in self.variants}}

    def to_dataframe(self) -> Any:
        """A pandas DataFrame with a row per variant: :meth:`summary`,
        its pin counts flattened (``pins.node_card``). Needs pandas (the
        ``pandas`` extra)."""
        return dataframe(flatten(x) for x in self.summary())

    def _repr_html_(self) -> str:
        """A notebook's view: a row per variant, the winner and its figures with units."""
        u = units(self.study)
        rows = [flatten(x) for x in self.summary()]
        pins = list(dict.fromkeys(k for r in rows for k in r if k.startswith("pins.")))
        scale = f" at {self.study.scales[0]:g}" if self.study.scales else ""
        columns = ([("variant", "variant")] + [(k, f"{k[len('pins.'):]} pins") for k in pins]
                   + [("winner", "winner"), ("latency", f"winner's latency{scale} ({u['latency_short']})"),
                      ("best_capacity", f"best lambda ({u['capacity_short']})"),
                      ("capacity_gain", "winner's capacity over the baseline's (point, low, high)")])
        head = (f"study {self.study.name!r}: a sweep of {len(self.variants)} variants; "
                f"{cell_text(self.seconds)} s" + compiletime.compile_note(self.compile_seconds))
        return html_records(rows, columns, head)


def _lam(r: CandidateRecord) -> float:
    """An evaluated (``ok``) record's capacity lambda."""
    assert r.capacity is not None  # an ok record has its capacity (CandidateRecord.validate checks a resumed one)
    return r.capacity.lam


def _latency_key(r: CandidateRecord) -> float:
    v = r.latency_at(0)
    return float("inf") if v is None else v


def rank(study: Study, records: list[CandidateRecord]) -> list[str]:
    """Specs of the evaluated candidates, best first: by capacity lambda
    (``capacity``), or by the minimum latency at the first demand scale,
    ties by capacity (``latency``, ``both``). Ties keep pool order."""
    ok = [r for r in records if r.ok]
    if study.objective == "capacity":
        ok.sort(key=lambda r: -_lam(r))
    else:
        ok.sort(key=lambda r: (_latency_key(r), -_lam(r)))
    return [r.spec for r in ok]


def _load_records(path: Path, fingerprint: str, parse: Callable[[dict], Any]) -> dict[str, Any]:
    """The records of the log ``path`` computed for this study fingerprint,
    by spec, as ``parse`` returns them; damaged or impossible ones are set
    aside with one warning line and so evaluated again
    (:func:`synth.record_log.read_log`)."""
    return read_log(path, fingerprint, parse).records


def _candidate(d: dict[str, Any]) -> CandidateRecord:
    return CandidateRecord.from_dict(d).validate()


def _keep(rec: dict[str, Any], fp: str, done: dict, log) -> None:
    """Remember a finished simulation record and make it durable at once (resumability)."""
    rec = {**rec, "fingerprint": fp}
    done[rec["spec"]] = rec
    _write(rec, log)


@contextmanager
def _interrupt_after() -> Iterator[None]:
    """Ctrl-C inside the block takes effect when it ends: a record and its
    progress line are written together or not at all (an interrupt between
    them left a record the user was never told of)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit: list[Any] = []
    old = signal.signal(signal.SIGINT, lambda *a: hit.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if hit and callable(old):
            old(*hit[0])


def _left(seconds: float) -> str:
    """An estimate of the time left, as a person says it: '40 s', '3 min', '1.2 h'.

    >>> _left(3.4), _left(38.2), _left(185), _left(6300)
    ('3 s', '40 s', '3 min', '1.8 h')
    """
    if seconds < 10:
        return f"{seconds:.0f} s"
    if seconds < 90:
        return f"{round(seconds, -1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


#: the candidates' progress lines estimate the time left once the phase has run this long, and while at least
#: this much is left (seconds)
_ESTIMATE_AFTER = 5.0
_ESTIMATE_LEFT = 1.0


def _log(rec: CandidateRecord, fp: str, done: dict, log, progress: bool, k: int, total: int,
         left: float | None = None) -> None:
    rec = replace(rec, fingerprint=fp)
    with _interrupt_after():
        done[rec.spec] = rec
        _write(rec.to_dict(), log)
        if progress:
            what = f"lambda {_lam(rec):.4g}" if rec.ok else f"{rec.status}: {rec.reason}"
            comp = compiletime.compile_note(rec.compile_seconds, inside=True)
            eta = f"; about {_left(left)} left" if left is not None else ""
            print(f"  [{k}/{total}] {rec.spec}: {what} ({rec.seconds:.2f} s{comp}){eta}", file=sys.stderr)


def _write(d: dict[str, Any], log) -> None:
    if log is not None:
        log.append(d)


class _Evaluate:
    """Picklable: ``(spec, best)`` -> evaluate(spec, study, best), ``best`` the best value so far of the
    candidate's size class (the same callable for every task of a run: only the item differs)."""

    def __init__(self, study: Study):
        self.study = study

    def __call__(self, item: tuple[str, float | None]) -> CandidateRecord:
        spec, best = item
        return evaluate(spec, self.study, best)


#: Candidates are evaluated in waves of this many, in pool order; pruning uses
#: only the records of earlier waves, so it does not depend on --jobs, on the
#: order results arrive in, or on where an interrupted run stopped.
WAVE = 16


def _best(study: Study, records: list[CandidateRecord]) -> float | None:
    ok = [r for r in records if r.ok]
    if study.objective == "capacity":
        return max((_lam(r) for r in ok), default=None)
    vals = [_latency_key(r) for r in ok]
    vals = [v for v in vals if v != float("inf")]
    return min(vals, default=None)


def backend_settings(study: Study, jobs: int | None = None, backend: str | None = None,
                     scheduler: str | None = None) -> tuple[str, int, str | None]:
    """``(backend, jobs, scheduler)`` of a run: the arguments (the command
    line) win over the study's ``[dask]`` section. No backend given: ``dask``
    when a scheduler is given or the study has a ``[dask]`` section, else
    ``loky``. No jobs given: ``dask.workers`` for a local dask cluster, else 1.

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["ring:6"]}, "dask": {"workers": 3}})
    >>> backend_settings(s), backend_settings(s, jobs=2), backend_settings(s, backend="loky")
    (('dask', 3, None), ('dask', 2, None), ('loky', 1, None))
    """
    if backend is None:
        backend = "dask" if scheduler is not None or study.dask is not None else "loky"
    if backend not in BACKENDS:
        raise StudyError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if backend == "dask" and scheduler is None and study.dask is not None:
        scheduler = study.dask.get("scheduler")
    if jobs is None:
        jobs = (study.dask or {}).get("workers", 1) if backend == "dask" else 1
    return backend, jobs, scheduler


class _Chunk:
    """Picklable: ``fn`` over a list of items, in one task."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, items: list) -> list:
        return [self.fn(x) for x in items]


#: A task of the pool or cluster carries several candidates when earlier
#: ones took less than this many seconds each (a pruned candidate takes a
#: few milliseconds, less than a dask task's own cost of about 5 ms on this
#: 2-core machine) ...
CHUNK_SECONDS = 0.25
#: ... and at most this many (what a Ctrl-C can lose of a worker's work).
CHUNK_MAX = 4


def chunk_size(n: int, slots: int, seconds: list[float]) -> int:
    """Candidates per task for ``n`` candidates on ``slots`` workers, given
    the evaluation times ``seconds`` of earlier ones (none: one per task):
    tasks of about :data:`CHUNK_SECONDS`, at most :data:`CHUNK_MAX`
    candidates, and at least two tasks per worker.

    >>> chunk_size(16, 2, []), chunk_size(16, 2, [0.004] * 16), chunk_size(16, 2, [0.1] * 16), chunk_size(200, 2, [0.01])
    (1, 4, 2, 4)
    """
    if not seconds or n < 2 * slots:
        return 1
    mean = sum(seconds) / len(seconds)
    by_time = int(CHUNK_SECONDS / mean) if mean > 0 else CHUNK_MAX
    return max(1, min(CHUNK_MAX, by_time, n // (2 * slots)))


def _label(item: Any) -> str:
    """What a task's item computes, for a notice: its candidate (an item is ``(spec, ...)``)."""
    return str(item[0]) if isinstance(item, tuple) and item else str(item)


def _gather(ex, items: list, fn: Callable, keep: Callable, chunk: int = 1) -> None:
    """Submit ``fn(item)`` for every item (``chunk`` items a task) and
    ``keep`` each result as its task completes; when interrupted (Ctrl-C)
    or when the machinery breaks (a killed loky worker), every result
    already finished is kept before the exception goes on."""
    batch = _Chunk(fn)
    try:
        for i in range(0, len(items), chunk):
            ex.submit(batch, items[i:i + chunk], label=", ".join(_label(x) for x in items[i:i + chunk]))
        for fut in ex.as_completed():
            for r in fut.result():
                keep(r)
    except BaseException:
        for fut in ex.finished():
            for r in fut.result():
                keep(r)
        raise


def run(study: Study, out: str | os.PathLike | None = None, *, jobs: int | None = None, backend: str | None = None,
        scheduler: str | None = None, progress: bool = False, verbose: bool | None = None,
        threads: int | None = None) -> "StudyResult | SweepStudyResult":
    """Run a study; with ``out``, write and resume ``out/records.jsonl``
    and write the results and the report there. A study that sweeps pin
    counts runs each variant into ``out/LABEL`` and returns a
    :class:`SweepStudyResult` with a summary report in ``out``.

    ``jobs``, ``backend``, ``scheduler``: where the evaluations run (see
    :func:`backend_settings` and :mod:`synth.backends`); one pool or
    cluster serves the whole run. ``verbose``: let the dask loggers through.
    ``threads``: of each simulation (:func:`simulation_threads`; by default
    only the simulations of networks of at least
    :data:`sim.threads.THREADED_ROUTERS` routers run on several); the
    numbers do not depend on it.

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["ring:6", "complete:6"]},
    ...                      "ranking": {"objective": "capacity"}, "cross_check": {"top": 1}})
    >>> res = run(s)
    >>> res.ranking, round(res.cross_check[0]["lp_lambda"], 6)    # K6 carries 5 units per PE
    (['complete:6', 'ring:6'], 5.0)
    """
    backend, jobs, scheduler = backend_settings(study, jobs, backend, scheduler)
    # a thread count asked for applies to every simulation; the default only to networks large enough
    # for threads to pay (sim.threads.THREADED_ROUTERS)
    plan = ThreadPlan(simulation_threads(study, threads, jobs, local=scheduler is None), by_size=threads is None)
    with Executor(backend, jobs, scheduler, verbose=verbose, notify=_notice) as ex:
        return _run(study, out, ex, progress, threads=plan)


def simulation_threads(study: Study, threads: int | None, workers: int, local: bool = True) -> int:
    """The threads of each of a study's simulations: ``threads`` when given
    (checked against this machine), else the usable cores shared among the
    run's ``workers`` when they are ``local`` (one on a remote cluster,
    whose machines are not known here); one for a router model that runs
    on one thread (with a note when more were asked for). Only how the
    simulations are computed: the numbers, and so the study's records, do
    not depend on it.

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["ring:6"]}, "simulation": {"top": 1, "preset": "tpds2010"}})
    >>> simulation_threads(s, None, 10**6)     # more workers than cores: one thread each
    1
    """
    if threads is not None:
        threads = check_threads(threads)
    if study.sim_top == 0:
        return 1    # nothing simulated: the simulator's modules stay unloaded
    model = sim.router_model(study.sim_preset)
    if not model.threads:
        if threads is not None and threads > 1:
            _notice(f"note: router model {model.name} (preset {study.sim_preset}) runs on one thread "
                    f"(--threads {threads} applies to {', '.join(m.name for m in ROUTER_REGISTRY.values() if m.threads)})")
        return 1
    if threads is not None:
        return threads
    return default_threads(workers) if local else 1


def _notice(message: str) -> None:
    print(f"toposynth: {message}", file=sys.stderr, flush=True)


def _run(study: Study, out: str | os.PathLike | None, ex: Executor, progress: bool,
         nested: bool = False, threads: ThreadPlan = ThreadPlan()) -> "StudyResult | SweepStudyResult":
    variants = study.variants()
    if out is not None:
        # before any work: a directory that cannot take the results refuses the run now
        prepare_out_dir(out)
        for label, _ in variants if len(variants) > 1 else ():
            prepare_out_dir(Path(out) / label)
    if len(variants) > 1:
        t0 = compiletime.clock()
        results: list[tuple[str, StudyResult]] = []
        for label, sub in variants:
            if progress:
                print(f"toposynth: variant {label}", file=sys.stderr)
            res = _run(sub, None if out is None else Path(out) / label, ex, progress, True, threads)
            assert isinstance(res, StudyResult)  # a variant is one study: no sweep of its own
            results.append((label, res))
        ex.release()   # the report is written while a local dask cluster stops
        comp = ex.compile_seconds(t0)
        sweep_res = SweepStudyResult(study, results, max(0.0, time.perf_counter() - t0 - comp), comp)
        if out is not None:
            _write_outputs(report.write_sweep_outputs, sweep_res, Path(out), "each variant's records are kept in "
                           f"{Path(out)}/LABEL/records.jsonl")
        return sweep_res
    # the run's time leaves out the kernels' first compiles, here and in the workers (Executor.compile_seconds)
    t0 = compiletime.clock()
    searched = run_study_searches(study, out, ex, progress)
    base = _canonical(study.baseline)
    pool = candidate_pool(study, searched, keep=base)
    sizes = pool.sizes
    specs = list(sizes)
    if progress and pool.same:
        dropped = sum(len(v) for v in pool.same.values())
        print(f"toposynth: {dropped} candidate(s) left out as the same network as another "
              f"({'; '.join(k + ' = ' + ', '.join(v) for k, v in pool.same.items())})", file=sys.stderr)
    pes = check_machine(study.machine, sizes, base)
    check_simulation_routing(study, pool, base)
    fp = study.fingerprint()
    done: dict[str, CandidateRecord] = {}
    log = None
    if out is not None:
        out = Path(out)
        path = out / "records.jsonl"
        done = _load_records(path, fp, _candidate)
        try:
            atomic_write_text(out / "study.json", json.dumps(study.to_dict(), indent=2) + "\n")
        except OSError as exc:
            raise OutputPathError(f"cannot write {out / 'study.json'}: {exc.strerror or exc}; "
                                  "choose another --out") from None
        log = open_log(path)
    resumed = sum(1 for s in specs if s in done)
    todo = [s for s in specs if s not in done]
    if progress:
        print(f"toposynth: study {study.name!r}: {len(specs)} candidates, {resumed} already done, "
              f"{len(todo)} to evaluate", file=sys.stderr)
    waves = [specs[i:i + WAVE] for i in range(0, len(specs), WAVE)] if study.prune else [specs]
    k = 0

    t_eval = time.perf_counter()

    def keep(rec: CandidateRecord) -> None:
        nonlocal k
        k += 1
        left = None
        if progress and k < len(todo):
            # the rate so far, compiles left out (a cold first candidate would make the estimate hours)
            spent = time.perf_counter() - t_eval - ex.compile_seconds(t_eval)
            rest = (len(todo) - k) * spent / k
            left = rest if spent >= _ESTIMATE_AFTER and rest >= _ESTIMATE_LEFT else None
        _log(rec, fp, done, log, progress, resumed + k, len(specs), left)

    fn = _Evaluate(study)
    if todo:
        announce_compile(study)
    try:
        for w, wave in enumerate(waves):
            pending = [s for s in wave if s not in done]
            if not pending:
                continue
            best: dict[int, float] = {}
            if study.prune:
                earlier = [done[s] for s in specs[: w * WAVE] if s in done]
                for size in set(sizes.values()):
                    b = _best(study, [r for r in earlier if sizes[r.spec] == size])
                    if b is not None:
                        best[size] = b
            # times of the candidates before this wave (never of its own: the chunks do not depend on the
            # order results arrive in)
            seconds = [done[s].seconds for s in specs[: w * WAVE] if s in done][-4 * WAVE:]
            chunk = 1 if ex.inline else chunk_size(len(pending), ex.slots, seconds)
            _gather(ex, [(s, best.get(sizes[s])) for s in pending], fn, keep, chunk)
    except (StudyError, OutputPathError, KeyboardInterrupt):
        raise   # a log that cannot be written says so in its own line
    except Exception as exc:  # evaluate() never raises: this is the parallel machinery (a killed worker, ...)
        where = f"; the {resumed + k} records in {out} are kept: rerun the same command to resume" if out else ""
        if isinstance(exc, NoWorkers):
            raise StudyError(f"the sweep stopped: {exc}{where}") from None
        raise StudyError(f"the sweep stopped: {type(exc).__name__}: {_first_line(exc)}{where}") from None
    finally:
        if log is not None:
            log.close()
    records = [done[s] for s in specs]

    classes = {size: rank(study, [r for r in records if sizes[r.spec] == size])
               for size in sorted(set(sizes.values()), key=lambda x: (x != pes, x))}
    ranking = classes[pes]
    checks = cross_check(study, ranking[: study.cross_check_top], done)
    exact = {c["spec"]: c["lp_lambda"] for c in checks if c.get("lp_lambda") is not None}
    ties = {k: v for ranked in classes.values() for k, v in tied_with_above(study.objective, ranked, records,
                                                                             exact).items()}
    sims = simulate_winners(study, ranking, records, out, fp, ex, progress, threads)
    if not nested:
        ex.release()   # no more tasks: a local dask cluster stops while the results are written
    comp = ex.compile_seconds(t0)
    res = StudyResult(study, records, ranking, checks, max(0.0, time.perf_counter() - t0 - comp), resumed, sims,
                      pes=pes, classes=classes if len(classes) > 1 else {},
                      pareto=pareto(study, [r for r in records if sizes[r.spec] == pes]),
                      answers=study_answers(study, ranking, records, sims, pes, searched, exact),
                      same_network=pool.same, ties=ties, compile_seconds=comp)
    if out is not None:
        _write_outputs(report.write_outputs, res, out, f"the {len(records)} records are kept in {path}: fix it and "
                       "rerun the same command to resume (finished candidates are not evaluated again)")
    return res


def _first_line(exc: BaseException) -> str:
    """An exception's message cut to its first line (loky's broken-pool message runs to several)."""
    return next((x.strip() for x in str(exc).splitlines() if x.strip()), "")


def _write_outputs(write: Callable, res: Any, out: Path, kept: str) -> None:
    """``write(res, out)``; a file that cannot be written is one line saying
    which and where the finished work is (it is already in the logs)."""
    try:
        write(res, out)
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else f" in {out}"
        raise OutputPathError(f"cannot write{where}: {exc.strerror or exc}; {kept}") from None
    except OutputPathError as exc:  # the report's own one line, completed with where the work is
        raise OutputPathError(f"{exc}; {kept}") from None


def _canonical(spec: str | None) -> str | None:
    if spec is None:
        return None

    return from_spec(spec).spec or spec


def pareto(study: Study, records: list[CandidateRecord]) -> dict[str, str | list[str]]:
    """The candidates on the Pareto front of capacity (higher is better)
    and of latency at the first demand scale (lower is better) against the
    study's cost measure (``ranking.cost``, lower is better)."""
    ok: list[tuple[CandidateRecord, float]] = []   # the evaluated records with their cost
    for r in records:
        c = r.cost.measure(study.cost) if r.ok and r.cost is not None else None
        if c is not None:
            ok.append((r, c))
    out: dict[str, str | list[str]] = {"cost": study.cost,
                                       "capacity": pareto_front([(r.spec, c, _lam(r)) for r, c in ok])}
    lat = [(r.spec, c, -_latency_key(r)) for r, c in ok if _latency_key(r) != float("inf")]
    if lat:
        out["latency"] = pareto_front(lat)
    return out


def simulation_routing(topo, study: Study) -> str:
    """The routing a candidate is simulated with: ``simulation.routing``,
    or with ``auto`` the preset's own routing where the candidate supports
    it (lattices with routing records) and otherwise the family's ``auto``
    (:func:`sim.resolve_routing`: minimal on fat trees, UGAL on dragonflies,
    ``table`` -- adaptive minimal with an up*/down* escape VC,
    deadlock-free on any connected graph -- for the rest)."""
    if study.sim_routing != "auto":
        return sim.resolve_routing(topo, study.sim_routing)
    wanted = sim.PRESETS[study.sim_preset].routing
    try:
        return sim.resolve_routing(topo, wanted)
    except SimError:
        return sim.resolve_routing(topo, "auto")


def check_simulation_routing(study: Study, pool, base: str | None) -> None:
    """Refuse, before anything is evaluated, a ``simulation.routing`` that a candidate of the pool cannot
    be simulated with: any candidate may rank among the simulated winners, and finding out there would
    record a failed simulation after the whole evaluation (and exit 0). The registry's capabilities
    (:func:`sim.resolve_routing`) decide; no simulation, nothing to check."""
    if study.sim_routing == "auto" or not study.sim_top:
        return   # auto picks each family's own routing
    specs = list(pool.sizes) + ([base] if base is not None and base not in pool.sizes else [])
    for spec in specs:
        topo = pool.topologies.get(spec) or from_spec(spec)
        try:
            sim.resolve_routing(topo, study.sim_routing)
        except SimError as exc:
            raise StudyError(f"study field simulation.routing: {study.sim_routing!r} cannot simulate candidate "
                             f"{spec}: {exc}; choose a routing every candidate supports, or 'auto' (each "
                             f"family's own)") from None


def simulation_config(topo, study: Study):
    """The simulator configuration of a candidate: the study's preset with
    its routing (:func:`simulation_routing`) and, for a distance-class
    routing (``distance``, ``valiant``, ``ugal``), at least one VC per hop
    of its longest route."""
    routing = simulation_routing(topo, study)
    return with_class_vcs(topo, sim.preset(study.sim_preset, routing=routing), routing)


def study_seeds(study: Study) -> list[int]:
    """The seeds of a study's simulations: ``seed``, ``seed + 1``, ... (``simulation.seeds`` of them)."""
    return list(range(study.seed, study.seed + study.sim_seeds))


def _sim_record(spec: str, routing: str, runs: list, seeds: list[int], seconds: float,
                compile_seconds: float = 0.0) -> dict[str, Any]:
    """The simulation record of one candidate from its saturation sweeps,
    one per seed. With several seeds the saturation is their mean, with its
    95% interval (Student's t), each seed's saturation, and every seed's
    points (each with its ``seed``). ``seconds``: the sweeps' run time;
    ``compile_seconds``: the simulator's first compile during them, apart."""
    def pts(sw, seed=None):
        return [{"offered": p.offered, "accepted": p.accepted, "latency": p.latency, "hops": p.hops,
                 "deadlock": p.deadlock, "load": p.load, **({} if seed is None else {"seed": seed})}
                for p in sw.points]

    if len(runs) == 1:
        return {"spec": spec, "status": "ok", "saturation": runs[0].saturation, "routing": routing,
                "points": pts(runs[0]), "seconds": seconds, "compile_seconds": compile_seconds}
    from sim.replicate import ReplicatedSweep  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    rep = ReplicatedSweep(list(seeds), list(runs))
    return {"spec": spec, "status": "ok", "saturation": rep.saturation, "saturation_ci95": rep.saturation_ci95,
            "seeds": list(seeds), "saturations": rep.saturations, "routing": routing,
            "points": [q for sw, sd in zip(runs, seeds) for q in pts(sw, sd)], "seconds": seconds,
            "compile_seconds": compile_seconds}


def _sim_failed(spec: str, exc: BaseException, seconds: float, compile_seconds: float = 0.0) -> dict[str, Any]:
    return {"spec": spec, "status": "failed", "reason": f"{type(exc).__name__}: {exc}", "seconds": seconds,
            "compile_seconds": compile_seconds}


class _SimTicker:
    """Progress of the winners' simulations on stderr: a line for a finished load at most every
    :data:`_TICK_SECONDS` (a quick study's simulations print nothing but each candidate's result), naming
    the load against the sweep's highest so the user can tell how far it is."""

    def __init__(self, study: Study, enabled: bool):
        self.enabled, self.max_load, self.seeds = enabled, study.sim_max_load, len(study_seeds(study))
        self.last = time.perf_counter()

    def __call__(self, spec: str, seed: int, load: float, accepted: float | None, part: float | None = None) -> None:
        """A finished load (``accepted``), or ``part`` of a running one's cycles."""
        now = time.perf_counter()
        if not self.enabled or now - self.last < _TICK_SECONDS:
            return
        self.last = now
        of_seed = f", seed {seed}" if self.seeds > 1 else ""
        what = (f"{part:.0%} of load {load:.3g}" if part is not None
                else f"load {load:.3g} done (accepted {accepted:.3g})")
        print(f"  simulating {spec}: {what}{of_seed}; the sweep goes up to {self.max_load:g} phits/cycle/PE at most",
              file=sys.stderr, flush=True)


#: least seconds between two progress lines of the winners' simulations
_TICK_SECONDS = 5.0


class _Simulate:
    """Picklable: the saturation sweeps of one candidate under the study's traffic, one per seed (in this
    process only with a ``tick``: the progress lines are printed where they happen)."""

    def __init__(self, study: Study, tick: "_SimTicker | None" = None, threads: ThreadPlan = ThreadPlan()):
        self.study, self.tick, self.threads = study, tick, threads

    def __call__(self, spec: str) -> dict[str, Any]:
        t0 = compiletime.clock()
        study = self.study
        try:
            topo = build_topology(spec, study)
            pattern = study.traffic.sim_pattern(topo)
            cfg = simulation_config(topo, study)
            seeds = study_seeds(study)
            tick = self.tick

            def progress(p) -> None:   # a sweep's finished point (SweepProgress) or a running one's (SimProgress)
                assert tick is not None
                point = getattr(p, "point", None)
                if point is not None:
                    tick(spec, p.key, point.load, point.accepted)
                elif hasattr(p, "cycles") and p.planned:
                    tick(spec, -1, p.load, None, min(1.0, p.cycles / p.planned))

            rep = sim.saturation_seeds(topo, cfg, pattern, seeds=seeds, step=study.sim_step,
                                       max_load=study.sim_max_load, progress=progress if tick else None,
                                       threads=self.threads.threads(topo.n))
            return _sim_record(spec, cfg.routing, rep.runs, seeds, *compiletime.run_seconds(t0))
        except Exception as exc:  # recorded, the study goes on
            return _sim_failed(spec, exc, *compiletime.run_seconds(t0))


class _SimulatePoint:
    """Picklable: one load of one candidate's saturation sweep with one seed, ``((spec, seed), load) ->
    ((spec, seed), load, SimResult or the exception, seconds, compile seconds)``; the numbers of that
    point of :class:`_Simulate`'s sweep, its time without the worker's first compile and that apart."""

    def __init__(self, study: Study, threads: ThreadPlan = ThreadPlan()):
        self.study, self.threads = study, threads

    def __call__(self, item: tuple[tuple[str, int], float]) -> tuple[tuple[str, int], float, Any, float, float]:
        (spec, seed), load = item
        t0 = compiletime.clock()
        study = self.study
        try:
            topo = _point_topology(spec, study)
            cfg = simulation_config(topo, study)
            r: Any = sim.simulate(topo, cfg, study.traffic.sim_pattern(topo), load, seed=seed,
                                    threads=self.threads.threads(topo.n))
        except Exception as exc:  # the candidate's record says it; the study goes on
            r = exc
        return ((spec, seed), load, r, *compiletime.run_seconds(t0))


#: a worker's candidates of the sweeps it serves, (study fingerprint, spec) -> Topology, the last few:
#: the simulator caches its routing tables on the Topology object, and a candidate's points share them
#: as they do in one serial sweep (a 4096-router torus: seconds of tables a point otherwise)
_POINT_TOPOLOGIES: dict[tuple[str, str], Any] = {}


def _point_topology(spec: str, study: Study):
    key = (study.fingerprint(), spec)
    topo = _POINT_TOPOLOGIES.get(key)
    if topo is None:
        while len(_POINT_TOPOLOGIES) >= 4:
            del _POINT_TOPOLOGIES[next(iter(_POINT_TOPOLOGIES))]
        topo = _POINT_TOPOLOGIES[key] = build_topology(spec, study)
    return topo


def _simulate_points(study: Study, specs: list[str], ex: Executor, keep: Callable, tick: _SimTicker,
                     threads: ThreadPlan = ThreadPlan()) -> None:
    """The saturation sweeps of ``specs`` (one per seed) with their loads as
    the tasks of ``ex``, scheduled by :class:`sim.search.SearchSet` (every
    sweep's next load first, then speculative ones on the workers left
    over). Every sweep's points and saturation are its serial run's; a
    record's ``seconds`` is the time of the points on its sweeps, what a
    serial run takes. Speculative points still running when every sweep is
    decided are waited for (a worker cannot be stopped mid-point and kept)."""
    search = LoadSearch.accepted(study.sim_step, study.sim_max_load)   # the search of sim.saturation
    seeds = study_seeds(study)
    routing: dict[str, str] = {}
    searches: dict[str, LoadSearch] = {}
    for spec in specs:
        t0 = time.perf_counter()
        try:
            topo = build_topology(spec, study)
            way = simulation_routing(topo, study)
            # as sim.saturation does: no load past what the candidate's sources can offer
            searches[spec] = sim.within_injection(search, topo, simulation_config(topo, study),
                                                  study.traffic.sim_pattern(topo))
            routing[spec] = way
        except Exception as exc:
            keep(_sim_failed(spec, exc, time.perf_counter() - t0))
    ss = SearchSet({(spec, sd): searches[spec] for spec in routing for sd in seeds})
    spent: dict[tuple[str, int], dict[float, float]] = {key: {} for key in ss.states}   # seconds by load
    compiled = {spec: 0.0 for spec in routing}   # the workers' first compiles, by the candidate they ran for
    fn = _SimulatePoint(study, threads)

    def fill() -> None:
        for item in ss.tasks(ex.slots):
            (spec, seed), load = item
            ex.submit(fn, item, label=f"{spec} (seed {seed}) at load {load:g}")

    fill()
    while ss.running:
        for fut in ex.as_completed():
            key, x, r, secs, comp = fut.result()
            spec = key[0]
            if spec in compiled:
                compiled[spec] += comp
            st = ss.states.get(key)
            if st is None or st.done:                       # a failed candidate's, or speculative and not needed
                ss.add(key, x, r)
            elif isinstance(r, BaseException):
                ss.running.remove((key, x))
                keys = [(spec, sd) for sd in seeds]
                for k in keys:
                    ss.drop(k)
                keep(_sim_failed(spec, r, secs + sum(sum(spent.pop(k).values()) for k in keys), compiled[spec]))
            else:
                spent[key][x] = secs
                ss.add(key, x, r)
                tick(spec, key[1], x, r.accepted)
                runs = [ss.states[(spec, sd)] for sd in seeds]
                if st.done and all(s2.done for s2 in runs):
                    took = sum(spent[(spec, sd)][p.load] for sd, s2 in zip(seeds, runs) for p in s2.path)
                    keep(_sim_record(spec, routing[spec], [s2.result() for s2 in runs], seeds, took, compiled[spec]))
            break       # new tasks first; as_completed() then sees every pending one again
        fill()


def simulate_winners(study: Study, ranking: list[str], records: list[CandidateRecord], out: Path | None, fp: str,
                     ex: Executor, progress: bool, threads: ThreadPlan = ThreadPlan()) -> list[dict[str, Any]]:
    """Saturation sweeps of the top ``simulation.top`` candidates and the
    baseline on the run's executor ``ex``, resumable through ``out/simulation.jsonl``."""
    if study.sim_top == 0:
        return []
    specs = list(ranking[: study.sim_top])
    ok = {r.spec for r in records if r.ok}
    base = study.baseline
    if base is not None:
        base = from_spec(base).spec or base
        if base in ok and base not in specs:
            specs.append(base)
    done: dict[str, dict[str, Any]] = {}
    log = None
    if out is not None:
        done = _load_records(Path(out) / "simulation.jsonl", fp,
                             lambda d: validate_simulation(d, study.sim_max_load))
        log = open_log(Path(out) / "simulation.jsonl")

    def keep(rec: dict[str, Any]) -> None:
        with _interrupt_after():
            _keep(rec, fp, done, log)
            if progress:
                what = f"saturation {rec['saturation']:.3g}" if rec["status"] == "ok" else rec["reason"]
                print(f"  simulated {rec['spec']}: {what} ({rec['seconds']:.1f} s"
                      f"{compiletime.compile_note(rec.get('compile_seconds', 0.0), inside=True)})", file=sys.stderr)

    try:
        todo = [s for s in specs if s not in done]
        tick = _SimTicker(study, progress)
        if todo:
            # the notice is this process's: workers simulate without a word
            prepare_sim_compile(sim.PRESETS[study.sim_preset].router)
        if ex.inline:
            _gather(ex, todo, _Simulate(study, tick, threads), keep)
        else:
            # the loads are the tasks: a study with fewer winners than workers still uses them all
            _simulate_points(study, todo, ex, keep, tick, threads)
    except (StudyError, OutputPathError, KeyboardInterrupt):
        raise   # a log that cannot be written says so in its own line
    except Exception as exc:  # _Simulate never raises: the parallel machinery broke
        where = f"; the finished ones in {out} are kept: rerun the same command to resume" if out else ""
        if isinstance(exc, NoWorkers):
            raise StudyError(f"the simulations stopped: {exc}{where}") from None
        raise StudyError(f"the simulations stopped: {type(exc).__name__}: {_first_line(exc)}{where}") from None
    finally:
        if log is not None:
            log.close()
    return [{**done[s], **_load_scale(study, s)} if done[s].get("status") == "ok" else done[s] for s in specs]


def _load_scale(study: Study, spec: str) -> dict[str, float]:
    """What relates a capacity to a simulated load: ``load_per_lambda``, the simulator's offered load
    (phits/cycle/PE) at which its traffic is the flow's demand set once (the demands' total over the PEs: the
    simulator scales the same matrix to an average load per PE); ``busiest_pe``, the offered load of the busiest
    PE's own channel (sending or receiving) against the average, which caps the simulated load at
    1 / busiest_pe where a PE's channel carries one phit a cycle -- a limit the flow model leaves out. None
    under a packaging (flows in wires) or a traffic the flow does not carry as demands."""
    if study.physical.packaging != "none":
        return {}
    try:
        topo = build_topology(spec, study)
        dem = study.traffic.demands(topo)
        pattern = study.traffic.sim_pattern(topo)
        M = sim.traffic(pattern).demand_matrix(topo, 1.0, level="terminal")
    except Exception:  # a pattern the flow has no demands for: nothing to relate
        return {}
    pes = topo.num_terminals
    return {"load_per_lambda": float(np.sum(dem.amount)) / pes,
            "busiest_pe": float(max(M.sum(axis=1).max(), M.sum(axis=0).max()))}


def cross_check(study: Study, specs: list[str], records: dict[str, CandidateRecord]) -> list[dict[str, Any]]:
    """Re-solve the capacity of the given candidates exactly (HiGHS) and
    compare with the certified PTAS interval already in their records."""
    import flows  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    out = []
    for spec in specs:
        cap = records[spec].capacity
        assert cap is not None  # a ranked candidate was evaluated
        lam, upper = cap.lam, cap.upper_bound
        lp = flows.solve(build_problem(build_topology(spec, study), study), 0.0, solver="lp")
        out.append({"spec": spec, "ptas_lambda": lam, "ptas_upper_bound": upper,
                    "lp_lambda": lp.lam, "relative_difference": (lp.lam - lam) / lp.lam,
                    "within_eps": bool(lam <= lp.lam * (1 + 1e-9) and lp.lam <= lam * (1 + study.eps) + 1e-9),
                    "lp_seconds": lp.seconds})
    return out
