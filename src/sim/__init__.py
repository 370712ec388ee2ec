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
['bitcomplement', 'bitreversal', 'butterfly']
"""

from common.lazy import lazy_names
from traffic import PATTERNS, TrafficPattern, demand, permutation, traffic

from .errors import SimError
from .nas import NAS_KERNELS, nas

# The public names load on first use (PEP 562): `toposynth` builds its parser
# with sim.cli.add_subcommand, and an eager package import loaded the
# simulator kernels and scipy.stats (sim.confidence) for every command —
# 0.8 s of CPU before `toposynth flow` did anything (python -X importtime).
# `nas` is also a submodule name: it stays eager, or a `from sim.nas import ...`
# before first use would leave the package attribute bound to the module
# instead of the function. The traffic names are the `traffic` package's
# (one registry for the simulator and the flow solvers), handed on here.
_LAZY = {
    'PRESETS': 'config',
    'SimConfig': 'config',
    'preset': 'config',
    'SimResult': 'results',
    'SweepResult': 'results',
    'saturation': 'engine',
    'simulate': 'engine',
    'sweep': 'engine',
    'router_model': 'engine',
    'max_offered_load': 'engine',
    'within_injection': 'engine',
    'ReplicatedSweep': 'replicate',
    'LoadSummary': 'replicate',
    'saturation_seeds': 'replicate',
    'sweep_seeds': 'replicate',
    'SimMemory': 'memory',
    'memory_estimate': 'memory',
    'ROUTINGS': 'config',
    'SELECTIONS': 'routing.registry',
    'resolve_routing': 'routing.tables',
    'Trace': 'trace',
    'TraceBuilder': 'trace',
    'TraceResult': 'trace',
    'read_trace': 'trace',
    'run_trace': 'trace',
    'write_trace': 'trace',
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "simulate", "sweep", "saturation", "sweep_seeds", "saturation_seeds", "ReplicatedSweep", "LoadSummary",
    "memory_estimate", "SimMemory", "router_model", "max_offered_load", "within_injection",
    "SimConfig", "SimResult", "SweepResult", "SimError",
    "PRESETS", "preset",
    "ROUTINGS", "SELECTIONS", "resolve_routing",
    "PATTERNS", "TrafficPattern", "traffic", "permutation", "demand",
    "Trace", "TraceBuilder", "TraceResult", "run_trace", "read_trace", "write_trace", "nas", "NAS_KERNELS",
]
