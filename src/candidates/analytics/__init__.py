"""What a topology offers, measured: distances, bisection, channel loads, equivalent distance, routes.

``measures`` (distance statistics, per-PE distances, uniform and channel loads, bisection,
:func:`describe`), ``hops`` (hop distances), ``moore`` (the Moore bound), ``equivalent`` (equivalent
distance of a routing), ``records`` (routing records of lattice families), ``routing`` (shortest-path
and up*/down* tables) and ``next_hops`` (next-hop tables from a family's own rules); the numba kernels
in ``_kernels`` and ``_routing_kernels``. The public names are :mod:`candidates`' (loaded on first use).
"""
