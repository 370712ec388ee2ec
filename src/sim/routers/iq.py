"""BookSim2's input-queued router model: building its state and measuring it.

``SimConfig(router="iq")`` (the ``booksim`` preset) runs the flit-level
kernel of :mod:`sim.routers._iq`, a model of BookSim2's ``iq_router`` (commit
28f4329): routing, VC allocation, switch allocation and switch traversal as
pipeline stages with their delays, separable iSLIP allocators, credits that
take the channel latency back, 1-cycle injection and ejection channels, an
unbounded-looking source queue per terminal and BookSim2's injection rule
(a new packet's head takes the first idle injection VC with a credit, round
robin from the last one used). Routing is BookSim2's dimension order on
lattices (``dim_order_torus`` / ``dim_order_mesh``): dimensions in
BookSim2's order (its dimension 0 is the fastest-varying digit of the node
number, toposynth's last coordinate, so node ``i`` is node ``i`` in both),
the VC class fixed on entering a wrapped dimension, the k/2 tie broken at
random (a hash of the seed, the packet and its hop).

``threads`` splits the routers among threads (:func:`sim.threads.partitions`, the
kernel's ``run_par``); the numbers are the same on any number of them.

Two measurement methods (``SimConfig.measurement``):

- ``fixed``: warm up ``warmup`` cycles, measure the packets the terminals
  take from their source queues during the next ``measure`` cycles, drain
  them (at most ``drain`` cycles; stable when they all arrive);
- ``booksim``: BookSim2's ``latency`` simulation -- ``warmup_periods``
  sample periods of ``sample_period`` cycles, then sample periods until the
  mean latency and the accepted rate changed less than ``stopping_threshold``
  three times in a row (at most ``max_samples`` periods in all), then drain;
  a run whose mean latency (counting the age of every flit in flight) passes
  ``latency_threshold`` at the end of a period is *unstable* and stops.

Both stop the drain as unstable when a check every :data:`DRAIN_CHECK`
cycles finds the mean latency, counting flits in flight at their age,
above ``latency_threshold``.

Either way the result carries a 95% confidence interval of the mean latency
from batch means over the measured sample periods, and ``stable``.

>>> import candidates as cd
>>> from sim import preset, simulate
>>> r = simulate(cd.from_spec("torus:8x8"), preset("booksim", measurement="fixed", warmup=200, measure=2000),
...              "tornado", 0.002, seed=1)
>>> r.latency_generation_percentiles["p50"]   # BookSim2: 6 cycles a hop (channels of 2), 7 more in and out
43.0
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numba
import numpy as np

from candidates import Topology
from common import compiletime
from common.size import check_memory, format_count
from traffic import DEST_PERM, Destinations, TrafficPattern, terminal_router

from ..compile_notice import announce
from ..confidence import ci95
from ..config import DRAIN_CHECK, SimConfig
from ..errors import SimError
from ..memory import iq_sizes
from ..results import SimProgress, SimResult, per_dimension, percentiles
from ..routing.registry import ROUTING_REGISTRY
from ..threads import check_threads, max_threads, partitions
from ._arrays import lined, per_range
from . import RouterModel, register_router_model
from . import _iq as Q
from . import _iq_layout as L

__all__ = ["IQRun", "build", "measure", "simulate", "ROUTING_CODES"]

#: the routings of this router model: BookSim2's routing functions on k-ary n-cubes
ROUTING_CODES = {r.name: r.iq_code for r in ROUTING_REGISTRY.values() if r.iq_code >= 0}

HIST_BINS = 1 << 16

#: the last cycle a run may reach: cycles are int32 in the state (NEVER, 2**31 - 1, means "not pending")
MAX_CYCLE = 2**31 - 2**24

#: bytes a packet takes in the pool: its int32 row of buf.pkr and its place in the free stack
POOL_BYTES = L.NK * 4 + 4

#: bytes of input VC rows above which the kernel prefetches (below, the state
#: stays in the caches and prefetching only costs instructions: 15% at 1,024 routers)
PREFETCH_ABOVE = 8 << 20

#: seconds a kernel call lasts when :func:`measure` reports progress
PROGRESS_SECONDS = 1.0


class IQRun:
    """The state of one run of the IQ router model (numba named tuples)."""

    def __init__(self, net, buf, trf, acc, ctl, topo: Topology, threads: int = 1):
        self.net, self.buf, self.trf, self.acc, self.ctl = net, buf, trf, acc, ctl
        self.topo = topo
        self.pool_max = 0
        self.threads = threads

    @property
    def now(self) -> int:
        return int(self.ctl[Q.C_NOW])

    def advance(self, until: int) -> None:
        if until > MAX_CYCLE:
            raise SimError(f"router iq counts cycles in int32 and cannot run to cycle {until:,}; keep warm-up, "
                           f"measurement and drain below {MAX_CYCLE:,} cycles")
        while True:
            if self.threads > 1:
                # more partitions than numba's threads (tests on a small machine) share them
                numba.set_num_threads(min(self.threads, max_threads()))
                Q.run_par(self.net, self.buf, self.trf, self.acc, self.ctl, np.int64(until))
            else:
                Q.run(self.net, self.buf, self.trf, self.acc, self.ctl, np.int64(until))
            if not self.ctl[Q.C_GROW]:
                return
            self.ctl[Q.C_GROW] = 0
            self._grow()

    def _grow(self) -> None:
        """Widen the source queues or the packet pool the kernel stopped for
        (both sized by activity; their contents and the order in which packet
        numbers are reused stay as if they had had their full size)."""
        buf, trf, T = self.buf, self.trf, self.net.T
        if trf.full.any():
            pc = trf.src_t.shape[1]
            wide = min(int(trf.cap), 2 * pc)
            check_memory(f"router iq's source queues ({wide} packets a terminal, {format_count(T)} terminals)",
                         2.0 * T * wide * 4, "lower the load (the network is past saturation) or the source_queue")
            if wide == 2 * pc:
                # each row twice, side by side: a ring of pc entries read from its head modulo 2 pc finds
                # the entries it wrapped past pc in the copy, so no head moves (two contiguous copies,
                # where unwrapping each row at its own head is a gather three times slower)
                src_t = np.concatenate((trf.src_t, trf.src_t), axis=1)
                src_l = np.concatenate((trf.src_l, trf.src_l), axis=1)
            else:
                # the last widening to a cap that is not twice the width: every row unwrapped to start at its head
                idx = (trf.src_head[:, None] + np.arange(pc)[None, :]) % pc
                rows = np.arange(T)[:, None]
                src_t = np.zeros((T, wide), np.int32)
                src_l = np.zeros((T, wide), np.int32)
                src_t[:, :pc] = trf.src_t[rows, idx]
                src_l[:, :pc] = trf.src_l[rows, idx]
                trf.src_head[:] = 0
            trf.full[:] = 0
            self.trf = trf = trf._replace(src_t=src_t, src_l=src_l)
        if buf.nfree[0] < self.ctl[Q.C_POOL_LOW]:
            P = buf.free.shape[0]
            P1 = min(self.pool_max, 2 * P)
            check_memory(f"router iq's packet pool ({format_count(P1)} packets)", (P1 - P) * POOL_BYTES,
                         "lower the load (the network is past saturation)")
            pkr = lined((P1, L.NK), np.int32)
            pkr[:P] = buf.pkr
            pkr[P:, Q.K_INTM] = -1
            # the new packets go under the free stack: numbers are reused as from a stack of all P1
            nf = int(buf.nfree[0])
            free = np.empty(P1, np.int32)
            free[:P1 - P] = np.arange(P1 - 1, P - 1, -1)
            free[P1 - P:P1 - P + nf] = buf.free[:nf]
            buf.nfree[0] = nf + P1 - P
            self.buf = buf._replace(free=free, pkr=pkr)
            self.ctl[Q.C_POOL_LOW] = T if P1 < self.pool_max else 0

    def clear(self) -> None:
        """BookSim2's ``_ClearStats``: statistics restart now."""
        keep = self.acc.v[[Q.A_TAG_TAKEN, Q.A_TAG_DONE, Q.A_INFL_FLITS, Q.A_INFL_CSUM, Q.A_DELIVERED,
                           Q.A_TAKEN, Q.A_OVERFLOW]].copy()
        self.acc.v[:] = 0
        self.acc.v[[Q.A_TAG_TAKEN, Q.A_TAG_DONE, Q.A_INFL_FLITS, Q.A_INFL_CSUM, Q.A_DELIVERED,
                    Q.A_TAKEN, Q.A_OVERFLOW]] = keep
        self.acc.arc_flits[:] = 0
        self.acc.hist[:] = 0
        self.ctl[Q.C_RESET_T] = self.now

    def threshold_latency(self) -> float:
        """Mean latency counting every flit in flight at its age (BookSim2's
        instability test)."""
        v = self.acc.v
        cnt = v[Q.A_PLAT_CNT] + v[Q.A_INFL_FLITS]
        if cnt <= 0:
            return 0.0
        return float((v[Q.A_PLAT_SUM] + v[Q.A_INFL_FLITS] * self.now - v[Q.A_INFL_CSUM]) / cnt)

    def drained(self) -> bool:
        v = self.acc.v
        return bool(v[Q.A_TAG_DONE] >= v[Q.A_TAG_TAKEN]
                    and Q.backlog_before(self.trf, np.int64(self.ctl[Q.C_DRAIN_T])) == 0)


def _lattice_arcs(topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The output arc of every (router, dimension, direction), each arc's
    direction (+1 even arcs, -1 odd: the routing records' convention) and
    whether a dimension wraps -- what the IQ model routes with, in
    O(routers x ports) (sim.routing's record tables are n x n)."""
    n, A, D = topo.n, topo.num_arcs, topo.ndim
    arc_dir = np.where(np.arange(A) % 2 == 0, 1, -1).astype(np.int64)
    k = topo.arc_dim
    assert topo.coords is not None  # a lattice with routing records (build checked): coordinates
    shape = np.asarray(topo.shape, dtype=np.int64)
    step = (topo.coords[topo.arc_dst, k] - topo.coords[topo.arc_src, k]) % shape[k]
    bad = step != np.where(arc_dir > 0, 1, shape[k] - 1) % shape[k]
    if bad.any():
        a0 = int(np.flatnonzero(bad)[0])
        raise SimError(f"router iq: arc {a0} of {topo!r} does not step {'+' if arc_dir[a0] > 0 else '-'}1 along "
                       f"dimension {topo.dims[k[a0]]} (renumbered links?); build the lattice with its generator")
    out = np.full((n, D, 2), -1, dtype=np.int32)
    out[topo.arc_src, k, np.arange(A) % 2] = np.arange(A)
    xs = topo.coords[topo.arc_src, k]
    arc_wrap = np.where(arc_dir > 0, xs == shape[k] - 1, xs == 0)
    wrap = np.zeros(D, dtype=np.int64)
    wrap[k[arc_wrap]] = 1
    # dimension order from coordinates asks for + below the top (or anywhere on a ring), - above 0
    c = topo.coords
    need_plus = (wrap[None, :] != 0) | (c < shape[None, :] - 1)
    need_minus = (wrap[None, :] != 0) | (c > 0)
    miss = (need_plus & (out[:, :, 0] < 0)) | (need_minus & (out[:, :, 1] < 0))
    if miss.any():
        u, d = (int(x[0]) for x in np.nonzero(miss))
        raise SimError(f"router iq: router {u} of {topo!r} lacks a link in dimension {topo.dims[d]} that "
                       "dimension-order routing needs; use --router simple")
    return out, arc_dir, wrap


def _lattice_ports(topo: Topology, arc_dir: np.ndarray, dim_order: np.ndarray):
    """Input and output ports of every router in BookSim2's order: for each
    dimension (its order) the + output then the - output, the input arriving
    from the + neighbour (travelling -) then from the - neighbour; the
    terminals' injection and ejection ports last. The ports as arcs and
    terminals number them (input ``a`` / ``A + t``, output ``a`` / ``A + t``)
    listed router by router, each router's in that order, and where each
    router's start in the lists."""
    n, T = topo.n, topo.num_terminals
    rank = np.empty(topo.ndim, dtype=np.int64)
    rank[dim_order] = np.arange(topo.ndim)
    plus = arc_dir > 0
    out_key = rank[topo.arc_dim] * 2 + np.where(plus, 0, 1)
    in_key = rank[topo.arc_dim] * 2 + np.where(plus, 1, 0)
    term_r = terminal_router(topo)
    src = np.concatenate([topo.arc_src, term_r])
    dst = np.concatenate([topo.arc_dst, term_r])
    okey = np.concatenate([out_key, 2 * topo.ndim + np.arange(T)])
    ikey = np.concatenate([in_key, 2 * topo.ndim + np.arange(T)])
    r_op = np.lexsort((okey, src)).astype(np.int64)
    r_ip = np.lexsort((ikey, dst)).astype(np.int64)
    r_op_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=r_op_ptr[1:])
    r_ip_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=r_ip_ptr[1:])
    return r_ip, r_ip_ptr, r_op, r_op_ptr


def build(topo: Topology, cfg: SimConfig, routing: str, dests: Destinations, rate: np.ndarray, seed: int,
          load: float | None = None, threads: int = 1) -> IQRun:
    """The model's state for one run (allocated before any cycle runs; the
    packet pool and the source queues sized for ``load`` as
    :func:`sim.memory.iq_sizes` says, grown by the run if its traffic needs
    more). Indices and cycles are int32: :data:`MAX_CYCLE` bounds a run.
    ``threads`` partitions the routers (:func:`sim.threads.partitions`); the numbers do
    not depend on it."""
    code = ROUTING_CODES.get(routing)
    if code is None:
        raise SimError(f"router iq supports routings {', '.join(ROUTING_CODES)} (BookSim2's dim_order, "
                       f"min_adapt, valiant), got {routing!r}; use --router simple for the others")
    n, A, T, D, V = topo.n, topo.num_arcs, topo.num_terminals, topo.ndim, cfg.vcs
    assert topo.coords is not None  # the routing resolved for router iq needs routing records: a lattice
    moved = topo.coords[topo.arc_dst] != topo.coords[topo.arc_src]
    if (moved.sum(axis=1) != 1).any() or (moved.argmax(axis=1) != topo.arc_dim).any():
        raise SimError(f"router iq routes k-ary n-cubes (torus, mesh, ring, hypercube, rt, pt) from coordinates; "
                       f"{topo!r} has links that shift other coordinates (twisted wraparound): use --router simple")
    out_op, arc_dir, wrap = _lattice_arcs(topo)
    z = iq_sizes(topo, cfg, load)
    B, PP, PMAX, QCOLS, R = z["B"], z["pool"], z["pool_max"], z["queue_cols"], z["R"]
    if PMAX >= 2**31 or z["NOV"] >= 2**31 // 2:
        raise SimError(f"router iq numbers packets and channels in int32; {topo!r} with {V} VCs of {B} flits "
                       "needs more: use fewer VCs or smaller buffers")
    need = {"min_adapt": 4 if wrap.any() else 2, "valiant": 4 if wrap.any() else 2}.get(routing, 1)
    if V < need:
        raise SimError(f"routing {routing} on {topo!r} needs at least {need} virtual channels (BookSim2's VC "
                       f"classes), got vcs={V}: add --vcs {need}")
    link = z["link"]
    dim_order = np.arange(D - 1, -1, -1, dtype=np.int64)
    r_ip, r_ip_ptr, r_op, r_op_ptr = _lattice_ports(topo, arc_dir, dim_order)
    term_r = terminal_router(topo)
    NIP, NOP = A + T, A + 2 * T
    pbound = partitions(n, threads)
    P = len(pbound) - 1
    tbound = np.searchsorted(term_r, pbound).astype(np.int64)   # terminals are numbered in router order
    i32 = np.int32
    max_ni = int(np.diff(r_ip_ptr).max())
    max_no = int(np.diff(r_op_ptr).max())
    if max(max_ni, max_no) > 64:
        raise SimError(f"router iq handles routers of at most 64 ports (the switch allocator's bit masks); "
                       f"{topo!r} has a router with {max(max_ni, max_no)}")
    # the kernel numbers ports in router order (input port r_ip[i] is its i); the terminals' views of their
    # injection buffers keep output ports A + T + t
    new_ip = np.empty(NIP, dtype=np.int64)
    new_ip[r_ip] = np.arange(NIP)
    new_op = np.arange(NOP, dtype=np.int64)
    new_op[r_op] = np.arange(A + T)
    ipr = lined((NIP, L.NPORT), i32)
    ipr[:, L.P_ROUTER] = np.concatenate([topo.arc_dst, term_r])[r_ip]
    ipr[:, Q.P_LAT] = np.concatenate([np.full(A, link), np.ones(T)])[r_ip]
    ipr[:, Q.P_UP] = new_op[np.concatenate([np.arange(A), A + T + np.arange(T)])][r_ip]
    ipr[:, Q.P_INJ] = r_ip >= A
    ipr[:, L.P_UROUTER] = np.concatenate([topo.arc_src, term_r])[r_ip]
    opr = lined((NOP, L.NPORT), i32)
    old_op = np.concatenate([r_op, np.arange(A + T, NOP)])
    opr[:, Q.Q_ROUTER] = np.concatenate([topo.arc_src, term_r, term_r])[old_op]
    opr[:, Q.Q_LAT] = np.concatenate([np.full(A, link), np.ones(2 * T)])[old_op]
    opr[:, Q.Q_DOWN] = np.concatenate([new_ip[:A], np.full(T, -1), new_ip[A:]])[old_op]
    opr[:, Q.Q_DIM] = np.concatenate([topo.arc_dim, np.full(2 * T, -1)])[old_op]
    opr[:, Q.Q_ARC] = np.where(old_op < A, old_op, -1)
    opr[:, Q.Q_DROUTER] = np.concatenate([topo.arc_dst, np.full(T, -1), term_r])[old_op]
    del old_op
    out_op = np.where(out_op >= 0, new_op[out_op], -1).astype(i32)
    shape = np.asarray(topo.shape, dtype=np.int64)
    net = Q.Net(
        np.int64(n), np.int64(A), np.int64(T), np.int64(V), np.int64(B), np.int64(D),
        ipr, opr, r_ip_ptr.astype(i32), r_op_ptr.astype(i32),
        term_r.astype(i32), new_ip[A:].astype(i32), new_op[A:A + T].astype(i32), out_op,
        np.ascontiguousarray(topo.coords, dtype=np.int64), shape, wrap, dim_order,
        np.int64(code), np.int64(cfg.routing_delay), np.int64(cfg.vc_alloc_delay), np.int64(cfg.sw_alloc_delay),
        np.int64(cfg.st_delay), np.int64(cfg.credit_delay), np.int64(cfg.alloc_iters), np.int64(cfg.watchdog),
        np.int64(1 if cfg.self_traffic else 0), np.int64(1 if cfg.output_set == "booksim" else 0),
        np.int64(Q.F_FB + 3 * B),
        np.int64(NIP * V * z["vc_cols"] * 4 > PREFETCH_ABOVE),
        np.int64(D <= L.NK - Q.K_DC),
        np.int64(seed), pbound, tbound,
    )
    del new_ip, new_op, r_ip, r_op
    NVC, NOV = NIP * V, NOP * V
    W, WW = z["W"], z["WW"]
    never = np.int32(Q.NEVER)
    # per partition: its routers, ports, VCs and terminals (the sizes of its slices)
    ip_q = np.diff(r_ip_ptr[pbound])
    op_q = np.diff(r_op_ptr[pbound])
    t_q = np.diff(tbound)
    n_q = int(np.diff(pbound).max())
    vc_q = int(ip_q.max()) * V
    # a cycle's flits (credits) from one partition to another: at most one per output (input) port
    box = int(max(op_q.max(), ip_q.max())) if P > 1 else 0
    vcr = lined((NVC, z["vc_cols"]), i32)
    vcr[:, Q.F_STATE] = Q.VS_IDLE
    vcr[:, Q.F_IP] = np.arange(NVC) // V
    ovr = lined((NOV, L.NOVF), i32)
    ovr[:, Q.O_OWNER] = -1
    ovr[:, Q.O_CRED] = B
    ovr[:, Q.O_PORT] = np.arange(NOV) // V
    pkr = lined((PP, L.NK), i32)
    pkr[:, Q.K_INTM] = -1
    nreq = max_ni * V * R * V
    # every per-partition array (the leading axis of P) fills whole lines per partition (per_range): one line
    # written by two threads would bounce between their cores (the counters are written on every hop)
    pp = per_range
    buf = Q.Buf(
        vcr, np.full(NVC, never, i32), ovr,
        # credits due in one cycle: at most one per output port (its channel's flits, one a cycle)
        pp((P, W), np.int64), pp((P, W, int(op_q.max())), i32, axis=2),
        pp((P, W), np.int64), pp((P, W, max(int(t_q.max()), 1)), i32, axis=2),
        pp((P, WW, (n + 63) // 64), np.uint64, axis=2),
        pkr, np.arange(PP - 1, -1, -1, dtype=i32), np.array([PP], dtype=np.int64),
        pp((P, max_no * V + max_ni * V), np.int64), pp((P, max_no * V), np.int64),
        pp((P, max(max_ni * V, max_ni)), np.int64), pp((P, max_ni, max_no), np.int64),
        pp((P, max_no), np.uint64), pp((P, max_ni), np.uint64), pp((P, max_no), np.int64),
        pp((P, nreq), np.int64), pp((P, nreq), np.int64),
        pp((P, nreq), np.int64), pp((P, nreq), np.int64),
        pp((P, max_no * V), np.int64, fill=-1),
        pp((P, Q.RING, 3, max_ni * V), np.int64), pp((P, Q.RING, 3), np.int64),
        np.zeros((NVC, 2), i32), pp((P, max_ni), np.int64),
        pp((P, vc_q, 2), i32), pp((P, 8), np.int64),
        pp((P, n_q), i32),
        # a cycle's packets read out: at most one per terminal
        pp((P, max(int(t_q.max()), 1)), i32), pp((P, 8), np.int64),
        pp((2, P, P, box, 5), i32, axis=3), pp((2, P, P), np.int64, axis=2),
        pp((2, P, P, box, 2), np.int64, axis=3), pp((2, P, P), np.int64, axis=2),
        pp((P, 8), np.int64), np.stack([np.arange(P), pbound[:-1], pbound[1:]], axis=1).astype(np.int64),
        pp((P, 8), np.int64),
    )
    lo, hi = cfg.length_range
    perm = np.ascontiguousarray(dests.perm, dtype=np.int64)
    if dests.mode == DEST_PERM and cfg.self_traffic:
        perm = np.where(perm < 0, np.arange(T), perm)
    next_gen = np.full(T, np.inf)
    trf = Q.Trf(
        np.int64(dests.mode), perm, np.ascontiguousarray(dests.cdf, dtype=np.float64), np.int64(dests.hot_count),
        float(dests.hot_prob), np.ascontiguousarray(rate, dtype=np.float64), np.int64(cfg.injection == "poisson"),
        np.int64(lo), np.int64(hi),
        np.zeros((T, QCOLS), i32), np.zeros((T, QCOLS), i32), np.zeros(T, np.int64), np.zeros(T, np.int64),
        next_gen, np.full(T, -1, np.int64), np.zeros(T, np.int64), np.full(T, -1, np.int64),
        np.full(T, -1, np.int64), np.int64(cfg.source_queue), np.zeros(P, np.int64),
        np.zeros(T, np.uint64), np.zeros(T, np.uint64),
    )
    acc = Q.Acc(np.zeros(Q.NACC, np.float64), np.zeros(A, np.int64), np.zeros((P, HIST_BINS + 1), np.int64),
                per_range((P, 32), np.float64))
    ctl = np.zeros(Q.NCTL, np.int64)
    ctl[Q.C_POOL_LOW] = T if PP < PMAX else 0
    Q.seed_and_start(np.int64(seed), trf)
    run = IQRun(net, buf, trf, acc, ctl, topo, threads)
    run.pool_max = PMAX
    return run


def measure(run: IQRun, cfg: SimConfig, progress=None) -> dict[str, Any]:
    """Run the measurement method of ``cfg`` on a built model; the figures
    (rates per terminal per cycle, latencies in cycles) and the run's facts.
    ``progress(run)`` is called about once a second of simulation."""
    T = run.net.T
    t0 = time.process_time()
    w0 = compiletime.clock()
    batches: list[float] = []
    stable = True
    period = int(cfg.sample_period)

    piece = [256]

    def advance(until: int) -> None:
        """``run.advance(until)``; with ``progress``, in calls of about a
        second each, reporting after each (the run resumes exactly where a
        call stopped, so no number changes)."""
        if progress is None:
            run.advance(until)
            return
        while run.now < until and not run.ctl[Q.C_DEADLOCK]:
            start, t = run.now, time.perf_counter()
            run.advance(min(until, start + piece[0]))
            ran, dt = run.now - start, time.perf_counter() - t
            if ran > 0:
                piece[0] = int(min(1 << 16, max(16, ran * PROGRESS_SECONDS / max(dt, 1e-6))))
            progress(run)
            if ran == 0:
                break

    def sample(until: int) -> tuple[float, float]:
        v = run.acc.v
        s0, c0 = v[Q.A_PLAT_SUM], v[Q.A_PLAT_CNT]
        advance(until)
        s1, c1 = v[Q.A_PLAT_SUM], v[Q.A_PLAT_CNT]
        if run.ctl[Q.C_PHASE] == 1 and c1 > c0:
            batches.append((s1 - s0) / (c1 - c0))
        return s1, c1

    if cfg.measurement == "fixed":
        run.ctl[Q.C_PHASE] = 0
        advance(cfg.warmup)
        run.clear()
        run.ctl[Q.C_PHASE] = 1
        end = cfg.warmup + cfg.measure
        while run.now < end and not run.ctl[Q.C_DEADLOCK]:
            sample(min(end, run.now + period))
    else:
        converged = 0
        prev_lat = prev_acc = 0.0
        clear_last = False
        phases = 0
        run.ctl[Q.C_PHASE] = 0
        while phases < cfg.max_samples and (run.ctl[Q.C_PHASE] != 1 or converged < 3):
            if clear_last or (run.ctl[Q.C_PHASE] == 0 and phases % 2 == 0):
                clear_last = False
                run.clear()
            sample(run.now + period)
            if run.ctl[Q.C_DEADLOCK]:
                break
            v = run.acc.v
            cur_lat = v[Q.A_PLAT_SUM] / v[Q.A_PLAT_CNT] if v[Q.A_PLAT_CNT] > 0 else float("nan")
            span = run.now - run.ctl[Q.C_RESET_T]
            cur_acc = v[Q.A_ACC_FLITS] / span / T if span > 0 else float("nan")
            with np.errstate(all="ignore"):
                lat_chg = abs((cur_lat - prev_lat) / cur_lat) if cur_lat else float("inf")
                acc_chg = abs((cur_acc - prev_acc) / cur_acc) if cur_acc else float("inf")
            prev_lat, prev_acc = cur_lat, cur_acc
            if run.threshold_latency() > cfg.latency_threshold:
                stable = False
                break
            if run.ctl[Q.C_PHASE] == 0:
                if phases + 1 >= cfg.warmup_periods:
                    clear_last = True
                    run.ctl[Q.C_PHASE] = 1
            else:
                ok = not (lat_chg > cfg.stopping_threshold) and not (acc_chg > cfg.stopping_threshold)
                converged = converged + 1 if ok else 0
            phases += 1
        if stable and run.ctl[Q.C_PHASE] != 1 and not run.ctl[Q.C_DEADLOCK]:
            stable = False   # never left warm-up
    # ------------------------------------------------------------ drain
    v = run.acc.v
    span = run.now - int(run.ctl[Q.C_RESET_T])
    measured_end = run.now
    figures = {
        "offered": v[Q.A_GEN_FLITS] / span / T if span > 0 else 0.0,
        "accepted": v[Q.A_ACC_FLITS] / span / T if span > 0 else 0.0,
        "injected": v[Q.A_INJ_FLITS] / span / T if span > 0 else 0.0,
        "window": span,
    }
    arc_flits = run.acc.arc_flits.copy()
    drained = False
    if stable and not run.ctl[Q.C_DEADLOCK]:
        run.ctl[Q.C_PHASE] = 2
        run.ctl[Q.C_DRAIN_T] = run.now
        limit = run.now + cfg.drain
        while not run.drained():
            if run.now >= limit or run.ctl[Q.C_DEADLOCK]:
                break
            advance(min(limit, run.now + DRAIN_CHECK))
            if not run.drained() and run.threshold_latency() > cfg.latency_threshold:
                stable = False
                break
        drained = run.drained()
        if cfg.measurement == "fixed":
            stable = drained   # as the simple router: the window's packets all arrived within the drain
    v = run.acc.v
    cnt = v[Q.A_PLAT_CNT]
    lat = v[Q.A_PLAT_SUM] / cnt if cnt else None
    ci = ci95(batches)
    figures.update({
        "latency_generation": lat,
        "latency": v[Q.A_NLAT_SUM] / cnt if cnt else None,
        "latency_ci95": ci,
        "latency_max": int(v[Q.A_PLAT_MAX]) if cnt else None,
        "hops": v[Q.A_HOPS_SUM] / cnt if cnt else None,
        "min_hops": v[Q.A_MINHOPS] / cnt if cnt else None,
        "packets": int(cnt),
        "stable": bool(stable and not run.ctl[Q.C_DEADLOCK]),
        "deadlock": bool(run.ctl[Q.C_DEADLOCK]),
        "drained": drained,
        "cycles": run.now,
        "measured_end": measured_end,
        # a kernel's first call may compile it: that time is not the run's
        "cpu_seconds": max(0.0, time.process_time() - t0 - compiletime.compile_cpu_seconds(w0)),
        "seconds": compiletime.run_seconds(w0)[0],
        "overflow": int(v[Q.A_OVERFLOW]),
        "taken": int(v[Q.A_TAKEN]),
        "delivered": int(v[Q.A_DELIVERED]),
        "in_flight": int(v[Q.A_TAKEN] - v[Q.A_DELIVERED]),
        "arc_flits": arc_flits,
        "hist": run.acc.hist.sum(axis=0),
        "batches": len(batches),
    })
    return figures


def simulate(topo: Topology, cfg: SimConfig, pat: TrafficPattern, routing: str, deadlock: str, dests: Destinations,
             rate: np.ndarray, load: float, seed: int, pair_latency: bool,
             progress: Callable[[SimProgress], None] | None, threads: int = 1) -> SimResult:
    """One synthetic-traffic run of the iq router (its model's entry:
    :func:`sim.engine.simulate` validated it; ``deadlock`` is BookSim2's own)
    on ``threads`` threads (the same numbers on any number)."""
    threads = check_threads(threads)
    hook = None if progress is None else _progress_hook(progress, cfg, load, topo.num_terminals)
    announce("iq", [Q.run_par if threads > 1 else Q.run, Q.seed_and_start])
    t0 = compiletime.clock()
    run = build(topo, cfg, routing, dests, rate, seed, load, threads)
    res = _result(topo, cfg, pat, routing, load, seed, measure(run, cfg, hook))
    # the kernels compile in build (the generator's start) and in the run: both kept out of the run's seconds
    res.compile_seconds = compiletime.compile_seconds(t0)
    return res


def _progress_hook(progress: Callable[[SimProgress], None], cfg: SimConfig, load: float, T: int):
    """measure's hook (an IQRun) as SimProgress records."""
    t0 = time.perf_counter()
    planned = cfg.warmup + cfg.measure if cfg.measurement == "fixed" else cfg.sample_period * cfg.max_samples

    last: list[float | None] = [None]

    def hook(run: IQRun) -> None:
        now, ph = run.now, int(run.ctl[Q.C_PHASE])
        span = now - int(run.ctl[Q.C_RESET_T])
        if ph == 1 and span > 0:
            last[0] = float(run.acc.v[Q.A_ACC_FLITS]) / (span * T)
        # while draining: the measurement's figure (the window is over)
        acc = last[0] if ph >= 1 else None
        progress(SimProgress(load, now, planned, ("warm-up", "measurement", "drain")[min(ph, 2)], acc,
                             time.perf_counter() - t0))

    return hook


def _result(topo, cfg, pat, routing, load, seed, f: dict) -> SimResult:
    util = f["arc_flits"] / float(max(f["window"], 1))
    per_dim = per_dimension(topo, util)
    pct = percentiles(f["hist"])
    return SimResult(
        spec=topo.spec or topo.family, routing=f"{routing} (BookSim2)",
        traffic=str(pat), load=load, offered=float(f["offered"]), accepted=float(f["accepted"]),
        injected_rate=float(f["injected"]), latency=f["latency"], latency_generation=f["latency_generation"],
        latency_percentiles=pct, latency_generation_percentiles=pct, latency_max=f["latency_max"],
        hops=f["hops"], min_hops=f["min_hops"], packets=f["packets"], deadlock=f["deadlock"],
        deadlock_kind="no progress" if f["deadlock"] else "none", drained=f["drained"], cycles=f["cycles"],
        seconds=f["seconds"], injected=f["taken"], delivered=f["delivered"], in_flight=f["in_flight"],
        conservation=f["taken"] - f["delivered"] == f["in_flight"], source_overflow=f["overflow"], starvation=0,
        escape_fraction=None, utilisation=per_dim, channel_utilisation=util, config=cfg, seed=seed,
        config_routers=topo.n, latency_ci95=f["latency_ci95"], stable=f["stable"], cpu_seconds=f["cpu_seconds"],
    )


register_router_model(RouterModel(
    "iq", "BookSim2's input-queued VC router: routing, VC and switch allocation (iSLIP) and switch traversal as "
    "pipeline stages, flit by flit", "iq", None, pair_latency=False, traces=False, simulate=simulate,
    fixed_deadlock="dateline", threads=True))
