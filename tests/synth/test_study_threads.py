"""A study's simulations on several threads: the records are the one-thread run's, the default shares the
usable cores among the study's workers, and a bad thread count is one line."""

from __future__ import annotations

import dataclasses

import pytest

import sim
from sim import SimError
from sim.threads import THREADED_ROUTERS, ThreadPlan, default_threads, max_threads, usable_cores
from synth import runner as R
from synth.cli import main
from synth.study import study_from_dict


def strip(sims: list[dict]) -> list[dict]:
    return [{k: v for k, v in x.items() if k not in ("seconds", "compile_seconds")} for x in sims]


def iq_study(top: int = 1) -> dict:
    return {"candidates": {"specs": ["torus:4x4", "ring:16"]},
            "traffic": {"pattern": "random", "count": 48},
            "ranking": {"objective": "capacity"}, "cross_check": {"top": 0},
            "simulation": {"top": top, "preset": "booksim", "step": 0.1, "max_load": 0.5}}


@pytest.mark.skipif(max_threads() < 2, reason="numba runs one thread here")
def test_two_threads_give_the_one_thread_records(monkeypatch):
    seen: list[int] = []
    real = R.sim.saturation_seeds

    def spy(*a, threads=1, **k):
        seen.append(threads)
        return real(*a, threads=threads, **k)

    monkeypatch.setattr(R.sim, "saturation_seeds", spy)
    one = R.run(study_from_dict(iq_study()), jobs=1, threads=1)
    two = R.run(study_from_dict(iq_study()), jobs=1, threads=2)
    assert seen == [1, 2]
    assert strip(two.simulation) == strip(one.simulation)
    (rec,) = one.simulation
    assert rec["status"] == "ok" and len(rec["points"]) >= 3


def test_by_default_a_small_network_runs_on_one_thread(monkeypatch):
    seen: list[int] = []
    real = R.sim.saturation_seeds

    def spy(topo, *a, threads=1, **k):
        seen.append(threads)
        return real(topo, *a, threads=threads, **k)

    monkeypatch.setattr(R.sim, "saturation_seeds", spy)
    R.run(study_from_dict(iq_study()), jobs=1)
    assert seen == [1]                            # 16 routers: below sim.threads.THREADED_ROUTERS
    plan = ThreadPlan(2, by_size=True)
    assert [plan.threads(n) for n in (THREADED_ROUTERS - 1, THREADED_ROUTERS)] == [1, 2]


def test_the_default_shares_the_usable_cores_among_the_workers():
    s = study_from_dict(iq_study())
    cores = min(usable_cores(), max_threads())
    assert R.simulation_threads(s, None, 1) == cores
    assert R.simulation_threads(s, None, 2) == max(1, cores // 2)
    assert R.simulation_threads(s, None, 10**6) == 1
    assert R.simulation_threads(s, None, 1, local=False) == 1        # a remote cluster's machines are not known here
    assert R.simulation_threads(s, 1, 2) == 1
    assert default_threads(1) == cores
    vct = study_from_dict({**iq_study(), "simulation": {"top": 1, "preset": "tpds2010"}})
    assert R.simulation_threads(vct, None, 1) == cores          # the simple router's VCT runs on threads too


def test_a_one_thread_router_model_says_so_once(capsys, monkeypatch):
    # every registered model runs on threads; a study on one registered without the capability sees the note
    wormhole = sim.router_model(sim.preset("tpds2010", switching="wormhole"))
    assert wormhole.threads
    wormhole = dataclasses.replace(wormhole, threads=False)
    monkeypatch.setattr(R.sim, "router_model", lambda config: wormhole)
    s = study_from_dict({**iq_study(), "simulation": {"top": 1, "preset": "tpds2010"}})
    assert R.simulation_threads(s, None, 1) == 1
    assert capsys.readouterr().err == ""
    assert R.simulation_threads(s, max_threads(), 1) == 1
    err = capsys.readouterr().err
    if max_threads() > 1:
        assert err.count("\n") == 1 and "router model wormhole (preset tpds2010) runs on one thread" in err


@pytest.mark.parametrize("bad", [0, -3, 10**6])
def test_a_bad_thread_count_is_one_line(bad, capsys):
    with pytest.raises(SimError, match=r"threads must be an integer from 1 to \d+"):
        R.simulation_threads(study_from_dict(iq_study()), bad, 1)
    assert main(["run", "--check", "--threads", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "threads must be an integer from 1 to" in err[0]
