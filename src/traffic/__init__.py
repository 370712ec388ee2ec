"""toposynth.traffic — what the processing elements send: one registry of traffic patterns.

A pattern has one name and one meaning everywhere: the simulator draws packet
destinations from it (:meth:`TrafficPattern.destinations`), the flow solvers
take it as demands (:meth:`TrafficPattern.demand_pairs`,
:meth:`TrafficPattern.demand_matrix`), and ``toposynth simulate --traffic``,
``toposynth flow --traffic`` and a study's ``[traffic] pattern`` spell it the
same way.

>>> import candidates as cd
>>> import traffic
>>> p = traffic.traffic("random:64:seed=3")
>>> p.name, p.options
('random', {'count': 64, 'seed': 3})
>>> len(p.demand_pairs(cd.torus((4, 4)))[0])
64
>>> sorted(traffic.PATTERNS)[:4]
['bitcomplement', 'bitreversal', 'butterfly', 'diagonal']
"""

from .destinations import DEST_HOT, DEST_PERM, DEST_TABLE, DEST_UNIFORM, Destinations, terminal_offsets, terminal_router
from .errors import TrafficError
from .pairs import random_local_pairs, random_pairs, uniform_pairs
from .registry import (PATTERN_NEEDS, PATTERNS, Pattern, TrafficPattern, demand, pattern_entry, permutation,
                       register_pattern, traffic)
from .builders import localglobal_matrix

__all__ = ["TrafficPattern", "traffic", "permutation", "demand", "PATTERNS", "PATTERN_NEEDS", "Pattern",
           "register_pattern", "pattern_entry", "TrafficError", "Destinations", "terminal_offsets", "terminal_router",
           "DEST_UNIFORM", "DEST_PERM", "DEST_TABLE", "DEST_HOT", "uniform_pairs", "random_pairs",
           "random_local_pairs", "localglobal_matrix"]
