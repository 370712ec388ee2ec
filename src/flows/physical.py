"""The physical model: technology and packaging -> resources and latencies.

'topology-synthesis-mcf-bgl' (section II) prices a topology by the wires it
needs: the flow on a channel is a number of wires, and the wires compete for

- board cross-sections: the wires crossing a cut ``q`` of a board use
  ``pitch`` of track each, and the cut offers ``W_q * L_q`` (its length
  times the signal layers) — constraint (2) of the paper;
- connector pins: a wire that leaves a card uses ``K_pin`` pins (2 for a
  differential pair) of the card's connectors, ``C_r * V_pin`` in all —
  constraint (3);

and every unit of flow costs the router delay of the channel's tail plus
the wire delay (length x delay per metre) — objective (1).

Geometry, from the topology's :class:`~candidates.topology.Placement`: a
wire between routers u and v runs on the board of their lowest common unit
(level ``l``), between the slots of their level-``l-1`` units (their own
slots when ``l = 0``); it crosses every column gap and every row gap
between the two slots (Manhattan routing) and, below level ``l``, leaves
each card on the way out through that card's connectors, for
``Board.connector_run`` of wire on each such card. Links between different
outermost units are cables through the outermost connectors only.

Wiring modes (the paper's Table II): ``"flexible"`` lets the flow decide
how many wires each link gets (the resources above are the constraints);
``"uniform"`` splits every resource equally over the links that use it, up
front, so each channel gets a fixed capacity (the smallest share it is
offered).

Units: lengths in metres, delays in nanoseconds, flow in wires (per
direction). The numbers of the presets are stated where they are defined;
the paper does not publish its board data.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from candidates.search.resources import LinkResources, link_resources_from_placement
from candidates.topology import Placement, Topology

from .problem import Demands, FlowError, FlowProblem

__all__ = ["RouterDelay", "Technology", "Board", "Packaging", "PhysicalModel", "physical_model", "physical_problem",
           "WIRING_MODES", "link_resources", "link_lengths"]

WIRING_MODES = ("flexible", "uniform")


@dataclass(frozen=True)
class RouterDelay:
    """Router delay as a function of radix ``p`` (ports, terminals included).

    ``t(p) = fo4_ns * (base + arbiter * log4(p) + crossbar * log2(p))``, in
    the spirit of Peh and Dally's delay model ("A delay model for router
    microarchitectures", IEEE Micro 2001, which the synthesis paper cites):
    routing and buffering cost a fixed number of FO4 delays, switch
    allocation grows with the depth of a tree of 4:1 arbiters (log4 p) and
    the crossbar with log2 p. The default coefficients are ours (the paper
    does not give its constants); ``fo4_ns`` = 0.032 ns is the usual
    0.36 ns/um x 0.09 um rule of thumb for 90 nm, the node the paper assumes.

    >>> d = RouterDelay()
    >>> round(d(7), 3), d(7) < d(8)
    (3.122, True)
    """

    fo4_ns: float = 0.032
    base: float = 40.0
    arbiter: float = 23.0
    crossbar: float = 9.0

    def __post_init__(self) -> None:
        for k, v in asdict(self).items():
            if not (math.isfinite(v) and v >= 0):
                raise FlowError(f"router delay parameter {k} must be a non-negative number, got {v}")

    def __call__(self, radix: Any) -> Any:
        p = np.maximum(np.asarray(radix, dtype=np.float64), 1.0)
        t = self.fo4_ns * (self.base + self.arbiter * np.log(p) / np.log(4.0) + self.crossbar * np.log2(p))
        return float(t) if np.ndim(t) == 0 else t


@dataclass(frozen=True)
class Technology:
    """Wire and router delays.

    ``wire_delay_ns_per_m``: 7.1 ns/m, the speed of light in FR4 (relative
    permittivity about 4.5), as in the paper.

    >>> t = Technology()
    >>> t.wire_delay_ns_per_m, round(0.5 * t.wire_delay_ns_per_m, 2), round(t.router(6), 3)   # 0.5 m; radix 6
    (7.1, 3.55, 2.976)
    """

    wire_delay_ns_per_m: float = 7.1
    router: RouterDelay = field(default_factory=RouterDelay)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.wire_delay_ns_per_m) and self.wire_delay_ns_per_m >= 0):
            raise FlowError(f"wire delay must be a non-negative number of ns per metre, got {self.wire_delay_ns_per_m}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Board:
    """One packaging level: the board every unit of that level is.

    ``width_m`` x ``height_m``: its size; its children (routers on the
    innermost level) sit on the placement's slot grid over it, so a column
    gap is a cut of length ``height_m`` and a row gap one of ``width_m``.
    ``signal_layers`` and ``wire_pitch_m`` (track pitch of one wire; a
    differential pair counts as one wire) give a cut of length W the
    capacity ``W * signal_layers`` for ``wire_pitch_m`` per wire.
    ``connectors`` x ``pins_per_connector`` pins join a unit to its parent
    (0 = no connector limit); ``connector_run_m`` is the wire a link leaving
    the card runs on it (default half its height).

    >>> b = Board("card", 0.2, 0.1, signal_layers=2, wire_pitch_m=0.001, connectors=1, pins_per_connector=64)
    >>> b.connector_pins, b.run
    (64, 0.05)
    """

    level: str
    width_m: float
    height_m: float
    signal_layers: int
    wire_pitch_m: float
    connectors: int = 0
    pins_per_connector: int = 0
    connector_run_m: float | None = None

    def __post_init__(self) -> None:
        for k in ("width_m", "height_m", "wire_pitch_m"):
            v = getattr(self, k)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise FlowError(f"board {self.level!r}: {k} must be a positive number, got {v!r}")
        if not isinstance(self.signal_layers, int) or self.signal_layers < 1:
            raise FlowError(f"board {self.level!r}: signal_layers must be a positive integer, got {self.signal_layers!r}")
        for k in ("connectors", "pins_per_connector"):
            v = getattr(self, k)
            if not isinstance(v, int) or v < 0:
                raise FlowError(f"board {self.level!r}: {k} must be a non-negative integer, got {v!r}")
        if self.connector_run_m is not None and not (math.isfinite(self.connector_run_m) and self.connector_run_m >= 0):
            raise FlowError(f"board {self.level!r}: connector_run_m must be a non-negative number")

    @property
    def run(self) -> float:
        return self.height_m / 2 if self.connector_run_m is None else float(self.connector_run_m)

    @property
    def connector_pins(self) -> int:
        return self.connectors * self.pins_per_connector


@dataclass(frozen=True)
class Packaging:
    """Boards from the innermost level out, one per placement level.

    ``pins_per_wire``: 2 for differential pairs (the paper's assumption for
    Blue Gene/L). ``router_pins``: signal pins of a router chip for network
    wires (every wire in or out of the router uses ``pins_per_wire``); None
    for no limit.

    >>> p = Packaging.bluegene_l()
    >>> [b.level for b in p.boards], p.pins_per_wire, p.router_pins
    (['compute_card', 'node_card', 'midplane'], 2, None)
    >>> p.board("node_card").connector_pins, p.with_connector_pins("node_card", 400).board("node_card").connector_pins
    (200, 400)
    """

    boards: tuple[Board, ...]
    pins_per_wire: int = 2
    router_pins: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "boards", tuple(self.boards))
        if not self.boards:
            raise FlowError("a packaging needs at least one board level")
        names = [b.level for b in self.boards]
        if len(set(names)) != len(names):
            raise FlowError(f"board levels must be distinct, got {names}")
        if not isinstance(self.pins_per_wire, int) or self.pins_per_wire < 1:
            raise FlowError(f"pins_per_wire must be a positive integer, got {self.pins_per_wire!r}")
        if self.router_pins is not None and (not isinstance(self.router_pins, int) or self.router_pins < 1):
            raise FlowError(f"router_pins must be a positive integer or None, got {self.router_pins!r}")

    def board(self, level: str) -> Board:
        for b in self.boards:
            if b.level == level:
                return b
        raise FlowError(f"no board for packaging level {level!r}; boards: {', '.join(b.level for b in self.boards)}")

    def with_connector_pins(self, level: str, pins: int) -> "Packaging":
        """The same packaging with ``pins`` connector pins on every unit of
        ``level`` (for pin sweeps: the paper's Fig. 4)."""
        b = self.board(level)
        new = Board(b.level, b.width_m, b.height_m, b.signal_layers, b.wire_pitch_m, 1, int(pins), b.connector_run_m)
        return Packaging(tuple(new if x.level == level else x for x in self.boards), self.pins_per_wire, self.router_pins)

    def to_dict(self) -> dict[str, Any]:
        return {"boards": [asdict(b) for b in self.boards], "pins_per_wire": self.pins_per_wire,
                "router_pins": self.router_pins}

    @classmethod
    def bluegene_l(cls) -> "Packaging":
        """Our Blue Gene/L midplane packaging (compute card, node card, midplane).

        The synthesis paper takes its board data from the Blue Gene/L
        packaging paper and does not print it; the one number it gives is
        200 network pins (15 connectors) between a node card and the
        midplane. The rest are our assumptions, of the order of the cards'
        published sizes: compute card 0.206 x 0.055 m, node card 0.46 x
        0.41 m, midplane 0.81 x 0.91 m; 2 / 6 / 6 signal layers for network
        wires, 1 mm track pitch per differential pair; a compute card has
        120 network pins to its node card. Change them with
        :meth:`with_connector_pins` or by building your own boards.
        """
        return cls((
            Board("compute_card", 0.206, 0.055, 2, 0.001, 1, 120),
            Board("node_card", 0.46, 0.41, 6, 0.001, 1, 200),
            Board("midplane", 0.81, 0.91, 6, 0.001),
        ), pins_per_wire=2)


@dataclass(frozen=True, eq=False)
class PhysicalModel:
    """What the packaging makes of a placed topology.

    ``R`` (resources x channels) and ``capacity``: the cross-section and
    connector (and router pin) constraints on wires; ``latency[a]``: router
    delay of the tail plus wire delay of channel ``a``, in ns; ``length[a]``:
    its wire length in metres; ``level[a]``: the packaging level of its
    lowest common unit (``len(levels)`` for cables between outermost units).

    A 4 x 4 torus on four cards of 2 x 2 routers (0.1 m square, 32
    connector pins each) on one board (0.4 m square): half its channels stay
    on a card, 0.05 m long; the others leave it, 0.3 m (half a card's height
    on either card and a card's pitch on the board):

    >>> import candidates as cd
    >>> t = cd.block_placement(cd.torus((4, 4)), [(2, 2), (4, 4)], ("card", "board"))
    >>> pk = Packaging((Board("card", 0.1, 0.1, 2, 0.001, 1, 32), Board("board", 0.4, 0.4, 4, 0.001)))
    >>> m = physical_model(t, Technology(), pk)
    >>> m.levels, m.R.shape, np.bincount(m.level).tolist()
    (('card', 'board'), (14, 64), [32, 32])
    >>> sorted(set(m.length.round(3).tolist())), sorted(set(m.latency.round(3).tolist()))
    ([0.05, 0.3], [3.158, 4.933])
    >>> float(m.capacity[m.resource_names.index("card 0 connector pins")])
    32.0
    """

    R: sp.csr_matrix
    capacity: np.ndarray
    resource_names: tuple[str, ...]
    latency: np.ndarray
    length: np.ndarray
    level: np.ndarray
    levels: tuple[str, ...]

    def uniform_capacity(self) -> np.ndarray:
        """Wires per channel when every resource is split equally over the
        channels that use it (each channel gets its smallest share)."""
        R = self.R.tocsr()
        users = np.diff(R.indptr)
        share = np.where(users > 0, self.capacity / np.maximum(users, 1), np.inf)
        Rc = R.tocsc()
        cap = np.full(R.shape[1], np.inf)
        for a in range(R.shape[1]):
            rows = Rc.indices[Rc.indptr[a]:Rc.indptr[a + 1]]
            coef = Rc.data[Rc.indptr[a]:Rc.indptr[a + 1]]
            if len(rows):
                cap[a] = float(np.min(share[rows] / coef))
        return cap


def physical_model(topo: Topology, technology: Technology, packaging: Packaging) -> PhysicalModel:
    """Resources and channel latencies of a placed topology.

    >>> from candidates import torus
    >>> from candidates.placement import block_placement
    >>> t = block_placement(torus((8, 8, 8)), [(1, 1, 2), (4, 4, 2), (8, 8, 8)],
    ...                     ("compute_card", "node_card", "midplane"))
    >>> m = physical_model(t, Technology(), Packaging.bluegene_l())

    256 compute-card cuts, 16 node cards x 6 gaps, 6 midplane gaps, 256 + 16
    connector sets:

    >>> m.R.shape, sorted(set(m.level.tolist()))
    ((630, 3072), [0, 1, 2])
    """
    pl = topo.placement
    if pl is None:
        raise FlowError(f"topology {topo.spec or topo.family!r} has no placement; the physical model needs one "
                        "(hierarchical/bgl candidates have it; use candidates.block_placement for lattices)")
    boards = []
    for name in pl.levels:
        boards.append(packaging.board(name))
    L = len(pl.levels)
    unit = pl.unit
    slots = pl.slot_grid()
    src, dst = topo.arc_src, topo.arc_dst
    A = topo.num_arcs
    same = unit[src] == unit[dst]                       # (A, L)
    lvl = np.where(same.any(axis=1), np.argmax(same, axis=1), L)
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    caps: list[float] = []
    names: list[str] = []
    length = np.zeros(A)

    # board cross-sections: per level, per unit, one cut per column gap and per row gap
    for l, b in enumerate(boards):
        on = np.flatnonzero(lvl == l)
        if len(on) == 0:
            continue
        s1, s2 = slots[src[on], l], slots[dst[on], l]
        # per-unit grid size: the largest slot used on that unit
        nunits = int(unit[:, l].max()) + 1
        gr = np.zeros((nunits, 2), dtype=np.int64)
        np.maximum.at(gr, unit[:, l], slots[:, l] + 1)
        pitch_r = b.height_m / gr[:, 0]
        pitch_c = b.width_m / gr[:, 1]
        u = unit[src[on], l]
        dr = np.abs(s1[:, 0] - s2[:, 0])
        dc = np.abs(s1[:, 1] - s2[:, 1])
        length[on] += dr * pitch_r[u] + dc * pitch_c[u]
        cut_id: dict[tuple[int, str, int], int] = {}
        for k, a in enumerate(on.tolist()):
            uu = int(u[k])
            for axis, (x1, x2) in (("column", (s1[k, 1], s2[k, 1])), ("row", (s1[k, 0], s2[k, 0]))):
                for gap in range(int(min(x1, x2)), int(max(x1, x2))):
                    key = (uu, axis, gap)
                    r = cut_id.get(key)
                    if r is None:
                        r = cut_id[key] = len(caps)
                        cut_len = b.height_m if axis == "column" else b.width_m
                        caps.append(cut_len * b.signal_layers)
                        names.append(f"{b.level} {uu} cross-section at {axis} gap {gap}|{gap + 1}")
                    rows.append(r)
                    cols.append(a)
                    vals.append(b.wire_pitch_m)

    # connectors: a wire leaving a unit of level j (j < its common level) uses pins on both sides
    for j, b in enumerate(boards):
        leaving = np.flatnonzero(lvl > j)
        if len(leaving) == 0:
            continue
        length[leaving] += 2 * b.run
        if b.connector_pins == 0:
            continue
        base = len(caps)
        nunits = int(unit[:, j].max()) + 1
        caps.extend([float(b.connector_pins)] * nunits)
        names.extend(f"{b.level} {k} connector pins" for k in range(nunits))
        for end in (src, dst):
            rows.extend((base + unit[end[leaving], j]).tolist())
            cols.extend(leaving.tolist())
            vals.extend([float(packaging.pins_per_wire)] * len(leaving))
    if packaging.router_pins is not None:
        base = len(caps)
        caps.extend([float(packaging.router_pins)] * topo.n)
        names.extend(f"router {v} pins" for v in range(topo.n))
        for end in (src, dst):
            rows.extend((base + end).tolist())
            cols.extend(range(A))
            vals.extend([float(packaging.pins_per_wire)] * A)

    R = sp.csr_matrix((vals, (rows, cols)), shape=(len(caps), A))
    R.sum_duplicates()
    used = np.asarray((R > 0).sum(axis=0)).reshape(-1)
    if A and np.any(used == 0):
        a = int(np.flatnonzero(used == 0)[0])
        raise FlowError(
            f"channel {a} ({src[a]} -> {dst[a]}) uses no board cross-section, connector or pin; its wires would be "
            "unlimited: give its board a grid with a gap between the two routers or set Packaging.router_pins"
        )
    radix = topo.degree + np.asarray(topo.terminals if np.ndim(topo.terminals) else np.full(topo.n, topo.terminals))
    latency = technology.router(radix)[src] + technology.wire_delay_ns_per_m * length
    return PhysicalModel(R.tocsr(), np.asarray(caps), tuple(names), np.asarray(latency, dtype=np.float64),
                         length, lvl.astype(np.int64), pl.levels)


def physical_problem(topo: Topology, demands: Demands, technology: Technology | None = None,
                     packaging: Packaging | None = None, wiring: str = "flexible") -> FlowProblem:
    """A :class:`FlowProblem` whose resources and latencies come from the
    packaging (flow in wires, latency in ns).

    >>> import candidates as cd
    >>> t = cd.bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4")
    >>> p = physical_problem(t, Demands.random(512, 64, seed=1), Technology(), Packaging.bluegene_l())
    >>> p.num_resources > 0, p.meta["wiring"]
    (True, 'flexible')
    >>> physical_problem(t, Demands.random(512, 64, seed=1), wiring="uniform").num_resources == t.num_arcs
    True
    """
    if wiring not in WIRING_MODES:
        raise FlowError(f"unknown wiring mode {wiring!r}; valid: {', '.join(WIRING_MODES)}")
    technology = technology or Technology()
    if packaging is None:
        if topo.placement is not None and topo.placement.levels == ("compute_card", "node_card", "midplane"):
            packaging = Packaging.bluegene_l()
        else:
            raise FlowError("no packaging given and the placement is not the Blue Gene/L one; pass a Packaging")
    m = physical_model(topo, technology, packaging)
    meta = {"wiring": wiring, "technology": technology.to_dict(), "packaging": packaging.to_dict(),
            "units": {"flow": "wires", "latency": "ns"}}
    if wiring == "flexible":
        p = FlowProblem(topo.n, topo.arc_src, topo.arc_dst, demands, m.R, m.capacity, m.latency,
                        m.resource_names, topo.spec, meta)
    else:
        cap = m.uniform_capacity()
        names = tuple(f"channel {a} ({topo.arc_src[a]}->{topo.arc_dst[a]}) uniform share" for a in range(topo.num_arcs))
        p = FlowProblem(topo.n, topo.arc_src, topo.arc_dst, demands, sp.identity(topo.num_arcs, format="csr"), cap,
                        m.latency, names, topo.spec, meta)
    return p


def link_resources(placement: Placement, packaging: Packaging, wiring: str = "flexible",
                   technology: Technology | None = None, pes: int = 1, max_degree: int = 64) -> LinkResources:
    """The resources of every possible link of a placed machine, for the
    search's ``physical`` objective: the same board cross-sections,
    connectors and router pins :func:`physical_model` builds for the links a
    topology has, each counted in wires (a cut of length W offers
    ``W * signal_layers / wire_pitch_m`` wires, a unit's connectors
    ``connector_pins / pins_per_wire``); with a ``technology``, the delays of
    its latency as :func:`physical_model` counts them (a router's by its
    radix -- links plus ``pes`` -- for up to ``max_degree`` links, the
    wire's per metre of :func:`link_lengths`).

    >>> import candidates as cd
    >>> from candidates.placement import block_placement
    >>> t = block_placement(cd.torus((8, 8, 8)), [(1, 1, 2), (4, 4, 2), (8, 8, 8)],
    ...                     ("compute_card", "node_card", "midplane"))
    >>> r = link_resources(t.placement, Packaging.bluegene_l())
    >>> r.resources_of(0, 8)     # two compute cards of node card 0
    ['node_card 0 cross-section at column gap 0|1', 'compute_card 0 connector pins', 'compute_card 4 connector pins']
    >>> float(r.capacity[r.names.index("node_card 0 connector pins")])   # 200 pins, 2 per wire
    100.0
    """
    if wiring not in WIRING_MODES:
        raise FlowError(f"unknown wiring mode {wiring!r}; valid: {', '.join(WIRING_MODES)}")
    boards = [packaging.board(name) for name in placement.levels]
    col = [b.height_m * b.signal_layers / b.wire_pitch_m for b in boards]
    row = [b.width_m * b.signal_layers / b.wire_pitch_m for b in boards]
    conn = [b.connector_pins / packaging.pins_per_wire for b in boards]
    router = 0.0 if packaging.router_pins is None else packaging.router_pins / packaging.pins_per_wire
    delays = {}
    if technology is not None:
        delays = dict(board_sizes=[(b.width_m, b.height_m) for b in boards], runs=[b.run for b in boards],
                      wire_ns_per_m=technology.wire_delay_ns_per_m,
                      router_ns=technology.router(np.arange(max_degree + 1) + pes))
    return link_resources_from_placement(placement, column_cut_wires=col, row_cut_wires=row, connector_wires=conn,
                                         router_wires=router, uniform=wiring == "uniform", **delays)


def link_lengths(placement: Placement, packaging: Packaging, u, v) -> np.ndarray:
    """The wire length in metres of links ``u[k] - v[k]`` as
    :func:`physical_model` measures it: Manhattan between the two slots on
    the board of their lowest common unit, plus the connector run on every
    card the wire leaves (a link between outermost units: the runs only).

    >>> import candidates as cd
    >>> from candidates.placement import block_placement
    >>> t = block_placement(cd.torus((8, 8, 8)), [(1, 1, 2), (4, 4, 2), (8, 8, 8)],
    ...                     ("compute_card", "node_card", "midplane"))
    >>> m = physical_model(t, Technology(), Packaging.bluegene_l())
    >>> bool(np.allclose(link_lengths(t.placement, Packaging.bluegene_l(), t.arc_src, t.arc_dst), m.length))
    True
    """
    u = np.asarray(u, dtype=np.int64).reshape(-1)
    v = np.asarray(v, dtype=np.int64).reshape(-1)
    boards = [packaging.board(name) for name in placement.levels]
    L = len(boards)
    unit = placement.unit
    slots = placement.slot_grid()
    same = unit[u] == unit[v]
    lvl = np.where(same.any(axis=1), np.argmax(same, axis=1), L)
    length = np.zeros(len(u))
    for l, b in enumerate(boards):
        nunits = int(unit[:, l].max()) + 1
        gr = np.zeros((nunits, 2), dtype=np.int64)
        np.maximum.at(gr, unit[:, l], slots[:, l] + 1)
        on = np.flatnonzero(lvl == l)
        if len(on):
            U = unit[u[on], l]
            d = np.abs(slots[u[on], l] - slots[v[on], l])
            length[on] += d[:, 0] * (b.height_m / gr[U, 0]) + d[:, 1] * (b.width_m / gr[U, 1])
        length[lvl > l] += 2 * b.run
    return length
