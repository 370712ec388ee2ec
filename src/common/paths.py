"""Output paths checked before any work: every command that writes files uses these.

A command that computes for minutes and then cannot write its output has
lost the work; so the output directory or file is checked (created where
missing, probed for writability) up front, and a path that cannot be used
is refused with one line saying why and what to do. Missing parent
directories are created (``mkdir -p``), for a directory (``run --out``) and
a file (``enumerate --out``, ``simulate --plot``) alike.

The helpers live in the bottom layer because the ``simulate`` command
(``sim``) writes files too and must not import ``synth``.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> prepare_out_dir(os.path.join(d, "a", "b")).is_dir()
True
>>> open(os.path.join(d, "f"), "w").close()
>>> prepare_out_dir(os.path.join(d, "f"))
Traceback (most recent call last):
...
common.errors.OutputPathError: --out ... is a file; give a directory
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from .errors import OutputPathError

__all__ = ["prepare_out_dir", "check_out_file", "open_out_file", "atomic_write_text", "atomic_write_bytes", "OutputPathError"]


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _shown(p: Path) -> str:
    """``p`` for a message: a name too long for the file system is too long to quote whole."""
    text = str(p)
    return text if len(text) <= 80 else f"{text[:40]}...{text[-20:]} ({len(text)} characters)"


def _kind(p: Path, option: str) -> str | None:
    """``"dir"``, ``"file"`` or None (nothing there) for ``p``. pathlib's
    ``exists``/``is_dir`` raise on a name the file system cannot hold
    (ENAMETOOLONG) or a path through something that is not a directory it
    can search; those are the user's to fix, so they become one line."""
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a file on the way: the mkdir below says which
    except OSError as exc:
        hint = (f"use shorter names (a file system allows {_name_max(p)} bytes a name)"
                if exc.errno == errno.ENAMETOOLONG else f"choose another {option}")
        raise OutputPathError(f"{option} {_shown(p)}: {_why(exc)}; {hint}") from None
    return "dir" if stat.S_ISDIR(mode) else "file"


def _name_max(p: Path) -> int:
    """The longest file name the file system of ``p``'s nearest existing ancestor holds (255 on most)."""
    for q in (p, *p.parents):
        try:
            return os.pathconf(q, "PC_NAME_MAX")
        except (OSError, ValueError):
            continue
    return 255


def _probe(directory: Path, what: str, option: str) -> None:
    """Create and delete a file in ``directory``: the only writability test
    that tells the truth (``os.access`` says yes to root on a read-only
    mount, and knows nothing of quotas or full disks)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".toposynth-probe-", dir=directory)
    except OSError as exc:
        raise OutputPathError(f"cannot write to {_shown(Path(what))}: {_why(exc)}; choose another {option}") from None
    os.close(fd)
    os.unlink(name)


def prepare_out_dir(path: str | os.PathLike, *, option: str = "--out", files: tuple[str, ...] = (),
                    dirs: tuple[str, ...] = ()) -> Path:
    """Create the output directory ``path`` (and its parents) if missing,
    check that files can be written in it, and that none of the names in
    ``files`` (files the command will write there) is a directory and none
    in ``dirs`` a file. Returns the path; raises :class:`OutputPathError`
    with one line otherwise. Nothing is written but an empty directory.

    >>> import tempfile, os
    >>> d = prepare_out_dir(tempfile.mkdtemp(), files=("results.json",))
    >>> os.mkdir(d / "results.json")
    >>> prepare_out_dir(d, files=("results.json",))
    Traceback (most recent call last):
    ...
    common.errors.OutputPathError: .../results.json is a directory where a file is written;
    remove it or choose another --out
    """
    p = Path(path)
    if _kind(p, option) == "file":
        raise OutputPathError(f"{option} {p} is a file; give a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"cannot create {_shown(p)}: {_why(exc)}; choose another {option}") from None
    _probe(p, str(p), option)
    for name in files:
        if _kind(p / name, option) == "dir":
            raise OutputPathError(f"{p / name} is a directory where a file is written; "
                                  f"remove it or choose another {option}")
    for name in dirs:
        if _kind(p / name, option) == "file":
            raise OutputPathError(f"{p / name} is a file where a directory is written; "
                                  f"remove it or choose another {option}")
    return p


def check_out_file(path: str | os.PathLike, *, option: str = "--out") -> Path:
    """Make sure the file ``path`` can be written later: not a directory,
    its parent created if missing, writable. An existing file is left as it
    is (opened for append and closed). Returns the path.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> check_out_file(os.path.join(d, "new", "plot.png"), option="--plot").parent.is_dir()
    True
    >>> check_out_file(d, option="--plot")
    Traceback (most recent call last):
    ...
    common.errors.OutputPathError: --plot ... is a directory; give a file name
    """
    p = Path(path)
    kind = _kind(p, option)
    if kind == "dir":
        raise OutputPathError(f"{option} {p} is a directory; give a file name")
    parent = p.parent
    if _kind(parent, option) == "file":
        raise OutputPathError(f"{option} {p}: {parent} is a file, not a directory; choose another {option}")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"cannot create {_shown(parent)}: {_why(exc)}; choose another {option}") from None
    if kind == "file":
        try:
            with p.open("ab"):
                pass
        except OSError as exc:
            raise OutputPathError(f"cannot write to {p}: {_why(exc)}; choose another {option}") from None
    else:
        _probe(parent, str(p), option)
    return p


def open_out_file(path: str | os.PathLike, *, option: str = "--out", encoding: str = "utf-8"):
    """:func:`check_out_file`, then the file opened for writing (text)."""
    p = check_out_file(path, option=option)
    try:
        return p.open("w", encoding=encoding)
    except OSError as exc:
        raise OutputPathError(f"cannot write to {p}: {_why(exc)}; choose another {option}") from None


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same
    directory and ``os.replace``: a reader (or a crash) sees the old file
    or the new one, never half of one. Raises ``OSError`` as ``open`` does.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "x.json")
    >>> atomic_write_text(p, "{}\\n").read_text()
    '{}\\n'
    """
    return atomic_write_bytes(path, text.encode(encoding))


def _mode_for(p: Path) -> int:
    """The permission bits ``open(p, "w")`` would give: the existing file's, else 0666 less the umask."""
    try:
        return stat.S_IMODE(p.stat().st_mode)
    except OSError:
        mask = os.umask(0o022)  # the only way to read the umask is to set it; put it back at once
        os.umask(mask)
        return 0o666 & ~mask


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """:func:`atomic_write_text` for bytes."""
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(p))
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        # mkstemp makes the file 0600; a result file is read by others as any file open() makes would be
        os.fchmod(fd, _mode_for(p))
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return p
