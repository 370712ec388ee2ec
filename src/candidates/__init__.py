"""toposynth.candidates — topologies, their generators and their analytics.

The one object every layer consumes is :class:`Topology`. Families are
functions (``torus``, ``rtt``, ``twin_torus``, ...) and registry entries
reached by spec strings (``from_spec("rtt:a=8")``).

>>> import candidates as cd
>>> t = cd.from_spec("rtt:a=8")
>>> cd.distance_stats(t).diameter
8
"""

from common.errors import ToposynthError
from common.lazy import lazy_names

from .errors import GraphFileError, SpecError, TopologyError
from .registry import FAMILIES, Family, families, from_spec, register
from .topology import INTERNAL, Placement, Topology

# isort: off
# the family modules register their families when imported, in this order (`toposynth families`)
from .generators.lattice import hypercube, mesh, path, pdtt, pt, ptt, ring, rt, rtt, torus, twisted_torus
from .io import complete_graph, from_graph6, read_topology, write_topology
from .generators.twin import card_of_port, twin_route, twin_torus
from .generators.compose import bgl_midplane, hierarchical, product
from .generators.fattree import fattree, ktree
from .generators.hyperx import flatfly, hyperx
from .generators import dragonfly, slimfly, polarity, interposer  # noqa: F401  (registration)
from .generators.polarity import affine_polarity, polarfly
from .search import family as _search_family  # noqa: F401  (registers the search family)
# isort: on

from .analytics.hops import hop_distances
from .analytics.moore import MooreBound, moore_bound, moore_gap
from .enumeration.graphs import count_graphs, iter_graph6, iter_graphs
from .enumeration.linear import LinearPlacement, count_linear_placements, linear_placements, min_cutwidth
from .placement import block_placement

# names whose modules compile numba kernels load on first use (PEP 562):
# importing numba is ~0.2 s of a small `toposynth flow`'s ~0.5 s start-up
# (measured, -X importtime), and such a flow needs none of them
_LAZY = {
    "analytics.measures": ["Bisection", "ChannelLoads", "DistanceStats", "UniformLoad", "bisection", "channel_loads",
                  "describe", "distance_stats", "per_dimension_hops", "uniform_load", "PEDistances", "pe_distances"],
    "analytics.equivalent": ["EquivalentDistanceStats", "equivalent_distance", "equivalent_distance_rows",
                   "equivalent_distance_stats", "route_union"],
    "analytics.records": ["record_table", "record_ties", "routing_records"],
    "analytics.routing": ["NextHopTable", "UpDownRouting", "shortest_path_table", "updown"],
    "search.api": ["search_graph"],
}
__getattr__, __dir__ = lazy_names(__name__, {n: m for m, names in _LAZY.items() for n in names}, globals())

__all__ = [
    "Topology", "Placement", "INTERNAL",
    "ToposynthError", "TopologyError", "SpecError", "GraphFileError",
    "torus", "mesh", "ring", "path", "hypercube", "complete_graph", "twisted_torus",
    "rt", "rtt", "pt", "ptt", "pdtt",
    "fattree", "ktree", "hyperx", "flatfly",
    "from_spec", "families", "register", "Family", "FAMILIES",
    "read_topology", "write_topology", "from_graph6",
    "distance_stats", "pe_distances", "PEDistances", "per_dimension_hops", "uniform_load", "channel_loads", "bisection", "describe",
    "DistanceStats", "UniformLoad", "ChannelLoads", "Bisection",
    "routing_records", "record_table", "record_ties",
    "shortest_path_table", "updown", "hop_distances", "NextHopTable", "UpDownRouting",
    "equivalent_distance", "equivalent_distance_rows", "equivalent_distance_stats", "route_union", "EquivalentDistanceStats",
    "twin_torus", "twin_route", "card_of_port", "product", "hierarchical", "bgl_midplane", "block_placement",
    "iter_graph6", "iter_graphs", "count_graphs",
    "linear_placements", "count_linear_placements", "min_cutwidth", "LinearPlacement",
    "moore_bound", "moore_gap", "MooreBound", "polarfly", "affine_polarity", "search_graph",
]
