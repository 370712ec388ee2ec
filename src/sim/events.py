"""The kinds of a trace's events: one definition for the trace format
(:mod:`sim.trace`) and the simulator kernels (:mod:`sim.routers._core`), kept in a
module of its own so that building a trace does not import the kernels."""

__all__ = ["EV_COMPUTE", "EV_SEND", "EV_RECV"]

EV_COMPUTE = 0
EV_SEND = 1
EV_RECV = 2
