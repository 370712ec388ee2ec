"""Building and running the simple-router kernels (VCT and wormhole).

:func:`build` allocates the structures of :mod:`sim.routers._core` (network and
routing tables, buffers and packets, workload, statistics) for one run --
synthetic traffic or a trace -- and :func:`execute` advances the kernel of
the configuration's switching mode (:mod:`sim.routers._vct` or
:mod:`sim.routers._wormhole`) in chunks of cycles until the run ends. Both
:func:`sim.simulate` and :func:`sim.run_trace` go through here.

The kernels are compiled on first use and cached on disk; a cold cache
costs some seconds, announced on stderr.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Sequence

import numba
import numpy as np

from candidates import Topology
from common import compiletime
from traffic import Destinations, TrafficPattern, terminal_offsets, terminal_router

from ..compile_notice import announce
from ..confidence import ci95
from ..config import DRAIN_CHECK, SimConfig
from ..errors import SimError
from ..results import SimProgress, SimResult, per_dimension, percentiles
from ..threads import max_threads, partitions
from ..routing import _simple as R
from ..routing.registry import SELECTIONS
from ..routing.tables import CLS_NONE, build_tables, table_kind, with_ties
from ._arrays import per_range
from . import RouterModel, _switching, _vct, _wormhole, register_router_model
from . import _core as K

__all__ = ["TraceArrays", "KernelRun", "build", "execute", "simulate", "tables_for", "routing_label", "HIST_BINS",
           "DEADLOCK_KINDS"]

HIST_BINS = 1 << 16
CHUNK = 1 << 16        # cycles per kernel call (the kernel cannot be interrupted)
#: the length of a kernel call when someone watches the progress: a call costs tens of microseconds
PROGRESS_SECONDS = 1.0
#: the kernels' deadlock kinds (``S_DEADLOCK_KIND``) by name
DEADLOCK_KINDS = {0: "none", 1: "no progress", 2: "knot", 3: "trace"}
_DL_CODES = {"none": R.DL_NONE, "dateline": R.DL_DATELINE, "bubble": R.DL_BUBBLE, "auto": R.DL_NONE}


@dataclass(frozen=True)
class TraceArrays:
    """A trace as the kernels read it: process ``r`` runs on terminal
    ``term[r]``, its events are ``ev_ptr[r] .. ev_ptr[r + 1] - 1`` (kind,
    compute cycles, message id); message ``m`` goes to terminal
    ``msg_dst[m]`` with ``msg_phits[m]`` phits; the messages of process
    ``r`` are ``sq_ptr[r] .. sq_ptr[r + 1] - 1``."""

    term: np.ndarray
    ev_ptr: np.ndarray
    ev_kind: np.ndarray
    ev_a: np.ndarray
    ev_msg: np.ndarray
    msg_dst: np.ndarray
    msg_phits: np.ndarray
    sq_ptr: np.ndarray
    max_cycles: int


@dataclass
class KernelRun:
    """The state of one run and the kernel entry point that advances it."""

    net: Any
    buf: Any
    trf: Any
    out: Any
    ctl: np.ndarray
    kernel: Any
    threads: int = 1


def _i64(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.int64)


def _twin(tabs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.int64, np.int64]:
    if tabs.tw_next is not None:
        vc = np.stack([tabs.tw_first, tabs.tw_step, tabs.tw_count], axis=2)
        return (np.ascontiguousarray(tabs.tw_next, dtype=np.int8), np.ascontiguousarray(tabs.tw_code, dtype=np.int8),
                np.ascontiguousarray(tabs.tw_dist, dtype=np.int32), _i64(vc), np.int64(tabs.tw_m),
                np.int64(tabs.tw_by_source))
    return (np.full((1, 1, 1), -1, dtype=np.int8), np.zeros((1, 1, 1), dtype=np.int8), np.zeros((1, 1), np.int32),
            np.zeros((1, 5, 3), dtype=np.int64), np.int64(-1), np.int64(0))


def _classes(tabs) -> tuple[np.int64, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The difference-class arrays (1-element dummies for the table routings)."""
    if tabs.cls_kind == CLS_NONE:
        one = np.zeros(1, dtype=np.int64)
        return np.int64(CLS_NONE), np.zeros((1, 1), np.int32), np.zeros((1, 1), np.int64), one, one + 1, one
    # the lattice a fresh writable copy: a topology's own is read-only where another family's is not, and
    # numba types the two apart -- the kernel compiled twice in a cold default study (about 22 s more)
    return (np.int64(tabs.cls_kind), np.ascontiguousarray(tabs.coords, dtype=np.int32),
            np.array(tabs.cls_lat, dtype=np.int64, order="C"), _i64(tabs.cls_order), _i64(tabs.cls_shape),
            _i64(tabs.cls_stride))


def _distance_width(topo: Topology, tabs, cfg: SimConfig) -> int:
    """VCs per distance class (routings ``distance``, ``valiant``, ``ugal``):
    the VCs split evenly over the classes 0 .. H - 1, H the most hops a
    route takes -- the diameter, twice it for the two minimal phases of
    ``valiant`` and ``ugal``."""
    if not tabs.class_hops:
        return 1
    name = tabs.routing
    diam = int(tabs.min_dist.max())  # table routings: (n, n) distances
    hops, what = tabs.class_hops * diam, f"diameter {diam}"
    if hops > diam:
        what += f", routes of up to {hops} hops through the intermediate router"
    if cfg.vcs < hops:
        raise SimError(f"routing {name} needs one virtual channel per hop of the longest route: "
                       f"{topo!r} has {what}, got vcs={cfg.vcs} (use --vcs {hops} or more)")
    return cfg.vcs // max(hops, 1)


def _net(topo: Topology, cfg: SimConfig, tabs, dl_code: int, V: int, cap: int, slots: int, seed: int,
         pbound: np.ndarray):
    n = topo.n
    r_part = np.repeat(np.arange(len(pbound) - 1, dtype=np.int64), np.diff(pbound))
    in_arcs = np.argsort(topo.arc_dst, kind="stable").astype(np.int64)
    in_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(topo.arc_dst, minlength=n), out=in_indptr[1:])
    ties = tabs.rec_count is not None
    rec_count = tabs.rec_count if ties else np.ones(1, dtype=np.int8)
    min_dist = tabs.min_dist if tabs.min_dist is not None else np.zeros((1, 1))
    return K.Net(
        np.int64(n), np.int64(topo.num_arcs), np.int64(topo.num_terminals), np.int64(V),
        np.int64(tabs.out_arc.shape[1]),
        _i64(topo.arc_src), _i64(topo.arc_dst), _i64(topo.arc_dim), _i64(tabs.arc_dir), _i64(tabs.arc_wrap),
        _i64(tabs.arc_up), np.repeat(_i64(topo.arc_src), V), in_indptr, in_arcs, _i64(terminal_router(topo)),
        _i64(terminal_offsets(topo)),
        _i64(tabs.out_arc), np.ascontiguousarray(tabs.records, dtype=np.int16),
        np.ascontiguousarray(rec_count, dtype=np.int8), np.int64(1 if ties else 0),
        np.int64(list(SELECTIONS).index(cfg.selection)),
        np.ascontiguousarray(tabs.split, dtype=np.float64) if tabs.split is not None else np.zeros((1, 1, 1)),
        *_classes(tabs),
        _i64(topo.indptr), _i64(topo.arc_id), np.ascontiguousarray(tabs.next_mask, dtype=np.uint64),
        np.ascontiguousarray(tabs.ud_up, dtype=np.uint64), np.ascontiguousarray(tabs.ud_down, dtype=np.uint64),
        np.int64(_distance_width(topo, tabs, cfg)), np.ascontiguousarray(min_dist, dtype=np.int32),
        np.int64(cfg.ugal_threshold),
        _i64(tabs.mid_tab) if tabs.mid_tab is not None else np.zeros((1, 0), dtype=np.int64),
        *_twin(tabs),
        np.int64(tabs.mode), np.int64(dl_code), np.int64(1 if cfg.transit_priority else 0),
        np.int64(cfg.router_delay), np.int64(cfg.link_latency), np.int64(cfg.length_range[1]),
        np.int64(cap), np.int64(slots), np.int64(cfg.injection_queue), np.int64(cfg.injectors),
        np.int64(cfg.ejectors), np.int64(cfg.watchdog), np.int64(1 if cfg.check else 0),
        np.int64(max(cfg.watchdog // 4, 1)), np.int64(seed), _i64(pbound), r_part,
    )


def _ranges(net, wormhole: bool) -> tuple[int, int, int]:
    """The ranges of routers, the most credit-wheel entries a slot of a range's wheel can take (one per input
    port of its routers, and VCT: per injection queue), and the most packets (flits) a range sends another (or
    itself) in one cycle (one per channel between them)."""
    P = len(net.pbound) - 1
    part = net.r_part
    per_router = np.diff(net.in_indptr) + (0 if wormhole else np.diff(net.term_indptr) * int(net.n_inj))
    E = int(np.bincount(part, weights=per_router, minlength=P).max())
    C = int(np.bincount(part[net.arc_src] * P + part[net.arc_dst], minlength=P * P).max()) if net.A else 0
    return P, max(E, 1), max(C, 1)


def _buf(net, mode, wormhole: bool, W: int):
    """Buffers, packets and router state, empty (the fields of the other
    switching mode are 1-element dummies)."""
    A, T, V, D = int(net.A), int(net.T), int(net.V), int(net.D)
    R, E, C = _ranges(net, wormhole)
    NVC = A * V
    cap, slots, inj_cap = int(net.cap), int(net.slots), int(net.inj_cap)
    Q = T * int(net.n_inj)
    NEJ = T * int(net.n_ej)
    P = NVC * slots + Q * inj_cap + 1
    w_on, v_on = wormhole, not wormhole

    def only(on: bool, k: int) -> int:
        return k if on else 1

    def z32(k: int) -> np.ndarray:
        return np.zeros(k, np.int32)

    def z64(k: int) -> np.ndarray:
        return np.zeros(k, np.int64)

    NC = 2 * 64 * V + 2   # candidates: at most 64 channels (a next-hop mask) x V VCs, two tiers
    # the per-range arrays fill whole cache lines per range (per_range): one line written by two threads
    # would bounce between their cores (the wheels' counts, the outboxes' counts, the run-state)
    return mode.Buf(
        z32(P), z32(P), z32(P), z32(P), z32(P), z32(P), z32(P), np.zeros(P, np.int8), z64(P), z64(P), z64(P),
        np.zeros((P, max(D, 1)), np.int16), np.full(P, -1, np.int64), np.full(P, -1, np.int32), z64(P),
        np.arange(P - 1, -1, -1, dtype=np.int32),
        np.zeros((NVC, slots), np.int32), np.zeros((only(w_on, NVC), only(w_on, cap)), np.int32),
        np.zeros((only(w_on, NVC), only(w_on, cap)), np.int64),
        z32(NVC), z32(NVC), z64(NVC), np.full(only(w_on, NVC), -1, np.int64), np.full(NVC, cap, np.int64),
        np.full(only(w_on, NVC), -1, np.int32),
        z64(only(v_on, A)), z64(only(v_on, A)), z64(only(v_on, Q)), z64(only(v_on, NEJ)),
        np.full(only(w_on, A), -1, np.int64), np.full(only(w_on, A), -1, np.int64),
        np.full(only(w_on, NEJ), -1, np.int64), np.full(only(w_on, NEJ), -1, np.int32),
        np.zeros((Q, inj_cap), np.int32), z32(Q), z32(Q), np.full(Q, inj_cap, np.int32), z32(only(w_on, Q)),
        np.full(only(w_on, Q), -1, np.int64),
        per_range((R, W), np.int32), per_range((R, W, E), np.int64, axis=2),
        per_range((R, W, only(v_on, E)), np.int32, axis=2),
        z64(int(net.n)), z64(int(net.n)), z64(int(net.n)), z64(int(net.n)),
        per_range((R, (int(np.diff(net.pbound).max()) + 63) // 64), np.uint64),
        z64(NC), z64(NC), z64(NC), z64(NC), np.zeros(NVC, np.bool_), z64(NVC),
        per_range((R, 4, NC), np.int64), per_range((R, K.NCTL), np.int64),
        per_range((R, max(NEJ, 1)), np.int32), per_range((2, R, R, C, 3), np.int64, axis=3),
        per_range((2, R, R), np.int64, axis=2),
    )


_NO_EVENTS = np.zeros(1, dtype=np.int64)


def _trf(cfg: SimConfig, T: int, dests: Destinations, rate: np.ndarray, warmup: int, measure: int, drain: int,
         trace: TraceArrays | None):
    lo, hi = cfg.length_range
    src_cap = int(cfg.source_queue)
    if trace is None:
        NP, M = 0, 0
        tr = TraceArrays(np.zeros(0, np.int64), _NO_EVENTS, _NO_EVENTS, _NO_EVENTS, _NO_EVENTS, _NO_EVENTS,
                         _NO_EVENTS, _NO_EVENTS, 0)
    else:
        NP, M, tr = len(trace.term), len(trace.msg_phits), trace
    proc_finish = np.full(NP, -1, np.int64)
    end = warmup + measure
    return K.Trf(
        np.int64(dests.mode), _i64(dests.perm), np.ascontiguousarray(dests.cdf, dtype=np.float64),
        np.int64(dests.hot_count), float(dests.hot_prob), np.ascontiguousarray(rate, dtype=np.float64),
        np.int64(cfg.injection == "poisson"), np.int64(lo), np.int64(hi),
        np.full(T, np.inf), np.zeros((T, src_cap), np.int64), np.zeros((T, src_cap), np.int32),
        np.zeros(T, np.int32), np.zeros(T, np.int32), np.int64(src_cap), np.zeros(1, np.int64),
        np.int64(warmup), np.int64(end), np.int64(end + drain), np.int64(DRAIN_CHECK), float(cfg.latency_threshold),
        np.int64(0 if trace is None else 1), _i64(tr.term), _i64(tr.ev_ptr), _i64(tr.ev_kind), _i64(tr.ev_a),
        _i64(tr.ev_msg), _i64(tr.msg_dst), _i64(tr.msg_phits), _i64(tr.sq_ptr), np.int64(tr.max_cycles),
        _i64(tr.ev_ptr[:NP]).copy(), np.zeros(NP, np.int64), np.zeros(NP, np.int64), np.zeros(NP, np.int64),
        np.zeros(NP, np.int64), np.zeros(max(M, 1), np.int64), proc_finish,
        np.full(max(M, 1), -1, np.int64), np.full(max(M, 1), -1, np.int64),
    )


def build(topo: Topology, cfg: SimConfig, tabs, deadlock: str, dests: Destinations, rate: np.ndarray, *,
          warmup: int, measure: int, drain: int, seed: int, trace: TraceArrays | None = None,
          pair_latency: bool = False, threads: int = 1) -> KernelRun:
    """The state of one run, allocated before any cycle runs (the kernel
    seeds its generator and draws the first arrivals when it starts).
    ``threads`` splits the routers into as many ranges (VCT, synthetic
    traffic; :func:`sim.threads.partitions`): the numbers do not depend on it."""
    dl_code = _DL_CODES[deadlock]
    wormhole = cfg.switching == "wormhole"
    kernel: ModuleType  # the switching mode's kernel module
    if wormhole:
        kernel = _wormhole
        cap, slots = _wormhole.buffer_sizes(cfg, tabs.mode, dl_code)
    else:
        kernel = _vct
        cap, slots = _vct.buffer_sizes(cfg)
    V = tabs.vcs if tabs.tw_next is not None else cfg.vcs
    if trace is not None:
        threads = 1
    net = _net(topo, cfg, tabs, dl_code, V, cap, slots, seed, partitions(topo.n, threads))
    buf = _buf(net, kernel, wormhole, kernel.wheel_size(cfg))
    trf = _trf(cfg, topo.num_terminals, dests, rate, warmup, measure, drain, trace)
    n = topo.n
    pairs = (n, n) if pair_latency else (1, 1)
    P = len(net.pbound) - 1
    out = K.Out(np.zeros(K.NSTATS, np.int64), np.zeros((P, HIST_BINS + 1), np.int64),
                np.zeros((P, HIST_BINS + 1), np.int64), np.zeros(topo.num_arcs, np.int64),
                np.int64(1 if pair_latency else 0), np.zeros(pairs, np.int64), np.zeros(pairs, np.int64),
                per_range((P, K.NSTATS), np.int64))
    ctl = np.zeros(K.NCTL, np.int64)
    ctl[K.C_NFREE] = buf.free.shape[0]
    ctl[K.C_STALL_VC] = -1
    ctl[K.C_PROCS_LEFT] = len(trf.tr_term)
    ctl[K.C_SEED] = seed
    kernel = _switching.run_trace if trace is not None else _switching.run_par if P > 1 else _switching.run
    return KernelRun(net, buf, trf, out, ctl, kernel, threads)


def execute(run: KernelRun, batch: tuple[int, int, int] | None = None,
            progress: Callable[[KernelRun], None] | None = None) -> tuple[float, float, list[float], float]:
    """Advance ``run`` until it ends; returns the wall and CPU seconds it
    took, with ``batch = (warmup, measure, period)`` the mean latency (from
    generation) of the measured packets delivered in every period of the
    window (batch means for :func:`sim.confidence.ci95`), and the wall
    seconds the kernel's first call spent compiling (not in the other two).

    ``progress(run)`` is called after every kernel call; with it the calls
    last about :data:`PROGRESS_SECONDS` each (fewer cycles than
    :data:`CHUNK` on a large network). Where the kernel stops between calls
    changes no number (it resumes from its state)."""
    announce("simple", [run.kernel])
    # the kernel's first call may compile it: that time is not the run's
    t0, c0 = compiletime.clock(), time.process_time()
    means: list[float] = []
    bounds: Sequence[int] = ()
    if batch is not None:
        w, m, per = batch
        # a range, not a list: a window of 10^12 cycles has 10^9 period ends
        bounds = range(w + per, w + m + 1, per)
    st = run.out.stats
    prev = (st[K.S_SUM_LAT_GEN], st[K.S_TAG_DELIVERED])
    k = 0
    # with progress: a short first call measures the speed, the next ones last about PROGRESS_SECONDS
    chunk = CHUNK if progress is None else 256
    while True:
        start = int(run.ctl[K.C_NOW])
        until = start + chunk
        if k < len(bounds):
            until = min(until, bounds[k])
        t = time.perf_counter()
        if run.threads > 1:
            # more ranges than numba's threads (tests on a small machine) share them
            numba.set_num_threads(min(run.threads, max_threads()))
        done = run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(until))
        if k < len(bounds) and run.ctl[K.C_NOW] >= bounds[k]:
            k += 1
            cur = (st[K.S_SUM_LAT_GEN], st[K.S_TAG_DELIVERED])
            if cur[1] > prev[1]:
                means.append(float(cur[0] - prev[0]) / float(cur[1] - prev[1]))
            prev = cur
        if progress is not None:
            ran, dt = int(run.ctl[K.C_NOW]) - start, time.perf_counter() - t
            if ran > 0 and not done:
                chunk = int(min(CHUNK, max(16, ran * PROGRESS_SECONDS / max(dt, 1e-6))))
            progress(run)
        if done:
            break
    comp, comp_cpu = compiletime.compile_seconds(t0), compiletime.compile_cpu_seconds(t0)
    return (max(0.0, time.perf_counter() - t0 - comp), max(0.0, time.process_time() - c0 - comp_cpu), means,
            comp)


def simulate(topo: Topology, cfg: SimConfig, pat: TrafficPattern, routing: str, deadlock: str, dests: Destinations,
             rate: np.ndarray, load: float, seed: int, pair_latency: bool,
             progress: Callable[[SimProgress], None] | None, threads: int = 1,
             split: np.ndarray | None = None) -> SimResult:
    """One synthetic-traffic run of the simple router (the ``vct`` and
    ``wormhole`` models' entry: :func:`sim.engine.simulate` validated it),
    VCT on ``threads`` threads (the same numbers on any number)."""
    tabs = tables_for(topo, cfg, routing, split)
    run = build(topo, cfg, tabs, deadlock, dests, rate, warmup=cfg.warmup, measure=cfg.measure,
                drain=cfg.drain, seed=seed, pair_latency=pair_latency, threads=threads)
    hook = None if progress is None else _progress_hook(progress, cfg, load, topo.num_terminals)
    seconds, cpu, means, comp = execute(run, batch=(cfg.warmup, cfg.measure, cfg.sample_period), progress=hook)
    o = run.out
    res = _result(topo, cfg, pat, routing_label(routing, deadlock), load, seed, o.stats, o.hist_gen.sum(axis=0),
                  o.hist_inj.sum(axis=0), o.arc_phits, seconds, tabs)
    res.latency_ci95 = ci95(means)
    res.cpu_seconds = cpu
    res.compile_seconds = comp
    res.stable = not res.deadlock and res.drained
    if pair_latency:
        with np.errstate(invalid="ignore", divide="ignore"):
            res.pair_latency = np.where(o.pair_cnt > 0, o.pair_sum / np.maximum(o.pair_cnt, 1), np.nan)
        res.pair_packets = o.pair_cnt
    return res


def _progress_hook(progress: Callable[[SimProgress], None], cfg: SimConfig, load: float, T: int):
    """execute's hook (a KernelRun) as SimProgress records."""
    t0 = time.perf_counter()
    start, end = cfg.warmup, cfg.warmup + cfg.measure

    def hook(run: KernelRun) -> None:
        now = int(run.ctl[K.C_NOW])
        phase = "warm-up" if now < start else "measurement" if now < end else "drain"
        span = min(now, end) - start
        acc = float(run.out.stats[K.S_ACC_PHITS]) / (span * T) if span > 0 else None
        progress(SimProgress(load, now, end, phase, acc, time.perf_counter() - t0))

    return hook


def tables_for(topo: Topology, cfg: SimConfig, routing: str, split: np.ndarray | None = None):
    """Routing tables for a resolved routing, with every minimal record of
    each pair when ``cfg.tie_break == "random"`` (record routings), and the
    split table of routing ``adaptive`` (:func:`sim.simulate`'s ``split``)."""
    tabs = build_tables(topo, routing, cfg.updown_root, cfg.vcs)
    if cfg.tie_break == "random" and table_kind(topo, routing) == "records":
        tabs = with_ties(topo, tabs)
    if split is not None:
        tabs = dataclasses.replace(tabs, split=split)
    return tabs


def routing_label(routing: str, deadlock: str) -> str:
    """How results name a resolved routing: ``dor`` on routing records with
    its deadlock avoidance (``dor/dateline``)."""
    return f"dor/{deadlock}" if routing == "dor" and deadlock != "auto" else routing


def _result(topo, cfg, pat, routing, load, seed, st, hist_gen, hist_inj, arc_phits, seconds, tabs) -> SimResult:
    T = topo.num_terminals
    M = cfg.measure
    pk = int(st[K.S_TAG_DELIVERED])
    util = arc_phits / float(M)
    per_dim = per_dimension(topo, util)
    hops = float(st[K.S_SUM_HOPS] / pk) if pk else None
    kind = DEADLOCK_KINDS[int(st[K.S_DEADLOCK_KIND])]
    total_hops_all = float(st[K.S_SUM_MINHOPS] / pk) if pk else None
    esc = None
    if routing in ("adaptive", "table", "tsdor-adaptive") and st[K.S_WIN_HOPS] > 0:
        esc = st[K.S_ESC_HOPS] / st[K.S_WIN_HOPS]
    return SimResult(
        spec=topo.spec or topo.family,
        routing=routing,
        traffic=str(pat),
        load=load,
        offered=float(st[K.S_GEN_PHITS] / (M * T)),
        accepted=float(st[K.S_ACC_PHITS] / (M * T)),
        injected_rate=float(st[K.S_INJ_PHITS] / (M * T)),
        latency=float(st[K.S_SUM_LAT_INJ] / pk) if pk else None,
        latency_generation=float(st[K.S_SUM_LAT_GEN] / pk) if pk else None,
        latency_percentiles=percentiles(hist_inj),
        latency_generation_percentiles=percentiles(hist_gen),
        latency_max=int(st[K.S_MAX_LAT_INJ]) if pk else None,
        hops=hops,
        min_hops=total_hops_all,
        packets=pk,
        deadlock=bool(st[K.S_DEADLOCK]),
        deadlock_kind=kind,
        drained=bool(st[K.S_DRAINED]),
        cycles=int(st[K.S_CYCLES]),
        seconds=seconds,
        injected=int(st[K.S_INJECTED]),
        delivered=int(st[K.S_DELIVERED]),
        in_flight=int(st[K.S_IN_FLIGHT]),
        conservation=bool(st[K.S_VIOLATIONS] == 0 and st[K.S_INJECTED] == st[K.S_DELIVERED] + st[K.S_IN_FLIGHT]),
        source_overflow=int(st[K.S_OVERFLOW]),
        starvation=int(st[K.S_STARVED]),
        escape_fraction=None if esc is None else float(esc),
        utilisation=per_dim,
        channel_utilisation=util,
        config=cfg,
        seed=seed,
        config_routers=topo.n,
        packet_phits=float(st[K.S_SUM_LEN] / pk) if pk else None,
    )


for _entry in (
    RouterModel("vct", "the simple router with virtual cut-through: a packet moves as a unit, into a VC with room "
                "for all of it", "simple", "vct", pair_latency=True, traces=True, simulate=simulate, threads=True),
    RouterModel("wormhole", "the simple router with wormhole switching: flit by flit, an output VC held from header "
                "to tail", "simple", "wormhole", pair_latency=True, traces=True, simulate=simulate, threads=True,
                refuses={"tsdor-adaptive": "routing tsdor-adaptive models EXTOLL's virtual cut-through router: use "
                         "switching='vct' (--switching vct), or tsdor / dort with wormhole",
                         "adaptive": _wormhole.BUBBLE_NEEDS_VCT}),
):
    register_router_model(_entry)
