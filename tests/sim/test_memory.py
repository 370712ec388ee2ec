"""sim.memory_estimate against the measured peak of a short simulation, and
the refusal of what will not fit."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

import candidates as cd
from sim import cache as sim_cache
import sim
from common.size import SizeError
from sim.engine import check_load, resolve
from sim.routers import simple
from traffic import traffic

SRC = str(Path(__file__).resolve().parents[2] / "src")

_PROBE = r"""
import json, sys
from dataclasses import replace
import candidates as cd, sim
spec, routing, warm = sys.argv[1:4]
cfg = replace(sim.preset("default"), routing=routing, warmup=20, measure=50, drain=50)
# the same family small first: a cold numba cache compiles each family's kernel types there, not in the measurement
sim.simulate(cd.from_spec(warm), cfg, "uniform", 0.05, seed=1)
def cur():
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * 4096
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
t = cd.from_spec(spec); _ = t.arc_id
with open("/proc/self/clear_refs", "w") as f: f.write("5")
b0 = cur()
m = sim.memory_estimate(t, cfg)
sim.simulate(t, cfg, "uniform", 0.05, seed=1)
print(json.dumps({"est": m.nbytes, "peak": hwm() - b0, "routing": m.routing}))
"""


@pytest.mark.parametrize("spec, routing, warm", [("torus:12x12x12", "adaptive", "torus:4x4"),
                                                 ("mesh:32x32", "dor", "mesh:4x4"),
                                                 ("ndt:4x4x4x4x2", "table", "ndt:2x2x2")])
def test_estimate_within_factor_two(spec, routing, warm):
    # twice: on a cold numba cache (a fresh CI venv) the first run compiles, and the compiler's memory,
    # freed and reused by the simulation or not, skews its peak either way; the second loads the kernels
    for _ in range(2):
        out = patience.run([sys.executable, "-c", _PROBE, spec, routing, warm], cpu=300, capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": SRC}, check=True)
    r = json.loads(out.stdout)
    assert r["routing"] == routing
    assert 0.5 < r["peak"] / r["est"] < 2.0, r


def test_refused_before_tables(monkeypatch, empty_table_cache):
    """The table routings' (n, n) arrays are refused before they are built;
    the record routings' tables are O(n D), so the same torus fits."""
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")
    t = cd.from_spec("torus:32x32x16")  # 16,384 routers: n x n tables ~11 GB
    m = sim.memory_estimate(t, routing="updown")
    assert m.parts["tables"] > 16384**2 * 40
    with pytest.raises(SizeError, match=r"simulating torus:32x32x16 \(16,384 routers, updown routing"):
        sim.simulate(t, sim.SimConfig(routing="updown"), "uniform", 0.1)
    assert not sim_cache.holds(t, "tables")
    assert sim.memory_estimate(t).nbytes < 0.5e9


@pytest.mark.parametrize("spec, switching", [("pdtt:a=4", "vct"), ("torus:8x8x8", "vct"),
                                              ("torus:8x8x8", "wormhole")])
def test_ranges_of_routers_counted(spec, switching):
    """The simple router on 1, 2 and 3 ranges of routers: the per-range arrays build() allocates (the
    candidates, run-state and freed packets, the outboxes, the latency histograms and statistics) and the
    credit wheels split among the ranges, against the estimate's parts for them (within 2%)."""
    t = cd.from_spec(spec)
    cfg = sim.preset("tpds2010")
    if switching == "wormhole":
        cfg = cfg.replace(switching="wormhole", routing="dor", deadlock="dateline", vcs=2)
    routing, deadlock = resolve(t, cfg)
    dests = traffic("uniform").destinations(t)
    rate = check_load(0.1, cfg, dests)
    tabs = simple.tables_for(t, cfg, routing)
    sizes = []
    for threads in (1, 2, 3):
        run = simple.build(t, cfg, tabs, deadlock, dests, rate, warmup=10, measure=10, drain=10, seed=1,
                           threads=threads)
        b, o = run.buf, run.out
        ranges = sum(a.nbytes for a in (b.pcand, b.pctl, b.freed, b.ob, b.ob_n, o.hist_gen, o.hist_inj, o.pstats))
        wheel = sum(a.nbytes for a in (b.wh_cnt, b.wh_idx, b.wh_amt))
        m = sim.memory_estimate(t, cfg, threads=threads)
        assert ranges == pytest.approx(m.parts["ranges"] + m.parts["histograms"], rel=0.02)
        assert wheel == pytest.approx(m.parts["wheel"], rel=0.02)
        sizes.append(m.nbytes)
    assert sizes[0] < sizes[1] < sizes[2]
