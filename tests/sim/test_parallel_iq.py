"""Router iq on several threads: the routers split into partitions, one a
thread, with the same numbers whatever the number of threads."""

from __future__ import annotations


import pytest

import candidates as cd
import sim
from sim import SimError, simulate
from sim.cli import main
from sim.engine import check_load, resolve
from sim.routers import iq
from sim.routers.iq import partitions
from sim.threads import max_threads
from traffic import traffic

from same_result import assert_same as _assert_same
from same_result import cli_result

def _sim(t, cfg, pattern, load, seed, threads):
    """``simulate(..., threads=threads)``; past the threads numba has here
    (a machine of 2 cores), the same run with that many partitions sharing
    them (what ``simulate`` does, without its check of the thread count)."""
    if threads <= max_threads():
        return simulate(t, cfg, pattern, load, seed=seed, threads=threads)
    pat = traffic(pattern)
    routing, _ = resolve(t, cfg)
    dests = pat.destinations(t)
    rate = check_load(load, cfg, dests)
    run = iq.build(t, cfg, routing, dests, rate, seed, load, threads)
    return iq._result(t, cfg, pat, routing, load, seed, iq.measure(run, cfg))


def _short(**kw):
    return sim.preset("booksim", measurement="fixed", warmup=300, measure=1500, drain=4000, **kw)


CASES = [
    # (spec, config, traffic, load)
    ("torus:8x8", _short(), "uniform", 0.1),                                              # ties on both sides
    ("torus:8x8", _short(), "uniform", 0.4),                                              # past saturation
    ("torus:4x4x4", _short(packet_length=4, vcs=4, routing="min_adapt"), "uniform", 0.3),
    ("torus:4x4x4", _short(packet_length=(1, 8), injection="poisson"), "randperm:seed=3", 0.2),
    ("mesh:8x8", _short(packet_length=4, buffer_flits=4), "transpose", 0.25),
    ("mesh:6x6", _short(routing="valiant", vcs=2, packet_length=(1, 4)), "uniform", 0.15),
    ("torus:4x4", _short(routing="valiant", vcs=4), "tornado", 0.2),
    ("torus:8x8", sim.preset("booksim", sample_period=300, warmup_periods=2, max_samples=6), "uniform", 0.15),
    ("torus:8x8", sim.preset("booksim", sample_period=300, warmup_periods=2, max_samples=6), "uniform", 0.5),
]


@pytest.mark.parametrize("spec,cfg,pattern,load", CASES)
def test_same_numbers_on_one_two_and_three_threads(spec, cfg, pattern, load):
    t = cd.from_spec(spec)
    runs = [_sim(t, cfg, pattern, load, 5, k) for k in (1, 2, 3)]
    assert runs[0].delivered > 0
    for r in runs[1:]:
        _assert_same(runs[0], r)


def test_saturation_search_the_same_on_two_threads():
    t = cd.torus((4, 4))
    cfg = _short()
    one, two = (sim.saturation(t, cfg, "uniform", step=0.1, definition="stable", resolution=0.05, seed=4,
                               threads=k) for k in (1, 2))
    assert one.loads == two.loads and len(one.points) > 2
    for a, b in zip(one.points, two.points):
        _assert_same(a, b)


def test_partitions_are_contiguous_and_balanced():
    b = partitions(64, 3)
    assert b.tolist() == [0, 21, 42, 64]
    assert partitions(5, 8).tolist() == [0, 1, 2, 3, 4, 5]      # never an empty partition
    assert partitions(4096, 1).tolist() == [0, 4096]


def test_more_threads_than_routers_and_one_router_per_partition():
    """Every router its own partition: every flit and credit between routers
    goes through an outbox."""
    t = cd.ring(4)
    one, four = (_sim(t, _short(), "uniform", 0.3, 2, k) for k in (1, 4))
    _assert_same(one, four)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, 10**6])
def test_threads_refused_in_one_line(bad):
    with pytest.raises(SimError, match="threads must be an integer from 1 to"):
        simulate(cd.torus((4, 4)), _short(), "uniform", 0.1, threads=bad)


def test_cli_threads(capsys):
    args = ["simulate", "torus:8x8", "--preset", "booksim", "--measurement", "fixed", "--warmup", "200",
            "--measure", "1000", "--load", "0.1", "--seed", "3", "--json"]
    assert main(args) == 0
    one = capsys.readouterr().out
    assert main(args + ["--threads", "2"]) == 0
    two = capsys.readouterr().out
    a, b = cli_result(one), cli_result(two)
    assert a == b
    assert main(args + ["--threads", "0"]) != 0
    assert "threads must be" in capsys.readouterr().err
