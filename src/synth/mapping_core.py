"""Mapping functions, task placements and task traffic (the core of :mod:`synth.mapping`).

Everything here is re-exported by :mod:`synth.mapping`, which documents it.

>>> grid_map("fd.fv2").task_shape((8, 4))
(8, 8)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from candidates.generators.lattice import mesh, torus
from candidates.topology import Topology
from common.errors import ToposynthError
from flows.problem import Demands

__all__ = [
    "MappingError",
    "GridMap",
    "TaskPlacement",
    "MAPPINGS",
    "identity",
    "diagonal_shift",
    "horizontal_concentration",
    "vertical_concentration",
    "twisted_concentration",
    "grid_map",
    "compose",
    "place",
    "placement_from_routers",
    "map_demands",
    "task_index",
    "task_coords",
    "logical_topology",
    "local_traffic",
    "global_traffic",
    "mixed_traffic",
]


class MappingError(ToposynthError):
    """A mapping, its topology or its task traffic is invalid."""


MappingError.__module__ = "synth.mapping"  # its public home (tracebacks, pickles)


# ----------------------------------------------------------------- the paper's functions
def identity(x, y):
    """``id(x, y) = (x, y)``.

    >>> identity(3, 1)
    (3, 1)
    """
    return x, y


def diagonal_shift(x, y, m: int):
    """``fd(x, y) = ((x + y) mod m, y)`` on ``R_{m,n}``: row ``y`` shifted by ``y``.

    >>> diagonal_shift(7, 3, 8)
    (2, 3)
    """
    return (x + y) % m, y


def horizontal_concentration(x, y, c: int):
    """``f^h_c(x, y) = (floor(x / c), y)``: ``R_{cm,n} -> R_{m,n}``, c horizontal neighbours together.

    >>> horizontal_concentration(5, 2, 2)
    (2, 2)
    """
    return x // c, y


def vertical_concentration(x, y, c: int):
    """``f^v_c(x, y) = (x, floor(y / c))``: ``R_{m,cn} -> R_{m,n}``, c vertical neighbours together.

    >>> vertical_concentration(5, 3, 2)
    (5, 1)
    """
    return x, y // c


def twisted_concentration(x, y, m: int, n: int):
    """``f^t_c(x, y) = ((x + floor(y/n) m/2) mod m, y - floor(y/n) n)``: ``R_{m,cn} -> R_{m,n}``.

    Band ``k = floor(y / n)`` of ``n`` task rows lands on the routers shifted
    right by ``k m / 2``: with c = 2 on RTT(a) (m = 2a, n = a) task row
    ``a`` sits right above task row ``a - 1`` across the twisted wraparound,
    so every logical neighbour is a physical neighbour (dilation 1) and no
    two neighbours share a router.

    >>> twisted_concentration(1, 5, 8, 4)
    (5, 1)
    >>> twisted_concentration(1, 3, 8, 4)
    (1, 3)
    """
    k = y // n
    return (x + k * (m // 2)) % m, y - k * n


# ------------------------------------------------------------------------- GridMap
_STEP_RE = re.compile(r"^(id|f_?d|f_?([hvt])_?(\d+))$")
_KIND_TEXT = {
    "id": "identity id(x,y) = (x,y)",
    "fd": "diagonal shift fd(x,y) = (x+y mod m, y)",
    "fh": "horizontal concentration f^h_c(x,y) = (x//c, y)",
    "fv": "vertical concentration f^v_c(x,y) = (x, y//c)",
    "ft": "twisted concentration f^t_c(x,y) = (x + (y//n) m/2 mod m, y mod n)",
}

#: The paper's named mappings (Sections 3.3, 3.4 and 5.2), name -> description.
MAPPINGS: dict[str, str] = {
    "id": "identity (c = 1)",
    "fd": "diagonal shift (c = 1)",
    "fh2": "horizontal union, c = 2",
    "fv2": "vertical union, c = 2",
    "ft2": "twisted union, c = 2",
    "fd.fv2": "vertical union then diagonal shift, c = 2",
    "fv2.fh2": "horizontal then vertical union, c = 4",
    "ft2.fh2": "horizontal then twisted union, c = 4",
}

_VALID = "id, fd, fh<c>, fv<c>, ft<c> (c >= 1) joined by '.' as f.g = f o g, e.g. 'fd.fv2', 'ft2.fh2'"


@dataclass(frozen=True)
class GridMap:
    """A mapping/concentration function or a composition of them.

    ``steps`` lists ``(kind, c)`` outermost first, as the composition is
    written (``fd o fv2`` -> ``(("fd", 1), ("fv", 2))``); the innermost step
    is applied to the tasks first. Build one with :func:`grid_map`.

    >>> f = grid_map("fd.fv2")
    >>> f.name, f.concentration, f.task_shape((8, 4))
    ('fd.fv2', 2, (8, 8))
    >>> f(np.array([1]), np.array([3]), (8, 4))   # fv2: (1, 1); fd: (2, 1)
    (array([2]), array([1]))
    """

    steps: tuple[tuple[str, int], ...]

    @property
    def name(self) -> str:
        return ".".join(k if k in ("id", "fd") else f"{k}{c}" for k, c in self.steps)

    @property
    def concentration(self) -> int:
        """Tasks per router: the product of the concentrations ``c``."""
        out = 1
        for _, c in self.steps:
            out *= c
        return out

    def _shapes(self, shape: Sequence[int]) -> list[tuple[int, int]]:
        """Range shape of every step (outermost first), then the task shape."""
        if len(shape) != 2:
            raise MappingError(f"mapping {self.name!r} needs a 2D physical topology, got shape {tuple(shape)}")
        m, n = int(shape[0]), int(shape[1])
        if m < 1 or n < 1:
            raise MappingError(f"mapping {self.name!r}: physical shape must be positive, got {(m, n)}")
        out = [(m, n)]
        for kind, c in self.steps:
            if kind == "fh":
                m = m * c
            elif kind in ("fv", "ft"):
                if kind == "ft" and m % 2:
                    raise MappingError(f"twisted concentration ft{c} shifts by m/2 and needs an even width m, got m={m}")
                n = n * c
            out.append((m, n))
        return out

    def task_shape(self, shape: Sequence[int]) -> tuple[int, int]:
        """The task grid (domain rectangle) for a physical ``shape``.

        >>> grid_map("ft2.fh2").task_shape((8, 4))
        (16, 8)
        """
        return self._shapes(shape)[-1]

    def __call__(self, x, y, shape: Sequence[int]):
        """Physical coordinates of tasks ``(x, y)`` (arrays) for a physical ``shape``."""
        shapes = self._shapes(shape)
        x = np.asarray(x, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        W, H = shapes[-1]
        if np.any((x < 0) | (x >= W) | (y < 0) | (y >= H)):
            raise MappingError(f"mapping {self.name!r} on physical shape {tuple(shape)} takes tasks in the {W} x {H} grid; "
                               "a task coordinate is outside it")
        # innermost step first: step i maps shapes[i+1] -> shapes[i]
        for i in range(len(self.steps) - 1, -1, -1):
            kind, c = self.steps[i]
            m, n = shapes[i]
            if kind == "fd":
                x, y = diagonal_shift(x, y, m)
            elif kind == "fh":
                x, y = horizontal_concentration(x, y, c)
            elif kind == "fv":
                x, y = vertical_concentration(x, y, c)
            elif kind == "ft":
                x, y = twisted_concentration(x, y, m, n)
        return x, y

    def __matmul__(self, other: "GridMap") -> "GridMap":
        """``f @ g`` is the composition ``f o g`` (g first)."""
        return compose(self, other)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "steps": [list(s) for s in self.steps], "concentration": self.concentration}


def grid_map(spec: "str | GridMap") -> GridMap:
    """Parse a mapping name: ``id``, ``fd``, ``fh<c>``, ``fv<c>``, ``ft<c>`` and
    compositions ``f.g`` (= ``f o g``).

    >>> grid_map("id.ft2.fh2").steps
    (('id', 1), ('ft', 2), ('fh', 2))
    >>> grid_map("fx2")
    Traceback (most recent call last):
    ...
    synth.mapping.MappingError: unknown mapping step 'fx2' in 'fx2'; valid: id, fd, fh<c>, fv<c>, ft<c> (c >= 1) joined by '.' as f.g = f o g, e.g. 'fd.fv2', 'ft2.fh2'
    """
    if isinstance(spec, GridMap):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise MappingError(f"a mapping must be a name such as 'fd.fv2', got {spec!r}; valid: {_VALID}")
    steps = []
    for tok in re.split(r"[.∘]", spec.replace(" o ", ".")):
        tok = tok.strip().lower()
        mt = _STEP_RE.match(tok)
        if not mt:
            raise MappingError(f"unknown mapping step {tok!r} in {spec!r}; valid: {_VALID}")
        if mt.group(2):
            c = int(mt.group(3))
            if c < 1:
                raise MappingError(f"concentration in {tok!r} must be >= 1")
            steps.append(("f" + mt.group(2), c))
        else:
            steps.append((mt.group(1).replace("_", ""), 1))
    return GridMap(tuple(steps))


def compose(*maps: "str | GridMap") -> GridMap:
    """The composition ``maps[0] o maps[1] o ...`` (the last one applied first).

    >>> compose("fd", "fv2").name
    'fd.fv2'
    """
    if not maps:
        raise MappingError("compose needs at least one mapping")
    return GridMap(tuple(s for f in maps for s in grid_map(f).steps))


# ------------------------------------------------------------------- task numbering
def task_index(xy, shape: Sequence[int]):
    """Task number of grid coordinates ``(x, y)`` in a ``W x H`` task grid: ``x * H + y``.

    >>> task_index((2, 1), (4, 3))
    7
    """
    x, y = xy
    H = int(shape[1])
    return np.asarray(x) * H + np.asarray(y) if np.ndim(x) else int(x) * H + int(y)


def task_coords(t, shape: Sequence[int]):
    """Grid coordinates ``(x, y)`` of task numbers ``t`` (inverse of :func:`task_index`).

    >>> task_coords(7, (4, 3))
    (2, 1)
    """
    H = int(shape[1])
    if np.ndim(t):
        t = np.asarray(t, dtype=np.int64)
        return t // H, t % H
    return int(t) // H, int(t) % H


# --------------------------------------------------------------------- placements
@dataclass(frozen=True, eq=False)
class TaskPlacement:
    """Where every task runs: ``router[t]`` and the terminal slot ``terminal[t]`` in it.

    ``terminals[r]`` is the number of terminals of router ``r`` (the
    topology's concentration); ``mapping`` names the function that built it
    (``""`` for an arbitrary assignment), ``task_shape`` the task grid.

    >>> import candidates as cd
    >>> p = place("fv2", cd.rt(2).with_concentration(2))
    >>> p.router.tolist()[:6], p.terminal.tolist()[:6]
    ([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1])
    """

    router: np.ndarray
    terminal: np.ndarray
    terminals: np.ndarray
    mapping: str = ""
    spec: str = ""
    task_shape: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        r = np.asarray(self.router, dtype=np.int64).reshape(-1)
        k = np.asarray(self.terminal, dtype=np.int64).reshape(-1)
        term = np.asarray(self.terminals, dtype=np.int64).reshape(-1)
        if len(r) != len(k):
            raise MappingError(f"router and terminal arrays differ in length ({len(r)} vs {len(k)})")
        if len(r) and (r.min() < 0 or r.max() >= len(term)):
            raise MappingError(f"a task is placed on a router outside 0..{len(term) - 1}")
        if len(r) and (k.min() < 0 or np.any(k >= term[r])):
            t = int(np.flatnonzero((k < 0) | (k >= term[r]))[0])
            raise MappingError(f"task {t} uses terminal {int(k[t])} of router {int(r[t])}, which has {int(term[r[t]])}")
        slot = np.cumsum(np.concatenate([[0], term]))[r] + k
        if len(np.unique(slot)) != len(slot):
            t = int(np.flatnonzero(np.bincount(slot) > 1)[0])
            raise MappingError(f"two tasks share terminal slot {t}; every terminal runs at most one task")
        for a in (r, k, term):
            a.setflags(write=False)
        object.__setattr__(self, "router", r)
        object.__setattr__(self, "terminal", k)
        object.__setattr__(self, "terminals", term)
        if self.task_shape is not None:
            object.__setattr__(self, "task_shape", (int(self.task_shape[0]), int(self.task_shape[1])))

    @property
    def num_tasks(self) -> int:
        return int(len(self.router))

    @property
    def n_routers(self) -> int:
        return int(len(self.terminals))

    @property
    def terminal_index(self) -> np.ndarray:
        """Global terminal number of every task (``sim`` numbers terminals router by router)."""
        off = np.concatenate([[0], np.cumsum(self.terminals)])
        return off[self.router] + self.terminal

    def demands(self, demands: Demands, *, keep_local: bool = False) -> Demands:
        """Router-level demands of task-level ``demands`` (see :func:`map_demands`)."""
        return map_demands(demands, self, keep_local=keep_local)

    def router_matrix(self, M) -> np.ndarray:
        """Router-level (n, n) matrix of a task-level (T, T) traffic matrix (diagonal = intra-router).

        >>> import candidates as cd
        >>> p = place("fv2", cd.rt(2).with_concentration(2))
        >>> float(p.router_matrix(np.ones((16, 16))).sum()), float(p.router_matrix(np.ones((16, 16)))[0, 0])
        (256.0, 4.0)
        """
        M = np.asarray(M, dtype=np.float64)
        T = self.num_tasks
        if M.shape != (T, T):
            raise MappingError(f"a task traffic matrix must be ({T}, {T}), got {M.shape}")
        P = np.zeros((T, self.n_routers))
        P[np.arange(T), self.router] = 1.0
        return P.T @ M @ P

    def terminal_matrix(self, M) -> np.ndarray:
        """Terminal-level matrix of a task-level (T, T) matrix, for ``traffic.demand``.

        Terminals without a task send and receive nothing.
        """
        M = np.asarray(M, dtype=np.float64)
        T = self.num_tasks
        if M.shape != (T, T):
            raise MappingError(f"a task traffic matrix must be ({T}, {T}), got {M.shape}")
        n_term = int(self.terminals.sum())
        out = np.zeros((n_term, n_term))
        ti = self.terminal_index
        out[np.ix_(ti, ti)] = M
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"mapping": self.mapping, "spec": self.spec,
                "task_shape": None if self.task_shape is None else list(self.task_shape),
                "router": self.router.tolist(), "terminal": self.terminal.tolist(),
                "terminals": self.terminals.tolist()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TaskPlacement":
        ts = d.get("task_shape")
        return cls(np.asarray(d["router"]), np.asarray(d["terminal"]), np.asarray(d["terminals"]),
                   d.get("mapping", ""), d.get("spec", ""), None if ts is None else tuple(ts))


def _slots_in_order(router: np.ndarray, n: int) -> np.ndarray:
    """Terminal slot of every task: its rank among the tasks of its router, in task order."""
    order = np.argsort(router, kind="stable")
    counts = np.bincount(router, minlength=n)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    k = np.empty(len(router), dtype=np.int64)
    k[order] = np.arange(len(router)) - start[router[order]]
    return k


def placement_from_routers(router, topo: Topology, *, mapping: str = "",
                           task_shape: tuple[int, int] | None = None) -> TaskPlacement:
    """A placement from the router of every task; terminals are given in task order.

    >>> import candidates as cd
    >>> placement_from_routers([1, 0, 1], cd.ring(3).with_concentration(2)).terminal.tolist()
    [0, 0, 1]
    """
    r = np.asarray(router, dtype=np.int64).reshape(-1)
    if len(r) and (r.min() < 0 or r.max() >= topo.n):
        raise MappingError(f"a task is placed on a router outside 0..{topo.n - 1}")
    over = np.flatnonzero(np.bincount(r, minlength=topo.n) > topo.terminals)
    if len(over):
        v = int(over[0])
        raise MappingError(f"router {v} gets {int((r == v).sum())} tasks but has {int(topo.terminals[v])} terminals; "
                           f"raise the concentration (e.g. '{topo.spec or topo.family}:c=...') or spread the tasks")
    return TaskPlacement(r, _slots_in_order(r, topo.n), topo.terminals, mapping, topo.spec, task_shape)


def _coord_lookup(coords: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The router at every coordinate of the box ``shape`` (-1: none)."""
    look = np.full(shape, -1, dtype=np.int64)
    look[tuple(coords.T)] = np.arange(len(coords))
    return look


def place(mapping: "str | GridMap", topo: Topology) -> TaskPlacement:
    """Place the tasks of a logical 2D grid on a 2D lattice topology by a mapping function.

    The topology must have 2D coordinates (RT, RTT, 2D tori and meshes,
    2D twisted tori) and ``c`` terminals on every router, ``c`` the
    mapping's concentration. Task ``t = x * H + y`` of the ``W x H`` task
    grid goes to the router at ``f(x, y)``.

    >>> import candidates as cd
    >>> p = place("fd", cd.rtt(4))
    >>> cd.rtt(4).coords[p.router[[task_index((1, 3), p.task_shape)]]].tolist()
    [[4, 3]]
    >>> place("fv2", cd.rtt(4))
    Traceback (most recent call last):
    ...
    synth.mapping.MappingError: mapping 'fv2' puts 2 tasks on every router but rtt:a=4 has 1 terminal(s) per router; use a concentrated topology such as 'rtt:a=4:c=2'
    """
    f = grid_map(mapping)
    if topo.coords is None or topo.shape is None or len(topo.shape) != 2:
        raise MappingError(f"mapping {f.name!r} needs a 2D lattice topology (rt, rtt, torus:WxH, mesh:WxH), "
                           f"got {topo.spec or topo.family}")
    c = f.concentration
    if not np.all(topo.terminals == c):
        name = topo.spec or topo.family
        base = re.sub(r":c=\d+", "", name)
        have = sorted(set(topo.terminals.tolist()))
        raise MappingError(f"mapping {f.name!r} puts {c} tasks on every router but {name} has "
                           f"{'/'.join(map(str, have))} terminal(s) per router; use a concentrated topology such as "
                           f"'{base}:c={c}'" if c > 1 else
                           f"mapping {f.name!r} puts 1 task on every router but {name} has "
                           f"{'/'.join(map(str, have))} terminals per router; use '{base}' or a concentrating mapping")
    shape = topo.shape
    W, H = f.task_shape(shape)
    t = np.arange(W * H, dtype=np.int64)
    x, y = task_coords(t, (W, H))
    px, py = f(x, y, shape)
    look = _coord_lookup(topo.coords, shape)
    router = look[px, py]
    if np.any(router < 0):
        raise MappingError(f"mapping {f.name!r} sends a task to a coordinate with no router in {topo.spec}")
    counts = np.bincount(router, minlength=topo.n)
    if not np.all(counts == c):
        raise MappingError(f"mapping {f.name!r} is not {c}-to-1 on shape {shape}: router loads {sorted(set(counts.tolist()))}")
    return TaskPlacement(router, _slots_in_order(router, topo.n), topo.terminals, f.name, topo.spec, (W, H))


def map_demands(demands: Demands, placement: TaskPlacement, *, keep_local: bool = False) -> Demands:
    """Router-level demands of task-level demands: task ``s -> t`` becomes
    ``router[s] -> router[t]``; repeated router pairs are added up.

    Demands between tasks on the same router never enter the network and are
    dropped unless ``keep_local`` (then they stay as ``r -> r`` entries,
    which :class:`flows.FlowProblem` must not be given).

    >>> import candidates as cd
    >>> p = place("fv2", cd.rt(2).with_concentration(2))
    >>> d = map_demands(Demands([0, 0, 2], [1, 2, 0], [1.0, 2.0, 3.0]), p)
    >>> d.src.tolist(), d.dst.tolist(), d.amount.tolist()
    ([0, 1], [1, 0], [2.0, 3.0])
    """
    if len(demands) and (demands.src.max() >= placement.num_tasks or demands.dst.max() >= placement.num_tasks):
        raise MappingError(f"demands name task {int(max(demands.src.max(), demands.dst.max()))} "
                           f"but the placement has {placement.num_tasks} tasks")
    s = placement.router[demands.src]
    d = placement.router[demands.dst]
    mapped = Demands(s, d, demands.amount)
    if not keep_local:
        return mapped.merged()
    if len(s) == 0:
        return mapped
    n = placement.n_routers
    key = s * n + d
    uniq, inv = np.unique(key, return_inverse=True)
    return Demands(uniq // n, uniq % n, np.bincount(inv, weights=demands.amount))


# ------------------------------------------------------------------ task traffic
def logical_topology(task_shape: Sequence[int], logical: str = "torus") -> Topology:
    """The application's communication graph: a 2D torus or mesh over the task grid.

    >>> logical_topology((4, 3)).spec
    'torus:4x3'
    """
    if logical not in ("torus", "mesh"):
        raise MappingError(f"logical topology must be 'torus' or 'mesh', got {logical!r}")
    shape = (int(task_shape[0]), int(task_shape[1]))
    if min(shape) < 1 or shape[0] * shape[1] < 2:
        raise MappingError(f"the task grid {shape} needs at least two tasks")
    return torus(shape) if logical == "torus" else mesh(shape)


def local_traffic(task_shape: Sequence[int], logical: "str | Topology" = "torus") -> Demands:
    """Nearest-neighbour traffic: every task sends 1 unit, split evenly over
    its (up to four) neighbours in the logical torus or mesh (a logical
    topology with parallel links — a dimension of size 2 — counts the
    neighbour twice, so each of the four directions gets 1/4).

    >>> d = local_traffic((4, 4))
    >>> len(d), float(d.total)
    (64, 16.0)
    """
    g = logical if isinstance(logical, Topology) else logical_topology(task_shape, logical)
    deg = g.degree.astype(np.float64)
    if np.any(deg == 0):
        raise MappingError("a task has no neighbour in the logical topology")
    src, dst = g.arc_src, g.arc_dst
    return Demands(src, dst, 1.0 / deg[src]).merged()


def global_traffic(num_tasks: int, *, include_self: bool = True) -> Demands:
    """Uniform (collective) traffic: every task sends 1 unit spread evenly over
    all tasks — itself included by default, the convention of the papers'
    average distance (Table 1 of 'rtt-mapping-concentration'), or over the
    others with ``include_self=False``. Self entries stay in the demands.

    >>> d = global_traffic(4)
    >>> len(d), float(d.total), float(d.amount[0])
    (16, 4.0, 0.25)
    """
    T = int(num_tasks)
    if T < 2:
        raise MappingError("global traffic needs at least two tasks")
    s, d = np.divmod(np.arange(T * T, dtype=np.int64), T)
    if include_self:
        return Demands(s, d, np.full(T * T, 1.0 / T))
    keep = s != d
    return Demands(s[keep], d[keep], np.full(int(keep.sum()), 1.0 / (T - 1)))


def mixed_traffic(task_shape: Sequence[int], alpha: float, *, logical: str = "torus",
                  include_self: bool = True) -> Demands:
    """The paper's application model (Section 3.1): a share ``alpha`` of every
    task's messages to its logical neighbours, ``1 - alpha`` uniform.

    Every task injects 1 unit; self entries of the uniform part are kept
    (drop them with ``.merged()``; :func:`map_demands` does).

    >>> d = mixed_traffic((4, 4), 0.5)
    >>> round(d.total, 6)
    16.0
    """
    a = float(alpha)
    if not 0.0 <= a <= 1.0:
        raise MappingError(f"alpha (the local share) must be in [0, 1], got {alpha}")
    W, H = int(task_shape[0]), int(task_shape[1])
    loc = local_traffic((W, H), logical)
    glo = global_traffic(W * H, include_self=include_self)
    return Demands(np.concatenate([loc.src, glo.src]), np.concatenate([loc.dst, glo.dst]),
                   np.concatenate([a * loc.amount, (1.0 - a) * glo.amount]))

