"""The winners' simulations of a study run their loads on the study's workers: one winner and
--jobs 2 use both, and the records are the serial run's."""

from __future__ import annotations

from synth import runner as R
from synth.backends import Executor
from synth.study import study_from_dict


def strip(sims: list[dict]) -> list[dict]:
    return [{k: v for k, v in x.items() if k != "seconds"} for x in sims]


def test_one_winner_uses_both_workers_with_the_serial_numbers(monkeypatch):
    d = {"candidates": {"specs": ["ring:16", "torus:4x4", "hypercube:4"]},
         "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity"}, "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "tpds2010", "step": 0.15, "max_load": 1.0}}
    serial = R.run(study_from_dict(d), jobs=1)
    submitted: list = []
    real = Executor.submit

    def submit(self, fn, item):
        if isinstance(fn, R._SimulatePoint):
            submitted.append((item, len([f for f in self.pending if not f.done()])))
        return real(self, fn, item)

    monkeypatch.setattr(Executor, "submit", submit)
    par = R.run(study_from_dict(d), jobs=2)
    assert strip(par.simulation) == strip(serial.simulation)
    (rec,) = serial.simulation
    assert rec["status"] == "ok" and len(rec["points"]) >= 4
    # the tasks were the winner's loads, two at a time: its path's loads and at most a few beyond it
    loads = [x for (spec, x), _ in submitted]
    assert {spec for (spec, _), _ in submitted} == {rec["spec"]}
    assert set(loads) >= {p["load"] for p in rec["points"]} and len(loads) <= len(rec["points"]) + 2
    assert loads[:2] == [0.15, 0.3]                               # the next load and a speculative one


def test_failed_candidate_and_several_winners(monkeypatch):
    d = {"candidates": {"specs": ["ring:16", "torus:4x4", "complete:16"]},
         "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity", "baseline": "ring:16"}, "cross_check": {"top": 0},
         "simulation": {"top": 2, "preset": "tpds2010", "step": 0.25, "max_load": 1.0, "routing": "dor"}}
    serial = R.run(study_from_dict(d), jobs=1)
    par = R.run(study_from_dict(d), jobs=2)
    assert strip(par.simulation) == strip(serial.simulation)
    # the complete graph has no dimensions for dor: its record fails with the serial run's reason
    assert [(x["spec"], x["status"]) for x in serial.simulation] == [
        ("complete:16", "failed"), ("torus:4x4", "ok"), ("ring:16", "ok")]
