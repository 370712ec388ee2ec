"""toposynth.candidates — topologies, their generators and their analytics."""

from .errors import GraphFileError, SpecError, TopologyError, ToposynthError
from .lattice import hypercube, mesh, path, pdtt, pt, ptt, ring, rt, rtt, torus, twisted_torus
from .topology import INTERNAL, Placement, Topology
