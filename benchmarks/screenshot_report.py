"""Regenerate the README's report pictures: the top of the default study's
report as a headless-Chromium screenshot (docs/report-default.png) and its
Pareto figure (docs/pareto-default.png).

    python benchmarks/screenshot_report.py [--dir DIR] [--chromium PATH]

Runs the built-in default study into DIR (default: a temporary folder; an
existing DIR resumes, so a second call only re-renders), renders the report,
and photographs it in a real browser, as an architect would open it.
Needs a Chromium (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import argparse
import base64
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
#: the viewport photographed: the title, the answer and the Pareto figure of the default study
WINDOW = (1100, 1250)


def screenshot(html: Path, png: Path, chromium: str, window: tuple[int, int] = WINDOW) -> None:
    """Photograph the top ``window`` (width, height in CSS pixels) of ``html`` with headless Chromium."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--window-size={window[0]},{window[1]}", f"--screenshot={png}", html.resolve().as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="study folder (kept; resumed when it exists)")
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    args = ap.parse_args(argv)
    if not args.chromium:
        print("no chromium found: apt-get install chromium, or pass --chromium PATH", file=sys.stderr)
        return 2
    from synth.runner import run
    from synth.study import builtin_study

    out = args.dir or Path(tempfile.mkdtemp(prefix="toposynth-default-"))
    run(builtin_study("default"), out, jobs=2)
    report = out / "report.html"
    DOCS.mkdir(exist_ok=True)
    screenshot(report, DOCS / "report-default.png", args.chromium)
    m = re.search(r"<img id='pareto' alt='pareto' src='data:image/png;base64,([^']+)'>", report.read_text())
    if m is None:
        print(f"{report} has no Pareto figure", file=sys.stderr)
        return 1
    (DOCS / "pareto-default.png").write_bytes(base64.b64decode(m.group(1)))
    for name in ("report-default.png", "pareto-default.png"):
        print(f"{DOCS / name}: {(DOCS / name).stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
