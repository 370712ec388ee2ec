"""The simple router (virtual cut-through and wormhole switching) on several
threads: the routers split into contiguous ranges, one a thread, with the
same numbers whatever the number of threads."""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest

import candidates as cd
import sim
from sim import engine, simulate
from sim.cli import main
from sim.engine import check_load, resolve
from sim.routers import simple
from sim.threads import max_threads
from traffic import traffic

from same_result import assert_same as _assert_same
from same_result import cli_result

def _sim(t, cfg, pattern, load, seed, threads, pair_latency=False):
    """``simulate(..., threads=threads)``; past the threads numba has here
    (a machine of 2 cores), the same run with that many ranges sharing them
    (the router model's entry, without the engine's check of the thread count)."""
    if threads <= max_threads():
        return simulate(t, cfg, pattern, load, seed=seed, threads=threads, pair_latency=pair_latency)
    pat = traffic(pattern)
    routing, deadlock = resolve(t, cfg)
    dests = pat.destinations(t)
    rate = check_load(load, cfg, dests)
    return simple.simulate(t, cfg, pat, routing, deadlock, dests, rate, load, seed, pair_latency, None,
                           threads=threads)


def _random_regular():
    """A random 4-regular graph of 16 routers (contiguous ranges of an irregular graph)."""
    return cd.Topology.from_networkx(nx.random_regular_graph(4, 16, seed=7), spec="rrg16d4")


def _tpds(**kw):
    return sim.preset("tpds2010", warmup=300, measure=1500, drain=3000, **kw)


CASES = [
    # (spec, config, traffic, load)
    ("pdtt:a=4", _tpds(), "uniform", 0.2),
    ("pdtt:a=4", _tpds(), "uniform", 0.9),                                                 # past saturation
    ("pdtt:a=4", _tpds(tie_break="random"), "uniform", 0.4),                               # ties drawn
    ("pt:a=4", _tpds(tie_break="random"), "randperm:seed=3", 0.3),
    ("pt:a=4", _tpds(), "bitcomplement", 0.8),
    ("torus:6x4", _tpds(), "uniform", 0.3),
    ("torus:4x4x4", _tpds(tie_break="random", injection="bernoulli", packet_length=(1, 8)), "tornado", 0.5),
    ("torus:4x4", sim.preset("singleflit", warmup=300, measure=1500), "uniform", 0.6),
    ("mesh:5x4", _tpds(routing="minimal", vcs=2), "uniform", 0.3),                        # ties kept at random
    ("rrg", _tpds(routing="table", vcs=3), "uniform", 0.3),                                # irregular graph
    ("rrg", _tpds(routing="ugal", vcs=8), "uniform", 0.5),
    ("dragonfly:p=1:a=4:h=1", _tpds(routing="ugal", vcs=6), "groupshift", 0.3),
    ("torus:4x4", _tpds(routing="valiant", vcs=8, injectors=2, ejectors=2), "uniform", 0.4),
]


def _wh(**kw):
    return _tpds(switching="wormhole", **kw)


WORMHOLE_CASES = [
    ("torus:4x4", _wh(routing="dor", deadlock="dateline", vcs=2), "uniform", 0.3),
    ("torus:4x4", _wh(routing="dor", deadlock="dateline", vcs=2), "uniform", 0.9),           # past saturation
    ("torus:4x4x4", _wh(routing="dor", deadlock="dateline", vcs=2, tie_break="random", injection="bernoulli",
                        packet_length=(1, 8)), "tornado", 0.4),
    ("pt:a=4", _wh(routing="dor", deadlock="dateline", vcs=2, buffer_flits=2), "bitcomplement", 0.5),
    ("mesh:5x4", _wh(routing="minimal", vcs=2), "uniform", 0.3),                          # ties kept at random
    ("rrg", _wh(routing="table", vcs=3), "uniform", 0.3),                                 # irregular graph
    ("fattree:k=4", _wh(routing="updown", vcs=2), "uniform", 0.5),
    ("dragonfly:p=1:a=4:h=1", _wh(routing="ugal", vcs=6), "groupshift", 0.3),
    ("torus:4x4", _wh(routing="valiant", vcs=8, injectors=2, ejectors=2), "uniform", 0.4),
]


@pytest.mark.parametrize("spec,cfg,pattern,load", CASES + WORMHOLE_CASES)
def test_same_numbers_on_one_two_and_three_threads(spec, cfg, pattern, load):
    t = _random_regular() if spec == "rrg" else cd.from_spec(spec)
    runs = [_sim(t, cfg, pattern, load, 5, k) for k in (1, 2, 3)]
    assert runs[0].delivered > 0
    for r in runs[1:]:
        _assert_same(runs[0], r)


def test_pair_latency_the_same_on_two_threads():
    t = cd.from_spec("pt:a=4")
    one, two = (_sim(t, _tpds(), "uniform", 0.3, 3, k, pair_latency=True) for k in (1, 2))
    assert np.nansum(one.pair_packets) > 0
    _assert_same(one, two)


@pytest.mark.parametrize("switching", ["vct", "wormhole"])
def test_every_router_its_own_range(switching):
    """Every packet (flit) between routers goes through another range's outbox."""
    t = cd.ring(4)
    cfg = _tpds(routing="dor", vcs=2, deadlock="dateline", switching=switching)
    one, four = (_sim(t, cfg, "uniform", 0.5, 2, k) for k in (1, 4))
    assert one.delivered > 0
    _assert_same(one, four)


def test_saturation_search_the_same_on_two_threads():
    t = cd.from_spec("pdtt:a=4")
    one, two = (sim.saturation(t, _tpds(), "uniform", step=0.2, resolution=0.05, seed=4, threads=k)
                for k in (1, 2))
    assert one.loads == two.loads and len(one.points) > 2
    for a, b in zip(one.points, two.points):
        _assert_same(a, b)


def test_wormhole_pair_latency_the_same_on_two_threads():
    t = cd.from_spec("torus:4x4")
    cfg = sim.preset("singleflit", switching="wormhole", warmup=100, measure=500)
    one, two = (_sim(t, cfg, "uniform", 0.3, 3, k, pair_latency=True) for k in (1, 2))
    assert np.nansum(one.pair_packets) > 0
    _assert_same(one, two)


def test_a_model_without_threads_runs_on_one_and_says_so(capsys, monkeypatch):
    # every registered model runs on threads; one registered without the capability gets the note
    t = cd.torus((4, 4))
    cfg = sim.preset("singleflit", switching="wormhole", warmup=100, measure=500)
    one = simulate(t, cfg, "uniform", 0.2, seed=1)
    model = dataclasses.replace(sim.router_model(cfg), threads=False)
    monkeypatch.setattr(engine, "model_of", lambda c: model)
    assert capsys.readouterr().err == ""
    two = simulate(t, cfg, "uniform", 0.2, seed=1, threads=2)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "router model wormhole runs on one thread" in err
    _assert_same(one, two)


def test_cli_threads(capsys):
    args = ["simulate", "pdtt:a=4", "--preset", "tpds2010", "--warmup", "200", "--measure", "1000", "--load",
            "0.3", "--seed", "3", "--json"]
    assert main(args) == 0
    one = capsys.readouterr().out
    assert main(args + ["--threads", "2"]) == 0
    two = capsys.readouterr().out
    a, b = cli_result(one), cli_result(two)
    assert a == b and a["delivered"] > 0
