"""Communication skeletons of the NAS Parallel Benchmarks (NPB 3.x, MPI).

:func:`nas` builds a :class:`~sim.trace.Trace` with the messages one of the
kernels CG, MG, FT, IS, LU, BT, SP exchanges at a chosen process count and
problem class, in the order and with the dependencies of the MPI code
(point-to-point messages are sends plus blocking receives; collectives are
built from point-to-point messages, as FSIN and INSEE do). Message sizes
are 8-byte doubles (16-byte complex for FT, 4-byte integers for IS).
Computation is left out by default (``compute=0``), as in
'twisted-tori-tpds2010' ("messages are injected as fast as the network can
accept them but always obeying causality"); ``compute=c`` adds ``c``
cycles per grid point (per key for IS, per non-zero for CG) of local work
before each communication phase.

=====  =================  ======================================================
CG     P = 2^k            2D process grid (rows x cols, cols = rows or
       (na, niter x 25)   2 rows). Each of the ``niter`` outer iterations runs
                          25 CG steps; a step: the row reduce of the
                          mat-vec product (recursive halving, log2(cols)
                          exchanges of na/rows/2^i doubles), the exchange
                          with the transpose process (na/P doubles), two dot
                          products (recursive doubling across the row, 8
                          bytes). Every outer iteration adds a residual norm
                          (another row allreduce).
MG     P = 2^k            3D process grid (x doubled first; NPB's own, z
       (n^3, nit)         most, with ``mg_order="npb"``). One V-cycle per
                          iteration: comm3 (ghost-face exchange with both
                          neighbours in x, y, z; faces of the local grid at
                          the level, 8 bytes per point) once on the way down
                          per level (rprj3), once at the bottom (psinv),
                          twice per level on the way up (resid, psinv) and
                          once for the top residual; a norm allreduce (2
                          doubles) per iteration. A dimension with one
                          process copies locally (no message).
FT     P divides n_z      1D slab decomposition. One all-to-all transpose
       (nx ny nz, niter)  (pairwise exchange: step s sends to r+s, receives
                          from r-s; nx*ny*nz/P^2 complex per pair) for the
                          initial forward FFT and one per iteration, plus
                          the checksum (binomial reduce of 1 complex to 0).
IS     P = 2^k            per iteration: allreduce of the bucket sizes (1024
       (2^keys, 10 it)    ints, recursive doubling), all-to-all of the send
                          counts (4 bytes per pair), all-to-all-v of the keys
                          (a multinomial draw of keys/P over the P
                          destinations, ``seed``); then the partial
                          verification (one 4-byte message to the next rank).
LU     P = 2^k            2D process grid (x = 2^ceil(k/2)). Per SSOR
       (n^3, itmax)       iteration: ghost exchange of the rhs with the 4
                          neighbours (2 layers x 5 doubles per edge point x
                          nz), the lower sweep (for each of the nz-2 planes:
                          receive from north and west, send to south and
                          east, 5 doubles per edge point) and the upper sweep
                          (reverse); the residual norm allreduce (5 doubles)
                          at the end.
BT/SP  P = q^2            multi-partition: q^3 cells, process (i, j) owns
       (n^3, niter)       cells (i + z, j + z, z); successors +x: (i+1, j),
                          +y: (i, j+1), +z: (i-1, j-1). Per iteration:
                          copy_faces (one message to each of the 6
                          neighbours, 2 layers x 5 doubles x n^2/q), then
                          x-, y-, z-solve, each a pipeline over q stages:
                          forward elimination sends (n/q)^2 x f doubles to
                          the successor, back substitution (n/q)^2 x b
                          doubles to the predecessor (BT f=30, b=5; SP f=15,
                          b=10). A final error-norm allreduce (5 doubles).
=====  =================  ======================================================

Simplifications: no computation by default; non-blocking sends complete at
once (the receive side is what orders the messages); collectives are the
textbook point-to-point algorithms, not a tuned MPI's; MG ignores the
idle processes of coarse levels (every process keeps exchanging at least
one point); CG's reduce sizes are the recursive-halving ideal, not NPB's
exact index ranges; BT/SP message sizes are per-point counts of the
solver's data, not byte-exact. ``iterations`` overrides the class's
iteration count (the tests use 1).

>>> t = nas("cg", 16, "S", iterations=1)
>>> t.processes, t.num_messages, t.info["grid"]
(16, 2732, '4x4')
>>> nas("bt", 9, "S", iterations=2).info["iterations"]
2
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from common.size import check_memory, format_count

from .errors import SimError
from .trace import BYTES_PER_EVENT, BYTES_PER_PROCESS, Trace, TraceBuilder

__all__ = ["nas", "mg_grid", "NAS_KERNELS", "NAS_CLASSES"]

D = 8   # bytes per double
C16 = 16  # bytes per double complex
I4 = 4  # bytes per integer

#: class -> kernel -> parameters (NPB 3.x)
NAS_CLASSES: dict[str, dict[str, dict[str, Any]]] = {
    "S": {"cg": dict(na=1400, niter=15), "mg": dict(n=32, nit=4), "ft": dict(nx=64, ny=64, nz=64, niter=6),
          "is": dict(keys=1 << 16, niter=10), "lu": dict(n=12, itmax=50), "bt": dict(n=12, niter=60),
          "sp": dict(n=12, niter=100)},
    "W": {"cg": dict(na=7000, niter=15), "mg": dict(n=128, nit=4), "ft": dict(nx=128, ny=128, nz=32, niter=6),
          "is": dict(keys=1 << 20, niter=10), "lu": dict(n=33, itmax=300), "bt": dict(n=24, niter=200),
          "sp": dict(n=36, niter=400)},
    "A": {"cg": dict(na=14000, niter=15), "mg": dict(n=256, nit=4), "ft": dict(nx=256, ny=256, nz=128, niter=6),
          "is": dict(keys=1 << 23, niter=10), "lu": dict(n=64, itmax=250), "bt": dict(n=64, niter=200),
          "sp": dict(n=64, niter=400)},
    "B": {"cg": dict(na=75000, niter=75), "mg": dict(n=256, nit=20), "ft": dict(nx=512, ny=256, nz=256, niter=20),
          "is": dict(keys=1 << 25, niter=10), "lu": dict(n=102, itmax=250), "bt": dict(n=102, niter=200),
          "sp": dict(n=102, niter=400)},
}

#: The NAS kernels :func:`nas` builds skeletons of.
NAS_KERNELS = ("cg", "mg", "ft", "is", "lu", "bt", "sp")


def _log2_exact(P: int, what: str) -> int:
    k = P.bit_length() - 1
    if P < 1 or P != 1 << k:
        raise SimError(f"NAS {what} needs a power-of-2 number of processes, got {P}")
    return k


# ------------------------------------------------------------- collectives
def _allreduce(b: TraceBuilder, group: list[int], nbytes: int, tag: int) -> None:
    """Recursive doubling inside ``group`` (power of 2 members); otherwise a
    reduce to the first member and a broadcast (binomial trees)."""
    g = len(group)
    if g <= 1:
        return
    if g & (g - 1) == 0:
        step = 1
        while step < g:
            for i, r in enumerate(group):
                b.send(r, group[i ^ step], nbytes, tag)
            for i, r in enumerate(group):
                b.recv(r, group[i ^ step], tag)
            step <<= 1
        return
    _reduce(b, group, nbytes, tag)
    _bcast(b, group, nbytes, tag)


def _reduce(b: TraceBuilder, group: list[int], nbytes: int, tag: int) -> None:
    """Binomial reduce to ``group[0]``."""
    g = len(group)
    step = 1
    while step < g:
        for i in range(0, g, 2 * step):
            j = i + step
            if j < g:
                b.send(group[j], group[i], nbytes, tag)
                b.recv(group[i], group[j], tag)
        step <<= 1


def _bcast(b: TraceBuilder, group: list[int], nbytes: int, tag: int) -> None:
    """Binomial broadcast from ``group[0]``."""
    g = len(group)
    step = 1
    while step < g:
        step <<= 1
    step >>= 1
    while step >= 1:
        for i in range(0, g, 2 * step):
            j = i + step
            if j < g:
                b.send(group[i], group[j], nbytes, tag)
                b.recv(group[j], group[i], tag)
        step >>= 1


def _alltoall(b: TraceBuilder, P: int, sizes: np.ndarray, tag: int) -> None:
    """Pairwise exchange: at step s every rank sends to r+s and receives
    from r-s (``sizes[src, dst]`` bytes)."""
    for s in range(1, P):
        for r in range(P):
            b.send(r, (r + s) % P, int(sizes[r, (r + s) % P]), tag)
        for r in range(P):
            b.recv(r, (r - s) % P, tag)


def _compute_all(b: TraceBuilder, P: int, cycles: float) -> None:
    if cycles > 0:
        for r in range(P):
            b.compute(r, cycles)


# ------------------------------------------------------------------ kernels
def _cg(P: int, prm: dict, iters: int, compute: float, seed: int) -> tuple[Trace, dict]:
    k = _log2_exact(P, "CG")
    rows = 1 << (k // 2)
    cols = P // rows  # cols = rows or 2 rows
    na = prm["na"]
    b = TraceBuilder(P, "cg")
    lc = int(math.log2(cols))

    def rc(r: int) -> tuple[int, int]:
        return divmod(r, cols)

    def row_group(r: int) -> list[int]:
        i, _ = rc(r)
        return [i * cols + j for j in range(cols)]

    def transpose(r: int) -> int:
        i, j = rc(r)
        if rows == cols:
            return j * cols + i
        # cols = 2 rows: the NPB pairing of the two halves of the row
        jj, half = divmod(j, 2)  # an involution: (i, j) <-> (j // 2, 2 i + j % 2)
        return jj * cols + 2 * i + half

    def row_allreduce(nbytes: int, tag: int) -> None:
        done = set()
        for r in range(P):
            g = tuple(row_group(r))
            if g not in done:
                done.add(g)
                _allreduce(b, list(g), nbytes, tag)

    work = compute * 13 * na / P  # ~ nonzeros per process (nonzer = 7 -> ~13 na in total per row block)
    for _it in range(iters):
        for _step in range(25):
            _compute_all(b, P, work)
            # row reduce of q = A.p: recursive halving
            seg = na // rows
            for i in range(lc):
                seg = max(1, seg // 2)
                for r in range(P):
                    b.send(r, r ^ (1 << i), seg * D, 1)
                for r in range(P):
                    b.recv(r, r ^ (1 << i), 1)
            # exchange with the transpose process
            for r in range(P):
                p = transpose(r)
                if p != r:
                    b.send(r, p, max(1, na // P) * D, 2)
            for r in range(P):
                p = transpose(r)
                if p != r:
                    b.recv(r, p, 2)
            row_allreduce(D, 3)  # p.q
            row_allreduce(D, 4)  # r.r
        row_allreduce(D, 5)      # residual norm of the outer iteration
    return b.build(), {"grid": f"{rows}x{cols}", "na": na}


def _grid3(P: int) -> tuple[int, int, int]:
    k = _log2_exact(P, "MG")
    g = [1, 1, 1]
    for i in range(k):
        g[i % 3] *= 2
    return g[0], g[1], g[2]


def mg_grid(P: int, order: str = "x-first") -> tuple[int, int, int]:
    """MG's process grid (px, py, pz) for ``P`` processes, rank = x + px (y + py z).

    ``x-first`` (the skeleton's default) doubles x, y, z in turn; ``npb`` is NPB's own setup (mg.f):
    px = 2^floor(k/3), py = 2^floor((k - log2 px)/2), pz the rest, so z gets the most processes when the
    powers do not split evenly.

    >>> mg_grid(128), mg_grid(128, "npb"), mg_grid(32, "npb"), mg_grid(64, "npb")
    ((8, 4, 4), (4, 4, 8), (2, 4, 4), (4, 4, 4))
    """
    if order == "x-first":
        return _grid3(P)
    if order != "npb":
        raise SimError(f"unknown MG grid order {order!r}; valid: x-first, npb")
    k = _log2_exact(P, "MG")
    dx = k // 3
    dy = (k - dx) // 2
    return 1 << dx, 1 << dy, P >> (dx + dy)


def _mg(P: int, prm: dict, iters: int, compute: float, seed: int, grid: str = "x-first") -> tuple[Trace, dict]:
    px, py, pz = mg_grid(P, grid)
    n = prm["n"]
    lt = int(math.log2(n))
    b = TraceBuilder(P, "mg")

    def coord(r: int) -> tuple[int, int, int]:
        return r % px, (r // px) % py, r // (px * py)

    def rank(x: int, y: int, z: int) -> int:
        return (x % px) + (y % py) * px + (z % pz) * px * py

    def comm3(level: int) -> None:
        m = 1 << level  # grid points per dimension at this level
        lx, ly, lz = max(1, m // px), max(1, m // py), max(1, m // pz)
        faces = ((px, ly * lz), (py, (lx + 2) * lz), (pz, (lx + 2) * (ly + 2)))
        for d, (pd, pts) in enumerate(faces):
            if pd == 1:
                continue
            for r in range(P):
                c = list(coord(r))
                for sgn in (1, -1):
                    cc = c.copy()
                    cc[d] += sgn
                    b.send(r, rank(*cc), pts * D, 10 + d)
            for r in range(P):
                c = list(coord(r))
                for sgn in (-1, 1):
                    cc = c.copy()
                    cc[d] += sgn
                    b.recv(r, rank(*cc), 10 + d)
        _compute_all(b, P, compute * lx * ly * lz)

    for _it in range(iters):
        comm3(lt)                        # resid at the top
        for lev in range(lt - 1, 0, -1):  # restriction
            comm3(lev)
        comm3(1)                         # psinv at the bottom
        for lev in range(2, lt + 1):     # prolongation: resid, psinv
            comm3(lev)
            comm3(lev)
        _allreduce(b, list(range(P)), 2 * D, 20)
    return b.build(), {"grid": f"{px}x{py}x{pz}", "n": n}


def _ft(P: int, prm: dict, iters: int, compute: float, seed: int) -> tuple[Trace, dict]:
    nx, ny, nz = prm["nx"], prm["ny"], prm["nz"]
    if nz % P and ny % P:
        raise SimError(f"NAS FT (1D layout) needs the process count to divide {nz}, got {P}")
    b = TraceBuilder(P, "ft")
    per = nx * ny * nz // (P * P) * C16
    sizes = np.full((P, P), per, dtype=np.int64)
    work = compute * nx * ny * nz / P

    for it in range(iters + 1):          # the initial forward FFT, then one per iteration
        _compute_all(b, P, work)
        _alltoall(b, P, sizes, 30)
        if it > 0:
            _reduce(b, list(range(P)), C16, 31)  # checksum
    return b.build(), {"grid": f"{P} slabs", "n": f"{nx}x{ny}x{nz}"}


def _is(P: int, prm: dict, iters: int, compute: float, seed: int) -> tuple[Trace, dict]:
    _log2_exact(P, "IS")
    keys = prm["keys"]
    rng = np.random.default_rng(int(seed))
    b = TraceBuilder(P, "is")
    for _it in range(iters):
        _compute_all(b, P, compute * keys / P)
        _allreduce(b, list(range(P)), 1024 * I4, 40)
        _alltoall(b, P, np.full((P, P), I4, dtype=np.int64), 41)
        counts = np.stack([rng.multinomial(keys // P, np.full(P, 1.0 / P)) for _ in range(P)])
        _alltoall(b, P, counts * I4, 42)
    for r in range(P - 1):  # partial verification: the last key to the next rank
        b.send(r, r + 1, I4, 43)
        b.recv(r + 1, r, 43)
    return b.build(), {"grid": f"{P}", "keys": keys}


def _lu(P: int, prm: dict, iters: int, compute: float, seed: int) -> tuple[Trace, dict]:
    k = _log2_exact(P, "LU")
    xdim = 1 << ((k + 1) // 2)
    ydim = P // xdim
    n = prm["n"]
    lx, ly = max(1, n // xdim), max(1, n // ydim)
    nz = n
    b = TraceBuilder(P, "lu")

    def rank(i: int, j: int) -> int:
        return i + j * xdim

    def nbrs(r: int) -> dict[str, int | None]:
        i, j = r % xdim, r // xdim
        return {"west": rank(i - 1, j) if i > 0 else None, "east": rank(i + 1, j) if i < xdim - 1 else None,
                "north": rank(i, j - 1) if j > 0 else None, "south": rank(i, j + 1) if j < ydim - 1 else None}

    NB = [nbrs(r) for r in range(P)]
    for _it in range(iters):
        # exchange_3: ghost layers of the rhs
        for r in range(P):
            for side, edge in (("north", lx), ("south", lx), ("west", ly), ("east", ly)):
                p = NB[r][side]
                if p is not None:
                    b.send(r, p, 2 * 5 * edge * nz * D, 50)
        for r in range(P):
            for side in ("north", "south", "west", "east"):
                p = NB[r][side]
                if p is not None:
                    b.recv(r, p, 50)
        _compute_all(b, P, compute * lx * ly * nz)
        # lower-triangular sweep: the wavefront from the north-west corner
        for _kk in range(nz - 2):
            for r in range(P):
                for side in ("north", "west"):
                    p = NB[r][side]
                    if p is not None:
                        b.recv(r, p, 51)
                _compute_all_one(b, r, compute * lx * ly)
                for side, edge in (("south", lx), ("east", ly)):
                    p = NB[r][side]
                    if p is not None:
                        b.send(r, p, 5 * edge * D, 51)
        # upper-triangular sweep: from the south-east corner
        for _kk in range(nz - 2):
            for r in range(P - 1, -1, -1):
                for side in ("south", "east"):
                    p = NB[r][side]
                    if p is not None:
                        b.recv(r, p, 52)
                _compute_all_one(b, r, compute * lx * ly)
                for side, edge in (("north", lx), ("west", ly)):
                    p = NB[r][side]
                    if p is not None:
                        b.send(r, p, 5 * edge * D, 52)
    _allreduce(b, list(range(P)), 5 * D, 53)
    return b.build(), {"grid": f"{xdim}x{ydim}", "n": n}


def _compute_all_one(b: TraceBuilder, r: int, cycles: float) -> None:
    if cycles > 0:
        b.compute(r, cycles)


def _btsp(which: str, P: int, prm: dict, iters: int, compute: float, seed: int) -> tuple[Trace, dict]:
    q = math.isqrt(P)
    if q * q != P:
        raise SimError(f"NAS {which.upper()} needs a square number of processes, got {P}")
    n = prm["n"]
    cs = max(1, -(-n // q))  # cell size
    fwd, bwd = (30, 5) if which == "bt" else (15, 10)
    b = TraceBuilder(P, which)

    def rank(i: int, j: int) -> int:
        return (i % q) * q + (j % q)

    succ = {0: (1, 0), 1: (0, 1), 2: (-1, -1)}
    if q == 1:
        return b.build(), {"grid": "1x1", "n": n}
    for _it in range(iters):
        # copy_faces: one message to each of the 6 neighbours
        for r in range(P):
            i, j = divmod(r, q)
            for d in range(3):
                di, dj = succ[d]
                for s in (1, -1):
                    b.send(r, rank(i + s * di, j + s * dj), 2 * 5 * cs * cs * q * D, 60 + d)
        for r in range(P):
            i, j = divmod(r, q)
            for d in range(3):
                di, dj = succ[d]
                for s in (-1, 1):
                    b.recv(r, rank(i + s * di, j + s * dj), 60 + d)
        _compute_all(b, P, compute * cs ** 3 * q)
        # x-, y-, z-solve: pipelines over the q cells of every line
        for d in range(3):
            di, dj = succ[d]
            for stage in range(q):
                for r in range(P):
                    i, j = divmod(r, q)
                    if stage > 0:
                        b.recv(r, rank(i - di, j - dj), 70 + d)
                    _compute_all_one(b, r, compute * cs ** 3)
                    if stage < q - 1:
                        b.send(r, rank(i + di, j + dj), cs * cs * fwd * D, 70 + d)
            for stage in range(q):
                for r in range(P):
                    i, j = divmod(r, q)
                    if stage > 0:
                        b.recv(r, rank(i + di, j + dj), 80 + d)
                    _compute_all_one(b, r, compute * cs ** 3)
                    if stage < q - 1:
                        b.send(r, rank(i - di, j - dj), cs * cs * bwd * D, 80 + d)
    _allreduce(b, list(range(P)), 5 * D, 90)
    return b.build(), {"grid": f"{q}x{q}", "n": n}


_GEN = {
    "cg": (_cg, "niter"), "mg": (_mg, "nit"), "ft": (_ft, "niter"), "is": (_is, "niter"),
    "lu": (_lu, "itmax"),
    "bt": (lambda *a: _btsp("bt", *a), "niter"), "sp": (lambda *a: _btsp("sp", *a), "niter"),
}


def min_events(kernel: str, P: int, iters: int) -> int:
    """A lower bound on the events of a skeleton (each message is a send and
    a receive): what its size guard counts before building it. CG's steps
    each exchange at least once (25 per outer iteration); MG, LU and BT/SP
    at least one neighbour exchange per iteration (BT/SP: 6 faces); FT one
    all-to-all per iteration and one more; IS two all-to-alls per iteration.

    >>> min_events("ft", 8, 1) <= nas("ft", 8, "S", iterations=1).num_events
    True
    """
    per_iter = {"cg": 2 * 25 * P, "mg": 2 * P, "lu": 2 * P, "bt": 12 * P, "sp": 12 * P,
                "ft": 2 * P * (P - 1), "is": 4 * P * (P - 1)}[kernel]
    return per_iter * (iters + 1 if kernel == "ft" else iters)


def nas(kernel: str, processes: int, cls: str = "S", *, iterations: int | None = None, compute: float = 0.0,
        seed: int = 0, mg_order: str = "x-first") -> Trace:
    """The communication skeleton of a NAS kernel as a :class:`Trace`.

    Parameters
    ----------
    kernel : ``cg``, ``mg``, ``ft``, ``is``, ``lu``, ``bt`` or ``sp``
    processes : process count (a power of 2; a square for BT and SP; FT
        needs it to divide n_z)
    cls : problem class ``S``, ``W``, ``A`` or ``B`` (sizes of NPB 3.x)
    iterations : overrides the class's iteration count
    compute : cycles of computation per unit of local work (0: none)
    seed : IS draws its key distribution with it
    mg_order : MG's process grid (:func:`mg_grid`): ``x-first`` (default) or ``npb``, NPB's own

    >>> t = nas("ft", 8, "S", iterations=1)
    >>> t.num_messages == 2 * 8 * 7 + 7, t.info["iterations"]  # 2 all-to-alls, 1 checksum reduce
    (True, 1)
    """
    kern = str(kernel).lower()
    if kern not in _GEN:
        raise SimError(f"unknown NAS kernel {kernel!r}; valid: {', '.join(NAS_KERNELS)}")
    c = str(cls).upper()
    if c not in NAS_CLASSES:
        raise SimError(f"unknown NAS class {cls!r}; valid: {', '.join(NAS_CLASSES)}")
    P = int(processes)
    if P < 2:
        raise SimError(f"a NAS skeleton needs at least 2 processes, got {P}")
    prm = NAS_CLASSES[c][kern]
    gen, it_key = _GEN[kern]
    iters = int(prm[it_key] if iterations is None else iterations)
    if iters < 1:
        raise SimError(f"iterations must be >= 1, got {iters}")
    if compute < 0:
        raise SimError(f"compute must be >= 0 cycles per unit of work, got {compute}")
    # refused before a byte is built: at 2^20 processes an all-to-all alone has 2^41 events
    events = min_events(kern, P, iters)
    check_memory(f"NAS {kern.upper()} with {format_count(P)} processes and {format_count(iters)} iterations (at "
                 f"least {format_count(events)} events)", events * BYTES_PER_EVENT + P * BYTES_PER_PROCESS,
                 "use fewer processes or iterations")
    if kern == "mg":
        tr, info = _mg(P, prm, iters, float(compute), int(seed), grid=mg_order)
    else:
        if mg_order != "x-first":
            raise SimError(f"mg_order applies to MG only, not {kern.upper()}")
        tr, info = gen(P, prm, iters, float(compute), int(seed))
    info = {"kernel": kern, "class": c, "iterations": iters, "compute": compute, **info}
    return Trace(tr.processes, tr.ptr, tr.kind, tr.a, tr.nbytes, tr.tag, name=f"nas-{kern}.{c}.{P}", info=info)
