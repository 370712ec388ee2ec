"""The winners' simulations of a study run their loads on the study's workers: one winner and
--jobs 2 use both, and the records are the serial run's."""

from __future__ import annotations

import pytest

from synth import runner as R
from synth.backends import Executor
from synth.errors import StudyError
from synth.study import study_from_dict


def strip(sims: list[dict]) -> list[dict]:
    return [{k: v for k, v in x.items() if k not in ("seconds", "compile_seconds")} for x in sims]


def test_one_winner_uses_both_workers_with_the_serial_numbers(monkeypatch):
    d = {"candidates": {"specs": ["ring:16", "torus:4x4", "hypercube:4"]},
         "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity"}, "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "tpds2010", "step": 0.15, "max_load": 1.0}}
    serial = R.run(study_from_dict(d), jobs=1)
    submitted: list = []
    real = Executor.submit

    def submit(self, fn, item, label=None):
        if isinstance(fn, R._SimulatePoint):
            submitted.append((item, len([f for f in self.pending if not f.done()])))
            assert label == f"{item[0][0]} (seed {item[0][1]}) at load {item[1]:g}"   # what a lost worker's notice names
        return real(self, fn, item, label)

    monkeypatch.setattr(Executor, "submit", submit)
    par = R.run(study_from_dict(d), jobs=2)
    assert strip(par.simulation) == strip(serial.simulation)
    (rec,) = serial.simulation
    assert rec["status"] == "ok" and len(rec["points"]) >= 4
    # the tasks were the winner's loads, two at a time: its path's loads and at most a few beyond it
    loads = [x for (key, x), _ in submitted]
    assert {key for (key, _), _ in submitted} == {(rec["spec"], 1)}          # the study's seed
    assert set(loads) >= {p["load"] for p in rec["points"]} and len(loads) <= len(rec["points"]) + 2
    assert loads[:2] == [0.15, 0.3]                               # the next load and a speculative one


def test_failed_candidate_and_several_winners(monkeypatch):
    d = {"candidates": {"specs": ["ring:16", "torus:4x4", "complete:16"]},
         "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity", "baseline": "ring:16"}, "cross_check": {"top": 0},
         "simulation": {"top": 2, "preset": "tpds2010", "step": 0.25, "max_load": 1.0, "routing": "dor"}}
    # a run refuses this study up front (dor cannot simulate complete:16) ...
    with pytest.raises(StudyError, match=r"simulation.routing: 'dor' cannot simulate candidate complete:16"):
        R.run(study_from_dict(d), jobs=1)
    # ... but a simulation that fails anyway must still be kept as a failed record, serial or parallel:
    # with the up-front check off, the complete graph's dor fails inside the simulations
    monkeypatch.setattr(R, "check_simulation_routing", lambda *a: None)
    serial = R.run(study_from_dict(d), jobs=1)
    par = R.run(study_from_dict(d), jobs=2)
    assert strip(par.simulation) == strip(serial.simulation)
    # the complete graph has no dimensions for dor: its record fails with the serial run's reason
    assert [(x["spec"], x["status"]) for x in serial.simulation] == [
        ("complete:16", "failed"), ("torus:4x4", "ok"), ("ring:16", "ok")]


def test_seeds_mean_and_interval_serial_equals_parallel(tmp_path):
    """simulation.seeds = 3: each seed's sweep is sim.saturation's with that seed; the record's saturation is
    their mean with Student's t interval (scipy.stats), the same with --jobs 2."""
    import numpy as np
    from scipy import stats

    import candidates as cd
    import sim

    d = {"seed": 4, "candidates": {"specs": ["ring:16", "torus:4x4"]},
         "traffic": {"pattern": "uniform"}, "ranking": {"objective": "capacity", "baseline": "ring:16"},
         "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "tpds2010", "step": 0.2, "max_load": 1.0, "seeds": 3}}
    study = study_from_dict(d)
    assert study.sim_seeds == 3 and study.to_dict()["simulation"]["seeds"] == 3
    serial = R.run(study, jobs=1, out=tmp_path / "out")
    par = R.run(study_from_dict(d), jobs=2)
    assert strip(par.simulation) == strip(serial.simulation)
    resumed = R.run(study_from_dict(d), jobs=1, out=tmp_path / "out")     # read back and validated
    assert resumed.simulation == serial.simulation
    # the report and the answer state the interval
    html = (tmp_path / "out" / "report.html").read_text()
    win = next(x for x in serial.simulation if x["spec"] != "ring:16")
    assert f"{win['saturation']:.3g} \u00b1 {win['saturation_ci95']:.2g} (95%, 3 seeds)" in html
    assert "95% intervals over seeds" in serial.answers[0].sentence()
    for rec in serial.simulation:
        topo = cd.from_spec(rec["spec"])
        cfg = sim.preset("tpds2010", routing=rec["routing"])
        sats = [sim.saturation(topo, cfg, "uniform", step=0.2, seed=s).saturation for s in (4, 5, 6)]
        assert rec["seeds"] == [4, 5, 6] and rec["saturations"] == sats
        assert rec["saturation"] == np.mean(sats)
        lo, hi = stats.t.interval(0.95, 2, loc=np.mean(sats), scale=stats.sem(sats))
        assert rec["saturation_ci95"] == (hi - lo) / 2 or abs(rec["saturation_ci95"] - (hi - lo) / 2) < 1e-12
        assert {p["seed"] for p in rec["points"]} == {4, 5, 6}
    # a study without seeds keeps its fingerprint (resumed runs of older studies stay valid)
    d1 = {**d, "simulation": {k: v for k, v in d["simulation"].items() if k != "seeds"}}
    assert "seeds" not in study_from_dict(d1).to_dict()["simulation"]
    assert study_from_dict({**d1, "simulation": {**d1["simulation"], "seeds": 1}}).fingerprint() == \
        study_from_dict(d1).fingerprint()


def test_seed_records_are_checked():
    from synth.errors import RecordError
    from synth.records import validate_simulation

    pts = [{"offered": 0.5, "accepted": 0.5, "latency": 9.0, "hops": 1.2, "deadlock": False, "load": 0.5, "seed": 1}]
    rec = {"spec": "ring:6", "status": "ok", "routing": "dor", "points": pts, "seconds": 1.0,
           "saturation": 0.4, "saturation_ci95": 0.05, "seeds": [1, 2], "saturations": [0.35, 0.45]}
    assert validate_simulation(rec, 1.0) is rec
    import pytest

    for bad, msg in [({"saturations": [0.3, 0.45]}, "not the mean"), ({"saturations": [0.4]}, "one number per seed"),
                     ({"saturation_ci95": -0.1}, "negative"), ({"saturations": None}, "missing field")]:
        with pytest.raises(RecordError, match=msg):
            validate_simulation({**rec, **bad}, 1.0)


def test_progress_lines_of_the_winners_simulations(monkeypatch, capsys):
    """With progress on, the winners' simulations say which load they are at (here every finished load, the
    lines' spacing set to 0 s); serial and --jobs 2 report the same finished loads; off, they print nothing."""
    d = {"candidates": {"specs": ["ring:16", "torus:4x4"]}, "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity"}, "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "tpds2010", "step": 0.25, "max_load": 1.0}}
    monkeypatch.setattr(R, "_TICK_SECONDS", 0.0)
    done = {}
    for jobs in (1, 2):
        res = R.run(study_from_dict(d), jobs=jobs, progress=True)
        err = capsys.readouterr().err
        done[jobs] = {line.split(": load ")[1].split(" done")[0] for line in err.splitlines()
                      if line.startswith("  simulating torus:4x4: load ") and " done (accepted " in line}
        (rec,) = res.simulation
        assert done[jobs] >= {f"{p['load']:.3g}" for p in rec["points"]}
    assert done[1] == {f"{p['load']:.3g}" for p in rec["points"]}
    R.run(study_from_dict(d), jobs=1, progress=False)
    assert "simulating" not in capsys.readouterr().err


def test_capacity_as_a_simulated_load():
    """A simulation record relates the two units: 48 random demands over 16 PEs are offered once at
    3 phits/cycle/PE; the busiest PE's channel load against the average is its demands' count over 3."""
    import numpy as np

    d = {"candidates": {"specs": ["torus:4x4"]}, "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity"}, "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "tpds2010", "step": 0.25, "max_load": 0.5}}
    study = study_from_dict(d)
    (rec,) = R.run(study).simulation
    dem = study.traffic.demands(R.build_topology("torus:4x4", study))
    sent = np.bincount(dem.src, weights=dem.amount, minlength=16)
    got = np.bincount(dem.dst, weights=dem.amount, minlength=16)
    assert rec["load_per_lambda"] == 3.0
    assert rec["busiest_pe"] == max(sent.max(), got.max()) / 3.0


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_search_stops_at_what_the_sources_can_offer(jobs):
    # 1-flit packets under random demands: the busiest source offers one packet a cycle at a load below 1, and
    # the search used to run into it (a one-line refusal that failed the candidate's record)
    d = {"candidates": {"specs": ["torus:4x4", "ring:16"]}, "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity"}, "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "booksim", "step": 0.2, "max_load": 1.0}}
    res = R.run(study_from_dict(d), jobs=jobs)
    (rec,) = res.simulation
    assert rec["status"] == "ok", rec.get("reason")
    import candidates as cd
    import sim

    topo = cd.from_spec(rec["spec"])
    top = sim.max_offered_load(topo, "booksim", study_from_dict(d).traffic.sim_pattern(topo))
    assert top < 1.0 and max(p["load"] for p in rec["points"]) <= top
    assert rec["saturation"] == max(p["accepted"] for p in rec["points"])
