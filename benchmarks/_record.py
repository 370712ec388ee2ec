"""Shared by the benchmark scripts: machine facts and recording into the results book (docs/results/*.md).

A script's ``--record`` writes one section (``## title``) of a page of the book, or one part (``### title``) of
a section. The section is replaced where it stands, on whichever page holds it; a section no page holds yet is
added at the end of the page of its subject (:data:`PAGES`: a paper's name picks the paper's page, a prefix
such as ``Flows`` an area's page; :data:`FALLBACK` otherwise).
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
import shlex
import sys
import time
from pathlib import Path

#: the results book: one Markdown page per paper reproduction and per benchmark area
BOOK = Path(__file__).resolve().parents[1] / "docs" / "results"
#: the paper reproductions, each on its page NAME.md: a section whose title names the paper goes there
PAPERS = ("twisted-tori-tpds2010", "5d-twin-torus-extoll", "topology-synthesis-mcf-bgl", "rtt-mapping-concentration",
          "equivalent-distance-irregular")
#: where a new section goes, by the start of its title (the first match wins), after the papers
PAGES = (
    ("Flows", "flows.md"),
    ("Latency under load", "flows.md"),
    ("`toposynth` start-up", "flows.md"),
    ("Queueing model", "queueing-model.md"),
    ("Simulator", "simulator.md"),
    ("The simulator", "simulator.md"),
    ("Dragonfly", "simulator.md"),
    ("Analytics", "candidates.md"),
    ("Enumeration", "candidates.md"),
    ("Synthesis", "candidates.md"),
    ("Design flow", "design-flow.md"),
    ("Parallel backends", "design-flow.md"),
    ("Python API", "design-flow.md"),
    ("The built-in study", "design-flow.md"),
    ("First run", "design-flow.md"),
)
#: the page of a new section that no prefix places
FALLBACK = "design-flow.md"


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


def commit() -> str:
    """The tree's commit (short hash), ``+changes`` when its files differ from it; ``unknown`` outside git."""
    import subprocess

    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" +changes" if dirty else "")


def table(headers: list[str], rows: list[list[object]]) -> str:
    def fmt(x: object) -> str:
        if isinstance(x, float):
            return f"{x:.4g}"
        return str(x)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(fmt(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def command() -> str:
    """The command line that ran this script, absolute paths written as their
    last component (a folder of the machine that ran it means nothing elsewhere)."""
    args = [Path(sys.argv[0]).as_posix()] + sys.argv[1:]
    out = []
    for a in args:
        key, eq, value = a.partition("=") if a.startswith("--") else ("", "", a)
        if value.startswith("/"):
            value = Path(value).name or value
        out.append(key + eq + value)
    # quoted where the shell would split it (a section's name), so the line runs as written
    return "python " + shlex.join(out)


#: the 1-minute load average above which a timing benchmark refuses ``--record``: its timings would be the
#: other processes' as much as its own
BUSY = 0.5


def load_before(script: str, recording: bool) -> float | None:
    """The 1-minute load average before a timing benchmark's runs; None, with one line on stderr saying so,
    when it is asked to record on a busier machine than :data:`BUSY` (the script then exits with 2)."""
    busy = os.getloadavg()[0]
    if recording and busy > BUSY:
        print(f"{script}: the 1-minute load average is {busy:.2f} (above {BUSY}): not recording timings of a busy "
              "machine; run it on a quiet one", file=sys.stderr)
        return None
    return busy


def report(busy: float, text: str, section: str | None = None, intro: str = "") -> None:
    """Print a timing benchmark's table after the load average it started from; with ``section``, record it
    there (``intro``, a blank line, the table)."""
    print(f"load average before the runs: {busy:.2f}")
    print(text)
    if section is not None:
        record(section, intro + "\n\n" + text)


def _section_pattern(section: str) -> re.Pattern:
    return re.compile(rf"^## {re.escape(section)}\n.*?(?=^## |\Z)", re.S | re.M)


def page_for(section: str) -> Path:
    """The page of the book for ``## section``: the page that holds it already, else the page of its subject."""
    pat = _section_pattern(section)
    for page in sorted(BOOK.glob("*.md")):
        if pat.search(page.read_text()):
            return page
    for paper in PAPERS:
        if paper in section:
            return BOOK / f"{paper}.md"
    for prefix, name in PAGES:
        if section.startswith(prefix):
            return BOOK / name
    return BOOK / FALLBACK


def recorded(section: str) -> str:
    """The text of the page of the book that holds (or would hold) ``## section``; empty when there is none."""
    page = page_for(section)
    return page.read_text() if page.exists() else ""


def _page_title(page: Path) -> str:
    return page.stem.replace("-", " ").capitalize()


def record(section: str, body: str, provenance: bool = True) -> None:
    """Replace (or add) the section ``## section`` of the results book (:func:`page_for`); its first line
    gives the command, the date and the machine (none when ``provenance`` is false: the body's parts carry
    their own). A body without ``### `` parts replaces the section's own text and keeps
    its parts (a hand-written one such as a run from a fresh clone, under the script's table)."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = f"`{command()}` — {now}; {machine()}\n\n" if provenance else ""
    block = f"## {section}\n\n{head}{body.strip()}\n"
    page = page_for(section)
    text = page.read_text() if page.exists() else f"# {_page_title(page)}\n"
    pat = _section_pattern(section)
    m = pat.search(text)
    if m and not re.search(r"^### ", body, re.M):
        parts = re.split(r"(?=^### )", m.group(0), maxsplit=1, flags=re.M)
        if len(parts) == 2:
            block += "\n" + parts[1].rstrip() + "\n"
    if m:
        text = pat.sub(lambda _m: block + "\n", text)
    else:
        text = text.rstrip() + "\n\n" + block
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text.rstrip() + "\n")


def record_subsection(section: str, title: str, body: str, legacy_title: str | None = None) -> None:
    """Replace (or add) ``### title`` inside ``## section`` of the results book and keep
    its other subsections; each carries its own command and date. A section
    recorded earlier as one block becomes the subsection ``legacy_title``
    (with its provenance line) unless that is the one being replaced."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    block = f"### {title}\n\n_`{command()}` — {now}; {machine()}_\n\n{body.strip()}\n"
    page = page_for(section)
    text = page.read_text() if page.exists() else ""
    m = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    old = m.group(1) if m else ""
    parts = re.split(r"(?=^### )", old, flags=re.M)
    head, subs = parts[0], [p for p in parts[1:] if p.strip()]
    head_lines = head.strip().splitlines()
    if subs and head_lines and head_lines[0].startswith("`"):
        # a section recorded in one run with ### parts inside: they keep that run's provenance line
        subs = [_with_provenance(sub, head_lines[0].strip()) for sub in subs]
    # parts recorded when the section named one machine for all (its first line): each keeps that machine
    old_machine = _machine_of(head_lines[0]) if head_lines else ""
    if old_machine:
        subs = [_with_machine(sub, old_machine) for sub in subs]
    if head.strip() and not subs and legacy_title and legacy_title != title:
        lines = head.strip().splitlines()
        prov = lines[0].strip() if lines and lines[0].startswith("`") else ""
        rest = "\n".join(lines[1:] if prov else lines).strip()
        subs = [f"### {legacy_title}\n\n_{prov}_\n\n{rest}\n"]
    out, done = [], False
    for sub in subs:
        if sub.startswith(f"### {title}\n"):
            out.append(block)
            done = True
        else:
            out.append(sub.rstrip() + "\n")
    if not done:
        out.append(block)
    record(section, "Recorded part by part; each part gives its own command, date and machine.\n\n"
           + "\n".join(out), provenance=False)


def _machine_of(line: str) -> str:
    """The machine a section's first line names (``Machine: M``, or a provenance line ``cmd — date; M``)."""
    line = line.strip()
    if line.startswith("Machine: "):
        return line[len("Machine: "):]
    if line.startswith("`") and "; " in line:
        return line.rsplit("; ", 1)[1] if " UTC; " in line else ""
    return ""


def _with_machine(sub: str, machine_: str) -> str:
    """``### title`` block ``sub`` with ``machine_`` at the end of its provenance line, unless it names one."""
    lines = sub.split("\n")
    for i, line in enumerate(lines[:4]):
        if line.startswith("_`") and line.endswith(" UTC_"):
            lines[i] = f"{line[:-1]}; {machine_}_"
            break
    return "\n".join(lines)


def _with_provenance(sub: str, prov: str) -> str:
    """``### title`` block ``sub`` with the italic provenance line ``prov`` under its title, unless it has one."""
    title, _, rest = sub.partition("\n")
    if rest.lstrip().startswith("_`"):
        return sub
    return f"{title}\n\n_{prov}_\n\n{rest.strip()}\n"


def adopt_orphans(who: str) -> None:
    """Become the subreaper of everything this script starts (Linux), so that
    the CPU time of worker processes that outlive their run is reaped and
    counted (``who``: the script, for the one-line error)."""
    import ctypes

    PR_SET_CHILD_SUBREAPER = 36
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"{who}: prctl(PR_SET_CHILD_SUBREAPER) failed")


def reap(who: str, timeout: float = 30.0) -> None:
    """Wait for every process the last run left behind (see :func:`adopt_orphans`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.02)
    sys.exit(f"{who}: a worker process did not end")
