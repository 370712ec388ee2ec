"""The JSONL record logs of a study's output directory, and its paths.

``toposynth run STUDY --out DIR`` appends every finished candidate's record
to ``DIR/records.jsonl`` (simulations to ``DIR/simulation.jsonl``) at once,
and a rerun resumes from them. This module owns those logs:

- :func:`prepare_out_dir` checks (and creates) ``DIR`` before any work, so
  nothing is computed that could not be kept;
- :func:`read_log` reads a log and trusts only what it can check: every
  line must be JSON, an object, with a study fingerprint; a record of this
  study's fingerprint must parse and pass its validation (``parse``: e.g.
  :meth:`CandidateRecord.validate`). Records of other fingerprints (the
  same directory reused by an edited study) are kept byte for byte and not
  judged: they are that study's business.
- A line that fails is *set aside*: appended with its line number and the
  reason to ``records.rejected.jsonl`` beside the log, and the log rewritten
  without it (temporary file + ``os.replace``, so a crash leaves the old log
  or the new one). Its candidate is then missing and evaluated again. One
  warning line on stderr says so, once: the next run finds a clean log.
- The last line cut short by a crash (no newline, not JSON) is the normal
  result of an interrupted run: it is set aside the same way but quietly.
  Removing it also matters for the next append, which would otherwise be
  glued to the partial line and lost with it (an appender also starts with
  a newline when the log does not end in one).
- Two different records of one candidate (two runs that disagree, an
  edited log) are both set aside, the conflict named in the warning line,
  and the candidate evaluated again: the last one must not silently decide
  the ranking. The same record twice (timings aside) is kept once.
- Two runs may share a directory. An open :class:`RecordLog` holds a shared
  ``flock`` on the log; the rewrite needs the exclusive lock and is skipped
  while another run has the log open (replacing the file under it would
  send its later records to a deleted file): the bad lines are then only
  ignored, and set aside by a later run.

>>> import tempfile, json
>>> d = prepare_out_dir(tempfile.mkdtemp())
>>> path = d / "records.jsonl"
>>> _ = path.write_text('{"spec": "a", "fingerprint": "f", "n": 1}\\n42\\n{"spec": "b", "fingerprint": "g"}\\n')
>>> log = read_log(path, "f", lambda r: r, warn=False)
>>> sorted(log.records), [(x.line, x.reason) for x in log.set_aside], log.others
(['a'], [(2, 'not a record (a JSON int)')], 1)
>>> print(log.warning())
toposynth: warning: ...records.jsonl: 1 damaged or invalid record set aside in records.rejected.jsonl
(line 2: not a record (a JSON int)); it will be recomputed
>>> len(path.read_text().splitlines()), json.loads((d / "records.rejected.jsonl").read_text())["text"]
(2, '42')
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

try:
    import fcntl
    _LOCKING = True
except ImportError:  # pragma: no cover - not POSIX: no locking, as before
    _LOCKING = False

from common.errors import OutputPathError
from common.paths import atomic_write_bytes
from common.paths import prepare_out_dir as _prepare_dir

from .errors import RecordError

__all__ = ["read_log", "open_log", "RecordLog", "LogContents", "SetAside", "prepare_out_dir", "rejected_path",
           "OUT_FILES", "OUT_DIRS"]

#: the files a run writes in its output directory (each must not be a directory)
OUT_FILES = ("records.jsonl", "records.rejected.jsonl", "simulation.jsonl", "simulation.rejected.jsonl",
             "study.json", "results.json", "results.csv", "report.html", "sweep.json")
#: the directories a run writes in its output directory
OUT_DIRS = ("winners",)

#: how many reasons the warning line spells out before "and N more"
_SHOWN = 3


def prepare_out_dir(path: str | os.PathLike, option: str = "--out") -> Path:
    """The output directory of a run, created if missing (with its parents)
    and checked writable, none of the files a run writes there a directory:
    :func:`common.paths.prepare_out_dir` with :data:`OUT_FILES`.
    Raises :class:`~common.errors.OutputPathError` (one line)."""
    return _prepare_dir(path, option=option, files=OUT_FILES, dirs=OUT_DIRS)


def rejected_path(path: str | os.PathLike) -> Path:
    """Where the lines set aside from the log ``path`` go: ``records.jsonl`` -> ``records.rejected.jsonl``."""
    p = Path(path)
    return p.with_name(p.name.removesuffix(".jsonl") + ".rejected.jsonl")


@dataclass(frozen=True)
class SetAside:
    """A line of a log that was not trusted: its 1-based number, why, and its text.
    ``quiet``: the last line cut short by an interrupted run (expected, no warning)."""

    line: int
    reason: str
    text: str
    quiet: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LogContents:
    """What :func:`read_log` found: the records of the fingerprint (by spec;
    a record repeated is kept once, two different records of one spec are
    both set aside), the lines set aside, and how many lines of other
    fingerprints were kept."""

    path: Path
    records: dict[str, Any] = field(default_factory=dict)
    set_aside: list[SetAside] = field(default_factory=list)
    others: int = 0
    #: False when the bad lines were only ignored (not repairing, or another run has the log open)
    repaired: bool = True
    #: the raw lines kept (the rewritten log)
    kept: list[bytes] = field(default_factory=list, repr=False)

    def warning(self) -> str | None:
        """The one warning line for the lines set aside (quiet ones not counted), or None."""
        loud = [x for x in self.set_aside if not x.quiet]
        if not loud:
            return None
        n = len(loud)
        # lines of one reason (the two records of a conflict) together
        by_reason: dict[str, list[int]] = {}
        for x in loud:
            by_reason.setdefault(x.reason, []).append(x.line)
        shown = "; ".join(("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines)) + f": {reason}"
                          for reason, lines in list(by_reason.items())[:_SHOWN])
        if len(by_reason) > _SHOWN:
            shown += f"; and {sum(len(v) for v in list(by_reason.values())[_SHOWN:])} more"
        rec, it = ("record", "it") if n == 1 else ("records", "they")
        where = (f"set aside in {rejected_path(self.path).name}" if self.repaired
                 else "ignored (another run has the log open; a later run sets them aside)")
        return (f"toposynth: warning: {self.path}: {n} damaged or invalid {rec} {where} ({shown}); "
                f"{it} will be recomputed")

    def to_dict(self) -> dict[str, Any]:
        return {"path": str(self.path), "records": len(self.records), "others": self.others,
                "set_aside": [x.to_dict() for x in self.set_aside]}


def _judge(raw: bytes, last_cut: bool, fingerprint: str, parse: Callable[[dict], Any]):
    """('ours', spec, record) | ('other', None, None) | ('bad', reason, quiet)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "bad", "not UTF-8 text", False
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        if last_cut:
            return "bad", "cut short (the run was interrupted while writing it)", True
        return "bad", "not JSON", False
    except RecursionError:  # the decoder recurses once per nesting level: no record nests this deep
        return "bad", "JSON nested too deeply to be a record", False
    if not isinstance(obj, dict):
        return "bad", f"not a record (a JSON {type(obj).__name__})", False
    fp = obj.get("fingerprint")
    if not isinstance(fp, str):
        return "bad", "no study fingerprint", False
    if fp != fingerprint:
        return "other", None, None
    try:
        rec = parse(obj)
    except RecordError as exc:
        return "bad", str(exc), False
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a parse the record checks did not foresee
        return "bad", f"malformed: {type(exc).__name__}: {exc}", False
    return "ours", obj["spec"], rec


def read_log(path: str | os.PathLike, fingerprint: str, parse: Callable[[dict], Any], *,
             repair: bool = True, warn: bool = True) -> LogContents:
    """Read the JSONL log ``path``: the records of ``fingerprint`` as
    ``parse(dict)`` returns them (it raises :class:`RecordError` for a record
    not to be trusted). Lines that fail are set aside (see the module doc):
    with ``repair``, moved to :func:`rejected_path` and the log rewritten
    without them; with ``warn``, one warning line on stderr. A missing log is
    empty. Raises :class:`~common.errors.OutputPathError` if the log
    cannot be read or repaired."""
    path = Path(path)
    out = LogContents(path)
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return out
    except OSError as exc:
        raise OutputPathError(f"cannot read {path}: {exc.strerror or exc}; remove it or choose another --out") from None
    with f:
        # the exclusive lock, if no other run has the log open, before reading: nothing appended is missed
        alone = _lock(f, exclusive=True, wait=False)
        try:
            data = f.read()
        except OSError as exc:
            raise OutputPathError(f"cannot read {path}: {exc.strerror or exc}; remove it or choose another --out") \
                from None
        _parse(data, fingerprint, parse, out)
        cut = bool(data) and not data.endswith(b"\n")
        out.repaired = repair and alone
        if out.repaired and (out.set_aside or cut):
            _repair(path, out.kept, out.set_aside)
    if warn and out.warning():
        print(out.warning(), file=sys.stderr)
    return out


def _lock(f, *, exclusive: bool, wait: bool) -> bool:
    """flock ``f``; False if ``wait`` is off and another process holds a conflicting lock."""
    if not _LOCKING:
        return True
    try:
        fcntl.flock(f.fileno(), (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError:  # a file system without locks: as before locking existed
        return True
    return True


def _result(obj: Any) -> Any:
    """A record without its timings (keys ending in ``seconds``): two runs of one candidate differ there only."""
    if isinstance(obj, dict):
        return {k: _result(v) for k, v in obj.items() if not k.endswith("seconds")}
    if isinstance(obj, list):
        return [_result(v) for v in obj]
    return obj


def _parse(data: bytes, fingerprint: str, parse: Callable[[dict], Any], out: LogContents) -> None:
    lines = data.split(b"\n")
    cut = not data.endswith(b"\n")   # the last element is a partial line (or b"" for an empty file)
    if not cut:
        lines.pop()
    kept: list[bytes | None] = []
    # spec -> (index in kept, line number, the record without timings, its line) of its first record
    first: dict[str, tuple[int, int, Any, bytes]] = {}
    conflicted: dict[str, int] = {}   # spec -> the line number of its first record
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        kind, a, b = _judge(raw.strip(), cut and i == len(lines), fingerprint, parse)
        if kind == "bad":
            out.set_aside.append(SetAside(i, a, raw.decode("utf-8", "surrogateescape"), b))
            continue
        if kind == "other":
            kept.append(raw)
            out.others += 1
            continue
        result = _result(json.loads(raw))
        if a in conflicted or (a in first and first[a][2] != result):
            # two different records of one candidate (two runs that disagree, an edit): which one is right
            # the log cannot tell, and the last one would silently decide the ranking -- trust neither,
            # set both aside and recompute the candidate
            if a not in conflicted:
                k, line, _, text = first[a]
                conflicted[a] = line
                out.set_aside.append(SetAside(line, f"two different records of {a}, neither trusted",
                                              text.decode("utf-8", "surrogateescape")))
                kept[k] = None
                del out.records[a]
            out.set_aside.append(SetAside(i, f"two different records of {a}, neither trusted",
                                          raw.decode("utf-8", "surrogateescape")))
            continue
        if a in first:
            continue   # the same record again (two runs of one directory both finished it): once is enough
        first[a] = (len(kept), i, result, raw)
        kept.append(raw)
        out.records[a] = b
    out.kept[:] = [x for x in kept if x is not None]
    out.set_aside.sort(key=lambda x: x.line)


def _repair(path: Path, kept: list[bytes], rejected: list[SetAside]) -> None:
    """Rejected lines first (appended and synced), then the log replaced
    atomically: a crash in between duplicates a rejected line, never loses one."""
    try:
        if rejected:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            with rejected_path(path).open("a", encoding="utf-8") as f:
                for x in rejected:
                    # ensure_ascii keeps undecodable bytes (surrogates) as \udcXX escapes: nothing is lost
                    f.write(json.dumps({"log": path.name, "set_aside_at": stamp, **x.to_dict()}) + "\n")
                f.flush()
                os.fsync(f.fileno())
        atomic_write_bytes(path, b"".join(line + b"\n" for line in kept))
    except OSError as exc:
        raise OutputPathError(f"cannot set aside the damaged lines of {path}: {exc.strerror or exc}; "
                              "make the directory writable or choose another --out") from None


class RecordLog:
    """A log opened for appending: :meth:`append` writes one record and
    makes it durable at once (fsync), so an interrupted run loses nothing
    finished. Unbuffered: a record that cannot be written (a full disk) is
    cut off again, so the log holds whole records only and a rerun resumes
    from it; nothing is left in a buffer for ``close`` to fail on."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            while True:
                self._f = self.path.open("ab", buffering=0)
                _lock(self._f, exclusive=False, wait=True)
                # a repair may have replaced the file between open and lock: then open the new one
                if os.fstat(self._f.fileno()).st_ino == os.stat(self.path).st_ino:
                    break
                self._f.close()
            size = os.fstat(self._f.fileno()).st_size
            # never glue a record to a line cut short: a newline before the first record (written with it,
            # so the cut line stays the log's last, set aside quietly, until a record follows)
            self._lead = b""
            if size:
                with self.path.open("rb") as r:
                    r.seek(size - 1)
                    if r.read(1) != b"\n":
                        self._lead = b"\n"
        except OSError as exc:
            raise OutputPathError(f"cannot write to {self.path}: {exc.strerror or exc}; "
                                  "choose another --out") from None

    def _write(self, data: bytes) -> None:
        """Append ``data`` whole and sync it, or cut the log back to where it was and raise
        :class:`~common.errors.OutputPathError` (ENOSPC, EDQUOT, EIO: the records before it are whole)."""
        fd = self._f.fileno()
        start = os.fstat(fd).st_size
        written = 0
        try:
            view = memoryview(data)
            while view:
                k = os.write(fd, view)
                written += k
                view = view[k:]
            os.fsync(fd)
        except OSError as exc:
            try:
                # only this record's bytes, and only when they are the log's tail: another run sharing
                # the log may have appended after them, and its record must stay
                if written and os.fstat(fd).st_size == start + written:
                    os.ftruncate(fd, start)
            except OSError:
                pass  # a partial last line is set aside (quietly) by the next read, as after a crash
            raise OutputPathError(f"cannot write to {self.path}: {exc.strerror or exc}; the records before it are "
                                  "kept: make room (or fix the directory) and rerun the same command to resume") \
                from None

    def append(self, d: dict[str, Any]) -> None:
        self._write(self._lead + (json.dumps(d) + "\n").encode("utf-8"))
        self._lead = b""

    def close(self) -> None:
        self._f.close()   # releases the lock

    def __enter__(self) -> "RecordLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_log(path: str | os.PathLike) -> RecordLog:
    """The log ``path`` opened for appending (created if missing); one-line
    :class:`~common.errors.OutputPathError` if it cannot be."""
    return RecordLog(path)
