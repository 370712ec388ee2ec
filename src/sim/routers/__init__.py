"""The simulator's router models: the simple router (VCT and wormhole kernels, :mod:`sim.routers.simple`) and
BookSim2's input-queued router (:mod:`sim.routers.iq`)."""
