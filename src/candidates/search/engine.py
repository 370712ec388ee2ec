"""Running a search: a restart is a simulated annealing of one random start,
in chunks of moves between which progress is reported, the time budget
checked and the state checkpointed.

The annealing (Kirkpatrick, Gelatt, Vecchi 1983) makes ``moves`` random
moves. Move ``t`` is accepted when it does not worsen the energy, or with
probability ``exp(-delta / T(t))``; the temperature falls geometrically,
``T(t) = T0 (T1 / T0) ** (t / H)``, for the first ``H = (1 - hill) moves``
moves, and is 0 for the rest (hill climbing: only moves that do not
worsen). ``T0`` is set from the start graph: the mean worsening of
``CALIBRATION_MOVES`` random moves, accepted with probability ``P0`` at
``T0``; ``T1 = T0 * T_END``. The primary energy (connectivity, and for
``aspl`` the diameter) is never worsened.

Everything random comes from the restart's own generator (seeded by
``(seed, restart)``), and the chunks do not change the moves: the same
seed and move budget give the same graph on any machine, whatever the
chunking, the number of restarts run at once, or an interruption resumed
from a checkpoint. A time budget instead of a move budget stops wherever the
clock says (a convenience: not reproducible).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from common import compiletime

from ..analytics.moore import moore_bound
from ..errors import TopologyError
from ._bits import seed_state
from ._evaluate import OBJ_PHYSICAL, OBJ_THROUGHPUT, RES_DIAM, RES_LAT, RES_LOAD, RES_PRIMARY, RES_SUM, RES_UNREACH
from ._graph import MOVE_ADD, MOVE_DEL, MOVE_END, MOVE_SWAP, MOVE_VOLT, NMOVES
from ._kernels import (
    NST,
    ST_ABORTED,
    ST_ACCEPTED,
    ST_BEST,
    ST_BEST_T,
    ST_CUR,
    ST_IMPROVED,
    ST_INVALID,
    ST_T,
    Sched,
    anneal,
    evaluate,
    fill,
    sample_deltas,
)
from .compile_notice import announce as announce_compile
from .problem import SearchProblem
from .state import new_best, new_graph, new_log, new_work, objective_tuple, restore, snapshot

__all__ = ["RestartResult", "run_restart", "P0", "T_END", "HILL", "CALIBRATION_MOVES", "CHUNK_SECONDS"]

#: acceptance probability of the mean worsening move at the first temperature
P0 = 0.3
#: last temperature of the annealing, as a fraction of the first
T_END = 0.01
#: share of the moves made at temperature 0 (hill climbing) at the end
HILL = 0.1
#: random moves sampled from the start graph to set the first temperature
CALIBRATION_MOVES = 300
#: the annealing runs in chunks of about this many seconds (progress, time budget, checkpoints)
CHUNK_SECONDS = 0.25
#: how often a running restart writes its checkpoint (seconds)
CHECKPOINT_SECONDS = 30.0
#: shuffling moves per link after the random start is built
SHUFFLE_PER_LINK = 10


@dataclass(frozen=True)
class RestartResult:
    """The best graph of one restart and how the annealing went.

    links : the best graph's base links ``(u, v, voltage)`` (fixed ones first).
    history : ``(seconds, moves, diameter, aspl, load)`` of the best graph
        as the run went (the time-to-quality curve).
    stopped : ``"moves"`` (the budget was made), ``"time"`` (the time
        budget ended it first) or ``"interrupted"``.
    """

    restart: int
    moves: int
    accepted: int
    improved: int
    aborted: int
    invalid: int
    best_move: int
    seconds: float
    cpu_seconds: float
    primary: float
    secondary: float
    diameter: int
    sum_distances: float
    unreachable: float
    load: float
    temp0: float
    links: np.ndarray = field(repr=False)
    history: tuple[tuple[float, int, int, float, float], ...] = ()
    stopped: str = "moves"
    #: wall seconds its kernels spent compiling on their first call in the process (not in ``seconds``,
    #: ``cpu_seconds``, the history's times nor a time budget)
    compile_seconds: float = 0.0

    def better_than(self, other: "RestartResult") -> bool:
        return (self.primary, self.secondary, self.restart) < (other.primary, other.secondary, other.restart)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["links"] = self.links.tolist()
        d["history"] = [list(h) for h in self.history]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RestartResult":
        d = dict(d)
        d["links"] = np.asarray(d["links"], dtype=np.int64).reshape(-1, 3)
        d["history"] = tuple(tuple(h) for h in d["history"])
        return cls(**d)


def move_weights(problem: SearchProblem, free_ports: int) -> np.ndarray:
    """How often each kind of move is proposed: 2-opt swaps always; new
    voltages when the search is lifted (``g > 1``); moving a link's end,
    adding and removing links when the port budget is not a fixed degree (or
    the start left ports free)."""
    w = np.zeros(NMOVES)
    w[MOVE_SWAP] = 1.0
    if problem.lift.g > 1:
        w[MOVE_VOLT] = 0.5
    if not problem.regular or free_ports > 0:
        w[MOVE_END] = 0.3
        w[MOVE_ADD] = 0.2
        w[MOVE_DEL] = 0.0 if problem.regular else 0.05
    return w


class _Checkpoint:
    """A restart's checkpoint file: ``restart-K.npz`` in the checkpoint folder."""

    def __init__(self, folder: Path | None, restart: int):
        self.path = None if folder is None else Path(folder) / f"restart-{restart}.npz"

    def load(self) -> dict[str, np.ndarray] | None:
        if self.path is None or not self.path.is_file():
            return None
        try:
            with np.load(self.path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except (OSError, ValueError) as exc:
            raise TopologyError(f"{self.path}: cannot read the search checkpoint ({exc}); delete it to start "
                                "this restart afresh") from None

    def save(self, arrays: dict[str, np.ndarray]) -> None:
        if self.path is None:
            return
        tmp = self.path.with_name(self.path.name + ".tmp.npz")
        # numpy's stub lets **arrays reach savez's allow_pickle (a bool); no key here is that name
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, self.path)


def run_restart(problem: SearchProblem, restart: int, *, moves: int | None, seconds: float | None = None,
                checkpoint: str | os.PathLike | None = None,
                progress: Callable[[dict[str, Any]], None] | None = None,
                progress_every: float = 5.0, should_stop: Callable[[], bool] | None = None) -> RestartResult:
    """Anneal restart ``restart`` of ``problem`` for ``moves`` moves (or, with
    ``moves=None``, for ``seconds`` of wall time), resuming from the
    checkpoint folder's file of this restart if there is one.

    ``progress(dict)`` is called every ``progress_every`` seconds;
    ``should_stop()`` is asked between chunks (an interrupted restart
    returns its best so far, ``stopped="interrupted"``, its checkpoint
    written).
    """
    if moves is None and seconds is None:
        raise TopologyError("a search needs a budget: moves or seconds")
    lift = problem.lift
    announce_compile()
    start_wall = compiletime.clock()
    start_cpu = time.process_time()

    def ran(now: float) -> float:
        """Wall seconds of this run of the restart until ``now``, its kernels' first compile left out."""
        return now - start_wall - compiletime.compile_seconds(start_wall, now)
    ck = _Checkpoint(None if checkpoint is None else Path(checkpoint), restart)
    G = new_graph(lift, problem.caps, problem.fixed_base, problem.start_base, problem.allow)
    L = new_log()
    W = new_work(lift, len(G.eu), problem.resources)
    O = objective_tuple(problem.objective_entry.kernel_code, problem.weight, lift, problem.caps,
                        problem.resources, problem.demands)
    rs = seed_state(problem.seed, restart)
    st = np.zeros(NST)
    B = new_best(G)
    saved = ck.load()
    extra = {"seconds": 0.0, "cpu": 0.0, "compile": 0.0, "temp0": 0.0, "free": 0.0, "use_ref": 0.0, "lat_ref": 0.0}
    history: list[tuple[float, int, int, float, float]] = []
    if saved is not None:
        restore(saved, G, B, rs, st)
        meta = json.loads(str(saved["meta"]))
        extra.update({k: float(v) for k, v in meta["extra"].items()})
        history = [tuple(h) for h in meta["history"]]
        if meta.get("done"):
            return _result(problem, restart, st, B, extra, history, meta["stopped"])
    else:
        stubs = np.zeros(int(problem.caps.sum()) + 1, np.int32)
        w0 = move_weights(problem, 0)
        # a start graph is kept as given (no shuffling)
        shuffles = 0 if len(problem.start_base) else SHUFFLE_PER_LINK * max(1, len(G.eu))
        free = fill(G, L, rs, stubs, 50 * len(G.eu) + 1000, shuffles, w0)
        extra["free"] = float(free)
        if O.code == OBJ_PHYSICAL and O.weight > 0:
            # the latency's and the capacity's shares are each measured against the start graph's
            evaluate(G, W, O._replace(load_ref=1.0, aspl_ref=1.0))
            use0, lat0 = float(W.res[RES_LOAD]), float(W.res[RES_LAT])
            extra["use_ref"] = use0 if use0 > 0 and W.res[RES_UNREACH] == 0 else 1.0
            extra["lat_ref"] = lat0 if lat0 > 0 and W.res[RES_UNREACH] == 0 else 1.0
        # the first temperature from the start graph's random moves (the same generator: reproducible)
        out = np.zeros(CALIBRATION_MOVES)
        O = _with_refs(O, extra)
        sample_deltas(G, L, W, O, rs, move_weights(problem, free), out)
        worse = out[np.isfinite(out) & (out > 0)]
        mean_worse = float(worse.mean()) if len(worse) else 1.0
        extra["temp0"] = problem.temperature * mean_worse / math.log(1.0 / P0)
        evaluate(G, W, O)
        st[ST_CUR:ST_CUR + 6] = W.res[RES_PRIMARY:RES_PRIMARY + 6]
        st[ST_BEST:ST_BEST + 6] = st[ST_CUR:ST_CUR + 6]
        B = new_best(G)
    weights = move_weights(problem, int(extra["free"]))
    temp0 = extra["temp0"]
    O = _with_refs(O, extra)
    n = lift.n
    npairs = n * (n - 1.0)
    done_before = int(st[ST_T])
    chunk = 1000
    anneal_wall = time.perf_counter()
    last_report = last_ck = anneal_wall
    stopped = "moves"
    try:
        while True:
            now = time.perf_counter()
            elapsed = extra["seconds"] + ran(now)
            t = int(st[ST_T])
            if moves is not None and t >= moves:
                break
            if seconds is not None and elapsed >= seconds:
                stopped = "time"
                break
            if should_stop is not None and should_stop():
                stopped = "interrupted"
                break
            if moves is None:
                # a time budget: the temperature follows the clock (constant within a chunk of ~0.25 s), from
                # T0 to T0 * T_END over the first (1 - HILL) of the time, then 0 -- the schedule of a move
                # budget with the time in place of the move count
                assert seconds is not None  # checked on entry: a budget of moves or of seconds
                frac = elapsed / seconds
                temp = temp0 * T_END ** (frac / (1.0 - HILL)) if frac < 1.0 - HILL else 0.0
                S = Sched(t + chunk, 2 ** 62 if temp > 0 else 0, temp, temp, weights)
            else:
                S = Sched(min(moves, t + chunk), max(1, int(moves * (1.0 - HILL))), temp0, temp0 * T_END, weights)
            t_chunk = time.perf_counter()
            best_before = st[ST_BEST + 1], st[ST_BEST]
            anneal(G, B, L, W, O, S, rs, st)
            took = time.perf_counter() - t_chunk
            chunk = int(min(max(100, chunk * CHUNK_SECONDS / max(took, 1e-6)), chunk * 4))
            now = time.perf_counter()
            if (st[ST_BEST + 1], st[ST_BEST]) != best_before or not history:
                history.append((round(extra["seconds"] + ran(now), 3), int(st[ST_T]), int(st[ST_BEST + 2]),
                                st[ST_BEST + 3] / npairs, st[ST_BEST + 5]))
            if progress is not None and now - last_report >= progress_every:
                last_report = now
                progress(_progress(problem, restart, st, extra["seconds"] + ran(now),
                                   (int(st[ST_T]) - done_before) / max(now - anneal_wall, 1e-9), moves))
            if ck.path is not None and now - last_ck >= CHECKPOINT_SECONDS:
                last_ck = now
                ck.save(_ck_arrays(G, B, rs, st, _spent(extra, start_wall, start_cpu), history, False, ""))
    except KeyboardInterrupt:
        # Ctrl-C between two chunks: the state is whole; keep it so that a rerun resumes from here
        ck.save(_ck_arrays(G, B, rs, st, _spent(extra, start_wall, start_cpu), history, False, ""))
        raise
    extra_now = _spent(extra, start_wall, start_cpu)
    ck.save(_ck_arrays(G, B, rs, st, extra_now, history, stopped != "interrupted", stopped))
    return _result(problem, restart, st, B, extra_now, history, stopped)


def _spent(extra: dict[str, float], start_wall: float, start_cpu: float) -> dict[str, float]:
    """``extra`` with the wall, CPU and compile seconds of this run of the restart (since
    ``start_wall``, ``start_cpu``) added: the first two without the compile."""
    e = dict(extra)
    comp = compiletime.compile_seconds(start_wall)
    e["seconds"] += max(0.0, time.perf_counter() - start_wall - comp)
    e["cpu"] += max(0.0, time.process_time() - start_cpu - compiletime.compile_cpu_seconds(start_wall))
    e["compile"] = e.get("compile", 0.0) + comp
    return e


def _with_refs(O, extra: dict[str, float]):
    """The physical objective's latency share weighs both measures over the start graph's."""
    if O.code == OBJ_PHYSICAL and O.weight > 0 and extra.get("use_ref", 0.0) > 0:
        return O._replace(load_ref=extra["use_ref"], aspl_ref=extra["lat_ref"])
    return O


def _ck_arrays(G, B, rs, st, extra, history, done: bool, stopped: str) -> dict[str, Any]:
    """A checkpoint's arrays; ``extra`` with the seconds spent so far (:func:`_spent`)."""
    arrays = snapshot(G, B, rs, st)
    arrays["meta"] = np.array(json.dumps({"extra": extra, "history": history, "done": done, "stopped": stopped}))
    return arrays


def _progress(problem: SearchProblem, restart: int, st: np.ndarray, seconds: float, rate: float,
              target: int | None) -> dict[str, Any]:
    n = problem.routers
    mb = moore_bound(n, problem.degree)
    aspl = st[ST_BEST + 3] / (n * (n - 1.0))
    return {"restart": restart, "seconds": seconds, "moves": int(st[ST_T]), "target": target,
            "moves_per_second": rate, "diameter": int(st[ST_BEST + 2]), "aspl": aspl,
            "moore_diameter": mb.diameter, "moore_aspl": mb.aspl, "moore_gap": (aspl - mb.aspl) / mb.aspl,
            "unreachable": st[ST_BEST + 4], "load": st[ST_BEST + 5]}


def _result(problem: SearchProblem, restart: int, st: np.ndarray, B, extra: dict[str, float],
            history: list, stopped: str) -> RestartResult:
    ne = int(B.ecount[0])
    links = np.stack([B.eu[:ne], B.ev[:ne], B.es[:ne]], axis=1).astype(np.int64)
    return RestartResult(
        restart=restart, moves=int(st[ST_T]), accepted=int(st[ST_ACCEPTED]), improved=int(st[ST_IMPROVED]),
        aborted=int(st[ST_ABORTED]), invalid=int(st[ST_INVALID]), best_move=int(st[ST_BEST_T]),
        seconds=float(extra["seconds"]), cpu_seconds=float(extra["cpu"]), compile_seconds=float(extra.get("compile", 0.0)),
        primary=float(st[ST_BEST]), secondary=float(st[ST_BEST + 1]), diameter=int(st[ST_BEST + 2]),
        sum_distances=float(st[ST_BEST + 3]), unreachable=float(st[ST_BEST + 4]), load=float(st[ST_BEST + 5]),
        temp0=float(extra["temp0"]), links=links, history=tuple(history), stopped=stopped)


def score_links(problem: SearchProblem, links: np.ndarray
                ) -> tuple[int, float, float, float, tuple[float, float] | None]:
    """(diameter, sum of distances, unreachable pairs, busiest arc's load of
    the even split of uniform traffic, and with a packaging the busiest
    resource's use and the average latency of the even split of the
    problem's traffic) of the graph
    with base links ``links`` (``(u, v, s)`` rows, fixed ones first) -- every
    figure computed, whatever the objective."""
    lift = problem.lift
    G = new_graph(lift, problem.caps, np.asarray(links, dtype=np.int64).reshape(-1, 3))
    W = new_work(lift, len(G.eu), problem.resources)
    evaluate(G, W, objective_tuple(OBJ_THROUGHPUT, 0.5, lift, problem.caps))
    figures = int(W.res[RES_DIAM]), float(W.res[RES_SUM]), float(W.res[RES_UNREACH]), float(W.res[RES_LOAD])
    use = None
    if problem.resources is not None:
        O = objective_tuple(OBJ_PHYSICAL, 1.0, lift, problem.caps, problem.resources, problem.demands)
        evaluate(G, W, O._replace(load_ref=1.0, aspl_ref=1.0))
        use = (float(W.res[RES_LOAD]), float(W.res[RES_LAT]))
    return (*figures, use)
