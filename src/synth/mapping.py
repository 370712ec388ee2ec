"""Task mapping: which router (and which terminal) runs every task of an application.

The mapping and concentration functions of 'rtt-mapping-concentration'
(Section 3), exactly as the paper defines them on rectangles
``R_{m,n} = {(x, y) : 0 <= x < m, 0 <= y < n}``:

=================  ===========================================  ==========================
name               function                                     domain -> range
=================  ===========================================  ==========================
``id``             ``id(x, y) = (x, y)``                        ``R_{m,n} -> R_{m,n}``
``fd``             ``fd(x, y) = ((x + y) mod m, y)``            ``R_{m,n} -> R_{m,n}``
``fh<c>``          ``f^h_c(x, y) = (floor(x / c), y)``          ``R_{cm,n} -> R_{m,n}``
``fv<c>``          ``f^v_c(x, y) = (x, floor(y / c))``          ``R_{m,cn} -> R_{m,n}``
``ft<c>``          ``f^t_c(x, y) = ((x + floor(y/n) m/2) mod m,  ``R_{m,cn} -> R_{m,n}``, m even
                   y - floor(y/n) n)``
=================  ===========================================  ==========================

A composition is written as in the paper, outermost first:
``"fd.fv2"`` is ``fd o f^v_2`` (concentrate vertically, then shift
diagonally), ``"ft2.fh2"`` is ``f^t_2 o f^h_2``; ``∘`` works as separator
too. The physical topology fixes the range rectangle (its lattice ``shape``,
``(2a, a)`` for RT(a) and RTT(a)); the task grid follows from it. A
function sending ``c`` tasks to each router needs a topology with ``c``
terminals per router (``candidates.from_spec("rtt:a=4:c=2")``).

Numbering: task ``(x, y)`` of a ``W x H`` task grid is task ``x * H + y``,
the order in which ``candidates`` numbers the routers of a ``W x H``
lattice — so ``candidates.torus((W, H))`` is the application's logical
topology with router ``t`` = task ``t``. Within a router, tasks take the
terminals 0, 1, ... in task order; terminal ``k`` of router ``r`` is the
simulator's terminal ``sum(terminals[:r]) + k``.

>>> import candidates as cd
>>> p = place("ft2", cd.from_spec("rtt:a=4:c=2"))
>>> p.task_shape, p.num_tasks
((8, 8), 64)
>>> cd.rtt(4).coords[p.router[task_index((1, 5), p.task_shape)]].tolist()   # (1 + 4, 5 - 4)
[5, 1]

The analytic latency/throughput model lives in :mod:`synth.mapping_model`
and simulated-annealing placement in :mod:`synth.mapping_anneal`; both are
re-exported here.
"""

from .mapping_anneal import AnnealResult, anneal, hop_distances, placement_cost
from .mapping_core import (
    MAPPINGS,
    GridMap,
    MappingError,
    TaskPlacement,
    compose,
    diagonal_shift,
    global_traffic,
    grid_map,
    horizontal_concentration,
    identity,
    local_traffic,
    logical_topology,
    map_demands,
    mixed_traffic,
    place,
    placement_from_routers,
    task_coords,
    task_index,
    twisted_concentration,
    vertical_concentration,
)
from .mapping_model import (
    PAPER_CASES,
    MappingModel,
    PaperModel,
    link_sets,
    mapping_model,
    model_demands,
    paper_model,
    per_dimension_distance,
)

__all__ = [
    "MappingError", "GridMap", "TaskPlacement", "MAPPINGS",
    "identity", "diagonal_shift", "horizontal_concentration", "vertical_concentration", "twisted_concentration",
    "grid_map", "compose", "place", "placement_from_routers", "map_demands", "task_index", "task_coords",
    "logical_topology", "local_traffic", "global_traffic", "mixed_traffic",
    "MappingModel", "mapping_model", "model_demands", "PaperModel", "paper_model", "PAPER_CASES", "link_sets",
    "per_dimension_distance",
    "AnnealResult", "anneal", "placement_cost", "hop_distances",
]
