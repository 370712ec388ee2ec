"""The simulator's memory, estimated from the topology and the configuration
before anything is built.

The simple router (``router="simple"``, :mod:`sim.routers.simple`): the record
routings (``dor``, ``adaptive``) and the twin-torus routings (``tsdor``,
``dort``) keep O(n x D) tables (the records or next hops of every
difference class, :mod:`sim.routing`), so memory grows as routers x ports x
VCs x buffers: the packet pool (one slot per buffered packet), the input
VCs, the credit wheel and the terminals' source queues (``source_queue``
packets each, the largest part at the defaults). The estimate is what the
driver allocates, the peak of a run whose queues fill (at saturation); a
short run at low load touches less of it. The table routings (``table``,
``updown``, ``minimal``, ``distance``, ``valiant``, ``ugal``) keep (n, n)
next-hop masks and distances (about 40 bytes per router pair at the peak),
which caps them at some 10,000 routers per 4 GB; ``pair_latency`` adds
(n, n) accumulators.

BookSim2's router model (``router="iq"``) builds no n x n table: it routes
from coordinates, and its state is int32 rows per port, VC and packet, a
credit wheel, and a packet pool and source queues sized by the traffic
(:func:`iq_sizes`): a 64x32x32 torus at load 0.02 (stable) needs about
0.33 GB beside the interpreter. Past saturation the source queues and the
pool grow with the backlog, which no estimate made before the run can know;
the run checks every growth against the memory limit.

>>> import candidates as cd
>>> m = memory_estimate(cd.from_spec("torus:64x32x32"), "tpds2010")
>>> m.routing, round(m.nbytes / 1e9, 1), m.per_pair
('adaptive', 1.6, 0.0)
>>> memory_estimate(cd.from_spec("torus:8x8x8"), "default", routing="table").per_pair
40.0
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from candidates import Topology
from common.size import check_memory, format_count, memory_limit

from .config import SimConfig, preset
from .routing.tables import resolve_routing, table_kind

__all__ = ["SimMemory", "memory_estimate", "check_sim_memory", "iq_sizes"]


@dataclass(frozen=True)
class SimMemory:
    """Estimated bytes by part (``tables``, ``ties``, ``state``, ``pairs``)
    and in all (``nbytes``), for ``routing`` on ``n`` routers.

    >>> import candidates as cd
    >>> m = memory_estimate(cd.torus((4, 4)), "singleflit")
    >>> m.n, m.routing, round(m.nbytes / 1e6, 1), max(m.parts, key=m.parts.get), round(m.parts["tables"])
    (16, 'dor', 1.3, 'histograms', 1024)
    """

    n: int
    routing: str
    parts: dict[str, float]
    nbytes: float
    #: bytes per router pair of the (n, n) tables (0: none, memory grows linearly)
    per_pair: float = 0.0

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
    for d, size in enumerate(topo.shape or ()):
        k = float(size)
        h += ((k / 4 if int(k) % 2 == 0 else (k * k - 1) / (4 * k)) if wrapped[d] else (k * k - 1) / (3 * k))
    return h


def _wrapped_dims(topo: Topology) -> list[bool]:
    """Which dimensions have a wraparound link (a + arc leaving the top
    coordinate, as sim.routers.iq decides)."""
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


def iq_sizes(topo: Topology, cfg: SimConfig, load: float | None = None, threads: int = 1) -> dict[str, Any]:
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
    grow the same way (Poisson ones at ``source_queue``). ``threads``
    partitions adds a latency histogram each and, from two on, the outboxes
    of a cycle's flits and credits between partitions.

    >>> import candidates as cd
    >>> z = iq_sizes(cd.from_spec("torus:4x4"), preset("booksim"), 0.1)
    >>> z["NVC"], z["pool_max"], z["pool"], round(z["parts"]["buffers"])
    (160, 1297, 61, 36992)
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
    P = max(1, min(int(threads), n))
    # a cycle's flits (5 int32) and credits (2 int64) from each partition to each other, double buffered
    boxes = 2.0 * P * P * (-(-(NIP + NOP) // P)) * 36 if P > 1 else 0.0
    parts = {
        # per port a row of 8 int32 (+ its place in router order, int64, while building), per arc its
        # flit count (int64), per router 3 + 2D int32 (one: its place in a cycle's visit list), per terminal
        # its router and ports
        "network": NIP * 40.0 + NOP * 40.0 + A * 8.0 + n * (12.0 + 8 * D) + T * 12.0,
        # per VC its row and 5 int32 (ready cycle, pending list of 2, wanted output VCs); per output VC a
        # row of 4 int32
        "buffers": NVC * (4.0 * vc_cols + 20) + NOV * 16.0,
        "wheel": W * (NOP * 4.0 + 16 * P) + P * WW * ((n + 63) // 64) * 8.0 + boxes,
        "packets": pool * 68.0,            # a 64-byte row and a place in the free stack
        "queues": T * (queue_cols * 8.0 + 96),     # ... and its two random streams (a uint64 each)
        "stats": P * (1 << 16) * 8.0 + A * 8.0,
    }
    return {"B": B, "link": link, "NVC": NVC, "NOV": NOV, "R": R, "pool": pool, "pool_max": pool_max,
            "queue_cols": queue_cols, "vc_cols": vc_cols, "W": W, "WW": WW, "parts": parts}


def memory_estimate(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                    pair_latency: bool = False, load: float | None = None, threads: int = 1) -> SimMemory:
    """Peak memory of simulating ``topo`` under ``config`` (a SimConfig or a
    preset name), without building anything of size n x n; ``load`` sizes
    the packet pool of ``router="iq"``, and ``threads`` the partitions of
    router iq (see :func:`iq_sizes`) and the ranges of the simple router's
    VCT.

    Dimension order needs no (n, n) table; shortest-path tables take 40
    bytes per router pair:

    >>> import candidates as cd
    >>> m = memory_estimate(cd.torus((4, 4)), "singleflit")
    >>> m.routing, m.per_pair, round(m.nbytes / 1e6, 1)
    ('dor', 0.0, 1.3)
    >>> memory_estimate(cd.torus((4, 4)), "singleflit", routing="table").per_pair
    40.0
    """
    cfg = config if isinstance(config, SimConfig) else preset(config or "default")
    r = resolve_routing(topo, routing or cfg.routing, cfg.router)
    if cfg.router != "iq":
        return _simple_router(topo, cfg, r, pair_latency, threads)
    parts = dict(iq_sizes(topo, cfg, load, threads)["parts"])
    return SimMemory(topo.n, r, parts, sum(parts.values()))


#: bytes per router pair of the table routings' (n, n) arrays at their peak:
#: all-pairs distances (int32), minimal next-hop masks (uint64), up*/down*
#: distances and masks, the kernel's int32 distances (measured: ~40)
TABLE_PAIR_BYTES = 40.0


def _simple_router(topo: Topology, cfg: SimConfig, r: str, pair_latency: bool, threads: int = 1) -> SimMemory:
    """What :func:`sim.routers.simple.build` allocates for the simple router (its
    arrays, term by term) plus the topology and the routing tables, on
    ``threads`` ranges of routers."""
    n, A, T = float(topo.n), float(topo.num_arcs), float(topo.num_terminals)
    D = max(topo.ndim, 1)
    lo, hi = cfg.length_range
    wormhole = cfg.switching == "wormhole"
    # twin routings may add up to 4 internal-link VCs (sim.routing.tables._twin_vcs)
    kind = table_kind(topo, r)
    V = cfg.vcs + (4 if kind == "twin" else 0)
    if wormhole:
        cap = cfg.buffer_flits if cfg.buffer_flits > 0 else cfg.buffer_packets * hi
        slots = cap
        W = 1 << int(cfg.link_latency + 2).bit_length()
    else:
        cap = cfg.buffer_packets * hi
        slots = cap // lo
        W = 1 << int(hi + cfg.link_latency + 1).bit_length()
    NVC = A * V
    Q, NEJ = T * cfg.injectors, T * cfg.ejectors
    R = float(max(1, min(int(threads), topo.n)))
    P = NVC * slots + Q * cfg.injection_queue + 1
    parts: dict[str, float] = {}
    # packet pool: 8 int32 (one the valiant / ugal intermediate router), 1 int8, 5 int64 fields (one the
    # serial number), the record (int16 x D) and the free stack (int32)
    parts["packets"] = P * (8 * 4 + 1 + 5 * 8 + 2 * D + 4)
    # input VCs: the packet ring (int32 per slot; wormhole: flit index and ready cycle per flit), the
    # head, count, since, credit (and owner, output), the deadlock scan's flags, the VC's router
    parts["vcs"] = NVC * (4 * slots + (12 * cap + 12 if wormhole else 0) + 41)
    # the credit wheel (per slot one entry per channel, VCT: and per injection queue, split among the
    # ranges), the packets (flits) a range sends to another's input VCs (double buffered, as many a cycle as
    # channels between them: a range's own about A / R) and the ranges' candidates, freed packets and
    # run-state
    parts["wheel"] = W * ((A * 8 + R * 8) if wormhole else (A + Q) * 12 + R * 4)
    parts["ranges"] = 2 * R * R * (-(-A // R)) * 24 + R * (4 * (2 * 64 * V + 2) * 8 + NEJ * 4 + 16 * 8 + 48)
    # per router: its count, pointers and wake (4 int64), one int64 more, and a bit of its range's mask
    parts["channels"] = A * (6 * 8 + 8 + 8 + 16 + 8) + n * (4 * 8 + 8) + n / 8 + R * 8
    # terminals: source queue (int64 cycle, int32 length per packet), injection queues, ejectors
    parts["terminals"] = (T * (cfg.source_queue * 12 + 48) + Q * (cfg.injection_queue * 4 + 36)
                          + NEJ * (8 + (12 if wormhole else 0)))
    # topology (links, coordinates, CSR) and O(n D) tables: out-arcs, coordinates, records and ties
    parts["topology"] = A * 40 + n * D * 8 + n * 16
    parts["tables"] = n * D * (16 + 4 + 2 * 4) + n * 8
    parts["histograms"] = R * (2.0 * ((1 << 16) + 1) * 8 + 31 * 8)
    per_pair = 0.0
    if kind == "masks":
        per_pair = TABLE_PAIR_BYTES
        parts["tables"] += n * n * per_pair
    if pair_latency:
        parts["pairs"] = n * n * 16
        per_pair += 16
    return SimMemory(topo.n, r, parts, sum(parts.values()), per_pair)


def check_sim_memory(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                     pair_latency: bool = False, load: float | None = None, threads: int = 1) -> SimMemory:
    """Refuse (:class:`common.size.SizeError`, one line) a simulation
    whose estimate exceeds the memory limit; return the estimate."""
    m = memory_estimate(topo, config, routing=routing, pair_latency=pair_latency, load=load, threads=threads)
    name = topo.spec or topo.family
    cfg = config if isinstance(config, SimConfig) else preset(config or "default")
    if cfg.router == "iq":
        check_memory(f"simulating {name} ({format_count(topo.n)} routers) on router iq", m.nbytes,
                     "use a smaller topology, fewer VCs or smaller buffers")
        return m
    hint = "use a smaller topology"
    kind = table_kind(topo, m.routing)
    if kind == "masks" and table_kind(topo, "adaptive") == "records":
        hint += " or a record routing (dor, adaptive)"
    if m.per_pair > 0:
        # (n, n) arrays: say how many routers would fit
        fit = math.sqrt(max(memory_limit() / (m.nbytes / topo.n ** 2), 1.0))
        what = "n x n tables" if kind == "masks" else "pair_latency: n x n accumulators"
        hint = f"at most about {format_count(int(fit))} routers fit; " + hint
        if "pairs" in m.parts:
            hint += " or no pair_latency"
    else:
        what = "tables by difference class"
    check_memory(f"simulating {name} ({format_count(topo.n)} routers, {m.routing} routing: {what})", m.nbytes, hint)
    return m
