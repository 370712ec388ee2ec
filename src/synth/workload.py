"""The workload of a study: its traffic and its physical model, one typed definition.

The study loader (the ``[traffic]`` and ``[physical]`` tables), the
evaluator (demands and flow problems), the simulator hand-off (traffic as a
destination distribution) and the command line (``toposynth flow --traffic
random:128 --packaging bgl``) all use these two classes, so a pattern or a
packaging is spelled and dispatched in one place.

>>> t = Traffic.parse("random:64", seed=3)
>>> t.pattern, t.count, t.seed
('random', 64, 3)
>>> from candidates import from_spec
>>> len(t.demands(from_spec("torus:4x4")))
64
>>> Traffic.parse("bitcomplement").sim_pattern(from_spec("torus:4x4"))
'bitcomplement'

A pattern of the :mod:`traffic` registry means the same here, to the
simulator and to the flow solvers (``random:COUNT`` is COUNT pairs of random
PEs everywhere); ``file``, ``mixed`` and ``app`` are workloads built on top
(a demand file, an application placed by a mapping, a NAS skeleton).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import sim
from candidates import from_spec
from candidates.placement import block_placement
from candidates.topology import Topology
from common.errors import ToposynthError, check_seed
from common.textfile import read_text
from sim.nas import NAS_CLASSES, NAS_KERNELS, nas
from traffic import PATTERNS as TRAFFIC_PATTERNS
from traffic import TrafficPattern, pattern_entry
from traffic import traffic as traffic_pattern

from .errors import StudyError
from .machine import Cost, physical_cost, structural_cost

__all__ = ["Traffic", "Physical", "PATTERNS", "WORKLOADS", "PACKAGINGS", "WIRINGS", "traffic_from_table", "physical_from_table"]

#: the workloads of a study beyond the registry's patterns (:data:`traffic.PATTERNS`)
WORKLOADS = ("file", "mixed", "app")
#: the names of a study's ``[traffic] pattern`` with their own fields (``count``, ``shares``, ...)
PATTERNS = ("uniform", "random", "local", *WORKLOADS)
PACKAGINGS = ("none", "bgl", "custom")
WIRINGS = ("flexible", "uniform")
#: Blue Gene/L packaging levels, innermost first
BGL_LEVELS = ("compute_card", "node_card", "midplane")


def _err(field_: str, msg: str) -> StudyError:
    return StudyError(f"study field {field_}: {msg}")


def _int(d: dict, key: str, where: str, *, minimum: int, default: Any = None, maximum: int | None = None,
         why: str = "") -> Any:
    """``d[key]`` as an int in ``[minimum, maximum]``; ``why`` says what the maximum protects (the message)."""
    v = d.get(key, default)
    if v is default and key not in d:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise _err(f"{where}{key}", f"must be an integer >= {minimum}, got {v!r}")
    if maximum is not None and v > maximum:
        raise _err(f"{where}{key}", f"must be at most {maximum:,}, got {v:,}" + (f" ({why})" if why else ""))
    return v


def _choice(d: dict, key: str, where: str, valid: tuple[str, ...], default: str) -> str:
    v = d.get(key, default)
    if v not in valid:
        raise _err(f"{where}{key}", f"must be one of {', '.join(valid)}; got {v!r}")
    return v


# --------------------------------------------------------------------- traffic
@dataclass(frozen=True)
class Traffic:
    """What the machine's processing elements send.

    ``pattern``: ``uniform`` (every PE one unit, spread over the others:
    lambda is the injection rate per PE), ``random`` (``count`` demands
    between random PEs), ``local`` (``count`` random demands with a share
    per packaging level, ``shares``), ``file`` (a CSV of router demands),
    ``mixed`` (a 2-D torus application placed by ``mapping``, ``alpha`` of
    each task's traffic to its neighbours), ``app`` (a NAS skeleton,
    ``app``/``app_class``, placed by ``mapping``), or any other pattern of
    the :mod:`traffic` registry with its options (``bitreversal``,
    ``hotregion:fraction=0.5``; ``sim:NAME`` is the older spelling of
    ``NAME``). In a study ``pattern`` and ``count`` may be lists (a sweep:
    :meth:`Study.variants`).
    """

    pattern: Any = "uniform"
    count: Any = None
    shares: tuple[float, ...] = (0.4, 0.5, 0.1)
    file: str | None = None
    mapping: str = "id"
    alpha: float = 0.5
    app: str = ""
    app_class: str = "S"
    seed: int = 1

    @property
    def swept(self) -> bool:
        return isinstance(self.pattern, (list, tuple)) or isinstance(self.count, (list, tuple))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"pattern": self.pattern, "count": self.count, "shares": list(self.shares),
                             "file": self.file}
        if self.pattern == "mixed":
            d.update(mapping=self.mapping, alpha=self.alpha)
        if self.pattern == "app":
            d.update(app=self.app, app_class=self.app_class, mapping=self.mapping)
        return d

    @classmethod
    def parse(cls, text: str, seed: int = 1) -> "Traffic":
        """The command line's spelling: ``uniform``, ``random:COUNT``,
        ``local:COUNT[:S0,S1,...]``, ``file:PATH.csv``, ``app:KERNEL[:CLASS]``
        or a registry pattern (``NAME[:key=value...]``, also ``sim:NAME``);
        validated as a study's ``[traffic]`` table is."""
        kind, _, rest = str(text).partition(":")
        t: dict[str, Any] = {"pattern": kind}
        if kind == "file" and not Path(rest).is_file():
            raise StudyError(f"no such demand file {rest!r} (a CSV with header src,dst,amount)")
        try:
            if kind in ("random", "local"):
                count, _, shares = rest.partition(":")
                t["count"] = int(count)
                if shares and kind == "local":
                    t["shares"] = [float(x) for x in shares.split(",")]
            elif kind == "file":
                t["file"] = rest
            elif kind == "app":
                app, _, cls_ = rest.partition(":")
                t.update(app=app, **({"app_class": cls_} if cls_ else {}))
            elif kind == "uniform" and not rest:
                pass
            elif kind not in WORKLOADS and kind.lower() != "sim" and _known(kind):
                t["pattern"] = text        # a registry pattern with its options, checked below
            elif kind == "sim" and _known(rest.partition(":")[0]):
                t["pattern"] = text
            else:
                raise ValueError
        except ValueError:
            raise StudyError(f"unknown traffic {text!r}: write uniform, random:COUNT, local:COUNT[:S0,S1,...], file:PATH.csv, "
                             "app:KERNEL[:CLASS] or a traffic pattern (toposynth simulate --help lists them)") from None
        return traffic_from_table(t, seed)

    # the demands -------------------------------------------------------
    def demands(self, topo: Topology):
        """The demands on this topology's routers (same seed, same demands)."""
        from flows import Demands, FlowError  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)

        if self.swept:
            raise StudyError(f"traffic pattern {self.pattern} / count {self.count} is a sweep; run the study's variants()")
        pattern = self.pattern
        if pattern == "file":
            assert self.file is not None  # the file pattern always names its file (checked when read)
            d = Demands.read_csv(self.file)
            top = int(max(d.src.max(), d.dst.max())) if len(d) else -1
            if top >= topo.n:
                raise FlowError(f"the demand file names router {top}, but {topo.spec or topo.family} has {topo.n} "
                                f"routers (0..{topo.n - 1}); a demand file fits one machine size")
            return d
        if pattern == "app":
            return self._app_demands(topo)
        if pattern == "mixed":
            # deferred: numba + scipy take 0.59 s to import (docs/ARCHITECTURE.md)
            from .mapping import anneal, map_demands, mixed_traffic, place

            if self.mapping.startswith("anneal"):
                # "anneal[:START]": simulated annealing on the estimated latency from the START mapping
                start = self.mapping.partition(":")[2] or "id"
                p0 = place(start, topo)
                assert p0.task_shape is not None  # place() gives the task grid
                tasks = mixed_traffic(p0.task_shape, self.alpha)
                p = anneal(tasks, topo, seed=self.seed, start=p0).placement
            else:
                p = place(self.mapping, topo)
                assert p.task_shape is not None  # place() gives the task grid
                tasks = mixed_traffic(p.task_shape, self.alpha)
            return map_demands(tasks, p)
        # the registry's pattern: every PE one unit (lambda = injection rate per PE); random and local keep
        # each drawn pair as a demand
        return Demands.from_pattern(topo, self.pattern_of())

    def pattern_of(self) -> TrafficPattern:
        """The :mod:`traffic` registry's pattern of this workload (not for ``file``, ``mixed``, ``app``)."""
        pattern = self.pattern
        if pattern in WORKLOADS:
            raise StudyError(f"the {pattern} workload is not a traffic pattern")
        if pattern == "random":
            return traffic_pattern("random", count=self.count, seed=self.seed)
        if pattern == "local":
            return traffic_pattern("local", count=self.count, shares=tuple(self.shares), seed=self.seed)
        return traffic_pattern(pattern[4:] if pattern.startswith("sim:") else pattern)

    def _app_demands(self, topo: Topology):
        """The bytes a NAS skeleton sends between its processes (one per PE),
        placed by identity or by simulated annealing, as router demands scaled
        to one unit per process on average."""
        from flows import Demands  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)

        # deferred: numba + scipy take 0.59 s to import (docs/ARCHITECTURE.md)
        from .mapping import anneal, map_demands, placement_from_routers

        P = topo.num_terminals
        M = nas(self.app, P, self.app_class, seed=self.seed).byte_matrix()
        M *= P / M.sum()
        tasks = Demands.from_matrix(M)
        router = np.repeat(np.arange(topo.n), topo.terminals)     # process p on PE p
        p = placement_from_routers(router, topo)
        if self.mapping == "anneal":
            p = anneal(tasks, topo, seed=self.seed, start=p).placement
        return map_demands(tasks, p)

    def sim_pattern(self, topo: Topology):
        """The traffic for the simulator: the registry's pattern (``random``
        and ``local`` with this workload's count, shares and seed), or, for a
        demand file, a mapped application or a NAS skeleton, the demands as a
        destination distribution."""
        if self.pattern == "uniform":
            return "uniform"
        if self.pattern.startswith("sim:"):
            return self.pattern[4:]
        if self.pattern not in WORKLOADS:
            return str(self.pattern_of())
        dem = self.demands(topo)
        M = np.zeros((topo.n, topo.n))
        np.add.at(M, (dem.src, dem.dst), dem.amount)
        return sim.demand(M)


def _known(name: str) -> bool:
    try:
        pattern_entry(name)
    except ToposynthError:
        return False
    return True


def _check_pattern(pat: Any) -> None:
    if pat in PATTERNS:
        return
    if not isinstance(pat, str):
        raise _err("traffic.pattern", f"must be a pattern name such as uniform, random or bitreversal, or a list of "
                                      f"them to sweep; got {pat!r}")
    spec = pat[4:] if pat.startswith("sim:") else pat
    if not _known(spec.split(":")[0]):
        named = sorted(set(TRAFFIC_PATTERNS) - set(PATTERNS) - {"matrix", "permutation"})   # arrays: Python only
        raise _err("traffic.pattern", f"must be one of {', '.join(PATTERNS)} or a traffic pattern "
                                      f"({', '.join(named)}), or a list of them to sweep; got {pat!r}")
    entry = pattern_entry(spec.split(":")[0])
    try:
        traffic_pattern(spec)
    except ToposynthError as exc:
        raise _err("traffic.pattern", f"{pat!r}: {exc}") from None
    if entry.name in ("matrix", "permutation"):
        raise _err("traffic.pattern", f"{pat!r} needs an array; use pattern = \"file\" with a demand CSV")


def traffic_from_table(t: dict, seed: int = 1, base: Path | None = None) -> Traffic:
    """Validate a ``[traffic]`` table (``scales`` belongs to the study, not
    here). ``base``: directory a relative demand file is resolved against."""
    if not isinstance(t, dict):
        raise _err("traffic", f"must be a table ([traffic]), got {type(t).__name__}")
    seed = check_seed(seed, "the seed (--seed)")
    raw_pattern = t.get("pattern", "uniform")
    patterns = raw_pattern if isinstance(raw_pattern, list) and raw_pattern else [raw_pattern]
    for pat in patterns:
        _check_pattern(pat)
    pattern = list(patterns) if isinstance(raw_pattern, list) else patterns[0]
    raw_count = t.get("count")
    if isinstance(raw_count, list):
        if not raw_count or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in raw_count):
            raise _err("traffic.count", f"must be a positive integer or a list of them to sweep, got {raw_count!r}")
        count = list(raw_count)
    else:
        count = _int(t, "count", "traffic.", minimum=1)
    for pat in patterns:
        if pat in ("random", "local") and count is None:
            raise _err("traffic.count", f"the {pat} pattern needs a number of demands")
    for single in ("mixed", "app"):
        if single in patterns and isinstance(raw_pattern, list):
            raise _err("traffic.pattern", f"the {single} pattern cannot be swept with others; give it its own study")
    pattern_for_checks = patterns[0] if len(patterns) == 1 else ""
    shares = t.get("shares", [0.4, 0.5, 0.1])
    if (not isinstance(shares, list) or len(shares) < 2 or not all(isinstance(x, (int, float)) and x >= 0 for x in shares)
            or abs(sum(shares) - 1) > 1e-9):
        raise _err("traffic.shares", f"must be at least 2 non-negative fractions adding up to 1, got {shares!r}")
    dfile = t.get("file")
    if "file" in patterns:
        if not isinstance(dfile, str):
            raise _err("traffic.file", "the file pattern needs a CSV file name (header src,dst,amount)")
        if base is not None and not Path(dfile).is_absolute():
            dfile = str((base / dfile).resolve())
        if not Path(dfile).is_file():
            raise _err("traffic.file", f"{dfile!r} is not a file")
        from flows import Demands, FlowError  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)

        try:
            Demands.read_csv(dfile)  # validated up front: a bad amount would fail every candidate
        except FlowError as exc:
            raise _err("traffic.file", str(exc)) from None
    mapping = t.get("mapping", "id")
    alpha = t.get("alpha", 0.5)
    app = t.get("app", "")
    app_class = t.get("app_class", "S")
    if pattern_for_checks == "app":
        if not isinstance(app, str) or app.lower() not in NAS_KERNELS:
            raise _err("traffic.app", f"must be one of {', '.join(NAS_KERNELS)} (a NAS kernel skeleton), got {app!r}")
        if app_class not in NAS_CLASSES:
            raise _err("traffic.app_class", f"must be one of {', '.join(NAS_CLASSES)}, got {app_class!r}")
        if t.get("mapping", "id") not in ("id", "anneal"):
            raise _err("traffic.mapping", f"for an application: id (process p on PE p) or anneal, got {t['mapping']!r}")
        if "alpha" in t:
            raise _err("traffic.alpha", "alpha belongs to the mixed pattern")
    elif "app" in t or "app_class" in t:
        raise _err("traffic.app", "app and app_class belong to the app pattern (pattern = \"app\")")
    if pattern_for_checks not in ("mixed", "app") and ("mapping" in t or "alpha" in t):
        raise _err("traffic.mapping", "mapping and alpha belong to the mixed pattern (pattern = \"mixed\")")
    if pattern_for_checks == "mixed":
        # deferred: numba + scipy take 0.59 s to import (docs/ARCHITECTURE.md)
        from .mapping import MappingError, grid_map

        try:
            if not isinstance(mapping, str):
                raise MappingError(f"must be a mapping name such as 'fv2', or 'anneal[:START]', got {mapping!r}")
            grid_map(mapping.partition(":")[2] or "id" if mapping.startswith("anneal") else mapping)
        except MappingError as exc:
            raise _err("traffic.mapping", str(exc)) from None
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
            raise _err("traffic.alpha", f"must be a share in [0, 1], got {alpha!r}")
    return Traffic(pattern=pattern, count=count, shares=tuple(shares), file=dfile, mapping=str(mapping),
                   alpha=float(alpha), app=str(app).lower(), app_class=str(app_class), seed=seed)


# -------------------------------------------------------------------- physical
@dataclass(frozen=True)
class Physical:
    """How candidates are built: packaging (``none``: unit link capacities
    and one unit of latency per hop; ``bgl``: Blue Gene/L cards and boards;
    ``custom``: ``boards``), the wiring of every candidate (``wiring``, and
    ``wiring_of`` for single candidates by spec), the placement of
    lattices in nested ``blocks``, connector pins per level (lists sweep),
    pins per wire, router pins, and technology overrides."""

    packaging: str = "none"
    wiring: str = "flexible"
    wiring_of: dict = field(default_factory=dict)
    blocks: tuple[tuple[int, ...], ...] = ()
    connector_pins: dict = field(default_factory=dict)
    boards: tuple[dict, ...] = ()
    pins_per_wire: int = 2
    router_pins: int | None = None
    technology: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"packaging": self.packaging,
                             "wiring": {"default": self.wiring, **self.wiring_of} if self.wiring_of else self.wiring,
                             "blocks": [list(b) for b in self.blocks], "connector_pins": dict(self.connector_pins)}
        if self.packaging == "custom":
            d.update(boards=[dict(b) for b in self.boards], pins_per_wire=self.pins_per_wire,
                     router_pins=self.router_pins)
        if self.technology:
            d["technology"] = dict(self.technology)
        return d

    def wiring_for(self, spec: str | None) -> str:
        """The wiring of one candidate: its own entry, else the default."""
        return self.wiring_of.get(spec, self.wiring) if spec else self.wiring

    def place(self, topo: Topology) -> Topology:
        """The candidate with ``blocks`` applied to a lattice that has no placement."""
        if self.blocks and topo.placement is None and topo.coords is not None and topo.shape is not None:
            names: tuple[str, ...] | None
            if self.packaging == "custom":
                names = tuple(b["level"] for b in self.boards)
            else:
                names = BGL_LEVELS if len(self.blocks) == 3 else None
            topo = block_placement(topo, self.blocks, names)
        return topo

    def packaging_and_technology(self):
        """The :class:`flows.Packaging` and :class:`flows.Technology` (packaging bgl or custom)."""
        # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
        from flows.physical import Board, Packaging, RouterDelay, Technology

        if self.packaging == "custom":
            pk = Packaging(tuple(Board(**b) for b in self.boards), self.pins_per_wire, self.router_pins)
        else:
            pk = Packaging.bluegene_l()
        for level, pins in self.connector_pins.items():
            if isinstance(pins, list):
                raise StudyError(f"connector_pins.{level} is a sweep ({pins}); run the study's variants()")
            pk = pk.with_connector_pins(level, pins)
        tk = self.technology
        tech = Technology(tk.get("wire_delay_ns_per_m", 7.1), RouterDelay(
            tk.get("fo4_ns", 0.032), tk.get("router_base", 40.0), tk.get("router_arbiter", 23.0),
            tk.get("router_crossbar", 9.0)))
        return pk, tech

    def problem(self, topo: Topology, demands):
        """The flow problem of a (placed) candidate carrying ``demands``, with its own wiring."""
        import flows  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)
        from flows.physical import physical_problem  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

        if self.packaging == "none":
            return flows.FlowProblem.from_topology(topo, demands)
        pk, tech = self.packaging_and_technology()
        return physical_problem(topo, demands, tech, pk, wiring=self.wiring_for(topo.spec))

    def cost(self, topo: Topology, problem=None, arc_flow=None) -> Cost:
        """What the candidate costs (:mod:`synth.machine`): structure alone, or
        with the packaging's wires, wire length and pins once a problem (and
        for flexible wiring the capacity flow) is known."""
        if self.packaging == "none":
            return structural_cost(topo)

        # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)
        from flows.physical import link_lengths, physical_model

        pk, tech = self.packaging_and_technology()
        if problem is None:
            # the longest link in metres of wire (the packaging's measure), not in grid units
            longest = (float(link_lengths(topo.placement, pk, topo.links[:, 0], topo.links[:, 1]).max())
                       if topo.placement is not None and topo.num_links else None)
            return replace(structural_cost(topo), longest_link=longest)
        return physical_cost(topo, physical_model(topo, tech, pk), problem, arc_flow)


def physical_from_table(p: dict) -> Physical:
    """Validate a ``[physical]`` table."""
    if not isinstance(p, dict):
        raise _err("physical", f"must be a table ([physical]), got {type(p).__name__}")
    packaging = _choice(p, "packaging", "physical.", PACKAGINGS, "none")
    wiring, wiring_of = _wiring(p.get("wiring", "flexible"))
    blocks = p.get("blocks", [])
    if not isinstance(blocks, list) or not all(isinstance(b, list) and b and all(isinstance(x, int) and x > 0 for x in b)
                                               for b in blocks):
        raise _err("physical.blocks", f"must be a list of block shapes like [[1,1,2],[4,4,2],[8,8,8]], got {blocks!r}")
    pins = p.get("connector_pins", {})

    def _pins_ok(v: Any) -> bool:
        one = lambda x: isinstance(x, int) and not isinstance(x, bool) and x > 0  # noqa: E731
        return one(v) or (isinstance(v, list) and len(v) > 0 and all(one(x) for x in v))

    if not isinstance(pins, dict) or not all(_pins_ok(v) for v in pins.values()):
        raise _err("physical.connector_pins", "must be a table level = pins (or a list of pin counts to sweep), "
                                              f"e.g. {{node_card = 240}} or {{node_card = [200, 240, 320]}}, got {pins!r}")
    boards, pins_per_wire, router_pins, tech = _packaging_fields(p, packaging)
    if packaging in ("bgl", "custom"):
        from flows.physical import Packaging  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

        levels = ([b.level for b in Packaging.bluegene_l().boards] if packaging == "bgl"
                  else [b["level"] for b in boards])
        for lv in pins:
            if lv not in levels:
                raise _err("physical.connector_pins", f"unknown level {lv!r}; the {packaging} packaging has "
                                                      f"{', '.join(levels)}")
        if blocks and len(blocks) != len(levels):
            raise _err("physical.blocks", f"one block per packaging level: the {packaging} packaging has {len(levels)} "
                                           f"levels ({', '.join(levels)}), got {len(blocks)}")
    if packaging == "none" and (wiring != "flexible" or wiring_of or pins or blocks or tech):
        raise _err("physical.packaging", "wiring, blocks, connector_pins and technology need a packaging (bgl or custom)")
    return Physical(packaging=packaging, wiring=wiring, wiring_of=wiring_of, blocks=tuple(tuple(b) for b in blocks),
                    connector_pins=dict(pins), boards=boards, pins_per_wire=pins_per_wire, router_pins=router_pins,
                    technology=tech)


_TECH = {"wire_delay_ns_per_m": "wire delay (ns per metre)", "fo4_ns": "FO4 delay (ns)",
         "router_base": "fixed router delay (FO4)", "router_arbiter": "arbiter delay per log4(radix) (FO4)",
         "router_crossbar": "crossbar delay per log2(radix) (FO4)"}


def physical_from_options(packaging: str | None, wiring: str = "flexible", blocks: str | None = None,
                          connector_pins: list[str] | None = None,
                          errors: type[ToposynthError] | None = None) -> Physical:
    """A physical model from command-line options, spelled as a study's:
    ``packaging`` ``bgl`` or a TOML file whose ``[physical]`` table (or top
    level) describes one (``packaging = "custom"``, ``boards = [...]``);
    ``blocks`` ``1x1x2,4x4x2,8x8x8``; ``connector_pins`` ``["node_card=240"]``.
    Errors name the options (``--connector-pins``), raised as ``errors``
    (default :class:`flows.FlowError`).

    >>> physical_from_options("bgl", blocks="1x1x2,4x4x2,8x8x8", connector_pins=["node_card=240"]).connector_pins
    {'node_card': 240}
    """
    if errors is None:
        from flows import FlowError  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)

        errors = FlowError
    if packaging is None:
        if wiring != "flexible" or connector_pins:
            raise errors("--wiring and --connector-pins need --packaging")
        return Physical(blocks=_blocks_option(blocks, errors)) if blocks else Physical()
    pins: dict[str, Any] = {}
    for item in connector_pins or []:
        level, _, n = item.partition("=")
        try:
            pins[level] = int(n)
        except ValueError:
            raise errors(f"--connector-pins needs LEVEL=PINS (e.g. node_card=240), got {item!r}") from None
    if packaging.endswith(".toml"):
        try:
            doc = tomllib.loads(read_text(Path(packaging), "packaging file", errors))
        except tomllib.TOMLDecodeError as exc:
            raise errors(f"--packaging {packaging}: not valid TOML: {exc}") from None
        except RecursionError:  # tomllib recurses once per nesting level
            raise errors(f"--packaging {packaging}: nests arrays or tables too deeply to be a packaging") from None
        table = dict(doc.get("physical", doc))
        table.setdefault("packaging", "custom")
        table["connector_pins"] = {**table.get("connector_pins", {}), **pins}
        if wiring != "flexible" or "wiring" not in table:
            table["wiring"] = wiring
    elif packaging in ("bgl",):
        table = {"packaging": packaging, "wiring": wiring, "connector_pins": pins}
    else:
        raise errors(f"--packaging takes bgl or a TOML file with a [physical] table (packaging = \"custom\", "
                     f"boards = [...]), got {packaging!r}")
    if blocks:
        table["blocks"] = [list(b) for b in _blocks_option(blocks, errors)]
    try:
        return physical_from_table(table)
    except StudyError as exc:
        # the study's field names, spelled as the command's options
        msg = str(exc).replace("study field physical.", "--").replace("connector_pins", "connector-pins")
        raise errors(msg) from None


def _blocks_option(text: str, errors: type[Exception]) -> tuple[tuple[int, ...], ...]:
    try:
        return tuple(tuple(int(x) for x in b.split("x")) for b in text.split(","))
    except ValueError:
        raise errors(f"--blocks needs shapes like 1x1x2,4x4x2,8x8x8 (innermost first), got {text!r}") from None


def _packaging_fields(p: dict, packaging: str) -> tuple[tuple[dict, ...], int, int | None, dict]:
    """Validated custom boards, pins per wire, router pins and technology overrides."""
    from flows import FlowError  # deferred: pulp + scipy take 0.27 s to import (docs/ARCHITECTURE.md)
    from flows.physical import Board  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

    boards = p.get("boards")
    if packaging != "custom":
        for k in ("boards", "pins_per_wire", "router_pins"):
            if k in p:
                raise _err(f"physical.{k}", "belongs to packaging = \"custom\"")
        out_boards: tuple[dict, ...] = ()
    else:
        if not isinstance(boards, list) or not boards or not all(isinstance(b, dict) for b in boards):
            raise _err("physical.boards", "a custom packaging needs boards = [{level = ..., width_m = ..., height_m = ..., "
                                          "signal_layers = ..., wire_pitch_m = ..., connectors = ..., "
                                          "pins_per_connector = ...}, ...], innermost level first")
        for i, b in enumerate(boards):
            try:
                Board(**b)
            except TypeError as exc:
                raise _err(f"physical.boards[{i}]", f"{exc}; fields: level, width_m, height_m, signal_layers, "
                                                    "wire_pitch_m, connectors, pins_per_connector, connector_run_m") from None
            except FlowError as exc:
                raise _err(f"physical.boards[{i}]", str(exc)) from None
        out_boards = tuple(dict(b) for b in boards)
    ppw = p.get("pins_per_wire", 2)
    if isinstance(ppw, bool) or not isinstance(ppw, int) or ppw < 1:
        raise _err("physical.pins_per_wire", f"must be a positive integer (2 for differential pairs), got {ppw!r}")
    rp = p.get("router_pins")
    if rp is not None and (isinstance(rp, bool) or not isinstance(rp, int) or rp < 1):
        raise _err("physical.router_pins", f"must be a positive integer, got {rp!r}")
    tech = p.get("technology", {})
    if not isinstance(tech, dict):
        raise _err("physical.technology", "must be a table")
    for k, v in tech.items():
        if k not in _TECH:
            raise _err(f"physical.technology.{k}", f"unknown field; valid: {', '.join(_TECH)}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
            raise _err(f"physical.technology.{k}", f"the {_TECH[k]} must be a non-negative number, got {v!r}")
    return out_boards, ppw, rp, dict(tech)



def _wiring(w: Any) -> tuple[str, dict[str, str]]:
    """``physical.wiring``: one mode for every candidate, or a table with a
    ``default`` and modes for single candidates (spec = mode)."""
    if isinstance(w, str):
        if w not in WIRINGS:
            raise _err("physical.wiring", f"must be one of {', '.join(WIRINGS)}; got {w!r}")
        return w, {}
    if not isinstance(w, dict):
        raise _err("physical.wiring", f"must be flexible, uniform, or a table {{default = \"flexible\", "
                                      f"\"torus:8x8x8\" = \"uniform\"}}; got {w!r}")
    default = "flexible"
    out: dict[str, str] = {}
    for k, v in w.items():
        if v not in WIRINGS:
            raise _err(f"physical.wiring.{k}", f"must be one of {', '.join(WIRINGS)}; got {v!r}")
        if k == "default":
            default = v
            continue
        try:
            spec = from_spec(k).spec or k
        except ToposynthError as exc:
            raise _err("physical.wiring", f"{k!r} is not a candidate spec: {exc}") from None
        out[spec] = v
    return default, out
