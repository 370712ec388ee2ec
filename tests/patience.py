"""Waiting on child processes by the CPU time they use, not by the wall clock.

A busy machine slows a child down but does not make it use more CPU: a limit in CPU seconds holds at
any load, where a wall-clock timeout that an idle machine meets with room to spare fails at load 8
(a cold numba compile alone is about a minute of CPU). A child stuck in a loop still ends, by its
CPU limit; only a child blocked without using any CPU meets the wall-clock backstop, set far beyond
what any test needs on a loaded machine.

Importable from every test module: pytest puts ``tests/`` (the folder of the root conftest.py) on
``sys.path``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["BACKSTOP", "run", "wait_for", "finish", "tree_cpu", "descendants", "alive"]

#: wall-clock seconds after which a child that has not finished is taken as hung (it used no CPU)
BACKSTOP = 3600.0
_TICK = os.sysconf("SC_CLK_TCK")


def _limit(cpu: float) -> Callable[[], None]:
    def apply() -> None:
        # the child and each process it starts may use this much CPU (RLIMIT_CPU is per process)
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))
    return apply


def run(argv: list[str], *, cpu: float, **kwargs) -> subprocess.CompletedProcess:
    """:func:`subprocess.run` with at most ``cpu`` CPU seconds per process instead of a wall-clock timeout."""
    kwargs.setdefault("timeout", BACKSTOP)
    return subprocess.run(argv, preexec_fn=_limit(cpu), **kwargs)


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def descendants(pid: int) -> dict[int, int]:
    """Live descendants of ``pid`` -> their start time (to tell a reused pid apart)."""
    table = {}
    for d in os.listdir("/proc"):
        if d.isdigit() and (st := _stat(int(d))) is not None and st[0] != "Z":
            table[int(d)] = (int(st[1]), int(st[19]))
    out: dict[int, int] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        for c, (ppid, start) in table.items():
            if ppid == p and c not in out:
                out[c] = start
                todo.append(c)
    return out


def alive(procs: dict[int, int]) -> list[int]:
    """The processes of ``procs`` (pid -> start time, as :func:`descendants` gives) still running."""
    out = []
    for pid, start in procs.items():
        st = _stat(pid)
        if st is not None and st[0] != "Z" and int(st[19]) == start:
            out.append(pid)
    return out


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and its live descendants, with the children each has reaped."""
    total = 0
    for p in (pid, *descendants(pid)):
        st = _stat(p)
        if st is not None:
            total += sum(int(x) for x in st[11:15])     # utime, stime, cutime, cstime
    return total / _TICK


def wait_for(cond: Callable[[], bool], what: str, *, cpu: float | None = None, wall: float | None = None,
             proc: subprocess.Popen | None = None) -> None:
    """Poll ``cond`` until it holds; fail if ``proc`` ends first, or once ``proc``'s process tree (without
    ``proc``: this process) has used ``cpu`` CPU seconds since the call without it holding. ``wall`` instead:
    a wall-clock limit, for what uses no CPU to happen (processes ending after a kill)."""
    if (cpu is None) == (wall is None):
        raise TypeError("wait_for: give cpu or wall")

    def used() -> float:
        if proc is not None:
            return tree_cpu(proc.pid)
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    start, t0 = used(), time.monotonic()
    while not cond():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended (status {proc.returncode}) before {what}")
        if cpu is not None and used() - start > cpu:
            raise AssertionError(f"{what}: not within {cpu:g} CPU seconds")
        if time.monotonic() - t0 > (wall if wall is not None else BACKSTOP):
            raise AssertionError(f"{what}: not within {wall if wall is not None else BACKSTOP:g} s")
        time.sleep(0.1)


def finish(proc: subprocess.Popen, *, cpu: float) -> int:
    """Wait for ``proc`` to end, its process tree using at most ``cpu`` CPU seconds meanwhile; its status."""
    start, t0 = tree_cpu(proc.pid), time.monotonic()
    while proc.poll() is None:
        if tree_cpu(proc.pid) - start > cpu:
            raise AssertionError(f"process {proc.pid} did not end within {cpu:g} CPU seconds")
        if time.monotonic() - t0 > BACKSTOP:
            raise AssertionError(f"process {proc.pid} did not end within {BACKSTOP:g} s (hung)")
        time.sleep(0.1)
    return proc.returncode
