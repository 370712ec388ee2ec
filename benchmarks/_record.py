"""Shared by the benchmark scripts: machine facts and RESULTS.md recording."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import sys
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba
    import numpy

    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {numpy.__version__}, numba {numba.__version__}"
    )


def table(headers: list[str], rows: list[list[object]]) -> str:
    def fmt(x: object) -> str:
        if isinstance(x, float):
            return f"{x:.4g}"
        return str(x)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(fmt(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def record(section: str, body: str) -> None:
    """Replace (or add) the section ``## section`` of RESULTS.md."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = "python " + " ".join([Path(sys.argv[0]).as_posix()] + sys.argv[1:])
    block = f"## {section}\n\n`{cmd}` — {now}; {machine()}\n\n{body.strip()}\n"
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\nRecorded by the scripts in this folder (`--record`).\n"
    pat = re.compile(rf"^## {re.escape(section)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pat.search(text):
        text = pat.sub(lambda _m: block + "\n", text)
    else:
        text = text.rstrip() + "\n\n" + block
    RESULTS.write_text(text.rstrip() + "\n")
