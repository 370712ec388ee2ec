"""Simulator configuration and the presets named after the papers.

>>> cfg = preset("tpds2010")
>>> cfg.routing, cfg.vcs, cfg.packet_length, cfg.buffer_packets, cfg.injection_queue
('adaptive', 3, 16, 4, 8)
>>> SimConfig(packet_length=(1, 32)).mean_packet_length
16.5
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .errors import SimError
from .routing.registry import ROUTER_MODELS, ROUTING_REGISTRY, SELECTIONS

__all__ = ["SimConfig", "PRESETS", "preset", "ROUTINGS", "DRAIN_CHECK"]

#: name -> one-line description (the routing registry's, :mod:`sim.routing.registry`)
ROUTINGS: dict[str, str] = {name: entry.summary for name, entry in ROUTING_REGISTRY.items()}


#: The most cycles a run's phases (``warmup``, ``measure``, ``drain``), a
#: trace run's ``max_cycles`` and the watchdog may span: 10^12 cycles take
#: the fastest kernel (about 10^8 router-cycles a second on one router)
#: some three hours, a network of a few hundred routers years, so a larger
#: count is a typo; it also keeps every cycle sum far inside the kernels'
#: int64 counters.
MAX_CYCLES = 10**12
#: The longest pipeline or channel delay, cycles: the credit wheels have a
#: slot per cycle of delay (allocated up front), and real routers take a
#: few cycles a stage.
MAX_DELAY = 10**6
#: Every other integer field ends up in an int64 array of the kernels.
MAX_INT = 2**62


@dataclass(frozen=True)
class SimConfig:
    """Router, network and measurement parameters (times in cycles).

    Attributes
    ----------
    routing : str
        A name of :data:`ROUTINGS` (``auto``, ``dor``,
        ``adaptive``, ``table``, ``updown``, ``minimal``, ``distance``,
        ``valiant``, ``ugal``, ...).
    vcs : int
        Virtual channels per input port.
    deadlock : str
        For ``dor``: ``dateline`` (needs 2 VCs), ``bubble``, ``none``, or
        ``auto`` (dateline with 2+ VCs, bubble with 1). The other routings
        fix their own mechanism.
    buffer_packets : int
        Capacity of every input VC in maximum-size packets (virtual
        cut-through; credits count phits, so small packets share it).
    injection_queue : int
        Capacity of every terminal's injection queue in packets.
    source_queue : int
        Packets a terminal can hold before injection (its generation
        backlog); beyond it new packets are counted and dropped.
    packet_length : int or (int, int)
        Phits per packet, fixed or uniform on ``[lo, hi]``.
    router_delay, link_latency : int
        Cycles from a header's arrival to its eligibility to leave a router
        (routing + allocation), and cycles on a wire (credits take the same).
    transit_priority : bool
        Serve in-transit packets before new injections (Blue Gene/L's
        congestion control, on in the papers). With it, VCT rings with one
        VC hardly ever deadlock even without a bubble: an injection only
        takes a ring buffer the transit packets do not want.
    injection : str
        ``bernoulli`` or ``poisson`` arrivals.
    warmup, measure, drain : int
        Warm-up cycles, measurement window, and the most cycles allowed after
        the window for the packets generated in it to arrive. Every
        :data:`DRAIN_CHECK` cycles of the drain, a run whose measured
        packets' mean latency (from generation; the ones still out counted at
        their age so far) is above ``latency_threshold`` stops there,
        unstable -- BookSim2's rule; the packets of a run past saturation
        would otherwise take the whole drain (a 64x32x32 torus: 20,000
        cycles of a full network). Set ``latency_threshold=inf`` to drain
        every run to the end.
    watchdog : int
        Cycles without any movement (or a transit packet waiting at the head
        of its VC this long) with packets in flight that count as deadlock.
        The clock runs only while packets are in flight: an empty network is
        idle, however long, and the first packet after it starts the count.
    updown_root : int
        Root of the up*/down* tree (``table``, ``updown``).
    check : bool
        Verify conservation (injected = delivered + in flight) every cycle.
    tie_break : str
        Routings on routing records (``dor``, ``adaptive``): ``first``
        takes the record of :func:`candidates.routing_records` for every
        pair (ties between equally short records always resolved the same
        way: the negative direction of a torus dimension, Y- on the RTT);
        ``random`` draws one of the pair's minimal records per packet, the
        even split over minimal paths that the papers' throughput bounds
        assume ('twisted-tori-tpds2010' section 5.2: equidistant paths
        "randomly chosen").
    selection : str
        How a packet picks among the (channel, VC) its routing allows that
        have room for it and a free output channel (VCT on the simple
        router): ``credits`` the most free phits, ties in the routing's
        order (on routing records x before y: an idle network routes the
        adaptive routing in dimension order); ``credits-random`` the same
        with ties at random; ``random`` any of them uniformly (INSEE/FSIN's
        ``random`` request mode); ``weighted`` at random in proportion to
        their free phits (:data:`sim.routing.registry.SELECTIONS`).
    phit_bytes : int
        Bytes per phit: converts the message sizes of trace-driven
        workloads into phits (4, as in the papers' INSEE/FSIN routers).
    injectors, ejectors : int
        Injection queues and reception ports of every terminal. Each
        injection queue (``injection_queue`` packets) feeds the router at
        one phit per cycle, so a terminal injects up to ``injectors``
        phits per cycle; a new packet joins the emptiest queue. Likewise a
        terminal consumes up to ``ejectors`` packets at once (Blue Gene/L
        has several injection and reception FIFOs per node).
    switching : str
        ``vct`` (virtual cut-through: a packet moves as a unit and only into
        a VC with room for all of it) or ``wormhole`` (flit-level,
        BookSim's input-queued router: a flit is a phit; a header that
        arrived is routed after ``router_delay`` cycles and then takes an
        idle output VC with at least one credit, which it holds until its
        tail is sent; every input port sends and every output channel and
        ejector accepts at most one flit per cycle, round robin; body flits
        follow in order, so a packet can span several routers; per-flit
        credits come back ``link_latency`` cycles after a flit left its
        buffer). Wormhole supports every routing except those built on
        bubble flow control (``adaptive``, ``dor`` with ``deadlock=bubble``
        or ``auto`` with one VC). Zero-load latency is the VCT one when
        ``buffer_flits >= 2 * link_latency + router_delay + 1`` (the credit
        round trip); smaller buffers throttle every VC to ``buffer_flits``
        flits per round trip.
    buffer_flits : int
        Wormhole and ``router="iq"``: capacity of every input VC in flits;
        0 means ``buffer_packets`` maximum-size packets. Ignored by ``vct``.
    router : str
        ``simple`` (the VCT / wormhole kernels above, ``router_delay`` cycles
        from a header's arrival to its eligibility to leave) or ``iq``:
        BookSim2's input-queued VC router, flit level (:mod:`sim.routers.iq`):
        routing, VC allocation, switch allocation and switch traversal as
        stages of ``routing_delay``, ``vc_alloc_delay``, ``sw_alloc_delay``
        and ``st_delay`` cycles, separable iSLIP allocators with
        ``alloc_iters`` iterations, credits ``link_latency + 1 +
        credit_delay`` cycles back, 1-cycle injection and ejection channels.
        Supports routing ``dor`` (BookSim2's ``dim_order``); ``switching``,
        ``router_delay``, ``deadlock``, ``transit_priority``,
        ``injection_queue``, ``injectors`` and ``ejectors`` do not apply.
        With ``router="iq"``, ``link_latency = 0`` means BookSim2's k-ary
        n-cube channels: 2 cycles on a torus (its folded layout), 1 on a mesh.
    routing_delay, vc_alloc_delay, sw_alloc_delay, st_delay, credit_delay : int
        ``router="iq"``: the stage delays in cycles (BookSim2's defaults:
        1, 1, 1, 1 and 0). An allocation delay above 1 keeps the grant
        decided in its first cycle (BookSim2 re-checks the granted VC's
        availability in the later ones; not modelled, nor lookahead routing
        with ``routing_delay = 0``).
    alloc_iters : int
        ``router="iq"``: iSLIP iterations of both allocators (BookSim2: 1).
    self_traffic : bool
        ``router="iq"``: BookSim2's traffic conventions -- ``uniform`` picks
        any terminal, the source included, and a permutation's fixed points
        send to themselves (through their router); off, a terminal never
        sends to itself.
    output_set : str
        ``router="iq"``: ``booksim`` keeps BookSim2's route sets as they are
        at 28f4329 -- a ``std::set`` ordered by priority alone, so of the
        entries a routing function adds with equal priority only the first
        survives and its ``min_adapt`` offers one productive direction (the
        first unaligned dimension) besides the escape; ``all`` keeps every
        entry (truly minimal adaptive).
    ugal_threshold : int
        Routing ``ugal`` (UGAL-L, Kim et al. ISCA 2008): a packet takes the
        minimal path when ``q_min * H_min <= q_val * H_val +
        ugal_threshold``, ``q`` the phits queued for (credits used on) the
        least occupied output channel of the path's next hop, ``H`` the
        path's hops (through the packet's random intermediate router for
        the Valiant one), at the first router where the two paths part.
        Positive values favour minimal routing. The queues it compares
        hold at most a VC's depth (``buffer_packets``): deeper VCs let them
        show congestion further away (docs/explanation/routing-and-ties.md,
        "The dragonfly's routings").
    measurement : str
        ``fixed`` (``warmup``, ``measure``, ``drain``) or ``booksim``
        (BookSim2's sample periods, convergence test and latency
        threshold; ``router="iq"`` only): see :mod:`sim.routers.iq`.
    sample_period, warmup_periods, max_samples : int
        ``measurement="booksim"``: BookSim2's ``sample_period`` (1000),
        ``warmup_periods`` (3) and ``max_samples`` (10). With ``fixed`` the
        sample period is the batch length of the latency's confidence
        interval.
    latency_threshold, stopping_threshold : float
        A run whose mean latency passes ``latency_threshold`` (500 cycles,
        BookSim2's ``latency_thres``) is unstable: checked during the drain
        (both measurements) and, with ``measurement="booksim"``, at the end
        of every sample period. ``measurement="booksim"``: a run has converged
        when latency and accepted rate change less than
        ``stopping_threshold`` (0.05) between sample periods three times in a
        row.

    Examples
    --------
    >>> c = SimConfig(routing="dor", vcs=2, packet_length=(1, 32), measure=1000)
    >>> c.vcs, c.deadlock, c.mean_packet_length, c.warmup, c.measure, c.name
    (2, 'auto', 16.5, 2000, 1000, 'custom')
    >>> c.replace(vcs=4).vcs, preset("tpds2010").replace(vcs=1).name
    (4, 'tpds2010')
    """

    routing: str = "auto"
    vcs: int = 3
    deadlock: str = "auto"
    buffer_packets: int = 4
    injection_queue: int = 8
    source_queue: int = 1024
    packet_length: int | tuple[int, int] = 16
    router_delay: int = 1
    link_latency: int = 1
    transit_priority: bool = True
    injection: str = "bernoulli"
    warmup: int = 2000
    measure: int = 5000
    drain: int = 20000
    watchdog: int = 5000
    updown_root: int = 0
    check: bool = False
    phit_bytes: int = 4
    tie_break: str = "first"
    selection: str = "credits"
    injectors: int = 1
    ejectors: int = 1
    switching: str = "vct"
    buffer_flits: int = 0
    router: str = "simple"
    routing_delay: int = 1
    vc_alloc_delay: int = 1
    sw_alloc_delay: int = 1
    st_delay: int = 1
    credit_delay: int = 0
    alloc_iters: int = 1
    self_traffic: bool = False
    output_set: str = "booksim"
    measurement: str = "fixed"
    sample_period: int = 1000
    warmup_periods: int = 3
    max_samples: int = 10
    latency_threshold: float = 500.0
    stopping_threshold: float = 0.05
    ugal_threshold: int = 0
    name: str = "custom"

    def __post_init__(self) -> None:
        pl = self.packet_length
        if isinstance(pl, (list, tuple)):
            if len(pl) != 2:
                raise SimError(f"packet_length must be an integer or a pair (lo, hi), got {pl!r}")
            lo, hi = (int(x) for x in pl)
            object.__setattr__(self, "packet_length", (lo, hi) if lo != hi else lo)
        else:
            lo = hi = int(pl)
            object.__setattr__(self, "packet_length", lo)
        if lo < 1 or hi < lo:
            raise SimError(f"packet lengths must satisfy 1 <= lo <= hi, got {pl!r}")
        positive = ("vcs", "buffer_packets", "injection_queue", "source_queue", "measure", "watchdog",
                    "phit_bytes", "injectors", "ejectors") + (() if self.router == "iq" else ("link_latency",))
        for f in positive:
            if int(getattr(self, f)) < 1:
                raise SimError(f"{f} must be a positive integer, got {getattr(self, f)!r}")
        for f in ("router_delay", "warmup", "drain"):
            if int(getattr(self, f)) < 0:
                raise SimError(f"{f} must be a non-negative integer, got {getattr(self, f)!r}")
        _check_ranges(self)
        if self.deadlock not in ("auto", "dateline", "bubble", "none"):
            raise SimError(f"deadlock must be auto, dateline, bubble or none, got {self.deadlock!r}")
        if self.tie_break not in ("first", "random"):
            raise SimError(f"tie_break must be first or random, got {self.tie_break!r}")
        if self.selection not in SELECTIONS:
            raise SimError(f"selection must be one of {', '.join(SELECTIONS)}, got {self.selection!r}")
        if self.selection != "credits" and (self.switching != "vct" or self.router != "simple"):
            raise SimError(f"selection={self.selection} needs the simple router's virtual cut-through "
                           f"(router=simple, switching=vct); use selection=credits")
        if self.injection not in ("bernoulli", "poisson"):
            raise SimError(f"injection must be bernoulli or poisson, got {self.injection!r}")
        if self.switching not in ("vct", "wormhole"):
            raise SimError(f"switching must be vct or wormhole, got {self.switching!r}")
        if isinstance(self.buffer_flits, bool) or int(self.buffer_flits) < 0:
            raise SimError(f"buffer_flits must be a non-negative integer (0: buffer_packets x the longest packet), "
                           f"got {self.buffer_flits!r}")
        if self.vcs > 64:
            raise SimError(f"at most 64 virtual channels, got {self.vcs}")
        if self.router not in ROUTER_MODELS:
            raise SimError(f"router must be {' or '.join(ROUTER_MODELS)}, got {self.router!r}")
        if self.output_set not in ("booksim", "all"):
            raise SimError(f"output_set must be booksim or all, got {self.output_set!r}")
        if self.measurement not in ("fixed", "booksim"):
            raise SimError(f"measurement must be fixed or booksim, got {self.measurement!r}")
        if self.measurement == "booksim" and self.router != "iq":
            raise SimError("measurement=booksim needs router=iq (BookSim2's router); use measurement=fixed")
        for f in ("routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_delay", "alloc_iters", "sample_period",
                  "warmup_periods", "max_samples"):
            v = getattr(self, f)
            if isinstance(v, bool) or int(v) < 1:
                raise SimError(f"{f} must be a positive integer, got {v!r}")
        if isinstance(self.credit_delay, bool) or int(self.credit_delay) < 0:
            raise SimError(f"credit_delay must be a non-negative integer, got {self.credit_delay!r}")
        if self.router == "iq" and int(self.link_latency) < 0:
            raise SimError(f"link_latency must be >= 0 with router=iq (0: BookSim2's torus/mesh rule), "
                           f"got {self.link_latency!r}")
        if isinstance(self.ugal_threshold, bool) or int(self.ugal_threshold) != self.ugal_threshold:
            raise SimError(f"ugal_threshold must be an integer (phits x hops), got {self.ugal_threshold!r}")
        if not (self.latency_threshold > 0 and self.stopping_threshold > 0):
            raise SimError(f"latency_threshold and stopping_threshold must be positive numbers (inf: no threshold), "
                           f"got {self.latency_threshold!r} and {self.stopping_threshold!r}")

    @property
    def length_range(self) -> tuple[int, int]:
        pl = self.packet_length
        return (pl, pl) if isinstance(pl, int) else tuple(pl)  # type: ignore[return-value]

    @property
    def mean_packet_length(self) -> float:
        lo, hi = self.length_range
        return (lo + hi) / 2

    def replace(self, **changes: Any) -> "SimConfig":
        """A copy with some fields changed."""
        bad = set(changes) - {f.name for f in dataclasses.fields(self)}
        if bad:
            raise SimError(f"unknown SimConfig fields {sorted(bad)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        if isinstance(self.packet_length, tuple):
            d["packet_length"] = list(self.packet_length)
        return d


def _check_ranges(cfg: "SimConfig") -> None:
    """The upper bounds of the integer fields (their lower bounds are
    checked with their meaning): cycle counts at most :data:`MAX_CYCLES`,
    delays at most :data:`MAX_DELAY`, the rest within :data:`MAX_INT`."""
    for f in ("warmup", "measure", "drain", "watchdog", "sample_period"):
        v = getattr(cfg, f)
        if int(v) > MAX_CYCLES:
            raise SimError(f"{f} must be at most {MAX_CYCLES:.0e} cycles (hours even for one router; more is beyond "
                           f"any run), "
                           f"got {v!r}")
    for f in ("router_delay", "link_latency", "routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_delay",
              "credit_delay"):
        v = getattr(cfg, f)
        if int(v) > MAX_DELAY:
            raise SimError(f"{f} must be at most {MAX_DELAY:.0e} cycles (the credit wheel keeps a slot per cycle "
                           f"of delay), got {v!r}")
    for f in ("buffer_packets", "injection_queue", "source_queue", "phit_bytes", "injectors", "ejectors",
              "buffer_flits", "updown_root", "alloc_iters", "warmup_periods", "max_samples", "ugal_threshold"):
        v = getattr(cfg, f)
        if abs(int(v)) > MAX_INT:
            raise SimError(f"{f} must be at most 2^62, got {v!r}")
    if max(cfg.length_range) > MAX_INT:
        raise SimError(f"packet lengths must be at most 2^62 phits, got {cfg.packet_length!r}")


#: Cycles between the drain's latency checks (BookSim2 checks every 1000 steps of its drain).
DRAIN_CHECK = 1000


#: Named presets. ``tpds2010``: the INSEE router of 'twisted-tori-tpds2010'
#: section 6.1 (Blue Gene/L-like: VCT, one bubble escape VC plus two fully
#: adaptive ones, 16-phit packets, 4-packet transit VCs, 8-packet injection
#: queues, Poisson arrivals). ``extoll``: the packet sizes of
#: '5d-twin-torus-extoll' (uniform 1..32 cells) with 3 VCs and shortest-path
#: adaptive routing (VOQ and iSLIP are not modelled). ``singleflit``:
#: 1-phit packets on 2 dateline VCs with DOR (the speed benchmark).
#: ``booksim``: BookSim2's input-queued router (``router="iq"``, :mod:`sim.routers.iq`)
#: as configured by its booksim_config.cpp defaults and examples/torus88 at
#: commit 28f4329 for a k-ary n-cube: dim_order routing (dateline VC classes
#: on a torus), num_vcs = 2, vc_buf_size = 8 flits, 1-flit packets, Bernoulli
#: injection, 1-cycle routing, VC allocation, switch allocation and crossbar
#: stages, iSLIP allocators with one iteration, credit_delay 0, channels of 2
#: cycles on a torus and 1 on a mesh (``link_latency=0``), uniform traffic
#: including the source, and BookSim2's measurement (3 warm-up sample
#: periods of 1000 cycles, convergence within 5%, latency threshold 500).
#: Not modelled: speculative allocation, lookahead routing
#: (``routing_delay = 0``), output speedup and output buffers, and
#: BookSim2's other allocators and routing functions. Validated against
#: BookSim2 by ``benchmarks/bench_booksim.py`` (docs/results/simulator.md, "Simulator
#: vs BookSim2").
PRESETS: dict[str, SimConfig] = {
    "default": SimConfig(name="default"),
    "tpds2010": SimConfig(routing="adaptive", vcs=3, buffer_packets=4, injection_queue=8,
                          packet_length=16, injection="poisson", name="tpds2010"),
    "extoll": SimConfig(routing="auto", vcs=3, buffer_packets=4, injection_queue=8,
                        packet_length=(1, 32), name="extoll"),
    "singleflit": SimConfig(routing="dor", vcs=2, deadlock="dateline", buffer_packets=4,
                            injection_queue=8, packet_length=1, name="singleflit"),
    "booksim": SimConfig(router="iq", routing="dor", vcs=2, buffer_flits=8, packet_length=1, link_latency=0,
                         injection="bernoulli", self_traffic=True, measurement="booksim", source_queue=4096,
                         drain=100000, name="booksim"),
}


def preset(name: str, **changes: Any) -> SimConfig:
    """A preset configuration, optionally with fields changed.

    >>> preset("singleflit", vcs=4).vcs
    4
    """
    try:
        cfg = PRESETS[name]
    except KeyError:
        raise SimError(f"unknown preset {name!r}; valid: {', '.join(PRESETS)}") from None
    return cfg.replace(**changes) if changes else cfg
