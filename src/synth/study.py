"""Study files: what a design-space exploration evaluates, validated up front.

A study is a TOML file (or the same dict in Python)::

    name = "my-study"
    seed = 1

    [candidates]
    specs = ["torus:8x4", "rtt:a=4"]          # any registry specs
    sweep = [{family = "torus", shape = ["8x4", "4x4x2"]}]   # family x parameter lists
    enumerate = {nodes = 8, max_degree = 3}   # every connected graph (graph6 specs)
    files = ["mine.graphml"]                  # user graphs
    max_degree = 4                            # prune candidates above this router degree
    # Blue Gene/L compositions: factor pools ("enumerate:N:D" = every connected
    # graph of N nodes, degree <= D), row graphs placed canonically, at their
    # minimum cut width, or in every linear placement; limit = first K row graphs
    hierarchy = {rows = ["enumerate:8:3"], columns = ["ring:4"], upper_rows = ["ring:4"],
                 upper_columns = ["ring:4"], placements = "canonical", limit = 20}
    # networks found by search for this machine, packaging and traffic (synth.study_search)
    search = [{label = "searched", degree = 4, moves = 50000, restarts = 2}]

    [traffic]
    pattern = "random"        # uniform | random | local | file | mixed | app | any traffic pattern (bitreversal, ...);
                              # a list sweeps it, as a list of counts does
    mapping = "ft2"           # mixed: tasks of a 2-D torus application placed by this mapping,
                              # or "anneal[:START]": simulated annealing from START (default id)
    alpha = 0.5               # mixed: share of each task's traffic to its logical neighbours
    app = "cg"                # app: a NAS kernel skeleton (cg, mg, ft, is, lu, bt, sp), one process per
    app_class = "S"           #   PE, bytes per pair as demands; mapping = "id" or "anneal"
    count = 128               # random/local: number of demands
    shares = [0.4, 0.5, 0.1]  # local: share per packaging level, then across
    file = "demands.csv"      # file: CSV src,dst,amount
    scales = [0.5, 1.0]       # demand scales for the latency objective

    [physical]
    packaging = "none"        # none (unit link capacities, latency 1 per hop) | bgl | custom
    wiring = "flexible"       # flexible | uniform
    blocks = [[1,1,2],[4,4,2],[8,8,8]]   # placement of lattice candidates
    connector_pins = {node_card = 240}

    [ranking]
    objective = "both"        # capacity | latency | both (default: both with scales, else capacity)
    eps = 0.05
    baseline = "torus:8x4"    # marked in the report
    prune = true              # skip candidates whose cheap certified bound cannot beat the best so far
    lp_limit = 1000000        # latency: exact HiGHS LP where the PTAS search falls short, if it has at most this many columns (0: never)
    latency_model = "linear"  # linear (router + wire delay, the same at every load) | queueing (plus
                              #   Kleinrock's wait on every channel: latency grows with load; flow deviation)
    service = 1.0             # queueing: a packet's service time on one unit of capacity (default 1 hop;
                              #   with a packaging a 256-byte packet on one wire, 1462.9 ns)
    variability = 1.0         # queueing: squared coefficient of variation of the service time (1 M/M/1, 0 M/D/1)
    terminals = false         # queueing: also the wait of the PEs' own injection and ejection channels

    [cross_check]
    top = 3                   # winners re-solved exactly with HiGHS

    [simulation]
    top = 2                   # winners (and the baseline) simulated up to saturation
    preset = "tpds2010"       # a sim preset (sim.PRESETS)
    step = 0.05               # load step, phits/cycle/PE
    max_load = 1.0
    seeds = 1                 # each simulation with the seeds seed, seed+1, ...: mean and 95% interval

    [dask]                    # where `toposynth run` evaluates (not part of the study's results:
    scheduler = "tcp://head:8786"   # it does not change the fingerprint); a [dask] section makes
    workers = 4               # dask the default backend; workers: the size of a local cluster
                              # (no scheduler); --backend, --scheduler and --jobs win over it

Every field is checked when the study is loaded; a bad one raises
:class:`StudyError` naming the field and the valid values.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from candidates import from_spec
from common import defaults
from common.errors import MAX_SEED, ToposynthError
from common.size import format_count, format_seconds
from common.textfile import read_text
from sim import PRESETS

from .backends import check_scheduler
from .errors import StudyError
from .machine import COST_MEASURES, Machine, machine_from_table
from .study_search import search_entries
from .workload import Physical, Traffic, _choice, _err, _int, physical_from_table, traffic_from_table

__all__ = ["Study", "StudyError", "load_study", "DEFAULT_STUDY", "BUILTIN_STUDIES", "builtin_study"]


OBJECTIVES = ("capacity", "latency", "both")
#: the study field of each swept axis (the others: physical.connector_pins.LEVEL)
_WHERE = {"pattern": "traffic.pattern", "count": "traffic.count", "max_length": "machine.max_length"}

#: simulations repeated with at most this many seeds
MAX_SIM_SEEDS = 1000
#: a local dask cluster of at most this many worker processes
MAX_WORKERS = 1024
#: an enumerated pool of at most this many graphs (estimated before enumerating)
MAX_ENUMERATED = 200_000
#: the least a candidate of an enumerated pool costs: building, isomorphism and a flow solve of a graph of
#: up to 10 nodes (measured: the 194 8-node graphs of degree <= 3 in 7.8 s on a busy 2-core machine)
SECONDS_PER_CANDIDATE = 0.04

_SECTIONS = {
    "": {"name", "seed", "description", "machine", "candidates", "traffic", "physical", "ranking", "cross_check",
         "simulation", "dask"},
    "candidates": {"specs", "sweep", "enumerate", "files", "max_degree", "hierarchy", "search"},
    "traffic": {"pattern", "count", "shares", "file", "scales", "mapping", "alpha", "app", "app_class"},
    "physical": {"packaging", "wiring", "blocks", "connector_pins", "boards", "pins_per_wire", "router_pins",
                 "technology"},
    "ranking": {"objective", "eps", "baseline", "prune", "lp_limit", "cost", "latency_model", "service",
                "variability", "terminals"},
    "cross_check": {"top"},
    "simulation": {"top", "preset", "step", "max_load", "routing", "seeds"},
    "dask": {"scheduler", "workers"},
}


@dataclass(frozen=True)
class Study:
    """A validated study (see the module docstring for the fields).

    Build one with :func:`study_from_dict`, :func:`load_study` or
    :func:`builtin_study`; what the study leaves out takes its default.

    >>> s = study_from_dict({"name": "rings", "candidates": {"specs": ["ring:8", "torus:4x2"]},
    ...                      "traffic": {"pattern": "tornado"}})
    >>> s.name, s.specs, s.traffic.pattern, s.objective, s.eps, s.cross_check_top
    ('rings', ('ring:8', 'torus:4x2'), 'tornado', 'capacity', 0.05, 3)
    """

    name: str = "study"
    seed: int = 1
    description: str = ""
    specs: tuple[str, ...] = ()
    sweep: tuple[dict, ...] = ()
    enumerate: dict | None = None
    hierarchy: dict | None = None
    files: tuple[str, ...] = ()
    max_degree: int | None = None
    traffic: Traffic = field(default_factory=Traffic)
    #: demand scales of the latency objective (given in [traffic])
    scales: tuple[float, ...] = ()
    physical: Physical = field(default_factory=Physical)
    objective: str = "both"
    eps: float = defaults.EPS
    baseline: str | None = None
    cross_check_top: int = 3
    prune: bool = True
    lp_limit: int = 1_000_000
    sim_top: int = 0
    sim_preset: str = "tpds2010"
    sim_step: float = defaults.LOAD_STEP
    sim_max_load: float = defaults.MAX_LOAD
    sim_routing: str = "auto"
    #: simulations per candidate, with the seeds seed, seed + 1, ...
    sim_seeds: int = 1
    machine: Machine = field(default_factory=Machine)
    cost: str = "links"
    #: the latency's load model: "linear" or "queueing" (then ``queueing_service`` / ``queueing_variability``)
    latency_model: str = "linear"
    queueing_service: float = 1.0
    queueing_variability: float = 1.0
    queueing_terminals: bool = False
    #: searched candidates ([candidates] search: synth.study_search), their defaults filled in
    search: tuple[dict, ...] = ()
    #: the [dask] section ({"scheduler": ADDR, "workers": N}, either optional): where a run
    #: evaluates, not what it computes -- left out of the fingerprint
    dask: dict | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "seed": self.seed, "description": self.description,
            "machine": {k: v for k, v in self.machine.to_dict().items() if v is not None},
            "candidates": {"specs": list(self.specs), "sweep": [dict(s) for s in self.sweep],
                           "enumerate": self.enumerate, "hierarchy": self.hierarchy, "files": list(self.files),
                           "max_degree": self.max_degree,
                           # only when set: the fingerprints of studies without it stay what they were
                           **({"search": [dict(e) for e in self.search]} if self.search else {})},
            "traffic": {**self.traffic.to_dict(), "scales": list(self.scales)},
            "physical": self.physical.to_dict(),
            "ranking": {"objective": self.objective, "eps": self.eps, "baseline": self.baseline, "prune": self.prune,
                        "lp_limit": self.lp_limit, "cost": self.cost,
                        # only when set: the fingerprints of studies without it stay what they were
                        **({"latency_model": self.latency_model, "service": self.queueing_service,
                            "variability": self.queueing_variability,
                            **({"terminals": True} if self.queueing_terminals else {})}
                           if self.latency_model != "linear" else {})},
            "cross_check": {"top": self.cross_check_top},
            "simulation": {"top": self.sim_top, "preset": self.sim_preset, "routing": self.sim_routing,
                           "step": self.sim_step, "max_load": self.sim_max_load,
                           # only when set: the fingerprints of studies without it stay what they were
                           **({"seeds": self.sim_seeds} if self.sim_seeds != 1 else {})},
            **({"dask": dict(self.dask)} if self.dask is not None else {}),
        }

    @property
    def queueing(self):
        """The latency's :class:`flows.QueueingModel`, or None under the linear load model."""
        if self.latency_model != "queueing":
            return None
        from flows.queueing import QueueingModel  # deferred: scipy takes 0.24 s to import (docs/ARCHITECTURE.md)

        return QueueingModel(self.queueing_service, self.queueing_variability, self.queueing_terminals)

    def variants(self) -> list[tuple[str, "Study"]]:
        """The studies of a sweep: one per combination of the values given as
        lists in ``traffic.pattern``, ``traffic.count``,
        ``physical.connector_pins`` and ``machine.max_length`` (labels like
        ``"count=2048,node_card=240"``);
        ``[("", self)]`` when nothing is swept."""
        axes: list[tuple[str, list]] = []
        if isinstance(self.traffic.pattern, (list, tuple)):
            axes.append(("pattern", list(self.traffic.pattern)))
        if isinstance(self.traffic.count, (list, tuple)):
            axes.append(("count", list(self.traffic.count)))
        axes += [(k, v) for k, v in self.physical.connector_pins.items() if isinstance(v, list)]
        if isinstance(self.machine.max_length, tuple):
            axes.append(("max_length", list(self.machine.max_length)))
        for k, vals in axes:
            # a value twice would be two variants of one label: run twice into one directory
            seen: set[str] = set()
            for v in vals:
                if repr(v) in seen:
                    where = _WHERE.get(k, f"physical.connector_pins.{k}")
                    raise _err(where, f"the sweep lists {v!r} twice; give each value once")
                seen.add(repr(v))
        if not axes:
            return [("", self)]
        out: list[tuple[str, Study]] = []
        for combo in itertools.product(*(vals for _, vals in axes)):
            pins = dict(self.physical.connector_pins)
            changes: dict[str, Any] = {}
            machine = self.machine
            for (k, _), v in zip(axes, combo):
                if k in ("pattern", "count"):
                    changes[k] = v
                elif k == "max_length":
                    machine = replace(machine, max_length=v)
                else:
                    pins[k] = v
            label = ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                             for (k, _), v in zip(axes, combo))
            # the label names the variant's directory under --out: one path component, whatever the values
            label = "".join("-" if c in ":/\\\0" else c for c in label)
            if any(label == x for x, _ in out):
                # two values that differ only where a directory name cannot (a:b and a-b)
                raise StudyError(f"study field {_WHERE.get(axes[0][0], 'physical.connector_pins.' + axes[0][0])}: "
                                 f"two swept combinations are both variant {label!r} (one directory); "
                                 f"give values that differ in more than ':', '/' or '\\'")
            out.append((label, replace(self, traffic=replace(self.traffic, **changes),
                                       physical=replace(self.physical, connector_pins=pins), machine=machine,
                                       name=f"{self.name} [{label}]")))
        return out

    def fingerprint(self) -> str:
        """A hash of everything that changes results (not the name or description)."""
        d = self.to_dict()
        d.pop("name")
        d.pop("description")
        d.pop("dask", None)  # where the evaluations ran does not change them
        # the contents of the files the study reads, not just their names: a
        # resumed run must not reuse records computed from an older version
        d["file_contents"] = {f: _file_digest(f) for f in (*self.files, self.traffic.file) if f}
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def _file_digest(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _str_list(d: dict, key: str, where: str) -> tuple[str, ...]:
    v = d.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise _err(f"{where}{key}", f"must be a list of non-empty strings, got {v!r}")
    return tuple(v)


def _table(d: dict, key: str) -> dict:
    v = d.get(key, {})
    if not isinstance(v, dict):
        raise _err(key, f"must be a table ([{key}]), got {type(v).__name__}")
    unknown = set(v) - _SECTIONS[key]
    if unknown:
        raise _err(f"{key}.{sorted(unknown)[0]}", f"unknown field; valid fields of [{key}]: {', '.join(sorted(_SECTIONS[key]))}")
    return v


def study_from_dict(d: dict, base: Path | None = None) -> Study:
    """Validate a study dict (as parsed from TOML). ``base``: directory that
    relative file names in the study are resolved against.

    Every bad field is reported at once, in one line:

    >>> study_from_dict({"candidates": {"specs": ["torus:4x4", "nosuch:3"]}, "ranking": {"eps": 2},
    ...                  "simulation": {"top": -1}})
    Traceback (most recent call last):
    ...
    synth.errors.StudyError: 3 problems in the study: (1) study field candidates.specs: 'nosuch:3': ...; (2) study field ranking.eps: must be a number in (0, 1), got 2; (3) study field simulation.top: must be an integer >= 0, got -1
    """
    try:
        return _study_from_dict(d, base)
    except StudyError as first:
        found = _all_errors(d, base, str(first))
        if len(found) == 1:
            raise
        raise StudyError(f"{len(found)} problems in the study: "
                         + "; ".join(f"({k}) {m}" for k, m in enumerate(found, 1))) from None


#: a study's error names its field first: ``study field traffic.scales: ...``
_FIELD = re.compile(r"^study field ([A-Za-z_][\w.]*)")
#: at most this many problems are gathered (each one more validation)
_MAX_PROBLEMS = 12


def _all_errors(d: dict, base: Path | None, first: str) -> list[str]:
    """Every problem of study ``d``: validate, drop the field the error names (or, in a list, the entry it
    quotes), validate again, until it passes or an error names no field. A problem in a field already
    dropped from is a consequence of the dropping (an emptied pool), not the user's: it is left out."""
    found = [first]
    work = copy.deepcopy(d)
    dropped: list[str] = []
    msg = first
    while len(found) < _MAX_PROBLEMS:
        m = _FIELD.match(msg)
        if m is None or not _drop(work, m.group(1), msg):
            break
        dropped.append(m.group(1))
        try:
            _study_from_dict(work, base)
            break
        except StudyError as exc:
            msg = str(exc)
        except ToposynthError:
            break
        m2 = _FIELD.match(msg)
        if m2 is None or any(m2.group(1) == x or x.startswith(m2.group(1) + ".") or m2.group(1).startswith(x + ".")
                             for x in dropped):
            break
        if msg in found:
            break
        found.append(msg)
    return found


def _drop(work: dict, path: str, msg: str) -> bool:
    """Remove the field at dotted ``path`` from ``work`` (a list's entry quoted in ``msg`` only); whether
    anything was removed."""
    keys = path.split(".")
    parent: Any = work
    for k in keys[:-1]:
        if not isinstance(parent, dict) or not isinstance(parent.get(k), dict):
            return False
        parent = parent[k]
    if not isinstance(parent, dict) or keys[-1] not in parent:
        return False
    value = parent[keys[-1]]
    if isinstance(value, list):
        bad = [x for x in value if isinstance(x, str) and f"{x!r}:" in msg]
        if bad and len(bad) < len(value):
            parent[keys[-1]] = [x for x in value if x not in bad]
            return True
    del parent[keys[-1]]
    return True


def _study_from_dict(d: dict, base: Path | None = None) -> Study:
    if not isinstance(d, dict):
        raise StudyError("a study must be a table of fields")
    unknown = set(d) - _SECTIONS[""]
    if unknown:
        raise _err(sorted(unknown)[0], f"unknown field; valid top-level fields: {', '.join(sorted(_SECTIONS['']))}")

    name = d.get("name", "study")
    if not isinstance(name, str) or not name:
        raise _err("name", f"must be a non-empty string, got {name!r}")
    seed = _int(d, "seed", "", minimum=0, default=1)
    if seed > MAX_SEED:
        # every command's seed rule (common.errors.check_seed), where the study is read: a seed the simulator
        # refuses would otherwise stop the run at its first simulation, after the flows
        raise _err("seed", f"must be an integer in 0..{MAX_SEED} (32 bits), got {seed}")
    desc = d.get("description", "")
    if not isinstance(desc, str):
        raise _err("description", "must be a string")

    c = _table(d, "candidates")
    specs = _str_list(c, "specs", "candidates.")
    for s in specs:
        try:
            from_spec(s)
        except ToposynthError as exc:
            raise _err("candidates.specs", f"{s!r}: {exc}") from None
    sweep = c.get("sweep", [])
    if not isinstance(sweep, list) or not all(isinstance(x, dict) and isinstance(x.get("family"), str) for x in sweep):
        raise _err("candidates.sweep", "must be a list of tables with a 'family' and parameter lists, "
                   "e.g. {family = \"rtt\", a = [4, 8]}")
    for x in sweep:
        for k, v in x.items():
            if k != "family" and not isinstance(v, list):
                raise _err(f"candidates.sweep.{k}", f"must be a list of values to sweep, got {v!r}")
    en = c.get("enumerate")
    if en is not None:
        if not isinstance(en, dict) or set(en) - {"nodes", "max_degree", "min_degree", "regular"}:
            raise _err("candidates.enumerate", "must be {nodes = N, max_degree = D} (optional min_degree, regular)")
        _int(en, "nodes", "candidates.enumerate.", minimum=2)
        _int(en, "max_degree", "candidates.enumerate.", minimum=1)
        _int(en, "min_degree", "candidates.enumerate.", minimum=0)
        if "regular" in en and not isinstance(en["regular"], bool):
            # TOML has booleans: a number here is a mistake, not a truth value
            raise _err("candidates.enumerate.regular", f"must be true or false, got {en['regular']!r}")
        if "nodes" not in en or "max_degree" not in en:
            raise _err("candidates.enumerate", "needs nodes and max_degree")
        if en["nodes"] > 10:
            raise _err("candidates.enumerate.nodes", f"at most 10 (the pool grows too fast beyond), got {en['nodes']}")
        _check_enumerated_pool(en)
    hier = c.get("hierarchy")
    if hier is not None:
        hier = _hierarchy(hier)
    files = _str_list(c, "files", "candidates.")
    if base is not None:
        files = tuple(str((base / f).resolve()) if not Path(f).is_absolute() else f for f in files)
    for f in files:
        if not Path(f).is_file():
            raise _err("candidates.files", f"{f!r} is not a file")
    max_degree = _int(c, "max_degree", "candidates.", minimum=1)
    if not (specs or sweep or en or files or hier or c.get("search")):
        raise _err("candidates", "the pool is empty: give specs, sweep, enumerate, files or search")

    t = _table(d, "traffic")
    traffic = traffic_from_table({k: v for k, v in t.items() if k != "scales"}, seed, base)
    scales = t.get("scales", [])
    if not isinstance(scales, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                               and math.isfinite(x) and x > 0 for x in scales):
        raise _err("traffic.scales", f"must be a list of finite positive numbers, got {scales!r}")

    physical = physical_from_table(_table(d, "physical"))
    packaging = physical.packaging

    r = _table(d, "ranking")
    objective = _choice(r, "objective", "ranking.", OBJECTIVES, "both" if scales else "capacity")
    eps = r.get("eps", defaults.EPS)
    if not isinstance(eps, (int, float)) or not 0 < eps < 1:
        raise _err("ranking.eps", f"must be a number in (0, 1), got {eps!r}")
    baseline = r.get("baseline")
    if baseline is not None:
        if not isinstance(baseline, str):
            raise _err("ranking.baseline", "must be a spec string")
        try:
            from_spec(baseline)
        except ToposynthError as exc:
            raise _err("ranking.baseline", f"{baseline!r}: {exc}") from None
    if objective in ("latency", "both") and not scales:
        raise _err("traffic.scales", "the latency objective needs demand scales, e.g. scales = [0.5, 1.0]")
    prune = r.get("prune", True)
    if not isinstance(prune, bool):
        raise _err("ranking.prune", f"must be true or false, got {prune!r}")
    lp_limit = _int(r, "lp_limit", "ranking.", minimum=0, default=1_000_000)
    x = _table(d, "cross_check")
    top = _int(x, "top", "cross_check.", minimum=0, default=3)
    sm = _table(d, "simulation")
    sim_top = _int(sm, "top", "simulation.", minimum=0, default=0)

    sim_preset = _choice(sm, "preset", "simulation.", tuple(PRESETS), "tpds2010")
    step = sm.get("step", defaults.LOAD_STEP)
    max_load = sm.get("max_load", defaults.MAX_LOAD)
    for k, v in (("step", step), ("max_load", max_load)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 4:
            raise _err(f"simulation.{k}", f"must be a load in (0, 4] phits/cycle/PE, got {v!r}")
    if step > max_load:
        raise _err("simulation.step", f"must not exceed simulation.max_load ({max_load})")
    if max_load / step > defaults.MAX_LOAD_POINTS or step < 1e-9:
        # each load is a simulation of every simulated candidate: a tiny step is millions of them
        raise _err("simulation.step", f"{step!r} up to max_load {max_load} is {max_load / step:.3g} loads per "
                   f"search, more than {defaults.MAX_LOAD_POINTS}; use a step of at least "
                   f"{max(max_load / defaults.MAX_LOAD_POINTS, 1e-9):.3g}")
    from sim.routing import ROUTINGS  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    sim_routing = _choice(sm, "routing", "simulation.", tuple(ROUTINGS), "auto")
    sim_seeds = _int(sm, "seeds", "simulation.", minimum=1, default=1)
    if sim_seeds > MAX_SIM_SEEDS:
        # every seed is a whole saturation search of every simulated candidate
        loads = math.ceil(float(max_load) / float(step))
        sims = max(sim_top, 1) + (baseline is not None)
        raise _err("simulation.seeds", f"{sim_seeds:,} seeds would be about {format_count(sim_seeds * sims * loads)} "
                                       f"simulations ({sims} candidate(s) x up to {loads} loads a seed); at most "
                                       f"{MAX_SIM_SEEDS:,} seeds (the 95% interval narrows as 1/sqrt(seeds): "
                                       f"30 seeds give most of it)")
    # the simulations' seeds seed .. seed + seeds - 1 (the seed itself is checked where it is read)
    if seed + sim_seeds - 1 > MAX_SEED:
        raise _err("simulation.seeds", f"{sim_seeds} seeds from seed {seed} go past the largest seed {MAX_SEED}")
    cost = _choice(r, "cost", "ranking.", tuple(COST_MEASURES), "links")
    latency_model = _choice(r, "latency_model", "ranking.", ("linear", "queueing"), "linear")
    service = r.get("service", defaults.BGL_PACKET_NS if packaging != "none" else defaults.QUEUEING_SERVICE)
    variability = r.get("variability", 1.0)
    if latency_model == "linear" and ("service" in r or "variability" in r or "terminals" in r):
        raise _err("ranking.service", "service, variability and terminals set the queueing load model; add "
                                      "latency_model = \"queueing\"")
    terminals = r.get("terminals", False)
    if not isinstance(terminals, bool):
        raise _err("ranking.terminals", f"must be true or false, got {terminals!r}")
    if terminals and packaging != "none":
        raise _err("ranking.terminals", "the PEs' own channels need a plain topology (under a packaging the "
                                        "flow is in wires); drop it or the packaging")
    if isinstance(service, bool) or not isinstance(service, (int, float)) or not 0 < service < float("inf"):
        raise _err("ranking.service", f"must be a finite positive service time, got {service!r}")
    if isinstance(variability, bool) or not isinstance(variability, (int, float)) or not 0 <= variability < float("inf"):
        raise _err("ranking.variability", f"must be a finite number >= 0, got {variability!r}")
    if cost in ("wire_length", "wires", "pins") and packaging == "none":
        raise _err("ranking.cost", f"{cost} needs a packaging (physical.packaging = \"bgl\" or \"custom\"); "
                                   "without one use links, ports, radix or routers")
    try:
        machine = machine_from_table(d.get("machine", {}))
    except ToposynthError as exc:
        raise StudyError(str(exc)) from None
    if machine.wire_length is not None and packaging == "none":
        raise _err("machine.wire_length", "a wire-length budget needs a packaging (physical.packaging)")
    search: tuple[dict, ...] = ()
    if "search" in c:
        search = search_entries(c["search"], pes=machine.pes, radix=machine.radix, packaging=physical.packaging,
                                seed=seed)
    dask = None
    if "dask" in d:
        dk = _table(d, "dask")
        dask = {}
        if "scheduler" in dk:
            dask["scheduler"] = check_scheduler(dk["scheduler"], "study field dask.scheduler")
        workers = _int(dk, "workers", "dask.", minimum=1, maximum=MAX_WORKERS,
                       why="a local cluster starts a process per worker")
        if workers is not None:
            dask["workers"] = workers
    study = Study(name=name, seed=seed, description=desc, specs=specs, sweep=tuple(sweep), enumerate=en, hierarchy=hier,
                 files=files, max_degree=max_degree, traffic=traffic, scales=tuple(float(s) for s in scales),
                 physical=physical, objective=objective, eps=float(eps), baseline=baseline, cross_check_top=top,
                 prune=prune, lp_limit=lp_limit, sim_top=sim_top, sim_preset=sim_preset, sim_step=float(step),
                 sim_max_load=float(max_load), sim_routing=sim_routing, sim_seeds=sim_seeds, machine=machine,
                 cost=cost, dask=dask, search=search, latency_model=latency_model,
                 queueing_service=float(service), queueing_variability=float(variability),
                 queueing_terminals=terminals)
    study.variants()  # a swept value given twice is refused here, with the other fields' problems
    return study


def _check_enumerated_pool(en: dict) -> None:
    """Refuse an enumerated pool too large to evaluate, from the enumeration's own count estimate (what
    `toposynth enumerate` checks) before a graph is enumerated: each graph is built, compared with the others
    and flow-solved."""
    from candidates.enumeration.graphs import check_enumeration  # deferred: numba (docs/ARCHITECTURE.md)

    try:
        est = check_enumeration(en["nodes"], en["max_degree"], min_degree=en.get("min_degree", 0),
                                regular=en.get("regular", False))
    except ToposynthError as exc:
        raise _err("candidates.enumerate", str(exc)) from None
    if est > MAX_ENUMERATED:
        raise _err("candidates.enumerate",
                   f"graphs of {en['nodes']} nodes with maximum degree {en['max_degree']} are about "
                   f"{format_count(est)} candidates, each built, compared and flow-solved (more than "
                   f"{format_seconds(est * SECONDS_PER_CANDIDATE)} at {SECONDS_PER_CANDIDATE * 1e3:g} ms a candidate); "
                   f"a study enumerates at most {format_count(MAX_ENUMERATED)}: lower nodes or max_degree, "
                   f"or add min_degree or regular = true")


PLACEMENTS = ("canonical", "min-cutwidth", "all")
_HIER_POOLS = (("rows", 8), ("columns", 4), ("upper_rows", 4), ("upper_columns", 4))


def _hierarchy(h: Any) -> dict:
    where = "candidates.hierarchy"
    if not isinstance(h, dict):
        raise _err(where, "must be a table {rows = [...], columns = [...], upper_rows = [...], upper_columns = [...]}")
    valid = {k for k, _ in _HIER_POOLS} | {"placements", "limit"}
    unknown = set(h) - valid
    if unknown:
        raise _err(f"{where}.{sorted(unknown)[0]}", f"unknown field; valid: {', '.join(sorted(valid))}")
    out: dict[str, Any] = {}
    for key, size in _HIER_POOLS:
        pool = h.get(key)
        if not isinstance(pool, list) or not pool or not all(isinstance(x, str) for x in pool):
            raise _err(f"{where}.{key}", f"must be a non-empty list of {size}-node graph specs or 'enumerate:{size}:D'")
        for x in pool:
            if x.startswith("enumerate:"):
                parts = x.split(":")
                if len(parts) != 3 or not all(p.isdigit() for p in parts[1:]) or int(parts[1]) != size:
                    raise _err(f"{where}.{key}", f"{x!r}: write enumerate:{size}:D (every connected {size}-node graph "
                                                 "of degree <= D)")
                continue
            try:
                n = from_spec(x).n
            except ToposynthError as exc:
                raise _err(f"{where}.{key}", f"{x!r}: {exc}") from None
            if n != size:
                raise _err(f"{where}.{key}", f"{x!r} has {n} nodes; the Blue Gene/L {key} graphs have {size}")
        out[key] = list(pool)
    out["placements"] = _choice(h, "placements", where + ".", PLACEMENTS, "canonical")
    lim = _int(h, "limit", where + ".", minimum=1)
    if lim is not None:
        out["limit"] = lim
    return out


def load_study(path: str | Path) -> Study:
    """Read and validate a TOML study file.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "rings.toml"
    >>> _ = p.write_text('''
    ... name = "rings"
    ... [candidates]
    ... specs = ["ring:8", "torus:4x2"]
    ... [ranking]
    ... objective = "capacity"
    ... ''')
    >>> s = load_study(p)
    >>> s.name, s.specs, s.objective
    ('rings', ('ring:8', 'torus:4x2'), 'capacity')
    """
    path = Path(path)
    text = read_text(path, "study file", StudyError)
    try:
        d = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"study file {str(path)!r} is not valid TOML: {exc}") from None
    except RecursionError:
        # tomllib recurses once per nesting level of an array or inline table: no study nests this deep
        raise StudyError(f"study file {str(path)!r} nests arrays or tables too deeply to be a study") from None
    return study_from_dict(d, path.parent)


#: The built-in default: a complete small study (32 routers) that runs in a couple of minutes.
DEFAULT_STUDY: dict[str, Any] = {
    "name": "default",
    "description": "32-router candidates (tori, twisted tori, mesh, hypercube, twin torus, products) ranked "
                   "by capacity and minimum latency under 128 random demands, unit link capacities; the best 3 "
                   "checked against the exact LP, the best 2 and the baseline simulated to saturation.",
    "seed": 1,
    "machine": {"pes": 32},
    "candidates": {
        "specs": ["torus:8x4", "torus:4x4x2", "rt:a=4", "rtt:a=4", "mesh:8x4", "hypercube:5", "ring:32",
                  "ndt:4x2x2", "product:ring:8*path:4", "twisted:8x4:t1=2"],
        "sweep": [{"family": "twisted", "shape": ["8x4"], "t1": [1, 3]}],
    },
    "traffic": {"pattern": "random", "count": 128, "scales": [0.05, 0.1, 0.15, 0.25, 0.35]},
    "ranking": {"objective": "both", "eps": 0.05, "baseline": "torus:8x4"},
    "cross_check": {"top": 3},
    "simulation": {"top": 2, "preset": "tpds2010", "step": 0.1, "max_load": 1.0},
}

BGL_MIDPLANE_STUDY: dict[str, Any] = {
    "name": "bgl-midplane",
    "description": (
        "Blue Gene/L midplane synthesis ('topology-synthesis-mcf-bgl', Table I: T = 2048, 3072, 4096): 512 routers. "
        "Baseline: the machine's own 8x8x8 torus on 1x1x2 compute cards and 4x4x2 node cards, with uniform wiring "
        "(its links are all alike: every board cross-section and connector split equally over the links through "
        "it), as the paper's torus; every composition has flexible wiring (the flow chooses each link's wires), "
        "the paper's design flow. Pool (230 candidates), the paper's hierarchy (a row graph and a column graph "
        "on each node card, a row and a column graph of node cards on the midplane): (a) every connected 8-node "
        "graph of degree <= 3 (194: the paper's 192 of maximum degree exactly 3, plus the path and the cycle) "
        "along the rows at its minimum cut width, rings of 4 along the columns and one level up; (b) the column "
        "graph and the upper-level graph each over all six connected 4-node graphs (path, star, cycle, paw, "
        "diamond, complete; all of degree <= 3, the paper's rule), the same graph along the midplane's rows and "
        "columns, jointly (36 pairs), with the row graph g6:Gr`GpK (the latency winner of part (a)). The full "
        "cross product (194 x 6^3) is out of reach; the paper does not say how it combined the levels. T random "
        "demands: 40% inside a compute card, 50% inside a node card, 10% across node cards. Flow in wires "
        "under the bgl packaging preset (flows.Packaging.bluegene_l: 200 connector pins per node card as in "
        "the paper; 120 per compute card, card sizes, 2/6/6 signal layers and 1 mm pitch per differential "
        "pair are our assumptions); latency in ns with 7.1 ns/m FR4 wires and the radix-dependent router "
        "delay of flows.RouterDelay (90 nm, our coefficients). Run time: 690 evaluations (230 candidates x 3 "
        "demand counts, 3 scales each), measured 1.3 s each (median) on a free core, 4-5 s for the "
        "uniform-wired torus: about 15 CPU-minutes, 10 minutes with --jobs 2 on an idle 2-core machine (77 "
        "minutes for this and bgl-pins together with the 2 cores shared by three other jobs). No LP cross-check by default: HiGHS needs minutes per "
        "512-router instance."),
    "seed": 1,
    "machine": {"pes": 512},
    "candidates": {
        "specs": ["torus:8x8x8"] + [f"bgl:g6:Gr`GpK*{c}*{u}*{u}"
                                    for c in ("path:4", "g6:Cs", "ring:4", "g6:C{", "g6:C}", "complete:4")
                                    for u in ("path:4", "g6:Cs", "ring:4", "g6:C{", "g6:C}", "complete:4")],
        "hierarchy": {"rows": ["enumerate:8:3"], "columns": ["ring:4"], "upper_rows": ["ring:4"],
                      "upper_columns": ["ring:4"], "placements": "min-cutwidth"},
    },
    "traffic": {"pattern": "local", "count": [2048, 3072, 4096], "shares": [0.4, 0.5, 0.1],
                "scales": [0.5, 1.0, 1.5]},
    "physical": {"packaging": "bgl", "wiring": {"default": "flexible", "torus:8x8x8": "uniform"},
                 "blocks": [[1, 1, 2], [4, 4, 2], [8, 8, 8]]},
    "ranking": {"objective": "both", "eps": 0.05, "baseline": "torus:8x8x8"},
    "cross_check": {"top": 0},
}

BGL_PINS_STUDY: dict[str, Any] = {
    **BGL_MIDPLANE_STUDY,
    "name": "bgl-pins",
    "description": (
        "The pins sweep of 'topology-synthesis-mcf-bgl' (its Figs. 4 and 5): the midplane study with the first "
        "24 row graphs of part (a) and all of part (b) (the 36 column and upper-level graphs) with "
        "the uniform-wired torus: 61 candidates), 2048 demands at demand scale 1.6 (the paper's coefficient; near the capacity "
        "of the rings-only compositions, 1.83, but not of those with complete upper levels, 2.43), "
        "and the network pins between a node card and the midplane raised from 200 (the paper's figure) to "
        "320; for each pin count the winner and its minimum latency. Same assumptions as bgl-midplane. Run "
        "time: 305 evaluations, measured 0.9 s each (median) on a free core, about 5 CPU-minutes."),
    "candidates": {**BGL_MIDPLANE_STUDY["candidates"],
                   "hierarchy": {**BGL_MIDPLANE_STUDY["candidates"]["hierarchy"], "limit": 24}},
    "traffic": {**BGL_MIDPLANE_STUDY["traffic"], "count": 2048, "scales": [1.6]},
    "physical": {**BGL_MIDPLANE_STUDY["physical"], "connector_pins": {"node_card": [200, 220, 240, 280, 320]}},
}

TWISTED_TORI_STUDY: dict[str, Any] = {
    "name": "twisted-tori",
    "description": (
        "'twisted-tori-tpds2010': RT(8), RTT(8) (16 x 8), PT/PTT/PDTT(4) (8 x 4 x 4) and the 16x8 mesh at 128 "
        "routers, RT(4) and RTT(4) at 32, under uniform, bit-complement, bit-reversal and perfect-shuffle traffic "
        "(the simulator's patterns as demand matrices) with unit link capacities (one phit per cycle per link "
        "direction): lambda is the injection rate per PE each topology sustains; under uniform traffic the LP "
        "gives exactly the analytic bounds 4/a, 6/a, 4/a, 6/a and 48/(7a) up to their approximation. No "
        "physical model. Two machines, ranked apart: 128 PEs, and RT(4)/RTT(4) at 32 PEs."),
    "seed": 1,
    "machine": {"pes": 128, "compare_sizes": True},
    "candidates": {"specs": ["rt:a=8", "rtt:a=8", "pt:a=4", "ptt:a=4", "pdtt:a=4", "mesh:16x8", "rt:a=4", "rtt:a=4"]},
    "traffic": {"pattern": ["uniform", "sim:bitcomplement", "sim:bitreversal", "sim:shuffle"],
                "scales": [0.2, 0.4, 0.6]},
    "ranking": {"objective": "both", "eps": 0.05, "baseline": "rt:a=8"},
    "cross_check": {"top": 1},
}

TWIN_TORUS_STUDY: dict[str, Any] = {
    "name": "5dt-vs-3d",
    "description": (
        "'5d-twin-torus-extoll' with the same cards at 256 PEs: the 3D torus 8x8x4 against the 5D twin torus "
        "4x4x2x2x2 (two (n+1)-port cards per node, each a router with one PE, joined by an internal link), "
        "uniform traffic, unit link capacities, one unit of latency per hop (internal hops included, as in "
        "the paper)."),
    "seed": 1,
    "machine": {"pes": 256},
    "candidates": {"specs": ["torus:8x8x4", "ndt:4x4x2x2x2"]},
    "traffic": {"pattern": "uniform", "scales": [0.1, 0.2, 0.3]},
    "ranking": {"objective": "both", "eps": 0.05, "baseline": "torus:8x8x4"},
    "cross_check": {"top": 0},
}

FAMILIES_1024_STUDY: dict[str, Any] = {
    "name": "families-1024",
    "description": (
        "1024 PEs: torus vs twisted torus vs dragonfly vs fat tree vs Slim Fly (and a flattened butterfly) at equal "
        "cost: every candidate is built from the same router chip of at most 20 ports (network links + PEs), the "
        "smallest radix that makes a 1024-PE Slim Fly; what each spends beyond that chip is on the Pareto axis, "
        "ports (network ports + PE ports: the SerDes and cable ends paid for), with routers and links in the "
        "ranking. Wire length is not compared (no packaging: the dragonfly's global and the fat tree's core links "
        "are long cables, a torus's short). Uniform traffic and bit complement (PE i to 1023 - i: the farthest PE "
        "on the tori, group g to group 31 - g on the dragonfly). Unit link capacities: lambda is the injection "
        "rate every PE sustains (phits/cycle/PE), routing-free (the flow picks its paths, non-minimal ones "
        "included). The best 5 and the baseline (the 16x8x8 torus) simulated to saturation; routing auto gives "
        "each family its own: adaptive on the tori, up/down over all minimal paths on the fat tree, UGAL-L on the "
        "dragonfly, the table routing (minimal adaptive with an up*/down* escape) on the Slim Fly and the "
        "flattened butterfly. Run times measured on a 2-core machine are in docs/results/design-flow.md; the "
        "report states this run's own."),
    "seed": 1,
    # the study file studies/families-1024.toml is this study with its reasons in comments (a test keeps them equal)
    "machine": {"pes": 1024, "radix": 20},
    "candidates": {"specs": ["torus:16x8x8", "pdtt:a=8", "torus:8x8x8:c=2", "rtt:a=16:c=2", "pt:a=4:c=8",
                             "pdtt:a=4:c=8", "dragonfly:a=8:p=4:h=4:g=32", "fattree:k=16", "slimfly:q=8:p=8",
                             "flatfly:k=4:n=5", "hyperx:8x8x4:t=4"]},
    "traffic": {"pattern": ["uniform", "sim:bitcomplement"]},
    "ranking": {"objective": "capacity", "eps": 0.05, "baseline": "torus:16x8x8", "cost": "ports"},
    "cross_check": {"top": 0},
    "simulation": {"top": 5, "step": 0.1},
}

_BEST_COMPOSED = "bgl:g6:Gr`GpK*{}*complete:4*complete:4"

BGL_SEARCH_STUDY: dict[str, Any] = {
    "name": "bgl-search",
    "description": (
        "Synthesis under packaging on the Blue Gene/L midplane of bgl-midplane: the same 512 routers on compute "
        "cards (1x1x2) and node cards (4x4x2), the same pins (200 per node card, 120 per compute card), boards, "
        "technology and traffic (T = 2048, 3072, 4096 random demands, 40% inside a compute card, 50% inside a "
        "node card, 10% across), flow in wires. Listed: the machine's own 8x8x8 torus with uniform wiring (the "
        "baseline, radix 7) and the best compositions of bgl-midplane (row graph g6:Gr`GpK, columns P4, C4 or K4, "
        "K4 x K4 between node cards; radix 12), flexible wiring. Searched (objective physical: the busiest board "
        "cross-section or connector of an even shortest-path split of each T's demands): 'searched' polishes the "
        "best composition under its own cards at its radix (start C4 columns, temperature 0.05, 20,000 moves, 2 "
        "restarts), 'searched-radix7' starts from the torus at the torus's radix (degree 6, 20,000 moves, 2 "
        "restarts). Each T searches its own design. Ranked by minimum latency (ns) at demand scale 0.5, capacity "
        "beside it; the winner and the baseline simulated to saturation. Run "
        "time: about 9 minutes with --jobs 2 on an idle 2-core machine (docs/results/candidates.md, 'Synthesis "
        "under packaging')."),
    "seed": 1,
    "machine": {"pes": 512},
    "candidates": {
        "specs": ["torus:8x8x8"] + [_BEST_COMPOSED.format(c) for c in ("path:4", "ring:4", "complete:4")],
        "search": [
            {"label": "searched", "degree": 11, "start": _BEST_COMPOSED.format("ring:4"), "temperature": 0.05,
             "moves": 20000, "restarts": 2, "regular": False},
            {"label": "searched-radix7", "degree": 6, "start": "torus:8x8x8", "temperature": 0.3,
             "moves": 20000, "restarts": 2, "regular": False},
        ],
    },
    "traffic": {"pattern": "local", "count": [2048, 3072, 4096], "shares": [0.4, 0.5, 0.1],
                "scales": [0.5, 1.0, 1.5]},
    "physical": {"packaging": "bgl", "wiring": {"default": "flexible", "torus:8x8x8": "uniform"},
                 "blocks": [[1, 1, 2], [4, 4, 2], [8, 8, 8]]},
    "ranking": {"objective": "both", "eps": 0.05, "baseline": "torus:8x8x8"},
    "cross_check": {"top": 0},
    "simulation": {"top": 1, "step": 0.05},
}

INTERPOSER_20_STUDY: dict[str, Any] = {
    "name": "interposer-20",
    "description": (
        "Chip scale, the NetSmith/Kite setting: 20 routers on a 5x4 grid of unit spacing (router i at (i mod 5, "
        "i div 5)), 4 network ports and one PE each, links no longer than 1.5 / 2.0 / 2.5 (small / medium / large: "
        "machine.max_length, one variant each). Listed: the mesh, the folded torus, Kite small, medium and large "
        "(Bharadwaj et al., DAC 2020), Butter Donut and Double Butterfly, as NetSmith's artefact gives them "
        "(interposer:NAME); a design longer than a variant allows is over its budget there. Searched: the best "
        "of 4 restarts of 50,000 moves at each length, objective mix (average hops and the busiest link of an "
        "even split of uniform traffic, equally weighted), at most 4 links per router. Ranked by uniform "
        "capacity (phits/cycle/PE on unit links, certified to 1%; every ranked design then solved exactly by "
        "HiGHS) and minimum latency in hops at demand scale 0.1 (the average hop count: the flow takes shortest "
        "paths that far below capacity). Links are two-way: "
        "NetSmith's own designs use one-way channels and are not listed. Run time: under 20 s."),
    "seed": 1,
    "machine": {"pes": 20, "radix": 5, "max_length": [1.5, 2.0, 2.5]},
    "candidates": {
        "specs": [f"interposer:{d}" for d in ("mesh", "folded_torus", "kite_small", "kite_medium", "kite_large",
                                               "butter_donut", "double_butterfly")],
        "search": [{"label": "searched", "grid": "5x4", "regular": False, "objective": "mix", "moves": 50000,
                    "restarts": 4}],
    },
    "traffic": {"pattern": "uniform", "scales": [0.1]},
    "ranking": {"objective": "both", "eps": 0.01, "baseline": "interposer:mesh"},
    "cross_check": {"top": 8},
}

#: The built-in studies: name -> study dict (:func:`builtin_study` validates one; ``toposynth run builtin:NAME`` runs one).
BUILTIN_STUDIES = {"default": DEFAULT_STUDY, "bgl-midplane": BGL_MIDPLANE_STUDY, "bgl-pins": BGL_PINS_STUDY,
                   "twisted-tori": TWISTED_TORI_STUDY,
                   "5dt-vs-3d": TWIN_TORUS_STUDY, "families-1024": FAMILIES_1024_STUDY,
                   "bgl-search": BGL_SEARCH_STUDY, "interposer-20": INTERPOSER_20_STUDY}


def builtin_study(name: str = "default") -> Study:
    """The built-in study ``name`` (a key of :data:`BUILTIN_STUDIES`),
    validated: what ``toposynth run builtin:NAME`` runs (``toposynth run``
    alone runs ``default``); an unknown name is one error line.

    >>> s = builtin_study("twisted-tori")
    >>> s.name, s.specs[:5]
    ('twisted-tori', ('rt:a=8', 'rtt:a=8', 'pt:a=4', 'ptt:a=4', 'pdtt:a=4'))
    >>> builtin_study("nosuch")
    Traceback (most recent call last):
    ...
    synth.errors.StudyError: no built-in study 'nosuch'; built-in studies: default, ...
    """
    if name not in BUILTIN_STUDIES:
        raise StudyError(f"no built-in study {name!r}; built-in studies: {', '.join(BUILTIN_STUDIES)}")
    return study_from_dict(BUILTIN_STUDIES[name])
