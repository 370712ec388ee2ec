"""The simulator's memory, estimated from the topology and the configuration
before any table is built.

The routing tables dominate: the record routings (``dor``, ``adaptive``)
keep an (n, n, D) int16 table of routing records and build it through
(n, n, D) temporaries (the hop-existence check: a bool and an int64 array)
and an (n, n) int64 distance table; the table routings keep (n, n) distance
and next-hop masks of minimal routing and of up*/down* (about 44 bytes per
router pair at the peak); the twin-torus routings (C, n, n) next channels. The
router state grows with channels x VCs x buffers. A 64x32x32 torus (65,536
routers) thus needs about 178 GB for its record tables.

BookSim2's router model (``router="iq"``) builds no n x n table: it routes
from coordinates, and its state is int32 rows per port, VC and packet, a
credit wheel, and a packet pool and source queues sized by the traffic
(:func:`iq_sizes`): a 64x32x32 torus at load 0.02 (stable) needs about
0.35 GB beside the interpreter. Past saturation the source queues and the
pool grow with the backlog, which no estimate made before the run can know;
the run checks every growth against the memory limit.

>>> import candidates as cd
>>> m = memory_estimate(cd.from_spec("torus:8x8x8"), "default")
>>> m.routing, m.parts["tables"] == 512 ** 2 * (11 * 3 + 8)
('adaptive', True)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from candidates import Topology
from candidates.size import check_memory, format_count

from .config import SimConfig, preset
from .routing import TWIN, resolve_routing

__all__ = ["SimMemory", "memory_estimate", "check_sim_memory", "iq_sizes"]


@dataclass(frozen=True)
class SimMemory:
    """Estimated bytes by part (``tables``, ``ties``, ``state``, ``pairs``)
    and in all (``nbytes``), for ``routing`` on ``n`` routers."""

    n: int
    routing: str
    parts: dict[str, float]
    nbytes: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pow2_at_least(x: int) -> int:
    w = 1
    while w < x:
        w *= 2
    return w


def _mean_hops(topo: Topology) -> float:
    """Mean minimal hops between two routers drawn uniformly (self included)
    of a k-ary n-cube: per ring of k, k/4 (even k) or (k^2 - 1)/(4k); per
    line, (k^2 - 1)/(3k)."""
    h = 0.0
    wrapped = _wrapped_dims(topo)
    for d, k in enumerate(topo.shape or ()):
        k = float(k)
        h += ((k / 4 if int(k) % 2 == 0 else (k * k - 1) / (4 * k)) if wrapped[d] else (k * k - 1) / (3 * k))
    return h


def _wrapped_dims(topo: Topology) -> list[bool]:
    """Which dimensions have a wraparound link (a + arc leaving the top
    coordinate, as sim.iq decides)."""
    shape = topo.shape or ()
    out = [False] * len(shape)
    if topo.coords is None or not len(shape):
        return out
    plus = topo.arc_src[0::2]
    dims = topo.arc_dim[0::2]
    for d in range(len(shape)):
        sel = dims == d
        out[d] = bool((topo.coords[plus[sel], d] == shape[d] - 1).any())
    return out


def iq_sizes(topo: Topology, cfg: SimConfig, load: float | None = None) -> dict[str, Any]:
    """Array sizes of BookSim2's router model (``router="iq"``) on ``topo``
    and its bytes by part, before anything is allocated.

    The packet pool can hold every packet the network can (each buffer slot
    one packet and one more per terminal, ``pool_max``); it starts at the
    packets a run at ``load`` keeps in flight -- terminals x packet rate x
    zero-load latency (mean hops x the stage and channel cycles of a hop,
    plus serialisation), times 1.25 -- plus a cycle's takes (one per
    terminal); ``load=None`` sizes it for ``pool_max``. A run whose traffic
    needs more (past saturation) grows it, each growth checked against the
    memory limit. Bernoulli source queues start at 16 packets a terminal and
    grow the same way (Poisson ones at ``source_queue``).

    >>> import candidates as cd
    >>> z = iq_sizes(cd.from_spec("torus:4x4"), preset("booksim"), 0.1)
    >>> z["NVC"], z["pool_max"], z["pool"], round(z["parts"]["buffers"])
    (160, 1297, 61, 38784)
    """
    n, A, T, D, V = topo.n, topo.num_arcs, topo.num_terminals, max(topo.ndim, 1), cfg.vcs
    lo, hi = cfg.length_range
    B = cfg.buffer_flits if cfg.buffer_flits > 0 else cfg.buffer_packets * hi
    wrapped = _wrapped_dims(topo)
    link = cfg.link_latency if cfg.link_latency > 0 else (2 if any(wrapped) else 1)
    NIP, NOP = A + T, A + 2 * T
    NVC, NOV = NIP * V, NOP * V
    R = D + 1
    pool_max = NVC * B + T + 1
    # an input VC's int32 row: 8 scalars, B slots of 3, R route entries of 4, in whole 64-byte lines
    vc_cols = -(-(8 + 3 * B + 4 * R) // 16) * 16
    if load is None:
        pool = pool_max
    else:
        per_hop = cfg.routing_delay + cfg.vc_alloc_delay + cfg.sw_alloc_delay + cfg.st_delay + link
        latency = _mean_hops(topo) * per_hop + per_hop + 4 + (hi - 1)
        live = T * max(float(load), 0.0) / cfg.mean_packet_length * latency
        pool = int(min(pool_max, 1.25 * live + T + 1))
    queue_cols = cfg.source_queue if cfg.injection == "poisson" else min(cfg.source_queue, 16)
    W = _pow2_at_least(cfg.sw_alloc_delay + cfg.st_delay + 2 * link + cfg.credit_delay + 6 + 2)
    WW = _pow2_at_least(cfg.sw_alloc_delay + cfg.st_delay + link + cfg.routing_delay + cfg.vc_alloc_delay + 2 + 2)
    parts = {
        # per port a row of 8 int32 and its place in router order (+ an int64 one per input port while
        # building), per VC its place (int32; int64 while building), per arc its flit count (int64), per
        # router 3 + 2D int32
        "network": NIP * 44.0 + NVC * 12.0 + NOP * 36.0 + A * 8.0 + n * (12.0 + 8 * D) + T * 4.0,
        # per VC its row and 3 int32 (ready cycles, pending list); per output VC a row of 4 int64
        "buffers": NVC * (4.0 * vc_cols + 12) + NOV * 32.0,
        "wheel": W * (NOP * 4.0 + 8) + WW * ((n + 63) // 64) * 8.0,
        "packets": pool * 52.0,
        "queues": T * (queue_cols * 8.0 + 80),
        "stats": (1 << 16) * 8.0 + A * 8.0,
    }
    return {"B": B, "link": link, "NVC": NVC, "NOV": NOV, "R": R, "pool": pool, "pool_max": pool_max,
            "queue_cols": queue_cols, "vc_cols": vc_cols, "W": W, "WW": WW, "parts": parts}


def memory_estimate(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                    pair_latency: bool = False, load: float | None = None) -> SimMemory:
    """Peak memory of simulating ``topo`` under ``config`` (a SimConfig or a
    preset name), without building anything of size n x n; ``load`` sizes
    the packet pool of ``router="iq"`` (see :func:`iq_sizes`)."""
    cfg = config if isinstance(config, SimConfig) else preset(config or "default")
    r = resolve_routing(topo, routing or cfg.routing)
    if cfg.router == "iq":
        parts = dict(iq_sizes(topo, cfg, load)["parts"])
        return SimMemory(topo.n, r, parts, sum(parts.values()))
    n2 = float(topo.n) ** 2
    D = max(topo.ndim, 1)
    parts: dict[str, float] = {}
    if r in ("dor", "adaptive"):
        # records int16, need bool, sign int64 (per dimension) + min_dist int64
        parts["tables"] = n2 * (11 * D + 8)
        if cfg.tie_break == "random":
            # the base record as int64, a candidate, its length and the
            # output (K <= 3 alternatives kept in practice)
            parts["ties"] = n2 * (8 * D + 8 * D + 8 + 3 * 2 * D + 8)
    elif r in TWIN:
        classes = 2
        parts["tables"] = n2 * (classes * 5 + 17)
    else:
        # all-pairs distances (int32), masks and first hops (uint64/int64),
        # up*/down* distances and masks, the kernel's int64 distance copy;
        # not all held at once (measured peak: about 44 bytes per pair)
        parts["tables"] = n2 * 44
    lo, hi = cfg.length_range
    vc_phits = cfg.buffer_packets * hi
    # per VC slot a few int64 fields per buffered phit; per terminal its queues
    parts["state"] = (float(topo.num_arcs) * cfg.vcs * (vc_phits * 8.0 + 256.0)
                      + float(topo.num_terminals) * (cfg.injection_queue + cfg.source_queue) * 8.0)
    if pair_latency:
        parts["pairs"] = n2 * 16
    return SimMemory(topo.n, r, parts, sum(parts.values()))


def check_sim_memory(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                     pair_latency: bool = False, load: float | None = None) -> SimMemory:
    """Refuse (:class:`candidates.size.SizeError`, one line) a simulation
    whose estimate exceeds the memory limit; return the estimate."""
    m = memory_estimate(topo, config, routing=routing, pair_latency=pair_latency, load=load)
    name = topo.spec or topo.family
    cfg = config if isinstance(config, SimConfig) else preset(config or "default")
    if cfg.router == "iq":
        check_memory(f"simulating {name} ({format_count(topo.n)} routers) on router iq", m.nbytes,
                     "use a smaller topology, fewer VCs or smaller buffers")
        return m
    hint = "use a smaller topology"
    if m.routing not in ("dor", "adaptive") and topo.ndim:
        hint += " or a record routing (dor, adaptive)"
    check_memory(f"simulating {name} ({format_count(topo.n)} routers, {m.routing} routing: n x n tables)",
                 m.nbytes, hint)
    return m
