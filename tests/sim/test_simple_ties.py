"""The simple router's ties among equally good candidates (routings over
next-hop masks): drawn from a hash of the run's seed, the packet's serial
number, its hop and the draw's index, they are still taken equally often."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from numba import njit

import candidates as cd
import sim
from sim import simulate
from sim.routers._core import choose
from sim.routing._simple import MODE_ADAPTIVE, MODE_MINTABLE, SEL_CREDITS, SEL_WEIGHTED

# the fields choose() and keep_tied() read
_Net = namedtuple("_Net", ["mode", "seed", "selection"], defaults=[SEL_CREDITS])
_Buf = namedtuple("_Buf", ["cand_t", "pk_num", "pk_hops"])


@njit
def _equal_rank(ci, now, net, buf):
    return np.int64(7)


@njit
def _index_rank(ci, now, net, buf):
    return np.int64(ci + 1)


@njit
def _weighted_choices(net, buf, nc, packets):
    """What choose() takes among ``nc`` candidates ranked 1 .. nc for packets 0 .. packets - 1."""
    out = np.zeros(packets, np.int64)
    for p in range(packets):
        buf.pk_num[0] = 1000003 * p
        out[p] = choose(_index_rank, 0, nc, 0, net, buf)[0]
    return out


@njit
def _choices(net, buf, nc, packets, hops):
    """What choose() takes among ``nc`` equally ranked candidates for packets 0 .. packets - 1 at hops
    0 .. hops - 1 (packet serial numbers spread apart)."""
    out = np.zeros(packets * hops, np.int64)
    for p in range(packets):
        buf.pk_num[0] = 1000003 * p
        for h in range(hops):
            buf.pk_hops[0] = h
            best, tier = choose(_equal_rank, 0, nc, 0, net, buf)
            out[p * hops + h] = best
    return out


@pytest.mark.parametrize("nc", [2, 3, 5])
def test_choose_takes_tied_candidates_equally(nc):
    """Among ``nc`` candidates of one rank each is taken with probability 1 / nc: over 40,000 decisions every
    count is within 4.5 standard deviations of 40,000 / nc (binomial), and the counts pass a chi-square test
    at the 0.1% level."""
    net = _Net(np.int64(MODE_MINTABLE), np.int64(12345))
    buf = _Buf(np.zeros(nc, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int32))
    n = 40000
    counts = np.bincount(_choices(net, buf, nc, n // 8, 8), minlength=nc)
    p = 1.0 / nc
    sd = np.sqrt(n * p * (1 - p))
    assert counts.sum() == n
    assert np.all(np.abs(counts - n * p) < 4.5 * sd), counts
    chi2 = float(((counts - n * p) ** 2 / (n * p)).sum())
    assert chi2 < {2: 10.83, 3: 13.82, 5: 18.47}[nc], (chi2, counts)


def test_weighted_selection_takes_candidates_in_proportion_to_their_rank():
    """selection='weighted': candidates of ranks 1, 2, 3, 4 (free phits) taken with 1/10, 2/10, 3/10, 4/10 of
    40,000 decisions, within 4.5 binomial standard deviations; the preset's rule always takes the highest."""
    buf = _Buf(np.zeros(4, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int32))
    n = 40000
    counts = np.bincount(_weighted_choices(_Net(np.int64(MODE_ADAPTIVE), np.int64(3), np.int64(SEL_WEIGHTED)), buf,
                                           4, n), minlength=4)
    p = np.arange(1, 5) / 10
    assert np.all(np.abs(counts - n * p) < 4.5 * np.sqrt(n * p * (1 - p))), counts
    assert (_weighted_choices(_Net(np.int64(MODE_ADAPTIVE), np.int64(3)), buf, 4, 100) == 3).all()


def test_choose_draws_depend_on_seed_and_packet():
    """The same packet at the same hop draws the same; another seed, or the same packets at their next hop,
    draw anew (64 decisions among 4 that all agreed would be chance 4**-64)."""
    buf = _Buf(np.zeros(4, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int32))
    a = [_choices(_Net(np.int64(MODE_MINTABLE), np.int64(s)), buf, 4, 64, 1) for s in (1, 1, 2)]
    assert np.array_equal(a[0], a[1])
    assert not np.array_equal(a[0], a[2])
    b = _choices(_Net(np.int64(MODE_MINTABLE), np.int64(1)), buf, 4, 64, 2)
    assert not np.array_equal(b[0::2], b[1::2])      # the same packets at their next hop


@pytest.mark.parametrize("spec", ["ring:8", "torus:4x4"])
def test_distance_routing_ties_split_evenly(spec):
    """Uniform traffic (the source excluded) on rings of even side k under ``distance`` routing: a packet
    k/2 hops away in a dimension may go either way, so each direction of a dimension carries, per packet,
    ``(1 + ... + (k/2 - 1) + (k/2) / 2) * k**(D - 1) / (k**D - 1)`` hops (8/7 on a ring of 8, 8/15 on a 4x4
    torus), where ties taken one way would give 10/7 against 6/7 (10/15 against 6/15). At load 0.1 the
    VCs are nearly always empty, so the ties, not the credits, decide; some 5,000 ties at random leave every
    direction within 3% of the closed form."""
    t = cd.from_spec(spec)
    k, D = t.shape[0], len(t.shape)
    load = 0.1
    cfg = sim.preset("default", routing="distance", vcs=4, packet_length=1, warmup=1000, measure=20000)
    r = simulate(t, cfg, "uniform", load, seed=11)
    assert r.drained and not r.deadlock
    per_dir = (sum(range(1, k // 2)) + (k // 2) / 2) * k ** (D - 1) / (k ** D - 1)
    c = t.coords
    step = (c[t.arc_dst, t.arc_dim] - c[t.arc_src, t.arc_dim]) % k
    util = r.channel_utilisation
    for d in range(D):
        for s in (1, k - 1):
            sel = (t.arc_dim == d) & (step == s)
            assert sel.sum() == k ** D
            assert util[sel].mean() == pytest.approx(load * per_dir, rel=0.03), (d, s)
