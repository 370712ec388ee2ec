"""Replications over seeds: each seed's run is that seed's serial run, whatever the workers; the mean and
interval over seeds are Student's t's (checked against scipy.stats); ``toposynth simulate --seeds``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from scipy import stats

import candidates as cd
from common.errors import ToposynthError
import sim
from sim import preset
from sim.cli import main
from sim.search import LoadSearch, SearchSet, SweepProgress

from test_parallel_sweep import fake, serial_accepted, serial_stable, strip

CFG = preset("default", routing="dor", vcs=2, warmup=300, measure=1500)


# ------------------------------------------------------------------ several searches on one pool, without simulating
@pytest.mark.parametrize("slots", [1, 2, 3, 7])
def test_search_set_walks_every_serial_path(slots):
    """Tasks finish in a random order; every search's path is its serial one, never more tasks than slots."""
    rng = random.Random(slots)
    fs = {"a": fake(0.42), "b": fake(0.05), "c": fake(0.3, 0.3), "d": fake(2.0)}
    searches = {"a": LoadSearch.accepted(0.05, 1.0), "b": LoadSearch.stable(0.05, 1.0, 0.005),
                "c": LoadSearch.accepted(0.1, 1.0), "d": LoadSearch.of_loads([0.3, 0.1, 0.9])}
    ref = {"a": serial_accepted(fs["a"], 0.05, 1.0), "b": serial_stable(fs["b"], 0.05, 1.0, 0.005),
           "c": serial_accepted(fs["c"], 0.1, 1.0), "d": [fs["d"](x) for x in (0.3, 0.1, 0.9)]}
    for _ in range(5):
        ss, ran = SearchSet(searches), 0
        while not ss.done:
            ss.tasks(slots)
            assert 1 <= len(ss.running) <= slots
            # every unfinished search has its next serial load running when there are slots for all
            if slots >= 4:
                live = {k for k, st in ss.states.items() if not st.done}
                assert live <= {k for k, _ in ss.running}
            key, x = ss.running[rng.randrange(len(ss.running))]
            ss.add(key, x, fs[key](x))
            ran += 1
        for k in searches:
            assert [p.load for p in ss.states[k].path] == [p.load for p in ref[k]]
        if slots == 1:
            assert ran == sum(len(set(p.load for p in r)) for r in ref.values())


# ------------------------------------------------------------------ real simulations
@pytest.mark.parametrize("kind", ["sweep", "stable"])
def test_each_seed_is_its_serial_run(kind):
    t = cd.from_spec("torus:4x4")
    if kind == "sweep":
        one = lambda s: sim.sweep(t, CFG, "uniform", [0.2, 0.5, 0.8], seed=s)
        rep = lambda jobs: sim.sweep_seeds(t, CFG, "uniform", [0.2, 0.5, 0.8], seeds=[5, 3, 9], jobs=jobs)
    else:
        cfg = preset("booksim", routing="dor")
        one = lambda s: sim.saturation(t, cfg, "uniform", step=0.2, resolution=0.02, definition="stable", seed=s)
        rep = lambda jobs: sim.saturation_seeds(t, cfg, "uniform", step=0.2, resolution=0.02, definition="stable",
                                                seeds=[5, 3, 9], jobs=jobs)
    serial, parallel = rep(1), rep(2)
    assert serial.seeds == parallel.seeds == [5, 3, 9]
    for s, a, b in zip(serial.seeds, serial.runs, parallel.runs):
        ref = strip(one(s).to_dict())
        assert strip(a.to_dict()) == ref == strip(b.to_dict())
        assert all(p.seed == s for p in a.points)
    sats = [one(s).saturation for s in (5, 3, 9)]
    assert serial.saturations == sats and len(set(sats)) > 1      # the seeds differ, or the test proves nothing
    lo, hi = stats.t.interval(0.95, len(sats) - 1, loc=np.mean(sats), scale=stats.sem(sats))
    assert serial.saturation == pytest.approx(np.mean(sats), abs=1e-15)
    assert serial.saturation_ci95 == pytest.approx((hi - lo) / 2, rel=1e-12)


def test_by_load_means_over_the_seeds():
    t = cd.from_spec("ring:8")
    r = sim.sweep_seeds(t, "singleflit", "uniform", [0.1, 0.7], seeds=[0, 1, 2, 3])
    rows = r.by_load()
    assert [x.load for x in rows] == [0.1, 0.7]
    for i, row in enumerate(rows):
        acc = [run.points[i].accepted for run in r.runs]
        lat = [run.points[i].latency for run in r.runs]
        assert row.accepted == pytest.approx(np.mean(acc)) and row.latency == pytest.approx(np.mean(lat))
        lo, hi = stats.t.interval(0.95, 3, loc=np.mean(acc), scale=stats.sem(acc))
        assert row.accepted_ci95 == pytest.approx((hi - lo) / 2)
    assert rows[1].accepted < 0.7 * 0.95                        # past the ring's saturation
    d = r.to_dict()
    assert d["seeds"] == [0, 1, 2, 3] and len(d["runs"]) == 4 and d["saturation"] == r.saturation
    json.dumps(d)


def test_one_seed_has_no_interval():
    r = sim.sweep_seeds(cd.from_spec("ring:8"), "singleflit", "uniform", [0.2], seeds=[7])
    assert r.saturation_ci95 is None and r.by_load()[0].accepted_ci95 is None
    assert strip(r.runs[0].to_dict()) == strip(sim.sweep(cd.from_spec("ring:8"), "singleflit", "uniform", [0.2],
                                                         seed=7).to_dict())


@pytest.mark.parametrize("seeds,msg", [([], "at least one seed"), ([1, 2, 1], "must differ"), ([-1], "seed")])
def test_bad_seeds(seeds, msg):
    with pytest.raises(ToposynthError, match=msg):
        sim.sweep_seeds(cd.from_spec("ring:8"), "singleflit", "uniform", [0.2], seeds=seeds)


def test_progress_says_the_seed():
    seen: list = []
    r = sim.sweep_seeds(cd.from_spec("ring:8"), "singleflit", "uniform", [0.2, 0.4], seeds=[1, 2], jobs=2,
                        progress=seen.append)
    pts = [(e.key, e.point.load) for e in seen if isinstance(e, SweepProgress) and e.point is not None]
    assert sorted(pts) == [(1, 0.2), (1, 0.4), (2, 0.2), (2, 0.4)]
    assert [x for k, x in pts if k == 1] == [0.2, 0.4] == [x for k, x in pts if k == 2]   # each seed in its order
    assert all(len(e.tasks) <= 2 for e in seen) and seen[-1].finished == 4 and r.seeds == [1, 2]


# ------------------------------------------------------------------ the command line
def cli(capsys, *argv):
    code = main(["simulate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_seeds(capsys):
    args = ["ring:8", "--preset", "singleflit", "--sweep", "--loads", "0.2,0.7", "--seed", "4", "--seeds", "3"]
    code, text, _ = cli(capsys, *args)
    ref = sim.sweep_seeds(cd.from_spec("ring:8"), "singleflit", "uniform", [0.2, 0.7], seeds=[4, 5, 6])
    assert code == 0
    lines = text.splitlines()
    assert lines[1].split()[:2] == ["seed", "offered"] and sum(1 for ln in lines if ln[:5].strip() in "456") >= 6
    row = next(ln for ln in lines if ln.split()[:1] == ["0.7000"]).split()
    assert float(row[1]) == pytest.approx(ref.by_load()[1].accepted, abs=6e-5)
    sat = next(ln for ln in lines if ln.startswith("saturation throughput"))
    assert sat.startswith(f"saturation throughput {ref.saturation:.4g} +- {ref.saturation_ci95:.2g} ")
    assert "seeds 4..6" in sat
    n = sum(1 for r in ref.runs for p in r.points if not p.stable)
    assert n > 0 and lines[-1] == (f"unstable: {n} of 6 points (latency of the packets that arrived before the "
                                   "drain stopped)")
    c2, text2, _ = cli(capsys, *args, "--jobs", "2")
    assert c2 == 0 and sorted(text2.splitlines()) == sorted(lines)     # rows may come in another order
    _, j, _ = cli(capsys, *args, "--json", "--jobs", "2")
    d = json.loads(j)
    assert d["saturations"] == ref.saturations and d["seeds"] == [4, 5, 6]


@pytest.mark.parametrize("argv,msg", [
    (["--sweep", "--seeds", "0"], "--seeds is how many seeds"),
    (["--seeds", "3"], "--seeds repeats a --sweep or --saturation"),
])
def test_cli_seed_errors(capsys, argv, msg):
    code, out, err = cli(capsys, "ring:8", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and msg in err
