"""The simulator's routing layer: one list of routing names, the tables they
route on, and the routing kernels of every router model.

- :mod:`sim.routing.registry`: the routings (:class:`Routing` entries: what
  each needs of a topology, which router models run it and how);
- :mod:`sim.routing.tables`: resolving a name on a topology
  (:func:`resolve_routing`) and building the tables the simple router's
  kernels read (records by difference class, next-hop masks, up*/down*,
  the twin tori's tables);
- :mod:`sim.routing._simple`: the simple router's routing in its kernels
  (a packet's allowed channels and VCs, its routing state after a hop);
- :mod:`sim.routing._booksim`: BookSim2's routing functions as the ``iq``
  router runs them (dimension order with BookSim2's dateline convention,
  ``min_adapt``, ``valiant``), on coordinates.

The names of :mod:`sim.routing.tables` load on first use (they pull numpy
and the families' analytics; the configuration only needs the registry).
"""

from common.lazy import lazy_names

from .registry import NEEDS, ROUTER_MODELS, ROUTING_REGISTRY, Routing, register_routing, routing_entry

__all__ = ["Routing", "ROUTING_REGISTRY", "register_routing", "routing_entry", "NEEDS", "ROUTER_MODELS",
           "ROUTINGS", "class_vcs", "with_class_vcs", "resolve_routing", "table_kind", "RoutingTables",
           "build_tables", "class_index", "pair_records", "with_ties", "twin_next_hops", "twin_path",
           "twin_adaptive_choices"]

_LAZY = {name: "tables" for name in __all__[6:]}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
