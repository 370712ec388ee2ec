"""A new user's first run: each command cold (empty numba cache) and then warm.

    python benchmarks/bench_cold_start.py [--only run,flow-8x8] [--record]

Each command runs as ``python -m synth.cli CMD`` in a fresh process, first
with an empty ``NUMBA_CACHE_DIR`` (every kernel it needs compiles: the
first run after an install) and then again with the cache that run filled
(warm). Each command gets its own empty cache, so its cold figure counts
every compile it needs, whatever ran before it; an empty ``TOPOSYNTH_CACHE``
too (searched graphs), and ``run`` writes into a fresh output folder each
time (a rerun would resume). Reported: wall and CPU seconds, the process and
its children (``RUSAGE_CHILDREN``), and how many compile notices the
command printed on stderr (one per part compiled cold; none warm). The
machine's load average is printed with the table: compiles run on one core,
so a busy second core stretches the cold wall times.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _record import commit, machine, record, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
#: (name, arguments); ``{out}`` is a fresh folder of the run
COMMANDS = [
    ("run", ["run", "--out", "{out}"]),
    ("flow-4x4", ["flow", "torus:4x4"]),
    ("flow-8x8", ["flow", "torus:8x8", "--latency"]),
    ("simulate", ["simulate", "torus:4x4"]),
    ("simulate-iq", ["simulate", "torus:4x4", "--preset", "booksim"]),
    ("describe", ["describe", "torus:4x4"]),
    ("search", ["search", "--routers", "16", "--degree", "3", "--moves", "2000"]),
]
NOTICE = re.compile(r"^compiling .* \(first run only, about \d+ s\) \.\.\.$", re.M)


def one(args: list[str], env: dict[str, str], scratch: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of one fresh ``toposynth`` process, and the compile notices it printed."""
    out = tempfile.mkdtemp(prefix="out-", dir=scratch)
    argv = [sys.executable, "-m", "synth.cli", *(a.replace("{out}", out) for a in args)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench_cold_start: {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, len(NOTICE.findall(p.stderr))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="comma-separated command names: " + ", ".join(n for n, _ in COMMANDS))
    ap.add_argument("--record", action="store_true", help="write the table into the results book (docs/results/design-flow.md)")
    args = ap.parse_args()
    wanted = set(args.only.split(",")) if args.only else {n for n, _ in COMMANDS}
    unknown = wanted - {n for n, _ in COMMANDS}
    if unknown:
        sys.exit(f"bench_cold_start: unknown command name(s): {', '.join(sorted(unknown))}")
    load0 = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory(prefix="cold-start-") as tmp:
        for name, cmd in COMMANDS:
            if name not in wanted:
                continue
            scratch = Path(tmp) / name
            scratch.mkdir()
            env = {**os.environ, "PYTHONPATH": SRC, "NUMBA_CACHE_DIR": str(scratch / "numba"),
                   "TOPOSYNTH_CACHE": str(scratch / "toposynth")}
            cw, cc, cn = one(cmd, env, scratch)
            ww, wc, wn = one(cmd, env, scratch)
            rows.append([" ".join(cmd).replace(" --out {out}", ""), f"{cw:.1f}", f"{cc:.1f}", f"{ww:.2f}",
                         f"{wc:.2f}", f"{cn} / {wn}"])
            print(f"{name}: cold {cw:.1f} s wall, warm {ww:.2f} s", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    text = table(["command", "cold wall s", "cold CPU s", "warm wall s", "warm CPU s", "notices cold / warm"], rows)
    note = (f"\nOne fresh process per cell: cold = an empty numba cache (and `TOPOSYNTH_CACHE`), warm = the same "
            f"command again with the cache the cold run filled. CPU = the process and its children. "
            f"Commit {commit()}. Load average {load0[0]:.2f} before, {load1[0]:.2f} after (1 min). {machine()}")
    print(text + "\n" + note)
    if args.record:
        record("First run from an empty numba cache (cold) and again (warm), per command", text + "\n" + note)


if __name__ == "__main__":
    main()
