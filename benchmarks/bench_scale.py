"""The simulator at machine scale: memory and speed against router count.

Tori of 1,024 (16x8x8), 8,192 (32x16x16) and 65,536 (64x32x32, Blue
Gene/L's full machine) routers under uniform traffic with 1-flit packets,
warm-up 1000 and measurement 2000 cycles (``measurement="fixed"``), on
BookSim2's router model (``preset("booksim")``, ``router="iq"``) and on the
simple router (``preset("singleflit")``, routing dor). Every configuration
runs in a fresh subprocess, which reports

- build seconds (the model's state, routing data included),
- the kernel's M router-cycles (routers x simulated cycles, drain included)
  per CPU second and per wall second,
- the peak RSS of the process (``resource.getrusage``), the RSS before the
  simulation (interpreter, compiled kernels and the topology) and the
  increase, beside :func:`sim.memory_estimate` (which estimates the increase),
- the mean latency, to tell a stable run from one past saturation (the
  source queues of a run past saturation grow with its length, which no
  estimate made before the run can know; the run checks every growth
  against the memory limit).

A configuration whose estimate exceeds the memory limit prints
``refused: <the one-line message>``.

    python benchmarks/bench_scale.py                       # iq and simple, loads 0.1 and 0.02
    python benchmarks/bench_scale.py --loads 0.1 --routers iq --sizes 16x8x8,32x16x16
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _record import machine, table  # noqa: E402

SIZES = ("16x8x8", "32x16x16", "64x32x32")

_CHILD = r"""
import json, resource, sys, time
import numpy as np
import candidates as cd, sim
from common.size import SizeError
from sim import preset
shape, router, load, warmup, measure = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
if router == "iq":
    cfg = preset("booksim", measurement="fixed", warmup=warmup, measure=measure)
else:
    cfg = preset("singleflit", routing="dor", warmup=warmup, measure=measure)
# compile (or load the cache) on a small network first
sim.simulate(cd.from_spec("torus:4x4x4"), cfg.replace(warmup=20, measure=20, drain=200), "uniform", 0.05, seed=1)
topo = cd.from_spec("torus:" + shape)
_ = topo.arc_id, topo.arc_src, topo.arc_dst, topo.coords
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
base = rss()
out = {"n": topo.n, "base": base}
try:
    est = sim.memory_estimate(topo, cfg, load=load)
    out["estimate"] = est.nbytes
    t0 = time.perf_counter()
    r = sim.simulate(topo, cfg, "uniform", load, seed=1)
    total = time.perf_counter() - t0
    out.update(cycles=r.cycles, cpu=r.cpu_seconds, wall=r.seconds, build=total - r.seconds,
               latency=r.latency_generation, accepted=r.accepted, stable=r.stable)
except SizeError as exc:
    out["refused"] = str(exc)
out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0
print(json.dumps(out))
"""


def run_one(shape: str, router: str, load: float, warmup: int, measure: int, src: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-c", _CHILD, shape, router, str(load), str(warmup), str(measure)],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def row(shape: str, router: str, load: float, r: dict) -> list[object]:
    name = f"torus:{shape}"
    if "error" in r or "refused" in r:
        msg = r.get("refused") or r.get("error")
        return [name, router, load, r.get("n", ""), f"refused: {msg}" if "refused" in r else f"error: {msg}",
                "", "", "", "", "", "", "", ""]
    rc = r["n"] * r["cycles"]
    gb = 1e9
    inc = r["peak"] - r["base"]
    return [name, router, load, r["n"], f"{r['build']:.2f}", f"{rc / r['cpu'] / 1e6:.3f}", f"{rc / r['wall'] / 1e6:.3f}",
            f"{r['peak'] / gb:.2f}", f"{inc / gb:.3f}", f"{r['estimate'] / gb:.3f}", f"{r['estimate'] / inc:.2f}",
            f"{r['latency']:.1f}" if r["latency"] is not None else "-",
            "yes" if r["stable"] and r["latency"] is not None and r["latency"] < 500 else "no (past saturation)"]


HEADERS = ["topology", "router", "load", "routers", "build s", "M router-cycles/CPU s", "M router-cycles/wall s",
           "peak RSS GB", "RSS increase GB", "estimate GB", "estimate/increase", "mean latency", "stable"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(SIZES))
    ap.add_argument("--routers", default="iq,simple")
    ap.add_argument("--loads", default="0.1,0.02")
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--measure", type=int, default=2000)
    args = ap.parse_args(argv)
    src = str(Path(__file__).resolve().parents[1] / "src")
    rows = []
    t0 = time.time()
    print(f"{machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    for router in args.routers.split(","):
        for load in (float(x) for x in args.loads.split(",")):
            for shape in args.sizes.split(","):
                r = run_one(shape, router, load, args.warmup, args.measure, src)
                rows.append(row(shape, router, load, r))
                print(" | ".join(str(x) for x in rows[-1]), flush=True)
    print()
    print(table(HEADERS, rows))
    print(f"\n{len(rows)} configurations in {time.time() - t0:.0f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
