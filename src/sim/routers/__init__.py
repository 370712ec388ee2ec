"""The simulator's router models and their registry.

A router model is one way of running a network cycle by cycle. Each is one
:class:`RouterModel` entry, registered once by the module that implements
it (a duplicate name is an error), that declares what the model can do and
holds the function running one simulation; :mod:`sim.engine` and
:func:`sim.run_trace` ask the entry of a configuration
(:func:`model_of`) instead of comparing names, and a combination the entry
does not support is one :class:`~sim.errors.SimError` line from its
capabilities (:meth:`RouterModel.check`).

=============  ==============================================================
``vct``        the simple router (``router="simple"``) with virtual
               cut-through: a packet moves as a unit (:mod:`sim.routers._vct`)
``wormhole``   the simple router with wormhole switching, flit by flit
               (:mod:`sim.routers._wormhole`)
``iq``         BookSim2's input-queued router (``router="iq"``,
               :mod:`sim.routers._iq`); ``switching`` does not apply
=============  ==============================================================

The two simple-router models share one core (:mod:`sim.routers._core`:
traffic generation, injection, delivery, statistics, the run loops and the
deadlock watchdog) and one driver (:mod:`sim.routers.simple`); the iq
router uses the same traffic generator. Every model routes through the
routing layer (:mod:`sim.routing`); which routings a model runs is the
routing registry's ``routers`` field, keyed by ``router``.

This module holds the registry only and imports no numba; the entries
arrive when :mod:`sim.engine` imports the implementations.

>>> import sim.engine
>>> sorted(ROUTER_REGISTRY)
['iq', 'vct', 'wormhole']
>>> from sim import SimConfig
>>> model_of(SimConfig(router="iq")).pair_latency
False
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import SimError
from ..routing.registry import ROUTER_MODELS, ROUTING_REGISTRY

__all__ = ["RouterModel", "ROUTER_REGISTRY", "register_router_model", "router_entry", "model_of"]


@dataclass(frozen=True)
class RouterModel:
    """A router model.

    name, summary : the model's name and a one-line description.
    router : the ``SimConfig.router`` value that selects it (one of
        :data:`sim.routing.registry.ROUTER_MODELS`).
    switching : the ``SimConfig.switching`` value that selects it among the
        models of its router, or None when switching does not apply.
    pair_latency : it records per-pair latencies (``simulate(...,
        pair_latency=True)``).
    traces : it runs trace-driven workloads (:func:`sim.run_trace`).
    threads : it runs one simulation on several threads (``simulate(...,
        threads=N)``, its ``simulate`` taking ``threads=``), with the same
        numbers whatever N; the others run on one.
    fixed_deadlock : the deadlock avoidance its routings fix (the iq
        router: BookSim2's dateline VC classes), or None: chosen from
        ``SimConfig.deadlock`` by :func:`sim.engine.resolve`.
    refuses : routings of its router it does not run, with the reason (one
        line each).
    simulate : runs one synthetic-traffic simulation:
        ``simulate(topo, cfg, pattern, routing, deadlock, dests, rate, load,
        seed, pair_latency, progress) -> SimResult``.
    """

    name: str
    summary: str
    router: str
    switching: str | None
    pair_latency: bool
    traces: bool
    simulate: Callable[..., Any] = field(compare=False, repr=False)
    fixed_deadlock: str | None = None
    refuses: dict[str, str] = field(default_factory=dict, compare=False)
    threads: bool = False

    def __post_init__(self) -> None:
        if self.router not in ROUTER_MODELS:
            raise ValueError(f"router model {self.name}: router must be one of {', '.join(ROUTER_MODELS)}")

    @property
    def routings(self) -> tuple[str, ...]:
        """The routings it runs (``auto`` resolves to one of them)."""
        return tuple(r.name for r in ROUTING_REGISTRY.values()
                     if self.router in r.routers and r.name not in self.refuses)

    def check(self, *, routing: str | None = None, pair_latency: bool = False,
              trace: bool = False) -> None:
        """One error line if this model cannot run as asked (a
        resolved ``routing``, per-pair latencies, a trace)."""
        if pair_latency and not self.pair_latency:
            raise SimError(f"pair_latency is not recorded by router={self.router} yet; use router=simple")
        if trace and not self.traces:
            raise SimError(f"router={self.router} does not run trace-driven workloads; use router=simple")
        if routing is not None and routing in self.refuses:
            raise SimError(self.refuses[routing])


ROUTER_REGISTRY: dict[str, RouterModel] = {}


def register_router_model(entry: RouterModel) -> RouterModel:
    """Add a router model; a name, or a (router, switching) pair, already registered is an error."""
    if entry.name in ROUTER_REGISTRY:
        raise ValueError(f"router model {entry.name!r} is already registered")
    for other in ROUTER_REGISTRY.values():
        # a configuration must select one model: its router, and its switching where that applies
        if other.router == entry.router and None in (other.switching, entry.switching):
            raise ValueError(f"router model {entry.name!r}: router={entry.router} has a model for every switching "
                             f"({other.name!r})")
        if other.router == entry.router and other.switching == entry.switching:
            raise ValueError(f"router model {entry.name!r}: router={entry.router} switching={entry.switching} "
                             f"is already model {other.name!r}")
    ROUTER_REGISTRY[entry.name] = entry
    return entry


def router_entry(name: str) -> RouterModel:
    """The entry of router model ``name``; one error line for unknown names."""
    try:
        return ROUTER_REGISTRY[str(name).lower()]
    except KeyError:
        raise SimError(f"unknown router model {name!r}; valid: {', '.join(ROUTER_REGISTRY)}") from None


def model_of(cfg: Any) -> RouterModel:
    """The router model a :class:`~sim.config.SimConfig` selects (its ``router``, and
    ``switching`` where it applies)."""
    for m in ROUTER_REGISTRY.values():
        if m.router == cfg.router and m.switching in (None, cfg.switching):
            return m
    valid = ", ".join(f"{m.router}/{m.switching or 'any'}" for m in ROUTER_REGISTRY.values())
    raise SimError(f"no router model for router={cfg.router} switching={cfg.switching}; valid: {valid}")
