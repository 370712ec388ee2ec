"""Trace-driven workloads: per-process event lists with causal dependencies.

A :class:`Trace` is, for every process (MPI rank) ``0 .. P-1``, an ordered
list of events:

``compute K``
    the process is busy for ``K`` cycles;
``send P M [TAG]``
    send ``M`` bytes to process ``P`` (non-blocking, like an eager
    ``MPI_Isend``: the process goes on at once; the message waits in the
    process's send queue until the network accepts it);
``recv P [TAG]``
    wait until the next message from ``P`` (with that tag) has fully
    arrived (a blocking ``MPI_Recv``).

Matching follows MPI's non-overtaking rule: the k-th ``recv P TAG`` of
process ``Q`` takes the k-th ``send Q M TAG`` of process ``P``. A receive
without a matching send is an error; a send nobody receives is still
delivered (it counts in the totals).

Timing in the simulator (:func:`run_trace`): a process runs its events in
order; ``send`` and a satisfied ``recv`` take no time, so several happen in
one cycle; ``compute K`` ends ``K`` cycles later. A message of ``M`` bytes
is ``ceil(M / phit_bytes)`` phits (at least one), cut into packets of the
configuration's maximum packet length (the last carries the rest). A
process's messages leave in the order they were sent, through its
terminal's injection queue. A message has arrived when its last phit has
been consumed; a ``recv`` waiting for it continues in that cycle. The
workload is complete when every process has run its last event and every
message has arrived; the result is that cycle count (and every process's
finish time). With no contention a message of ``F`` phits over ``H``
hops arrives ``(H + 1) * router_delay + H * link_latency + F`` cycles
after its send, so a ping-pong of one such message each way takes twice
that.

The text format (``.trace``; ``#`` starts a comment, blank lines are
ignored, events of a process keep their order, processes may interleave)::

    # toposynth trace v1
    processes 2
    0 send 1 64
    0 recv 1
    1 recv 0
    1 compute 100
    1 send 0 64 7      # tag 7 ...
    0 recv 1 7         # ... matched by tag

>>> t = Trace.from_text('''
... processes 2
... 0 send 1 64
... 0 recv 1
... 1 recv 0
... 1 send 0 64
... ''')
>>> t.processes, t.num_events, t.num_messages, t.total_bytes
(2, 4, 2, 128)
>>> print(t.to_text().splitlines()[2])
0 send 1 64
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from candidates import Topology
from common.errors import check_seed
from common.size import check_memory, format_count, memory_limit
from common.textfile import read_text
from traffic import DEST_UNIFORM, Destinations

from .config import MAX_CYCLES, SimConfig
from .errors import SimError
from .events import EV_COMPUTE, EV_RECV, EV_SEND
from .routers import model_of

__all__ = ["Trace", "TraceBuilder", "TraceResult", "run_trace", "read_trace", "write_trace"]

COMPUTE, SEND, RECV = EV_COMPUTE, EV_SEND, EV_RECV

#: The largest compute time, message size and tag of an event, and the
#: largest sum of a process's compute times and of a trace's bytes: the
#: kernels add them to int64 cycle counters, which must not wrap (a wrapped
#: sum once reported a trace complete in 19 cycles).
MAX_TRACE_INT = 2**62
#: Peak bytes of Python objects per event while a trace is built (measured
#: with tracemalloc on NAS skeletons: about 165), and per byte of trace
#: text while it is parsed (about 18): the size guards' estimates.
BYTES_PER_EVENT = 200
BYTES_PER_PROCESS = 120
BYTES_PER_TEXT_BYTE = 20
_KIND_NAMES = {COMPUTE: "compute", SEND: "send", RECV: "recv"}


class TraceBuilder:
    """Collects events process by process; :meth:`build` makes the :class:`Trace`.

    >>> b = TraceBuilder(2)
    >>> b.send(0, 1, 8); b.recv(1, 0); b.compute(1, 10)
    >>> b.build().count("recv")
    1
    """

    def __init__(self, processes: int, name: str = "trace") -> None:
        processes = int(processes)
        if processes < 1:
            raise SimError(f"a trace needs at least one process, got {processes}")
        check_memory(f"a trace of {format_count(processes)} processes", processes * BYTES_PER_PROCESS,
                     "use fewer processes")
        self.processes = processes
        self.name = name
        self._ev: list[list[tuple[int, int, int, int]]] = [[] for _ in range(processes)]

    def _rank(self, r: int, what: str = "process") -> int:
        r = int(r)
        if not 0 <= r < self.processes:
            raise SimError(f"{what} {r} is out of range 0..{self.processes - 1}")
        return r

    def compute(self, rank: int, cycles: float) -> None:
        """``rank`` is busy for ``cycles`` cycles, rounded (zero is skipped)."""
        cycles = int(round(cycles))
        if not 0 <= cycles <= MAX_TRACE_INT:
            raise SimError(f"compute cycles must be in 0..2^62, got {cycles}")
        if cycles:
            self._ev[self._rank(rank)].append((COMPUTE, cycles, 0, 0))

    def send(self, rank: int, dst: int, nbytes: int, tag: int = 0) -> None:
        """``rank`` sends ``nbytes`` to ``dst`` (non-blocking)."""
        nbytes = int(nbytes)
        if not 0 <= nbytes <= MAX_TRACE_INT:
            raise SimError(f"message size must be in 0..2^62 bytes, got {nbytes}")
        self._ev[self._rank(rank)].append((SEND, self._rank(dst, "destination"), nbytes, _tag(tag)))

    def recv(self, rank: int, src: int, tag: int = 0) -> None:
        """``rank`` waits for the next message from ``src`` with ``tag``."""
        self._ev[self._rank(rank)].append((RECV, self._rank(src, "source"), 0, _tag(tag)))

    def exchange(self, rank: int, peer: int, nbytes: int, tag: int = 0) -> None:
        """Send to ``peer`` and then wait for its message (``MPI_Sendrecv``)."""
        self.send(rank, peer, nbytes, tag)
        self.recv(rank, peer, tag)

    def build(self) -> "Trace":
        ptr = np.zeros(self.processes + 1, dtype=np.int64)
        ptr[1:] = np.cumsum([len(e) for e in self._ev])
        flat = [x for e in self._ev for x in e]
        arr = np.array(flat, dtype=np.int64).reshape(-1, 4)
        return Trace(self.processes, ptr, arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), arr[:, 3].copy(),
                     name=self.name)


def _tag(tag: int) -> int:
    """A message tag: MPI's are non-negative; the arrays hold int64."""
    t = int(tag)
    if not 0 <= t <= MAX_TRACE_INT:
        raise SimError(f"message tags must be in 0..2^62, got {t}")
    return t


@dataclass(frozen=True, eq=False)
class Trace:
    """Per-process event lists (struct of arrays, CSR by process).

    ``ptr[r] .. ptr[r+1]-1`` are the events of process ``r``; ``kind`` is
    0 compute / 1 send / 2 recv; ``a`` is the cycles (compute) or the peer
    process (send, recv); ``nbytes`` the message size (send); ``tag`` the
    tag (send, recv). Build one with :class:`TraceBuilder`,
    :meth:`from_text`, :func:`read_trace` or the NAS generators in
    :mod:`sim.nas`.

    >>> b = TraceBuilder(2); b.send(0, 1, 64); b.recv(1, 0); b.compute(1, 10)
    >>> t = b.build()
    >>> t.ptr.tolist(), t.kind.tolist(), t.a.tolist(), t.nbytes.tolist()
    ([0, 1, 3], [1, 2, 0], [1, 0, 10], [64, 0, 0])
    """

    processes: int
    ptr: np.ndarray
    kind: np.ndarray
    a: np.ndarray
    nbytes: np.ndarray
    tag: np.ndarray
    name: str = "trace"
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        E = int(self.ptr[-1])
        if len(self.ptr) != self.processes + 1 or any(len(x) != E for x in (self.kind, self.a, self.nbytes, self.tag)):
            raise SimError("inconsistent trace arrays")
        if E and (self.kind.min() < 0 or self.kind.max() > 2):
            raise SimError("trace event kinds must be 0 (compute), 1 (send) or 2 (recv)")
        peer = self.kind != COMPUTE
        if peer.any() and (self.a[peer].min() < 0 or self.a[peer].max() >= self.processes):
            raise SimError(f"a trace peer is out of range 0..{self.processes - 1}")
        self._check_sums()

    def _check_sums(self) -> None:
        """Every process's compute cycles, and the trace's bytes, sum to at
        most :data:`MAX_TRACE_INT`: summed in float64 (exact enough at that
        size, and it cannot wrap as the kernels' int64 clock would)."""
        comp = self.kind == COMPUTE
        if comp.any():
            if self.a[comp].min() < 0:
                raise SimError("trace compute cycles must be >= 0")
            per = np.bincount(self.rank_of_event()[comp], weights=self.a[comp].astype(np.float64),
                              minlength=self.processes)
            r = int(np.argmax(per))
            if per[r] > MAX_TRACE_INT:
                raise SimError(f"process {r} of the trace computes for {per[r]:.3g} cycles in all, more than the "
                               f"simulator's cycle counter holds (2^62 = {MAX_TRACE_INT:.3g}); shorten its compute "
                               "events")
        send = self.kind == SEND
        if send.any():
            if self.nbytes[send].min() < 0:
                raise SimError("trace message sizes must be >= 0 bytes")
            total = float(self.nbytes[send].astype(np.float64).sum())
            if total > MAX_TRACE_INT:
                raise SimError(f"the trace's messages carry {total:.3g} bytes in all, more than the simulator's "
                               f"counters hold (2^62 = {MAX_TRACE_INT:.3g}); use smaller messages")

    # --------------------------------------------------------------- summary
    @property
    def num_events(self) -> int:
        return int(self.ptr[-1])

    @property
    def num_messages(self) -> int:
        return int((self.kind == SEND).sum())

    @property
    def total_bytes(self) -> int:
        return int(self.nbytes[self.kind == SEND].sum())

    def count(self, kind: str) -> int:
        """Number of events of a kind (``compute``, ``send``, ``recv``)."""
        code = {v: k for k, v in _KIND_NAMES.items()}.get(kind)
        if code is None:
            raise SimError(f"event kinds are compute, send, recv; got {kind!r}")
        return int((self.kind == code).sum())

    def rank_of_event(self) -> np.ndarray:
        return np.repeat(np.arange(self.processes, dtype=np.int64), np.diff(self.ptr))

    def byte_matrix(self) -> np.ndarray:
        """Bytes every process sends to every other (processes x processes;
        sends to itself left out): the trace as a traffic matrix."""
        P = self.processes
        send = self.kind == SEND
        M = np.zeros((P, P))
        np.add.at(M, (self.rank_of_event()[send], self.a[send]), self.nbytes[send].astype(np.float64))
        np.fill_diagonal(M, 0.0)
        return M

    def events(self, rank: int) -> list[tuple]:
        """The events of one process as readable tuples.

        >>> b = TraceBuilder(2); b.send(0, 1, 8, tag=3); b.compute(0, 5)
        >>> b.build().events(0)
        [('send', 1, 8, 3), ('compute', 5)]
        """
        out: list[tuple] = []
        for e in range(int(self.ptr[rank]), int(self.ptr[rank + 1])):
            k = int(self.kind[e])
            if k == COMPUTE:
                out.append(("compute", int(self.a[e])))
            elif k == SEND:
                out.append(("send", int(self.a[e]), int(self.nbytes[e]), int(self.tag[e])))
            else:
                out.append(("recv", int(self.a[e]), int(self.tag[e])))
        return out

    def to_dict(self) -> dict[str, Any]:
        """Summary (not the events)."""
        return {"name": self.name, "processes": self.processes, "events": self.num_events,
                "messages": self.num_messages, "bytes": self.total_bytes,
                "compute_cycles": int(self.a[self.kind == COMPUTE].sum()), **self.info}

    # -------------------------------------------------------------- matching
    def match(self) -> tuple[np.ndarray, np.ndarray]:
        """Message ids: ``(send_msg, recv_msg)``, arrays over the events
        (-1 where not a send / recv). Messages are numbered by sender, in
        program order, so each process's messages are consecutive.
        Raises :class:`SimError` for a receive without a matching send.
        """
        E = self.num_events
        rank = self.rank_of_event()
        send = np.flatnonzero(self.kind == SEND)
        recv = np.flatnonzero(self.kind == RECV)
        send_msg = np.full(E, -1, dtype=np.int64)
        recv_msg = np.full(E, -1, dtype=np.int64)
        send_msg[send] = np.arange(len(send))
        if len(recv) == 0:
            return send_msg, recv_msg
        # key (src, dst, tag) and the sequence number within the key
        P = self.processes
        all_tags = np.unique(np.concatenate([self.tag[send], self.tag[recv]]))
        nt = len(all_tags)
        ks = (rank[send] * P + self.a[send]) * nt + np.searchsorted(all_tags, self.tag[send])
        kr = (self.a[recv] * P + rank[recv]) * nt + np.searchsorted(all_tags, self.tag[recv])

        def seqs(key: np.ndarray) -> np.ndarray:
            # position of every event among the events of its key, in program order
            order = np.lexsort((np.arange(len(key)), key))
            k = key[order]
            start = np.r_[0, np.flatnonzero(np.diff(k)) + 1]
            seq = np.empty(len(k), dtype=np.int64)
            seq[order] = np.arange(len(k)) - np.repeat(start, np.diff(np.r_[start, len(k)]))
            return seq

        ss = seqs(ks) if len(send) else np.zeros(0, np.int64)
        sr = seqs(kr)
        base = max(int(ss.max(initial=0)), int(sr.max(initial=0))) + 1
        code_s = ks * base + ss
        code_r = kr * base + sr
        order = np.argsort(code_s, kind="stable")
        sorted_s = code_s[order]
        pos = np.searchsorted(sorted_s, code_r)
        ok = pos < len(send)
        ok[ok] = sorted_s[pos[ok]] == code_r[ok]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            e = int(recv[i])
            r = int(rank[e])
            src, tag = int(self.a[e]), int(self.tag[e])
            have = int(((rank[send] == src) & (self.a[send] == r) & (self.tag[send] == tag)).sum())
            raise SimError(f"process {r}, event {e - int(self.ptr[r])}: recv from {src} (tag {tag}) has no matching "
                           f"send ({src} sends {have} such message(s) to {r})")
        recv_msg[recv] = send_msg[send[order[pos]]]
        return send_msg, recv_msg

    # ------------------------------------------------------------ text I/O
    def to_text(self) -> str:
        lines = ["# toposynth trace v1", f"processes {self.processes}"]
        for r in range(self.processes):
            for e in range(int(self.ptr[r]), int(self.ptr[r + 1])):
                k = int(self.kind[e])
                if k == COMPUTE:
                    lines.append(f"{r} compute {int(self.a[e])}")
                elif k == SEND:
                    t = int(self.tag[e])
                    lines.append(f"{r} send {int(self.a[e])} {int(self.nbytes[e])}" + (f" {t}" if t else ""))
                else:
                    t = int(self.tag[e])
                    lines.append(f"{r} recv {int(self.a[e])}" + (f" {t}" if t else ""))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str, name: str = "trace", *, max_processes: int | None = None) -> "Trace":
        """Parse the text format. ``max_processes`` (the processing elements
        of the topology it is for) refuses a larger ``processes N`` line at
        once, before anything of that size is built."""
        rows: list[tuple[int, int, int, int, int]] = []
        declared = None
        for ln, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            f = line.split()
            try:
                if f[0] == "processes":
                    n = int(f[1])
                    if len(f) != 2 or n < 1:
                        raise ValueError
                else:
                    r, op = int(f[0]), f[1].lower()
                    if op == "compute" and len(f) == 3:
                        rows.append((r, COMPUTE, int(f[2]), 0, 0))
                    elif op == "send" and len(f) in (4, 5):
                        rows.append((r, SEND, int(f[2]), int(f[3]), int(f[4]) if len(f) == 5 else 0))
                    elif op == "recv" and len(f) in (3, 4):
                        rows.append((r, RECV, int(f[2]), 0, int(f[3]) if len(f) == 4 else 0))
                    else:
                        raise ValueError
            except (ValueError, IndexError):
                raise SimError(f"trace line {ln}: expected 'RANK compute K', 'RANK send DST BYTES [TAG]', "
                               f"'RANK recv SRC [TAG]' or 'processes N', got {raw.strip()!r}") from None
            if f[0] == "processes":
                # checked here, outside the parse's ValueError (a SimError is one), before anything of that size
                _check_processes(n, max_processes, f"trace line {ln}: ")
                declared = n
                continue
            if r < 0 or min(rows[-1][2:]) < 0:
                raise SimError(f"trace line {ln}: negative rank, cycles, peer, size or tag in {raw.strip()!r}")
            if max(rows[-1][2:]) > MAX_TRACE_INT:
                raise SimError(f"trace line {ln}: cycles, size and tags must be at most 2^62 = {MAX_TRACE_INT} "
                               f"(the simulator's int64 counters), got {raw.strip()!r}")
            if declared is not None and max(r, rows[-1][2] if rows[-1][1] != COMPUTE else 0) >= declared:
                raise SimError(f"trace line {ln}: the trace declares {declared} processes but names process "
                               f"{max(r, rows[-1][2] if rows[-1][1] != COMPUTE else 0)}; processes are 0.."
                               f"{declared - 1}")
        if not rows and declared is None:
            raise SimError("the trace has no events and no 'processes N' line")
        top = max((max(r[0], r[2] if r[1] != COMPUTE else 0) for r in rows), default=-1) + 1
        P = declared if declared is not None else top
        if top > P:
            raise SimError(f"the trace declares {P} processes but names process {top - 1}")
        _check_processes(P, max_processes)
        b = TraceBuilder(P, name=name)
        for r, k, a, m, t in rows:
            if k == COMPUTE:
                b.compute(r, a)
            elif k == SEND:
                b.send(r, a, m, t)
            else:
                b.recv(r, a, t)
        return b.build()

    def write(self, path: "str | Path") -> None:
        Path(path).write_text(self.to_text())

    @classmethod
    def read(cls, path: "str | Path", *, max_processes: int | None = None) -> "Trace":
        """Read a trace file; one of more than the memory can parse is
        refused before it is read (a regular file, by its size) or when the
        bytes read pass that (a pipe or a device, such as /dev/zero)."""
        p = Path(path)
        try:
            size = p.stat().st_size if p.is_file() else 0
        except OSError:
            size = 0  # read_text says why it cannot be read
        if size:
            check_memory(f"trace {p} ({format_count(size)} bytes)", size * BYTES_PER_TEXT_BYTE,
                         "use a smaller trace")
        limit = memory_limit() / BYTES_PER_TEXT_BYTE
        text = read_text(p, "trace", SimError, max_bytes=None if limit == float("inf") else int(limit))
        return cls.from_text(text, name=p.stem, max_processes=max_processes)


def _check_processes(P: int, max_processes: int | None, where: str = "") -> None:
    """A trace of ``P`` processes fits ``max_processes`` processing elements and the memory."""
    if max_processes is not None and P > max_processes:
        raise SimError(f"{where}the trace has {P} processes but the topology has only {max_processes} processing "
                       "elements; use a larger topology, concentration (:c=2) or fewer processes")
    check_memory(f"{where}a trace of {format_count(P)} processes", P * BYTES_PER_PROCESS, "use fewer processes")


def read_trace(path: "str | Path") -> Trace:
    """Read a trace file (the text format of this module).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "pingpong.trace"
    >>> _ = p.write_text("processes 2\\n0 send 1 64\\n1 recv 0\\n1 send 0 64\\n0 recv 1\\n")
    >>> t = read_trace(p)
    >>> t.name, t.processes, t.num_events, t.num_messages, t.total_bytes
    ('pingpong', 2, 4, 2, 128)
    """
    return Trace.read(path)


def write_trace(trace: Trace, path: "str | Path") -> None:
    """Write a trace file (the text format of this module).

    >>> import tempfile
    >>> b = TraceBuilder(2); b.send(0, 1, 64); b.recv(1, 0)
    >>> p = Path(tempfile.mkdtemp()) / "oneway.trace"
    >>> write_trace(b.build(), p)
    >>> print(p.read_text(), end="")
    # toposynth trace v1
    processes 2
    0 send 1 64
    1 recv 0
    """
    trace.write(path)


@dataclass
class TraceResult:
    """A trace-driven run.

    ``cycles`` is the completion time of the workload (every process done,
    every message arrived); ``finish`` the cycle at which each process ran
    its last event; ``completed`` False when the run stopped early (a
    deadlock or ``max_cycles``). ``latency`` is the mean packet latency
    (injection to delivery), ``message_latency`` the mean time from a
    send to the message's arrival.

    A ping-pong of 64-byte messages between routers 0 and 3 of a ring of 8,
    with 10 cycles of compute between: 23 cycles each way (see
    :func:`run_trace`), so 56 in all; process 3 is done when it sends.

    >>> import candidates as cd
    >>> b = TraceBuilder(8); b.send(0, 3, 64); b.recv(3, 0); b.compute(3, 10); b.send(3, 0, 64); b.recv(0, 3)
    >>> r = run_trace(cd.ring(8), SimConfig(routing="dor", packet_length=16), b.build())
    >>> r.completed, r.cycles, r.finish[:4], r.messages, r.packets, r.message_latency, r.hops
    (True, 56, [56, 0, 0, 33], 2, 2, 23.0, 3.0)
    """

    spec: str
    routing: str
    trace: str
    processes: int
    cycles: int
    completed: bool
    deadlock: bool
    deadlock_kind: str
    finish: list[int]
    messages: int
    bytes: int
    packets: int
    phits: int
    latency: float | None
    message_latency: float | None
    message_latency_max: int | None
    hops: float | None
    min_hops: float | None
    utilisation: dict[str, dict[str, float]]
    idle_cycles_skipped: int
    seconds: float
    conservation: bool
    seed: int
    config: SimConfig = field(repr=False)
    mapping: list[int] = field(default_factory=list, repr=False)
    #: wall seconds the kernel's first compile took in this process (not in ``seconds``)
    compile_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec, "routing": self.routing, "trace": self.trace, "processes": self.processes,
            "cycles": self.cycles, "completed": self.completed, "deadlock": self.deadlock,
            "deadlock_kind": self.deadlock_kind, "finish": list(self.finish), "messages": self.messages,
            "bytes": self.bytes, "packets": self.packets, "phits": self.phits, "latency": self.latency,
            "message_latency": self.message_latency, "message_latency_max": self.message_latency_max,
            "hops": self.hops, "min_hops": self.min_hops, "utilisation": self.utilisation,
            "idle_cycles_skipped": self.idle_cycles_skipped, "seconds": self.seconds,
            "compile_seconds": self.compile_seconds, "conservation": self.conservation, "seed": self.seed, "mapping": list(self.mapping),
            "config": self.config.to_dict(),
        }


def check_max_cycles(max_cycles: int, what: str = "max_cycles") -> int:
    """``max_cycles`` as an int in 1 .. :data:`~sim.config.MAX_CYCLES`, or a one-line error."""
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or not 1 <= max_cycles <= MAX_CYCLES:
        raise SimError(f"{what} must be a positive integer of at most {MAX_CYCLES:.0e} cycles (hours even for one "
                       f"router), got {max_cycles!r}")
    return int(max_cycles)


def run_trace(
    topology: Topology,
    config: "SimConfig | str | None",
    trace: "Trace | str | Path",
    mapping: Sequence[int] | None = None,
    *,
    seed: int = 0,
    max_cycles: int = 10**10,
) -> TraceResult:
    """Run a trace-driven workload to completion on ``topology``.

    Parameters
    ----------
    topology : candidates.Topology
    config : SimConfig or a preset name; the measurement fields (warm-up,
        window, drain) are not used, ``phit_bytes`` converts message sizes
    trace : a :class:`Trace` or the path of a trace file
    mapping : ``mapping[rank]`` is the terminal (processing element) of
        each process; default the identity (process ``r`` on terminal
        ``r``); at most one process per terminal
    seed : seeds the kernel's random generator (the trace itself is
        deterministic, so a run is too)
    max_cycles : stop (``completed=False``) after this many cycles

    A ping-pong of 64-byte messages (16 phits) between routers 3 hops
    apart: each way ``(3 + 1) * 1 + 3 * 1 + 16 = 23`` cycles.

    >>> import candidates as cd
    >>> t = Trace.from_text("0 send 3 64\\n0 recv 3\\n3 recv 0\\n3 send 0 64\\n")
    >>> r = run_trace(cd.ring(8), SimConfig(routing="dor", packet_length=16), t)
    >>> r.cycles, r.finish[:4], r.hops
    (46, [46, 0, 0, 23], 3.0)
    """
    # the simulator is imported here, not at the top: building a trace (and
    # so the sim package, which every `toposynth` command loads for its
    # parser) should not import numba (~0.2 s, measured with -X importtime)
    from .engine import _as_config, _check_topology, resolve
    from .memory import check_sim_memory  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)
    from .routers import _core as K  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)
    from .routers import simple as driver  # deferred: numba + scipy take 0.59 s to import (docs/ARCHITECTURE.md)

    # deferred: numba + scipy take 0.59 s to import (docs/ARCHITECTURE.md)
    from .routers.simple import DEADLOCK_KINDS, routing_label, tables_for

    topo = _check_topology(topology)
    cfg = _as_config(config)
    seed = check_seed(seed)
    max_cycles = check_max_cycles(max_cycles)
    if not isinstance(trace, Trace):
        trace = Trace.read(trace)
    T = topo.num_terminals
    P = trace.processes
    if mapping is None:
        if P > T:
            raise SimError(f"the trace has {P} processes but {topo!r} has only {T} processing elements; "
                           "use a larger topology, concentration (:c=2) or a mapping")
        mp = np.arange(P, dtype=np.int64)
    else:
        mp = np.asarray(mapping, dtype=np.int64).ravel()
        if mp.shape != (P,):
            raise SimError(f"mapping must give a terminal for each of the {P} processes, got {mp.shape[0]}")
        if mp.min(initial=0) < 0 or mp.max(initial=0) >= T:
            raise SimError(f"mapping entries must be terminals 0..{T - 1}")
        if len(np.unique(mp)) != P:
            raise SimError("mapping puts two processes on one terminal (one process per processing element)")
    model = model_of(cfg)
    model.check(trace=True)
    routing, deadlock = resolve(topo, cfg, model)
    check_sim_memory(topo, cfg, routing=routing)
    tabs = tables_for(topo, cfg, routing)
    send_msg, recv_msg = trace.match()
    sends = np.flatnonzero(trace.kind == SEND)
    M = len(sends)
    rank = trace.rank_of_event()
    pb = int(cfg.phit_bytes)
    msg_phits = np.maximum(1, -(-trace.nbytes[sends] // pb)).astype(np.int64)
    msg_dst = mp[trace.a[sends]].astype(np.int64)
    sq_ptr = np.zeros(P + 1, dtype=np.int64)
    np.cumsum(np.bincount(rank[sends], minlength=P), out=sq_ptr[1:])
    ev_msg = np.where(trace.kind == SEND, send_msg, recv_msg).astype(np.int64)
    ev_a = np.where(trace.kind == COMPUTE, trace.a, 0).astype(np.int64)
    arrays = driver.TraceArrays(mp, trace.ptr, trace.kind, ev_a, ev_msg, msg_dst, msg_phits, sq_ptr, int(max_cycles))
    dests = Destinations(DEST_UNIFORM, np.zeros(1, np.int64), np.zeros((1, 1)), 0, 0.0, np.ones(T))
    # messages are cut into maximum-size packets; the last one of a message
    # can be shorter, so the VC rings must have room for 1-phit packets
    cfg_run = cfg.replace(packet_length=(1, cfg.length_range[1]))
    run = driver.build(topo, cfg_run, tabs, deadlock, dests, np.zeros(T), warmup=0, measure=1 << 62, drain=0,
                       seed=seed, trace=arrays)
    seconds, _, _, compile_seconds = driver.execute(run)
    stats, arc_phits = run.out.stats, run.out.arc_phits
    proc_finish, msg_sent, msg_done = run.trf.proc_finish, run.trf.msg_sent, run.trf.msg_done
    st = stats
    done = bool(st[K.S_TRACE_DONE])
    ms, md = msg_sent[:M], msg_done[:M]
    arrived = md >= 0
    end = max(int(proc_finish.max(initial=0)), int(md.max(initial=0)))
    cycles = end if done else int(st[K.S_CYCLES])
    pk = int(st[K.S_TAG_DELIVERED])
    busy = max(cycles, 1)
    util = arc_phits / float(busy)
    per_dim: dict[str, dict[str, float]] = {}
    for k, name in enumerate(topo.dims):
        sel = topo.arc_dim == k
        if sel.any():
            per_dim[name] = {"mean": float(util[sel].mean()), "max": float(util[sel].max())}
    if util.size:
        per_dim["all"] = {"mean": float(util.mean()), "max": float(util.max())}
    mlat = (md[arrived] - ms[arrived]) if arrived.any() else None
    return TraceResult(
        spec=topo.spec or topo.family,
        routing=routing_label(routing, deadlock),
        trace=trace.name,
        processes=P,
        cycles=cycles,
        completed=done,
        deadlock=bool(st[K.S_DEADLOCK]),
        deadlock_kind=DEADLOCK_KINDS[int(st[K.S_DEADLOCK_KIND])],
        finish=[int(x) for x in proc_finish],
        messages=M,
        bytes=trace.total_bytes,
        packets=int(st[K.S_DELIVERED]),
        phits=int(st[K.S_ACC_PHITS]),
        latency=float(st[K.S_SUM_LAT_INJ] / pk) if pk else None,
        message_latency=float(mlat.mean()) if mlat is not None and len(mlat) else None,
        message_latency_max=int(mlat.max()) if mlat is not None and len(mlat) else None,
        hops=float(st[K.S_SUM_HOPS] / pk) if pk else None,
        min_hops=float(st[K.S_SUM_MINHOPS] / pk) if pk else None,
        utilisation=per_dim,
        idle_cycles_skipped=int(st[K.S_SKIPPED]),
        seconds=seconds,
        compile_seconds=compile_seconds,
        conservation=bool(st[K.S_VIOLATIONS] == 0 and st[K.S_INJECTED] == st[K.S_DELIVERED] + st[K.S_IN_FLIGHT]),
        seed=seed,
        config=cfg,
        mapping=[int(x) for x in mp],
    )
