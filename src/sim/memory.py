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

__all__ = ["SimMemory", "memory_estimate", "check_sim_memory"]


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


def memory_estimate(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                    pair_latency: bool = False) -> SimMemory:
    """Peak memory of simulating ``topo`` under ``config`` (a SimConfig or a
    preset name), without building anything of size n x n."""
    cfg = config if isinstance(config, SimConfig) else preset(config or "default")
    r = resolve_routing(topo, routing or cfg.routing)
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


def check_sim_memory(topo: Topology, config: SimConfig | str | None = None, *, routing: str | None = None,
                     pair_latency: bool = False) -> SimMemory:
    """Refuse (:class:`candidates.size.SizeError`, one line) a simulation
    whose estimate exceeds the memory limit; return the estimate."""
    m = memory_estimate(topo, config, routing=routing, pair_latency=pair_latency)
    name = topo.spec or topo.family
    hint = "use a smaller topology"
    if m.routing not in ("dor", "adaptive") and topo.ndim:
        hint += " or a record routing (dor, adaptive)"
    check_memory(f"simulating {name} ({format_count(topo.n)} routers, {m.routing} routing: n x n tables)",
                 m.nbytes, hint)
    return m
