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

__all__ = ["read_text"]


def read_text(path: str | os.PathLike, what: str, error: type[ToposynthError] = ToposynthError) -> str:
    """The text of ``path`` decoded as UTF-8 (a byte-order mark is dropped).

    A missing, unreadable or binary file, a directory, or another encoding
    raises ``error`` with one line naming ``what`` the file was meant to be.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise error(f"cannot read {what} {str(p)!r}: {exc.strerror or exc}") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise error(f"{what} {p} is a binary file, not text (a NUL byte at offset {nul}); "
                    f"give the {what} as UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"{what} {p} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}, line {line}); "
                    f"save it as UTF-8") from None
    return text.removeprefix("\ufeff")
