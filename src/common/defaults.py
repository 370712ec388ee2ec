"""The defaults every layer shares, defined once.

The command line, the study files and the Python functions read their
defaults from here, so ``toposynth flow --eps``, ``[ranking] eps`` and
``flows.solve(eps=...)`` cannot drift apart.
"""

from __future__ import annotations

__all__ = ["EPS", "LOAD_STEP", "MAX_LOAD", "MAX_LOAD_POINTS", "SATURATION_TOLERANCE", "STABLE_RESOLUTION", "QUEUEING_SERVICE",
           "BGL_PACKET_NS", "SEARCH_MAX_MOVES", "SEARCH_MAX_RESTARTS", "SEARCH_MOVES_PER_SECOND"]

#: the relative gap a certified flow solution is asked for (lambda within a factor 1 - eps of optimal)
EPS = 0.05
#: a saturation search raises the offered load by this much (phits/cycle per terminal) ...
LOAD_STEP = 0.05
#: ... up to this load
MAX_LOAD = 1.0
#: the most loads a sweep or a saturation search may simulate (each is a run; the default sweep has
#: 20): a zero or tiny step otherwise never reaches the top load
MAX_LOAD_POINTS = 10_000
#: a load point is saturated when the accepted load falls below this fraction of the offered load
SATURATION_TOLERANCE = 0.95
#: BookSim2's stable-load search bisects to this load resolution
STABLE_RESOLUTION = 0.005
#: the queueing load model's service time of a packet on one unit of capacity without a packaging:
#: one hop's delay (the latency's unit there)
QUEUEING_SERVICE = 1.0
#: ... and under a packaging (flow in wires, latency in ns): a 256-byte Blue Gene/L torus packet on
#: one wire, 256 * 8 bits at 1.4 Gb/s (the torus links' bit rate: Adiga et al., "Blue Gene/L torus
#: interconnection network", IBM J. Res. & Dev. 49(2/3), 2005), in ns
BGL_PACKET_NS = 256 * 8 / 1.4
#: a topology search's budget, for the command and a study's [candidates] search alike: moves a
#: restart ...
SEARCH_MAX_MOVES = 10**11
#: ... and restarts (each a task, a result and a checkpoint kept until the search ends)
SEARCH_MAX_RESTARTS = 10_000
#: the rate the limits are stated at: 64 routers of degree 4, one core (measured: 250,000 moves/s;
#: larger graphs are slower)
SEARCH_MOVES_PER_SECOND = 250_000.0
