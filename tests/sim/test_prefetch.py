"""The simple router's VCT prefetches when its buffers outgrow the caches
(``net.pf``, :data:`sim.routers.simple.PREFETCH_ABOVE`): a hint only, so a
run with prefetching forced on ends in the same state as without."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest

import candidates as cd
import sim
from sim.engine import check_load, resolve
from sim.routers import _core as K
from sim.routers import simple
from sim.threads import max_threads
from traffic import traffic


def _build(spec, cfg, pattern, load, threads=1):
    t = cd.from_spec(spec)
    routing, deadlock = resolve(t, cfg)
    dests = traffic(pattern).destinations(t)
    rate = check_load(load, cfg, dests)
    return simple.build(t, cfg, simple.tables_for(t, cfg, routing), deadlock, dests, rate, warmup=cfg.warmup,
                        measure=cfg.measure, drain=cfg.drain, seed=5, threads=threads)


def _finish(run):
    if run.threads > 1:
        numba.set_num_threads(min(run.threads, max_threads()))
    run.kernel(run.net, run.buf, run.trf, run.out, run.ctl, np.int64(10**6))
    assert run.ctl[K.C_DONE] == 1
    return run


CFG = sim.preset("tpds2010", warmup=200, measure=800, drain=2000)


@pytest.mark.parametrize("spec,cfg,pattern,load,threads", [
    ("pdtt:a=4", CFG, "uniform", 0.9, 1),                                     # past saturation
    ("pdtt:a=4", CFG, "uniform", 0.3, 2),                                     # two ranges
    ("torus:4x4", CFG.replace(tie_break="random"), "bitcomplement", 0.8, 1),
    ("dragonfly:p=1:a=4:h=1", CFG.replace(routing="ugal", vcs=6), "groupshift", 0.5, 2),
])
def test_prefetching_changes_nothing(spec, cfg, pattern, load, threads):
    off = _build(spec, cfg, pattern, load, threads)
    assert off.net.pf == 0, "a small network's buffers fit the caches"
    on = _build(spec, cfg, pattern, load, threads)
    on = dataclasses.replace(on, net=on.net._replace(pf=np.int64(1)))
    a, b = _finish(off), _finish(on)
    np.testing.assert_array_equal(a.out.stats, b.out.stats)
    np.testing.assert_array_equal(a.out.arc_phits, b.out.arc_phits)
    np.testing.assert_array_equal(a.out.hist_gen, b.out.hist_gen)
    np.testing.assert_array_equal(a.ctl, b.ctl)


def test_prefetching_only_past_the_caches():
    """Buffers above PREFETCH_ABOVE (PDTT(16): 8,192 routers) turn it on; a 64-router torus's do not."""
    big = _build("pdtt:a=16", CFG, "uniform", 0.1)
    assert sum(a.nbytes for a in big.buf) > simple.PREFETCH_ABOVE and big.net.pf == 1
    small = _build("torus:8x8", CFG, "uniform", 0.1)
    assert sum(a.nbytes for a in small.buf) < simple.PREFETCH_ABOVE and small.net.pf == 0
