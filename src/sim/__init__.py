"""toposynth.sim — a cycle-level packet simulator that verifies topologies.

Input-buffered virtual-channel routers with credit flow control and virtual
cut-through, the routings of the papers (dimension order with datelines or
bubbles, minimal adaptive with a bubble escape channel on tori and twisted
tori, shortest-path tables with an up*/down* escape on any graph, up*/down*),
synthetic traffic patterns that are also demand matrices for ``flows``,
trace-driven workloads with causal dependencies (and the communication
skeletons of the NAS kernels),
BookSim-style warm-up / measurement / drain, and a deadlock watchdog. The
kernel is numba-compiled once per machine.

>>> import candidates as cd
>>> import sim
>>> r = sim.simulate(cd.from_spec("rtt:a=4"), "tpds2010", "uniform", load=0.2, seed=7)
>>> r.deadlock, r.conservation, abs(r.accepted - 0.2) < 0.03
(False, True, True)
>>> sorted(sim.PATTERNS)[:3]
['bitcomplement', 'bitreversal', 'diagonal']
"""

from .config import PRESETS, SimConfig, preset
from .engine import SimResult, SweepResult, saturation, simulate, sweep
from .errors import SimError
from .memory import SimMemory, memory_estimate
from .routing import ROUTINGS, resolve_routing
from .nas import NAS_KERNELS, nas
from .trace import Trace, TraceBuilder, TraceResult, read_trace, run_trace, write_trace
from .traffic import PATTERNS, TrafficPattern, demand, permutation, traffic

__all__ = [
    "simulate", "sweep", "saturation", "memory_estimate", "SimMemory",
    "SimConfig", "SimResult", "SweepResult", "SimError",
    "PRESETS", "preset",
    "ROUTINGS", "resolve_routing",
    "PATTERNS", "TrafficPattern", "traffic", "permutation", "demand",
    "Trace", "TraceBuilder", "TraceResult", "run_trace", "read_trace", "write_trace", "nas", "NAS_KERNELS",
]
