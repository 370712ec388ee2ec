"""Output selection (SimConfig.selection) and split tables (simulate(..., split=)) of routing adaptive."""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimError, simulate


def _swap(t, a, b):
    """A permutation where routers ``a`` and ``b`` send to each other and every other PE is silent."""
    p = np.arange(t.n)
    p[a], p[b] = b, a
    return sim.permutation(p)


def _hop_random(t, s, d):
    """Closed form: the share of (s -> d)'s packets on each channel when every hop picks x or y with
    probability 1/2 while both are still needed (a walk over the record's quadrant; t a torus)."""
    rx, ry = (t.coords[d] - t.coords[s]) % np.asarray(t.shape)
    rx, ry = int(rx), int(ry)                      # the small positive offsets of the tests
    step = {}
    for a in range(t.num_arcs):
        u, v = int(t.arc_src[a]), int(t.arc_dst[a])
        dc = (t.coords[v] - t.coords[u]) % np.asarray(t.shape)
        if (dc == (1, 0)).all():
            step[u, 0] = a
        elif (dc == (0, 1)).all():
            step[u, 1] = a
    share = np.zeros(t.num_arcs)
    mass = {(0, 0): (s, 1.0)}
    for _ in range(rx + ry):
        nxt = {}
        for (i, j), (u, p) in mass.items():
            dims = [k for k, left in ((0, rx - i), (1, ry - j)) if left > 0]
            for k in dims:
                a = step[u, k]
                share[a] += p / len(dims)
                key = (i + 1, j) if k == 0 else (i, j + 1)
                nxt[key] = (int(t.arc_dst[a]), nxt.get(key, (0, 0.0))[1] + p / len(dims))
        mass = nxt
    return share


T8 = cd.torus((8, 8))
S, D = T8.node_index((0, 0)), T8.node_index((2, 2))   # and back: (2, 2) -> (0, 0) on the minus channels


def _dor_channels(t, s, d, first):
    """The channels of (s -> d)'s dimension-order route, dimension ``first`` first (offsets +2, +2)."""
    share = np.zeros(t.num_arcs)
    u = s
    for k in (first, 1 - first):
        for _ in range(2):
            c = t.coords[u].copy()
            c[k] = (c[k] + 1) % t.shape[k]
            v = t.node_index(tuple(c))
            a = [x for x in range(t.num_arcs) if t.arc_src[x] == u and t.arc_dst[x] == v][0]
            share[a] = 1.0
            u = v
    return share


def _forward(r):
    """Utilisation of the + channels only (the (0,0) -> (2,2) flow; the reverse flow runs on - channels)."""
    plus = np.zeros(T8.num_arcs, dtype=bool)
    for a in range(T8.num_arcs):
        dc = (T8.coords[T8.arc_dst[a]] - T8.coords[T8.arc_src[a]]) % 8
        plus[a] = (dc == (1, 0)).all() or (dc == (0, 1)).all()
    return np.where(plus, r.channel_utilisation, 0.0)


@pytest.mark.parametrize("first", [0, 1])
def test_split_on_one_dimension_is_dimension_order(first):
    """Weights on one dimension only: every packet takes that dimension's hops first (the escape VC,
    dimension order x first, unused at this load), so exactly the dimension-order channels carry it."""
    split = np.zeros((T8.n, T8.n, 2))
    split[:, :, first] = 1.0
    cfg = sim.preset("tpds2010", measure=20000)
    r = simulate(T8, cfg, _swap(T8, S, D), 0.1, seed=1, split=split)
    assert r.escape_fraction == 0.0
    used = _forward(r) > 0
    assert np.array_equal(used, _dor_channels(T8, S, D, first) > 0)
    assert np.allclose(_forward(r)[used], r.accepted * T8.n / 2, rtol=1e-9)   # every packet on each of them


def test_preset_selection_routes_an_idle_network_x_first():
    """selection='credits' takes the most free phits, ties x before y: with the network almost idle the
    adaptive routing is dimension order (the few packets that meet their predecessor turn early)."""
    r = simulate(T8, sim.preset("tpds2010", measure=20000), _swap(T8, S, D), 0.05, seed=1)
    u = _forward(r)
    dor = _dor_channels(T8, S, D, 0) > 0
    assert u[dor].sum() > 0.95 * u.sum()


@pytest.mark.parametrize("rule, load, tol", [("random", 0.3, 0.05), ("weighted", 0.05, 0.08),
                                              ("credits-random", 0.05, 0.08)])
def test_random_rules_split_every_hop_evenly(rule, load, tol):
    """random: any output with room, uniformly, whatever the load; weighted and credits-random: on an
    almost idle network every output has all its credits, so they too pick x or y with 1/2 -- the
    packets' shares of the channels are the closed form of that walk."""
    cfg = sim.preset("tpds2010", measure=60000, selection=rule)
    r = simulate(T8, cfg, _swap(T8, S, D), load, seed=2)
    share = _forward(r) / (r.accepted * T8.n / 2)
    expect = _hop_random(T8, S, D)
    assert np.abs(share - expect).max() < tol
    # four hops a packet; 1/2 on the first and last hops, 1/4 on the quadrant's edges and middle
    assert expect.sum() == pytest.approx(4.0) and expect.max() == 0.5 and expect[expect > 0].min() == 0.25


@pytest.mark.parametrize("how", [{"selection": "random"}, {"selection": "weighted"},
                                 {"selection": "credits-random"}, {"split": True}])
def test_same_numbers_on_one_and_two_threads(how):
    t = cd.rtt(4)
    cfg = sim.preset("tpds2010", warmup=500, measure=2000, selection=how.get("selection", "credits"))
    split = np.random.default_rng(5).random((t.n, t.n, 2)) if "split" in how else None
    one, two = (simulate(t, cfg, "bitreversal", 0.4, seed=3, threads=k, split=split) for k in (1, 2))
    assert one.accepted == two.accepted and one.latency == two.latency
    assert np.array_equal(one.channel_utilisation, two.channel_utilisation)


def test_selection_changes_the_numbers_and_credits_keeps_them():
    t = cd.rtt(4)
    base = sim.preset("tpds2010", warmup=500, measure=2000)
    ref = simulate(t, base, "bitreversal", 0.4, seed=3)
    assert simulate(t, base.replace(selection="credits"), "bitreversal", 0.4, seed=3).latency == ref.latency
    assert simulate(t, base.replace(selection="random"), "bitreversal", 0.4, seed=3).latency != ref.latency


@pytest.mark.parametrize("kw, msg", [
    ({"selection": "nope"}, "selection must be one of credits, credits-random, random, weighted"),
    ({"selection": "random", "switching": "wormhole", "routing": "dor"}, "needs the simple router's virtual cut"),
    ({"selection": "random", "router": "iq", "routing": "dor"}, "needs the simple router's virtual cut"),
])
def test_bad_selection_is_one_line(kw, msg):
    with pytest.raises(SimError, match=msg) as e:
        sim.preset("tpds2010", **kw)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("split, cfg, msg", [
    (np.ones((16, 16, 3)), "tpds2010", r"split must have shape \(routers, routers, dimensions\) = \(16, 16, 2\)"),
    (-np.ones((16, 16, 2)), "tpds2010", "finite and non-negative"),
    (np.full((16, 16, 2), np.nan), "tpds2010", "finite and non-negative"),
    (np.ones((16, 16, 2)), sim.preset("tpds2010", routing="dor"), "needs routing adaptive"),
])
def test_bad_split_is_one_line(split, cfg, msg):
    with pytest.raises(SimError, match=msg):
        simulate(cd.torus((4, 4)), cfg, "uniform", 0.1, seed=1, split=split)
