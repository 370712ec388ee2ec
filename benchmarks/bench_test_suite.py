"""The README's test command on this checkout: wall and CPU time from a cold numba cache, idle or loaded.

    python benchmarks/bench_test_suite.py [--burners N] [--warm] [--record] [-- PYTEST-ARGS]

Runs ``python -m pytest`` (the README's test command without the install: the checkout's ``src`` on
``PYTHONPATH``) in a fresh process with an empty ``NUMBA_CACHE_DIR`` (every kernel the tests need compiles,
as in a fresh CI venv; ``--warm``: the cache of the machine), beside ``--burners`` CPU-bound processes
(``while True: pass`` at the same priority), which make a loaded machine of a quiet one: at ``--burners 8``
on 2 cores the suite gets about a fifth of the CPU. Reported: the suite's wall and CPU seconds (the pytest
process and every process it started, by ``wait4``), its outcome line, and the machine's load average
sampled every 10 s while it ran. ``--log FILE`` keeps pytest's output (failures are printed either way). ``--record`` adds the row to the results book's "Test suite" section (one
subsection per burner count and cache state, so idle and loaded runs sit side by side).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _record import commit, machine, record_subsection, table

ROOT = Path(__file__).resolve().parents[1]
SECTION = "Test suite: the README's test command, cold numba cache, idle and loaded"
SUMMARY = re.compile(r"^=+ (.*(passed|failed|error).*) in [\d.]+s", re.M)


def _burn() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burners", type=int, default=0, help="CPU-bound processes run beside the suite (default 0)")
    ap.add_argument("--warm", action="store_true", help="use the machine's numba cache instead of an empty one")
    ap.add_argument("--record", action="store_true", help="add the row to the results book (docs/results/)")
    ap.add_argument("--log", type=Path, help="pytest's whole output, written as it runs (default: a temporary file)")
    ap.add_argument("pytest_args", nargs="*", help="arguments for pytest after `--` (default: none, the README's)")
    args = ap.parse_args()
    if not 0 <= args.burners <= 64:
        ap.error(f"--burners must be in 0..64, got {args.burners}")
    loads: list[float] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(10.0):
            loads.append(os.getloadavg()[0])

    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        if not args.warm:
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
        burners = [_burn() for _ in range(args.burners)]
        try:
            time.sleep(2.0 if burners else 0.0)       # the burners running before the suite starts
            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            log = args.log if args.log is not None else Path(tmp) / "pytest.log"
            with log.open("w") as f:
                p = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
                                      *args.pytest_args], cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
                p.wait()
            out = log.read_text()
            wall = time.monotonic() - t0
            # pytest and every process it reaped; the burners are not reaped yet, so not counted
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            stop.set()
        finally:
            for b in burners:
                b.kill()
            for b in burners:
                b.wait()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    failed = [x for x in out.splitlines() if x.startswith(("FAILED ", "ERROR "))]
    m = SUMMARY.search(out)
    outcome = m.group(1) if m else out.strip().splitlines()[-1][:120]
    cache = "warm" if args.warm else "cold"
    mean_load = sum(loads) / len(loads) if loads else os.getloadavg()[0]
    row = [args.burners, cache, f"{wall / 60:.1f}", f"{cpu / 60:.1f}",
           f"{mean_load:.1f}", outcome, f"exit {p.returncode}"]
    headers = ["burners", "numba cache", "wall min", "CPU min", "mean load (1 min)", "pytest", "status"]
    text = table(headers, [row])
    note = f"Commit {commit()}; {machine()}."
    print("\n".join(failed + [text, "", note]))
    if args.record:
        record_subsection(SECTION, f"{args.burners} burners, {cache} cache", text + "\n\n" + note)
    return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
