"""The simulator's memory, estimated from the topology and the configuration
before anything is built.

The simple router (``router="simple"``, :mod:`sim.driver`): the record
routings (``dor``, ``adaptive``) and the twin-torus routings (``tsdor``,
``dort``) keep O(n x D) tables (the records or next hops of every
difference class, :mod:`sim.routing`), so memory grows as routers x ports x
VCs x buffers: the packet pool (one slot per buffered packet), the input
VCs, the credit wheel and the terminals' source queues (``source_queue``
packets each, the largest part at the defaults). The estimate is what the
driver allocates, the peak of a run whose queues fill (at saturation); a
short run at low load touches less of it. The table routings (``table``,
``updown``, ``minimal``, ``distance``) keep (n, n) next-hop masks and
distances (about 40 bytes per router pair at the peak), which caps them at
some 10,000 routers per 4 GB; ``pair_latency`` adds (n, n) accumulators.

>>> import candidates as cd
>>> m = memory_estimate(cd.from_spec("torus:64x32x32"), "tpds2010")
>>> m.routing, round(m.nbytes / 1e9, 1), m.per_pair
('adaptive', 1.5, 0.0)
>>> memory_estimate(cd.from_spec("torus:8x8x8"), "default", routing="table").per_pair
40.0
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from candidates import Topology
from candidates.size import check_memory, format_count, memory_limit

from .config import SimConfig, preset
from .routing import TWIN, resolve_routing

__all__ = ["SimMemory", "memory_estimate", "check_sim_memory"]


@dataclass(frozen=True)
class SimMemory:
    """Estimated bytes by part (``tables``, ``ties``, ``state``, ``pairs``)
    and in all (``nbytes``), for ``routing`` on ``n`` routers."""

    n: int
    routing: str
    parts: dict[str, float]
    nbytes: float
    #: bytes per router pair of the (n, n) tables (0: none, memory grows linearly)
    per_pair: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def memory_estimate(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                    pair_latency: bool = False) -> SimMemory:
    """Peak memory of simulating ``topo`` under ``config`` (a SimConfig or a
    preset name), without building anything of size n x n."""
    cfg = config if isinstance(config, SimConfig) else preset(config or "default")
    r = resolve_routing(topo, routing or cfg.routing)
    if cfg.router != "iq":
        return _simple_router(topo, cfg, r, pair_latency)
    n2 = float(topo.n) ** 2
    D = max(topo.ndim, 1)
    parts: dict[str, float] = {}
    if cfg.router == "iq" or r in ("dor", "adaptive", "min_adapt", "valiant"):
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


#: bytes per router pair of the table routings' (n, n) arrays at their peak:
#: all-pairs distances (int32), minimal next-hop masks (uint64), up*/down*
#: distances and masks, the kernel's int32 distances (measured: ~40)
TABLE_PAIR_BYTES = 40.0


def _simple_router(topo: Topology, cfg: SimConfig, r: str, pair_latency: bool) -> SimMemory:
    """What :func:`sim.driver.build` allocates for the simple router (its
    arrays, term by term) plus the topology and the routing tables."""
    n, A, T = float(topo.n), float(topo.num_arcs), float(topo.num_terminals)
    D = max(topo.ndim, 1)
    lo, hi = cfg.length_range
    wormhole = cfg.switching == "wormhole"
    # twin routings may add up to 4 internal-link VCs (sim.routing._twin_vcs)
    V = cfg.vcs + (4 if r in TWIN else 0)
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
    P = NVC * slots + Q * cfg.injection_queue + 1
    parts: dict[str, float] = {}
    # packet pool: 7 int32, 1 int8, 4 int64 fields, the record (int16 x D) and the free stack (int32)
    parts["packets"] = P * (7 * 4 + 1 + 4 * 8 + 2 * D + 4)
    # input VCs: the packet ring (int32 per slot; wormhole: flit index and ready cycle per flit), the
    # head, count, since, credit (and owner, output), the deadlock scan's flags, the VC's router
    parts["vcs"] = NVC * (4 * slots + (12 * cap + 12 if wormhole else 0) + 41)
    # the credit wheel (per slot one entry per channel and ejector), per-channel and per-router state
    parts["wheel"] = W * ((A * 8 + 4) if wormhole else (A + T) * 12)
    parts["channels"] = A * (6 * 8 + 8 + 8 + 16 + 8) + n * (4 * 8 + 8)
    # terminals: source queue (int64 cycle, int32 length per packet), injection queues, ejectors
    parts["terminals"] = (T * (cfg.source_queue * 12 + 48) + Q * (cfg.injection_queue * 4 + 36)
                          + NEJ * (8 + (12 if wormhole else 0)))
    # topology (links, coordinates, CSR) and O(n D) tables: out-arcs, coordinates, records and ties
    parts["topology"] = A * 40 + n * D * 8 + n * 16
    parts["tables"] = n * D * (16 + 4 + 2 * 4) + n * 8
    parts["histograms"] = 2.0 * ((1 << 16) + 1) * 8
    per_pair = 0.0
    if r not in ("dor", "adaptive") and r not in TWIN:
        per_pair = TABLE_PAIR_BYTES
        parts["tables"] += n * n * per_pair
    if pair_latency:
        parts["pairs"] = n * n * 16
        per_pair += 16
    return SimMemory(topo.n, r, parts, sum(parts.values()), per_pair)


def check_sim_memory(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                     pair_latency: bool = False) -> SimMemory:
    """Refuse (:class:`candidates.size.SizeError`, one line) a simulation
    whose estimate exceeds the memory limit; return the estimate."""
    m = memory_estimate(topo, config, routing=routing, pair_latency=pair_latency)
    name = topo.spec or topo.family
    hint = "use a smaller topology"
    if m.routing not in ("dor", "adaptive") and topo.ndim:
        hint += " or a record routing (dor, adaptive)"
    if m.per_pair > 0:
        # (n, n) arrays: say how many routers would fit
        fit = math.sqrt(max(memory_limit() / (m.nbytes / topo.n ** 2), 1.0))
        what = "pair_latency: n x n accumulators" if m.routing in ("dor", "adaptive") + TWIN else "n x n tables"
        hint = f"at most about {format_count(int(fit))} routers fit; " + hint
        if "pairs" in m.parts:
            hint += " or no pair_latency"
    else:
        what = "tables by difference class"
    check_memory(f"simulating {name} ({format_count(topo.n)} routers, {m.routing} routing: {what})", m.nbytes, hint)
    return m
