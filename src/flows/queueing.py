"""The queueing load model: a channel's delay grows with its utilisation.

The linear model of 'topology-synthesis-mcf-bgl' charges a unit of flow the
router delay of a channel's tail plus its wire delay (``problem.latency``),
whatever the load: below capacity a network's latency is then its zero-load
latency. The queueing model adds the wait in the channel's queue, Kleinrock's
network of M/M/1 queues ("Communication Nets", 1964) with the
Pollaczek-Khinchine factor for other service-time laws::

    delay of a unit of flow on channel a = latency[a] + tau * rho_a / (1 - rho_a)
    rho_a = f_a / w_a,   tau = service * (1 + variability) / 2

``service`` is a packet's service time on one unit of capacity, in the
problem's latency units (hops for a plain topology, ns under a packaging);
``variability`` the squared coefficient of variation of that time (1: the
exponential service of Kleinrock's model; 0: fixed-size packets, M/D/1,
half the wait). The total latency ``sum_a f_a latency[a] + tau f_a^2 / (w_a
- f_a)`` is convex in the flow, and finite only below every channel's width.

``w_a``, the channel's width, is its capacity when the resources fix it
(every resource row holds one channel: plain capacities, uniform wiring).
When channels share a resource (a board's cross-section, a card's connector
pins: flexible wiring), the widths are chosen with the flow: the wires
``w`` may take any split of the resources, ``R w <= c``, and the model
minimises over flows and widths together. The term ``f^2 / (w - f)`` is
jointly convex in ``(f, w)`` (a quadratic over a linear function), so the
design problem stays convex. A wide channel is modelled as parallel lanes of
unit capacity, each serving a packet in ``service``: its wait is that of one
lane at the channel's utilisation, which is exact for unit-capacity channels
(every plain topology) and above the wait of one server ``w`` times faster
otherwise (conservative), the price of convexity.

>>> m = QueueingModel(service=2.0, variability=0.0)
>>> m.tau, m.wait(0.5)          # M/D/1 at half load: half a service time
(1.0, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from common import defaults

from .problem import FlowError, FlowProblem

__all__ = ["QueueingModel", "LOAD_MODELS", "BGL_PACKET_NS", "fixed_widths", "terminal_wait"]

#: the load models of the latency objective: ``linear`` (the paper's: delay
#: independent of load) and ``queueing`` (:class:`QueueingModel`)
LOAD_MODELS = ("linear", "queueing")

#: the queueing model's service time under the bgl packaging, whose flow unit is one wire
#: (:data:`common.defaults.BGL_PACKET_NS`: a 256-byte packet at 1.4 Gb/s)
BGL_PACKET_NS = defaults.BGL_PACKET_NS


@dataclass(frozen=True)
class QueueingModel:
    """Kleinrock's queueing delay on every channel (see the module docstring).

    service : a packet's service time on one unit of capacity, in the
        problem's latency units (default 1: a packet takes one hop's delay to
        serialise on a plain topology's channel).
    variability : the squared coefficient of variation of the service time
        (1: exponential, M/M/1; 0: fixed-size packets, M/D/1).
    terminals : also charge the wait of the PEs' own injection and ejection
        channels (one unit of capacity per PE, the problem's routers' PE
        counts from :meth:`FlowProblem.from_topology`), which carry each PE's
        offered and received load whatever the routing: a constant beside
        the network's part, finite only while no PE sends or receives more
        than one unit. A router's load is split evenly over its PEs (exact
        for rate patterns; for uneven demand sets the even split waits least,
        so the figure is then a lower estimate). Plain topologies only (under
        a packaging the flow is in wires).

    The wait at half and at 90% load, M/M/1 and M/D/1:

    >>> m = QueueingModel()
    >>> m.tau, m.wait(0.5), round(m.wait(0.9), 6)
    (1.0, 1.0, 9.0)
    >>> QueueingModel(variability=0.0).wait([0.5, 1.0]).tolist()
    [0.5, inf]
    """

    service: float = defaults.QUEUEING_SERVICE
    variability: float = 1.0
    terminals: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.terminals, bool):
            raise FlowError(f"the queueing model's terminals must be true or false, got {self.terminals!r}")
        if not (isinstance(self.service, (int, float)) and math.isfinite(self.service) and self.service > 0):
            raise FlowError(f"the queueing model's service time must be a finite positive number, got {self.service}")
        if not (isinstance(self.variability, (int, float)) and math.isfinite(self.variability)
                and self.variability >= 0):
            raise FlowError("the queueing model's variability (squared coefficient of variation of the service "
                            f"time) must be a finite number >= 0, got {self.variability}")

    @property
    def tau(self) -> float:
        """The wait's scale: ``service * (1 + variability) / 2``."""
        return float(self.service) * (1.0 + float(self.variability)) / 2.0

    def wait(self, rho: float | np.ndarray) -> float | np.ndarray:
        """The wait of a unit of flow at utilisation ``rho`` (inf at and above 1)."""
        r = np.asarray(rho, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(r < 1.0, self.tau * r / (1.0 - r), np.inf)
        return float(w) if w.ndim == 0 else w

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tau": self.tau}


def fixed_widths(problem: FlowProblem) -> np.ndarray | None:
    """Every channel's width when the resources fix it (each resource row
    holds a single channel: ``w_a = min_r c_r / R[r, a]``), else None (a
    resource is shared: the widths are chosen with the flow).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> fixed_widths(FlowProblem.from_topology(cd.ring(4), Demands.uniform(4), capacity=2.0)).tolist()
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    """
    R = problem.R.tocsr()
    if R.nnz and int(np.diff(R.indptr).max()) > 1:
        return None
    coo = R.tocoo()
    w = np.full(problem.num_arcs, np.inf)
    keep = coo.data > 0
    np.minimum.at(w, coo.col[keep], problem.capacity[coo.row[keep]] / coo.data[keep])
    return w


def terminal_wait(problem: FlowProblem, model: QueueingModel) -> float:
    """The total wait of the PEs' injection and ejection channels (see
    :attr:`QueueingModel.terminals`; inf when a PE's load reaches 1).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4).scaled(0.5))
    >>> terminal_wait(p, QueueingModel(terminals=True))   # 4 PEs x 2 channels x 0.5 x (0.5 / 0.5)
    4.0
    """
    pes = problem.meta.get("terminals")
    if pes is None or "wiring" in problem.meta:
        raise FlowError("the terminal channels' wait needs a plain topology's problem "
                        "(FlowProblem.from_topology): under a packaging the flow is in wires, not PE links")
    pes = np.asarray(pes, dtype=np.float64)
    dem = problem.demands
    total = 0.0
    for ends in (dem.src, dem.dst):
        load = np.bincount(ends, weights=dem.amount, minlength=problem.n)
        used = load > 0
        if np.any(pes[used] <= 0):
            raise FlowError("a router without PEs sends or receives demand; its terminal channels are undefined")
        rho = load[used] / pes[used]
        if np.any(rho >= 1.0):
            return math.inf
        total += float(np.sum(load[used] * model.tau * rho / (1.0 - rho)))
    return total
