"""Reading the text files users hand to toposynth (studies, demand CSVs,
traces, edge lists): UTF-8 or one clear error line.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp(), "t.txt")
>>> _ = p.write_bytes(b"ok\\n")
>>> read_text(p, "trace")  # doctest: +ELLIPSIS
'ok\\n'
>>> _ = p.write_bytes(b"caf\\xe9\\n")
>>> read_text(p, "trace")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
common.errors.ToposynthError: trace ...t.txt is not UTF-8 text (byte 0xe9 at offset 3, line 1); save it as UTF-8
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ToposynthError
from .size import format_bytes

__all__ = ["read_text"]


#: bytes read at a time when the size is bounded: a device that never ends
#: (/dev/zero) is refused after its first chunk (a NUL byte), a stream of
#: text when it passes the bound
CHUNK = 1 << 20


def read_text(path: str | os.PathLike, what: str, error: type[ToposynthError] = ToposynthError,
              max_bytes: int | None = None) -> str:
    """The text of ``path`` decoded as UTF-8 (a byte-order mark is dropped).

    A missing, unreadable or binary file, a directory, or another encoding
    raises ``error`` with one line naming ``what`` the file was meant to be;
    so does one longer than ``max_bytes`` (when given), read in chunks so
    that an endless device or pipe is refused without reading it all.
    """
    p = Path(path)
    try:
        if max_bytes is None:
            data = p.read_bytes()
        else:
            data = _read_bounded(p, what, error, max_bytes)
    except OSError as exc:
        raise error(f"cannot read {what} {str(p)!r}: {exc.strerror or exc}") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _binary(p, what, error, nul)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{what} {p} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line}); "
                    f"save it as UTF-8") from None
    return text.removeprefix("\ufeff")


def _binary(p: Path, what: str, error: type[ToposynthError], nul: int) -> ToposynthError:
    return error(f"{what} {p} is a binary file, not text (a NUL byte at offset {nul}); give the {what} as UTF-8 text")


def _read_bounded(p: Path, what: str, error: type[ToposynthError], max_bytes: int) -> bytes:
    """At most ``max_bytes`` of ``p``, chunk by chunk; a NUL byte or one byte more is an error at once."""
    chunks: list[bytes] = []
    total = 0
    with open(p, "rb") as f:
        while True:
            c = f.read(CHUNK)
            if not c:
                break
            nul = c.find(b"\x00")
            if nul >= 0:
                raise _binary(p, what, error, total + nul)
            total += len(c)
            if total > max_bytes:
                raise error(f"{what} {p} is longer than {format_bytes(max_bytes)}, more than the memory can parse "
                            f"(the limit follows the memory available, or TOPOSYNTH_MEMORY_LIMIT); "
                            f"give a smaller {what}")
            chunks.append(c)
    return b"".join(chunks)
