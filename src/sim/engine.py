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

import time
import uuid
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from candidates import Topology
from common.errors import check_seed

from .routers import _core as K
from .routers import iq
from .routers import simple as driver
from .confidence import ci95
from .config import SimConfig, preset
from .errors import SimError
from .memory import check_sim_memory
from .routing.tables import build_tables, resolve_routing, table_kind, with_ties
from .results import SimProgress, SimResult, SweepResult
from .search import LoadSearch, check_jobs, run_searches
from traffic import DEST_PERM, TrafficPattern, traffic

__all__ = ["SimResult", "SweepResult", "SimProgress", "simulate", "sweep", "saturation"]

HIST_BINS = driver.HIST_BINS
DEADLOCK_KINDS = {0: "none", 1: "no progress", 2: "knot", 3: "trace"}


def _percentiles(hist: np.ndarray, qs: Sequence[float] = (50, 95, 99)) -> dict[str, float | None]:
    total = int(hist.sum())
    out: dict[str, float | None] = {}
    if total == 0:
        return {f"p{int(q)}": None for q in qs}
    cum = np.cumsum(hist)
    for q in qs:
        k = int(np.searchsorted(cum, q / 100.0 * total))
        out[f"p{int(q)}"] = float(min(k, len(hist) - 1))
    return out


def _as_config(config: "SimConfig | str | None") -> SimConfig:
    if config is None:
        return preset("default")
    if isinstance(config, str):
        return preset(config)
    if not isinstance(config, SimConfig):
        raise SimError(f"config must be a SimConfig or a preset name, got {type(config).__name__}")
    return config


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

    >>> import candidates as cd
    >>> r = simulate(cd.torus((4, 4)), "singleflit", "uniform", 0.2, seed=3)
    >>> abs(r.accepted - r.offered) < 0.02, r.deadlock
    (True, False)
    """
    topo = _check_topology(topology)
    cfg = _as_config(config)
    pat = traffic(traffic_pattern)
    seed = check_seed(seed)
    load = float(load)
    lo, hi = cfg.length_range
    if not 0.0 <= load:
        raise SimError(f"load must be non-negative, got {load}")
    routing, deadlock = _resolve(topo, cfg)
    check_sim_memory(topo, cfg, routing=routing, pair_latency=pair_latency, load=load)
    dests = pat.destinations(topo)
    mean_len = cfg.mean_packet_length
    weight = dests.weight
    if cfg.self_traffic and dests.mode == DEST_PERM:
        weight = np.ones_like(weight)  # fixed points send to themselves
    rate = load * weight / mean_len
    if cfg.injection == "bernoulli" and rate.max(initial=0.0) > 1.0:
        raise SimError(
            f"load {load} with {mean_len:g}-phit packets needs more than one packet per cycle at some terminal; "
            "use --injection poisson or a lower load"
        )
    if cfg.router == "iq":
        if pair_latency:
            raise SimError("pair_latency is not recorded by router=iq yet; use router=simple")
        hook = None if progress is None else _iq_progress(progress, cfg, load, topo.num_terminals)
        return _iq_result(topo, cfg, pat, routing, load, seed, iq.measure(iq.build(topo, cfg, routing, dests, rate,
                                                                                 seed, load), cfg, hook))
    tabs = tables_for(topo, cfg, routing)
    run = driver.build(topo, cfg, tabs, deadlock, dests, rate, warmup=cfg.warmup, measure=cfg.measure,
                       drain=cfg.drain, seed=seed, pair_latency=pair_latency)
    hook = None if progress is None else _simple_progress(progress, cfg, load, topo.num_terminals)
    seconds, cpu, means = driver.execute(run, batch=(cfg.warmup, cfg.measure, cfg.sample_period), progress=hook)
    o = run.out
    res = _result(topo, cfg, pat, routing_label(routing, deadlock), load, seed, o.stats, o.hist_gen, o.hist_inj, o.arc_phits, seconds, tabs)
    res.latency_ci95 = ci95(means)
    res.cpu_seconds = cpu
    res.stable = not res.deadlock and res.drained
    if pair_latency:
        with np.errstate(invalid="ignore", divide="ignore"):
            res.pair_latency = np.where(o.pair_cnt > 0, o.pair_sum / np.maximum(o.pair_cnt, 1), np.nan)
        res.pair_packets = o.pair_cnt
    return res


def _simple_progress(progress: Callable[[SimProgress], None], cfg: SimConfig, load: float, T: int):
    """driver.execute's hook (a KernelRun) as SimProgress records."""
    t0 = time.perf_counter()
    start, end = cfg.warmup, cfg.warmup + cfg.measure

    def hook(run: driver.KernelRun) -> None:
        now = int(run.ctl[K.C_NOW])
        phase = "warm-up" if now < start else "measurement" if now < end else "drain"
        span = min(now, end) - start
        acc = float(run.out.stats[K.S_ACC_PHITS]) / (span * T) if span > 0 else None
        progress(SimProgress(load, now, end, phase, acc, time.perf_counter() - t0))

    return hook


def _iq_progress(progress: Callable[[SimProgress], None], cfg: SimConfig, load: float, T: int):
    """iq.measure's hook (an IQRun) as SimProgress records."""
    from .routers import _iq as Q

    t0 = time.perf_counter()
    planned = cfg.warmup + cfg.measure if cfg.measurement == "fixed" else cfg.sample_period * cfg.max_samples

    last: list[float | None] = [None]

    def hook(run: iq.IQRun) -> None:
        now, ph = run.now, int(run.ctl[Q.C_PHASE])
        span = now - int(run.ctl[Q.C_RESET_T])
        if ph == 1 and span > 0:
            last[0] = float(run.acc.v[Q.A_ACC_FLITS]) / (span * T)
        # while draining: the measurement's figure (the window is over)
        acc = last[0] if ph >= 1 else None
        progress(SimProgress(load, now, planned, ("warm-up", "measurement", "drain")[min(ph, 2)], acc,
                             time.perf_counter() - t0))

    return hook


def _per_dimension(topo: Topology, util: np.ndarray) -> dict[str, dict[str, float]]:
    """Mean / max / min channel utilisation of every dimension, and of all channels."""
    per_dim: dict[str, dict[str, float]] = {}
    for k, name in enumerate(topo.dims):
        sel = topo.arc_dim == k
        if sel.any():
            per_dim[name] = {"mean": float(util[sel].mean()), "max": float(util[sel].max()),
                             "min": float(util[sel].min()), "channels": int(sel.sum())}
    if util.size:
        per_dim["all"] = {"mean": float(util.mean()), "max": float(util.max()), "min": float(util.min()),
                          "channels": int(util.size)}
    return per_dim


def _iq_result(topo, cfg, pat, routing, load, seed, f: dict) -> SimResult:
    util = f["arc_flits"] / float(max(f["window"], 1))
    per_dim = _per_dimension(topo, util)
    pct = _percentiles(f["hist"])
    return SimResult(
        spec=topo.spec or topo.family, routing=f"{routing} (BookSim2)",
        traffic=str(pat), load=load, offered=float(f["offered"]), accepted=float(f["accepted"]),
        injected_rate=float(f["injected"]), latency=f["latency"], latency_generation=f["latency_generation"],
        latency_percentiles=pct, latency_generation_percentiles=pct, latency_max=f["latency_max"],
        hops=f["hops"], min_hops=f["min_hops"], packets=f["packets"], deadlock=f["deadlock"],
        deadlock_kind="no progress" if f["deadlock"] else "none", drained=f["drained"], cycles=f["cycles"],
        seconds=f["seconds"], injected=f["taken"], delivered=f["delivered"], in_flight=f["in_flight"],
        conservation=f["taken"] - f["delivered"] == f["in_flight"], source_overflow=f["overflow"], starvation=0,
        escape_fraction=None, utilisation=per_dim, channel_utilisation=util, config=cfg, seed=seed,
        config_routers=topo.n, latency_ci95=f["latency_ci95"], stable=f["stable"], cpu_seconds=f["cpu_seconds"],
    )


def routing_label(routing: str, deadlock: str) -> str:
    """How results name a resolved routing: ``dor`` on routing records with
    its deadlock avoidance (``dor/dateline``)."""
    return f"dor/{deadlock}" if routing == "dor" and deadlock != "auto" else routing


def _resolve(topo: Topology, cfg: SimConfig) -> tuple[str, str]:
    """The concrete routing and deadlock mechanism, validated against ``cfg``."""
    lo, hi = cfg.length_range
    routing = resolve_routing(topo, cfg.routing, cfg.router)
    if cfg.router == "iq":
        return routing, "dateline"
    deadlock = cfg.deadlock
    if routing == "tsdor-adaptive" and cfg.switching != "vct":
        raise SimError("routing tsdor-adaptive models EXTOLL's virtual cut-through router: use switching='vct' "
                       "(--switching vct), or tsdor / dort with wormhole")
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


def tables_for(topo: Topology, cfg: SimConfig, routing: str):
    """Routing tables for a resolved routing, with every minimal record of
    each pair when ``cfg.tie_break == "random"`` (record routings)."""
    tabs = build_tables(topo, routing, cfg.updown_root, cfg.vcs)
    if cfg.tie_break == "random" and table_kind(topo, routing) == "records":
        tabs = with_ties(topo, tabs)
    return tabs


def _result(topo, cfg, pat, routing, load, seed, st, hist_gen, hist_inj, arc_phits, seconds, tabs) -> SimResult:
    T = topo.num_terminals
    M = cfg.measure
    pk = int(st[K.S_TAG_DELIVERED])
    util = arc_phits / float(M)
    per_dim = _per_dimension(topo, util)
    hops = float(st[K.S_SUM_HOPS] / pk) if pk else None
    kind = DEADLOCK_KINDS[int(st[K.S_DEADLOCK_KIND])]
    total_hops_all = float(st[K.S_SUM_MINHOPS] / pk) if pk else None
    esc = None
    if routing in ("adaptive", "table", "tsdor-adaptive") and st[K.S_WIN_HOPS] > 0:
        esc = st[K.S_ESC_HOPS] / st[K.S_WIN_HOPS]
    return SimResult(
        spec=topo.spec or topo.family,
        routing=routing,
        traffic=str(pat),
        load=load,
        offered=float(st[K.S_GEN_PHITS] / (M * T)),
        accepted=float(st[K.S_ACC_PHITS] / (M * T)),
        injected_rate=float(st[K.S_INJ_PHITS] / (M * T)),
        latency=float(st[K.S_SUM_LAT_INJ] / pk) if pk else None,
        latency_generation=float(st[K.S_SUM_LAT_GEN] / pk) if pk else None,
        latency_percentiles=_percentiles(hist_inj),
        latency_generation_percentiles=_percentiles(hist_gen),
        latency_max=int(st[K.S_MAX_LAT_INJ]) if pk else None,
        hops=hops,
        min_hops=total_hops_all,
        packets=pk,
        deadlock=bool(st[K.S_DEADLOCK]),
        deadlock_kind=kind,
        drained=bool(st[K.S_DRAINED]),
        cycles=int(st[K.S_CYCLES]),
        seconds=seconds,
        injected=int(st[K.S_INJECTED]),
        delivered=int(st[K.S_DELIVERED]),
        in_flight=int(st[K.S_IN_FLIGHT]),
        conservation=bool(st[K.S_VIOLATIONS] == 0 and st[K.S_INJECTED] == st[K.S_DELIVERED] + st[K.S_IN_FLIGHT]),
        source_overflow=int(st[K.S_OVERFLOW]),
        starvation=int(st[K.S_STARVED]),
        escape_fraction=None if esc is None else float(esc),
        utilisation=per_dim,
        channel_utilisation=util,
        config=cfg,
        seed=seed,
        config_routers=topo.n,
        packet_phits=float(st[K.S_SUM_LEN] / pk) if pk else None,
    )


def sweep(
    topology: Topology,
    config: "SimConfig | str | None" = None,
    traffic_pattern: "TrafficPattern | str" = "uniform",
    loads: Iterable[float] | None = None,
    *,
    seed: int = 0,
    jobs: int = 1,
    progress: Callable[[Any], None] | None = None,
) -> SweepResult:
    """Simulate at every load (default 0.05, 0.10, ..., 1.0).

    ``jobs``: worker processes (a loky pool; 0 = every core); the points
    are the serial run's, whatever ``jobs``. ``progress``: called with a
    :class:`~sim.search.SweepProgress` when the running loads change and
    when a point is finished (in load order), and -- serially -- with each
    point's :class:`SimProgress` while it runs.

    >>> import candidates as cd
    >>> s = sweep(cd.ring(8), "singleflit", "uniform", [0.1, 0.2], seed=1)
    >>> [round(p.accepted, 1) for p in s.points], s.saturation == max(p.accepted for p in s.points)
    ([0.1, 0.2], True)
    """
    return _run_search(sweep_search(loads), topology, config, traffic_pattern, seed, jobs, progress)


def sweep_search(loads: Iterable[float] | None = None) -> LoadSearch:
    """The search of :func:`sweep` over ``loads`` (default 0.05, 0.10, ..., 1.0)."""
    loads = [round(0.05 * i, 10) for i in range(1, 21)] if loads is None else [float(x) for x in loads]
    if not loads:
        raise SimError("a sweep needs at least one load")
    return LoadSearch.of_loads(loads)


def saturation(
    topology: Topology,
    config: "SimConfig | str | None" = None,
    traffic_pattern: "TrafficPattern | str" = "uniform",
    *,
    step: float = 0.05,
    max_load: float = 1.0,
    tolerance: float = 0.95,
    seed: int = 0,
    definition: str = "accepted",
    resolution: float = 0.005,
    jobs: int = 1,
    progress: Callable[[Any], None] | None = None,
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
    run's, the points it would not have run are discarded. ``progress``:
    as for :func:`sweep`.

    >>> import candidates as cd
    >>> s = saturation(cd.ring(8), "singleflit", "uniform", step=0.1, seed=1)
    >>> 0.5 < s.saturation <= 0.7  # DOR sends the 4-hop ties one way: 10/7 hops per packet on it
    True
    """
    search = saturation_search(step, max_load, tolerance, definition, resolution)
    return _run_search(search, topology, config, traffic_pattern, seed, jobs, progress)


def saturation_search(step: float = 0.05, max_load: float = 1.0, tolerance: float = 0.95,
                      definition: str = "accepted", resolution: float = 0.005) -> LoadSearch:
    """The search of :func:`saturation` with these arguments, validated."""
    if not 0 < step <= max_load:
        raise SimError(f"need 0 < step <= max_load, got step={step}, max_load={max_load}")
    if definition not in ("accepted", "stable"):
        raise SimError(f"definition must be accepted or stable, got {definition!r}")
    if definition == "stable":
        if not 0 < resolution <= step:
            raise SimError(f"need 0 < resolution <= step, got resolution={resolution}, step={step}")
        return LoadSearch.stable(step, max_load, resolution)
    return LoadSearch.accepted(step, max_load, tolerance)


def _run_search(search: LoadSearch, topology, config, traffic_pattern, seed, jobs, progress) -> SweepResult:
    runs = run_seeds(search, topology, config, traffic_pattern, [seed], jobs, progress)
    return next(iter(runs.values()))


def run_seeds(search: LoadSearch, topology, config, traffic_pattern, seeds: Sequence[int], jobs: int = 1,
              progress: Callable[[Any], None] | None = None) -> dict[int, SweepResult]:
    """``search`` once per seed (the loads of all of them in one pool with
    ``jobs > 1``): each seed's :class:`SweepResult`, its serial run's, by
    the validated seed, in the order given."""
    jobs = check_jobs(jobs)
    topo = _check_topology(topology)
    cfg = _as_config(config)
    pat = traffic(traffic_pattern)
    seeds = check_seeds(seeds)
    # checked here, once: a bad configuration is one line before any worker starts
    routing, _ = _resolve(topo, cfg)
    check_sim_memory(topo, cfg, routing=routing)
    if jobs > 1:
        at: Callable[[int, float], SimResult] = _SimulateAt(uuid.uuid4().hex, topo, cfg, pat)
    else:
        def at(seed: int, load: float) -> SimResult:
            return simulate(topo, cfg, pat, load, seed=seed, progress=progress)
    return run_searches({s: search for s in seeds}, at, jobs, progress)


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

    def __init__(self, token: str, topo: Topology, cfg: SimConfig, pat: TrafficPattern):
        self.token, self.topo, self.cfg, self.pat = token, topo, cfg, pat

    def __call__(self, seed: int, load: float) -> SimResult:
        return simulate(self.topo, self.cfg, self.pat, load, seed=seed)
