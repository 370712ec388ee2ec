"""Errors raised for bad input, and the command line's exit statuses.

Every error toposynth raises for something the user can fix derives from
:class:`ToposynthError`; the CLI prints its message on one line and exits
with status 2. Messages say what is wrong and how to fix it. Each package
derives its own errors from it (``candidates``' :class:`SpecError`,
``sim``'s :class:`SimError`, ...).

The exit statuses, one per outcome, live here because every layer's
command (``sim``'s ``simulate`` as well as ``synth``'s) returns them.
"""

from __future__ import annotations

import argparse
import numbers
from typing import NoReturn

__all__ = ["ToposynthError", "OutputPathError", "MAX_SEED", "check_seed", "seed_arg", "OneLineParser", "EXIT_OK",
           "EXIT_BAD_INPUT", "EXIT_DEADLOCK", "EXIT_NOT_CERTIFIED", "EXIT_INTERRUPTED", "EXIT_CODES"]

#: the result is valid (a certified answer, a finished simulation)
EXIT_OK = 0
#: bad input, or an output that cannot be written (a full disk, a name too long) or a cluster left without
#: workers: one ``toposynth: error:`` line says what is wrong and how to fix it; what was computed is kept
EXIT_BAD_INPUT = 2
#: a simulation deadlocked: its latency and throughput are not measurements
EXIT_DEADLOCK = 3
#: a limit stopped the computation short of its answer: a flow above its eps
#: (phase budget), a trace not completed within ``--max-cycles``
EXIT_NOT_CERTIFIED = 4
#: interrupted (Ctrl-C); finished work is kept
EXIT_INTERRUPTED = 130

EXIT_CODES = {EXIT_OK: "ok", EXIT_BAD_INPUT: "bad input", EXIT_DEADLOCK: "deadlock",
              EXIT_NOT_CERTIFIED: "not certified / not complete", EXIT_INTERRUPTED: "interrupted"}


class ToposynthError(ValueError):
    """Base class of all errors caused by input the user can correct.

    A ``ValueError``, so a handler of those catches it too; each package's
    own errors derive from it, so one handler catches them all:

    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    common.errors.ToposynthError: seed must be an integer >= 0, got -1
    >>> from candidates import SpecError, from_spec
    >>> issubclass(SpecError, ToposynthError), issubclass(ToposynthError, ValueError)
    (True, True)
    >>> try:
    ...     from_spec("ring:2")
    ... except ToposynthError as e:
    ...     print(f"{type(e).__name__}: {e}")
    SpecError: a ring needs at least 3 routers, got 2
    """


class OutputPathError(ToposynthError):
    """An output directory or file that cannot be written (a file where a
    directory is needed, a missing permission, ...)."""


#: The largest seed: the simulator's kernels seed numba's generator, which
#: takes 32 bits (a larger seed would silently repeat a smaller one's run);
#: every command takes the same range, so a seed one accepts works in all.
MAX_SEED = 2**32 - 1


def check_seed(seed, what: str = "seed") -> int:
    """``seed`` as an int, or a one-line error: numpy's generators take
    integers >= 0, and a negative one would otherwise fail deep inside a run;
    at most :data:`MAX_SEED`.

    >>> check_seed(3)
    3
    >>> check_seed(2**32)
    Traceback (most recent call last):
    ...
    common.errors.ToposynthError: seed must be an integer in 0..4294967295 (32 bits), got 4294967296
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ToposynthError(f"{what} must be an integer >= 0, got {seed!r}")
    if int(seed) > MAX_SEED:
        raise ToposynthError(f"{what} must be an integer in 0..{MAX_SEED} (32 bits), got {seed!r}")
    return int(seed)


def seed_arg(text: str) -> int:
    """argparse ``type=`` of every ``--seed`` option: :func:`check_seed`'s
    rule where the value is parsed, as argparse's one-line usage error.

    >>> seed_arg("7")
    7
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer in 0..{MAX_SEED}, got {text!r}") from None
    try:
        return check_seed(value, "")
    except ToposynthError as exc:
        raise argparse.ArgumentTypeError(str(exc).strip()) from None


class OneLineParser(argparse.ArgumentParser):
    """argparse, with its usage errors as one ``toposynth: error:`` line
    (argparse prints the whole usage first) and the same exit status as
    every other bad input. Subparsers inherit the class."""

    def error(self, message: str) -> NoReturn:
        # the command's name after the prefix, once: "toposynth: error: run: ..." (the top level: none)
        command = self.prog.split(" ", 1)[1] + ": " if " " in self.prog else ""
        self.exit(EXIT_BAD_INPUT, f"toposynth: error: {command}{message}; see `{self.prog} --help`\n")
