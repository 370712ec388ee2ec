"""Running the simulator: :func:`simulate`, :func:`sweep`, :func:`saturation`.

The model
---------
Input-buffered routers with ``V`` virtual channels per input port, virtual
cut-through switching and credit-based flow control; buffers hold
``buffer_packets`` maximum-size packets and credits count phits. One phit
crosses a channel per cycle. A packet's header becomes eligible to leave a
router ``router_delay`` cycles after it arrived (or entered the injection
queue); a winning packet holds its input port and its output channel for
``L`` cycles, its header reaches the next router ``link_latency`` cycles
later, and its buffer space upstream is credited back ``link_latency``
cycles after its tail left. Every terminal consumes one phit per cycle.
In-transit packets are served before new injections (Blue Gene/L;
``transit_priority=False`` puts injection queues in the same round robin);
within a class a round robin rotates every cycle. Adaptive routings take
the escape VC only when no adaptive VC has room for the packet.

``SimConfig(switching="wormhole")`` runs a flit-level kernel instead
(:mod:`sim.routers._wormhole`, modelled on BookSim2's input-queued router: buffers in flits,
an output VC held from header to tail, a packet spanning several routers);
its zero-load latency is the same as long as the VC buffers cover the
credit round trip.

So a packet of ``L`` phits that crosses ``H`` links with no contention
takes ``(H + 1) * router_delay + H * link_latency + L`` cycles from
entering the injection queue to its last phit being consumed:

>>> import candidates as cd
>>> from sim import SimConfig, simulate
>>> t = cd.ring(8)
>>> cfg = SimConfig(routing="dor", packet_length=4, warmup=0, measure=2000)
>>> r = simulate(t, cfg, "uniform", load=0.002, seed=1)
>>> r.deadlock, r.conservation
(False, True)
>>> r.latency == 2 * r.hops + 1 + 4   # router_delay = link_latency = 1
True

Measurement (BookSim-style): packets generated during the window
``[warmup, warmup + measure)`` are tagged; the run goes on (traffic still
flowing) until every tagged packet arrived or ``drain`` cycles passed.
Latency and hops are averaged over tagged packets; ``offered`` is the
generated and ``accepted`` the delivered phits per cycle per terminal in the
window; channel utilisation is the phits a channel carried in the window
over its length.
"""

from __future__ import annotations

import dataclasses
import sys
import uuid
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from candidates import Topology
from common import defaults
from common.errors import check_seed
from traffic import DEST_PERM, TrafficPattern, traffic

from .compile_notice import prepare as prepare_compile
from .config import SimConfig, preset
from .errors import SimError
from .memory import check_sim_memory
from .results import SimProgress, SimResult, SweepResult
from .routers import ROUTER_REGISTRY, RouterModel, model_of
from .routers import iq as _iq_model  # noqa: F401  (registers the iq router model)
from .routers import simple as _simple_model  # registers the vct and wormhole models
from .routing.tables import resolve_routing, table_kind
from .search import MAX_LOAD_POINTS, LoadSearch, check_jobs, check_load_points, run_searches
from .threads import check_threads

__all__ = ["SimResult", "SweepResult", "SimProgress", "simulate", "sweep", "saturation", "router_model", "MAX_LOAD_POINTS",
           "MAX_POISSON_RATE", "check_load", "max_offered_load", "within_injection"]

#: The most packets a cycle a Poisson source may offer on average (at the
#: busiest terminal). A Poisson process has no ceiling of its own, but its
#: generator draws every packet (the work of a cycle grows with the rate; at
#: 1e308 its clock stopped advancing and the run never ended) and a terminal
#: injects at most ``injectors`` phits a cycle, so far below this it is
#: already beyond saturation. A Bernoulli source offers at most one.
MAX_POISSON_RATE = 64.0

HIST_BINS = _simple_model.HIST_BINS
DEADLOCK_KINDS = _simple_model.DEADLOCK_KINDS
routing_label = _simple_model.routing_label


def _as_config(config: "SimConfig | str | None") -> SimConfig:
    if config is None:
        return preset("default")
    if isinstance(config, str):
        return preset(config)
    if not isinstance(config, SimConfig):
        raise SimError(f"config must be a SimConfig or a preset name, got {type(config).__name__}")
    return config


def router_model(config: "SimConfig | str | None") -> RouterModel:
    """The router model a configuration (a :class:`SimConfig` or a preset
    name) runs on, with its capabilities.

    >>> router_model("booksim").name, router_model("tpds2010").threads
    ('iq', True)
    >>> router_model(preset("tpds2010", switching="wormhole")).name
    'wormhole'
    """
    return model_of(_as_config(config))


def _check_topology(topo: Any) -> Topology:
    if not isinstance(topo, Topology):
        raise SimError(f"expected a candidates.Topology, got {type(topo).__name__}")
    return topo


def simulate(
    topology: Topology,
    config: "SimConfig | str | None" = None,
    traffic_pattern: "TrafficPattern | str" = "uniform",
    load: float = 0.1,
    *,
    seed: int = 0,
    pair_latency: bool = False,
    progress: Callable[[SimProgress], None] | None = None,
    threads: int = 1,
    split: np.ndarray | None = None,
) -> SimResult:
    """Simulate ``topology`` under a traffic pattern at ``load``.

    Parameters
    ----------
    topology : candidates.Topology
    config : SimConfig or a preset name (``default``, ``tpds2010``,
        ``extoll``, ``singleflit``, ``booksim``)
    traffic_pattern : a :class:`~traffic.TrafficPattern` or a pattern
        string such as ``"uniform"`` or ``"hotregion:fraction=0.25"``
    load : offered load in phits/cycle per terminal (the average over
        terminals for demand matrices)
    seed : the same seed gives the same numbers
    pair_latency : also record the mean latency of every (source router,
        destination router) pair (:attr:`SimResult.pair_latency`)
    progress : called with a :class:`SimProgress` about once a second
        between batches of cycles (the numbers do not depend on it)
    threads : threads of the one simulation (every router model; the
        numbers do not depend on it); a router model that does not declare
        the capability (:class:`sim.routers.RouterModel`) runs on one and
        says so
    split : routing ``adaptive`` on the simple router's virtual cut-through
        only: an (n, n, D) array of non-negative weights of the dimensions by
        (router, destination router). At every hop a packet's adaptive VCs
        are those of one dimension its record still needs, drawn in
        proportion to these weights (all of them where they all weigh 0);
        the escape VC stays dimension order. A destination-based oblivious
        split, e.g. the optimal one of a flow LP for the pattern
        (benchmarks/bound_tpds2010_permutations.py).

    >>> import candidates as cd
    >>> r = simulate(cd.torus((4, 4)), "singleflit", "uniform", 0.2, seed=3)
    >>> abs(r.accepted - r.offered) < 0.02, r.deadlock
    (True, False)
    """
    topo = _check_topology(topology)
    cfg = _as_config(config)
    pat = traffic(traffic_pattern)
    seed = check_seed(seed)
    threads = check_threads(threads)
    load = _finite_load(load)
    model = model_of(cfg)
    routing, deadlock = resolve(topo, cfg, model)
    check_sim_memory(topo, cfg, routing=routing, pair_latency=pair_latency, load=load, threads=threads)
    dests = pat.destinations(topo)
    rate = check_load(load, cfg, dests)
    model.check(pair_latency=pair_latency)
    table = {} if split is None else {"split": check_split(split, topo, cfg, routing)}
    if model.threads:
        return model.simulate(topo, cfg, pat, routing, deadlock, dests, rate, load, seed, pair_latency, progress,
                              threads=threads, **table)
    if threads > 1:
        more = ", ".join(m.name for m in ROUTER_REGISTRY.values() if m.threads)
        print(f"toposynth: note: router model {model.name} runs on one thread (threads={threads} applies to {more})",
              file=sys.stderr)
    return model.simulate(topo, cfg, pat, routing, deadlock, dests, rate, load, seed, pair_latency, progress)


def check_split(split: Any, topo: Topology, cfg: SimConfig, routing: str) -> np.ndarray:
    """``simulate``'s split table as float64 (n, n, D), or a one-line error."""
    if routing != "adaptive" or cfg.router != "simple" or cfg.switching != "vct":
        raise SimError(f"a split table needs routing adaptive on the simple router's virtual cut-through, got "
                       f"routing {routing}, router {cfg.router}, switching {cfg.switching}")
    D = len(topo.shape) if topo.shape is not None else 0
    a = np.asarray(split, dtype=np.float64)
    if a.shape != (topo.n, topo.n, D):
        raise SimError(f"split must have shape (routers, routers, dimensions) = {(topo.n, topo.n, D)}, "
                       f"got {a.shape}")
    if not np.isfinite(a).all() or (a < 0).any():
        raise SimError("split weights must be finite and non-negative")
    return a


def _finite_load(load: float) -> float:
    load = float(load)
    if not (0.0 <= load < float("inf")):
        raise SimError(f"load must be non-negative and finite (phits/cycle/PE), got {load}")
    return load


def check_load(load: float, cfg: SimConfig, dests) -> np.ndarray:
    """Every terminal's arrival rate (packets a cycle) at ``load``, or a
    one-line error naming the valid range: a Bernoulli source offers at most
    one packet a cycle, a Poisson one at most :data:`MAX_POISSON_RATE`."""
    load = _finite_load(load)
    mean_len = cfg.mean_packet_length
    weight = _source_weights(cfg, dests)
    rate = load * weight / mean_len
    busiest = float(weight.max(initial=0.0))
    if cfg.injection == "bernoulli" and rate.max(initial=0.0) > 1.0:
        raise SimError(
            f"load {load:g} with {mean_len:g}-phit packets needs more than one packet per cycle at some terminal "
            f"(Bernoulli arrivals: loads 0 to {mean_len / busiest:.4g} here); use --injection poisson or a lower load"
        )
    if cfg.injection == "poisson" and rate.max(initial=0.0) > MAX_POISSON_RATE:
        raise SimError(
            f"load {load:g} with {mean_len:g}-phit packets means more than {MAX_POISSON_RATE:g} packets per cycle at "
            f"some terminal, far past saturation (a terminal injects {cfg.injectors} phit(s) a cycle); Poisson "
            f"arrivals take loads 0 to {MAX_POISSON_RATE * mean_len / busiest:.4g} here")
    return rate


def _source_weights(cfg: SimConfig, dests) -> np.ndarray:
    """Each terminal's share of the load (its arrival rate at load 1, in packets of the mean length)."""
    if cfg.self_traffic and dests.mode == DEST_PERM:
        return np.ones_like(dests.weight)  # fixed points send to themselves
    return dests.weight


def resolve(topo: Topology, cfg: SimConfig, model: RouterModel | None = None) -> tuple[str, str]:
    """The concrete routing and deadlock mechanism, validated against ``cfg``
    and what its router model (:func:`sim.routers.model_of`) runs."""
    model = model_of(cfg) if model is None else model
    routing = resolve_routing(topo, cfg.routing, cfg.router)
    if model.fixed_deadlock is not None:
        return routing, model.fixed_deadlock
    deadlock = cfg.deadlock
    model.check(routing=routing)
    if routing == "dor" and table_kind(topo, routing) == "records":
        if deadlock == "auto":
            deadlock = "dateline" if cfg.vcs >= 2 else "bubble"
        if deadlock == "dateline" and cfg.vcs < 2:
            raise SimError("dateline deadlock avoidance needs at least 2 virtual channels (--vcs 2) or --deadlock bubble")
    elif deadlock not in ("auto",):
        raise SimError(f"deadlock={deadlock!r} applies to routing dor on routing records only; {routing} on "
                       f"{topo.family} has its own mechanism")
    bubble = routing == "adaptive" or (routing == "dor" and deadlock == "bubble")
    if bubble and cfg.buffer_packets < 2:
        raise SimError("bubble flow control needs buffers of at least 2 packets (buffer_packets >= 2)")
    if not 0 <= cfg.updown_root < topo.n:
        raise SimError(f"updown_root must be a router 0..{topo.n - 1}, got {cfg.updown_root}")
    return routing, deadlock


def sweep(
    topology: Topology,
    config: "SimConfig | str | None" = None,
    traffic_pattern: "TrafficPattern | str" = "uniform",
    loads: Iterable[float] | None = None,
    *,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[Any], None] | None = None,
    threads: int = 1,
) -> SweepResult:
    """Simulate at every load (default 0.05, 0.10, ..., 1.0).

    ``jobs``: worker processes (a loky pool; 0 = every core); the points
    are the serial run's, whatever ``jobs``. ``progress``: called with a
    :class:`~sim.search.SweepProgress` when the running loads change and
    when a point is finished (in load order), and -- serially -- with each
    point's :class:`SimProgress` while it runs. ``threads``: of each
    simulation (:func:`simulate`).

    >>> import candidates as cd
    >>> s = sweep(cd.ring(8), "singleflit", "uniform", [0.1, 0.2], seed=1)
    >>> [round(p.accepted, 1) for p in s.points], s.saturation == max(p.accepted for p in s.points)
    ([0.1, 0.2], True)
    """
    return _run_search(sweep_search(loads), topology, config, traffic_pattern, seed, jobs, progress, threads)


def sweep_search(loads: Iterable[float] | None = None) -> LoadSearch:
    """The search of :func:`sweep` over ``loads`` (default 0.05, 0.10, ..., 1.0)."""
    steps = round(defaults.MAX_LOAD / defaults.LOAD_STEP)
    loads = [round(defaults.LOAD_STEP * i, 10) for i in range(1, steps + 1)] if loads is None else [float(x) for x in loads]
    if not loads:
        raise SimError("a sweep needs at least one load")
    if len(loads) > MAX_LOAD_POINTS:
        raise SimError(f"a sweep of {len(loads)} loads is more than {MAX_LOAD_POINTS} simulations; use fewer loads")
    for x in loads:
        _finite_load(x)   # checked before the first point runs: a bad last load would lose the others
    return LoadSearch.of_loads(loads)


def saturation(
    topology: Topology,
    config: "SimConfig | str | None" = None,
    traffic_pattern: "TrafficPattern | str" = "uniform",
    *,
    step: float = defaults.LOAD_STEP,
    max_load: float = defaults.MAX_LOAD,
    tolerance: float = defaults.SATURATION_TOLERANCE,
    seed: int = 0,
    definition: str = "accepted",
    resolution: float = defaults.STABLE_RESOLUTION,
    jobs: int = 1,
    progress: Callable[[Any], None] | None = None,
    threads: int = 1,
) -> SweepResult:
    """Raise the load by ``step`` until the network saturates.

    ``definition="stable"`` is BookSim2's: the saturation is the highest
    offered load whose run stays stable (:attr:`SimResult.stable`: under the
    latency threshold, no deadlock), found by raising the load by ``step``
    and then bisecting to ``resolution``; ``saturation_load`` is that load
    and ``saturation`` the accepted load there.

    A point is saturated when ``accepted < tolerance * offered``; the sweep
    stops two points after the first saturated one (accepted load can keep
    creeping up a little past the knee) and reports the highest accepted
    load as the saturation throughput.

    ``jobs`` > 1 runs the next ``jobs`` loads of the search at once in a
    loky pool (0 = every core), speculatively: the result is the serial
    run's, the points it would not have run are discarded. ``progress``
    and ``threads``: as for :func:`sweep`.

    >>> import candidates as cd
    >>> s = saturation(cd.ring(8), "singleflit", "uniform", step=0.1, seed=1)
    >>> 0.5 < s.saturation <= 0.7  # DOR sends the 4-hop ties one way: 10/7 hops per packet on it
    True
    """
    search = saturation_search(step, max_load, tolerance, definition, resolution)
    return _run_search(search, topology, config, traffic_pattern, seed, jobs, progress, threads)


def saturation_search(step: float = defaults.LOAD_STEP, max_load: float = defaults.MAX_LOAD,
                      tolerance: float = defaults.SATURATION_TOLERANCE, definition: str = "accepted",
                      resolution: float = defaults.STABLE_RESOLUTION) -> LoadSearch:
    """The search of :func:`saturation` with these arguments, validated."""
    if not 0 < step <= max_load < float("inf"):
        raise SimError(f"need 0 < step <= max_load (finite), got step={step}, max_load={max_load}")
    check_load_points(step, max_load)
    if definition not in ("accepted", "stable"):
        raise SimError(f"definition must be accepted or stable, got {definition!r}")
    if definition == "stable":
        if not 0 < resolution <= step:
            raise SimError(f"need 0 < resolution <= step, got resolution={resolution}, step={step}")
        if resolution < 1e-9:
            # the bisection rounds its loads to 10 decimals: a finer resolution would never be reached
            raise SimError(f"resolution must be at least 1e-9 (loads are rounded to 10 decimals), got {resolution}")
        return LoadSearch.stable(step, max_load, resolution)
    return LoadSearch.accepted(step, max_load, tolerance)


def _run_search(search: LoadSearch, topology, config, traffic_pattern, seed, jobs, progress, threads) -> SweepResult:
    runs = run_seeds(search, topology, config, traffic_pattern, [seed], jobs, progress, threads)
    return next(iter(runs.values()))


def run_seeds(search: LoadSearch, topology, config, traffic_pattern, seeds: Sequence[int], jobs: int = 1,
              progress: Callable[[Any], None] | None = None, threads: int = 1) -> dict[int, SweepResult]:
    """``search`` once per seed (the loads of all of them in one pool with
    ``jobs > 1``, each simulation on ``threads`` threads): each seed's
    :class:`SweepResult`, its serial run's, by the validated seed, in the
    order given."""
    jobs = check_jobs(jobs)
    threads = check_threads(threads)
    topo = _check_topology(topology)
    cfg = _as_config(config)
    pat = traffic(traffic_pattern)
    seeds = check_seeds(seeds)
    # checked here, once: a bad configuration is one line before any worker starts
    routing, _ = resolve(topo, cfg)
    check_sim_memory(topo, cfg, routing=routing)
    if search.kind == "list":   # every load of a list is run: checked before the first
        dests = pat.destinations(topo)
        for x in search.loads:
            check_load(x, cfg, dests)
    else:
        search = within_injection(search, topo, cfg, pat)
    if jobs > 1:
        # the workers compile without a word (common.workers): the notice is the parent's
        prepare_compile(cfg.router)
        at: Callable[[int, float], SimResult] = _SimulateAt(uuid.uuid4().hex, topo, cfg, pat, threads)
    else:
        def at(seed: int, load: float) -> SimResult:
            return simulate(topo, cfg, pat, load, seed=seed, progress=progress, threads=threads)
    return run_searches({s: search for s in seeds}, at, jobs, progress)


def max_offered_load(topology: Topology, config: "SimConfig | str | None", traffic_pattern) -> float:
    """The highest load the configuration's sources can offer under this
    traffic (phits/cycle/PE): a Bernoulli source at most one packet a
    cycle, a Poisson one at most :data:`MAX_POISSON_RATE`, at the terminal
    that sends the most (:func:`check_load`'s range).

    >>> import candidates as cd
    >>> max_offered_load(cd.ring(8), "singleflit", "uniform")
    1.0
    """
    cfg = _as_config(config)
    dests = traffic(traffic_pattern).destinations(_check_topology(topology))
    busiest = float(_source_weights(cfg, dests).max(initial=0.0))
    if busiest <= 0.0:
        return float("inf")
    per = 1.0 if cfg.injection == "bernoulli" else MAX_POISSON_RATE
    return per * cfg.mean_packet_length / busiest


def within_injection(search: LoadSearch, topology: Topology, config, traffic_pattern) -> LoadSearch:
    """A search that raises the load (a saturation search) stopped at the
    highest load the sources can offer (:func:`max_offered_load`): past it
    there is nothing to simulate, and a network that has not saturated by
    then is limited by its injection, which the result's highest accepted
    load then says. A search that cannot reach its first load is a
    one-line error.

    >>> import candidates as cd
    >>> from sim.search import LoadSearch
    >>> cfg = preset("booksim", packet_length=1)
    >>> s = within_injection(LoadSearch.accepted(0.25, 4.0), cd.ring(8), cfg, "uniform")
    >>> round(s.max_load, 9)                 # one 1-flit packet a cycle: load 1
    1.0
    """
    top = max_offered_load(topology, config, traffic_pattern)
    if search.kind == "list" or search.max_load <= top:
        return search
    if search.step > top:
        raise SimError(f"the search's first load {search.step:g} is more than these sources can offer ({top:.4g} "
                       f"phits/cycle/PE); use a smaller step")
    return dataclasses.replace(search, max_load=top * (1.0 - 1e-12))


def check_seeds(seeds: Iterable[int]) -> list[int]:
    """``seeds`` as a list of distinct seeds, or a one-line error.

    >>> check_seeds(range(3))
    [0, 1, 2]
    """
    out = [check_seed(s) for s in seeds]
    if not out:
        raise SimError("a replicated run needs at least one seed")
    if len(set(out)) != len(out):
        raise SimError(f"the seeds of a replicated run must differ, got {out}")
    return out


class _SimulateAt:
    """Picklable ``(seed, load) -> simulate(...)`` for a sweep's workers. Every task brings its own
    unpickled copy of the topology; the routing tables a worker built for an earlier point are found
    by the topology's fingerprint (:mod:`sim.cache`), not rebuilt (a 4096-router torus: seconds a point)."""

    def __init__(self, token: str, topo: Topology, cfg: SimConfig, pat: TrafficPattern, threads: int = 1):
        self.token, self.topo, self.cfg, self.pat, self.threads = token, topo, cfg, pat, threads

    def __call__(self, seed: int, load: float) -> SimResult:
        return simulate(self.topo, self.cfg, self.pat, load, seed=seed, threads=self.threads)
