"""tie_break='random': every minimal routing record of a pair, drawn per packet."""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, simulate
from candidates.generators.lattice import reduce_to_box
from sim.routing import build_tables, pair_records, with_ties


def _ties(spec):
    """The topology and its tie records expanded to every pair: (K, n, n, D), (n, n)."""
    t = cd.from_spec(spec)
    tabs = with_ties(t, build_tables(t, "adaptive"))
    s, d = np.divmod(np.arange(t.n * t.n), t.n)
    recs, cnt = pair_records(tabs, s, d)
    return t, recs.reshape(len(recs), t.n, t.n, -1), cnt.reshape(t.n, t.n)


@pytest.mark.parametrize("a", [4, 8])
def test_rtt_ties_are_exactly_the_nodes_at_distance_a(a):
    """RTT(a): the 2a - 1 nodes at the diameter a have several minimal
    records, every other node one; every record is minimal and reaches the
    destination."""
    t, recs, cnt = _ties(f"rtt:a={a}")
    dist = cd.shortest_path_table(t).dist
    assert np.array_equal(cnt > 1, dist == a)
    assert ((cnt > 1).sum(axis=1) == 2 * a - 1).all()
    for k in range(recs.shape[0]):
        sel = cnt > k
        assert np.array_equal(np.abs(recs[k]).sum(axis=2)[sel], dist[sel])
        # the record is a displacement modulo the lattice: coords[src] + rec == coords[dst] (mod lattice)
        s, d = np.nonzero(sel)
        moved = t.coords[s] + recs[k][s, d]
        back = reduce_to_box(moved - t.coords[d], t.shape, t.lattice)
        assert not back.any()


def test_rt_ties_count():
    """RT(a): x offset a (a destinations), y offset a/2 (2a), both (1, four records)."""
    a = 8
    _, _, cnt = _ties(f"rt:a={a}")
    c = cnt[0]
    assert (c == 2).sum() == 3 * a - 2 and (c == 4).sum() == 1 and (c > 1).sum() == 3 * a - 1


def test_random_ties_balance_the_two_directions_of_a_ring():
    """Ring(8), DOR, uniform: with the fixed rule the 4-hop ties all go one
    way (10/7 vs 6/7 hops per packet per direction); drawn at random both
    directions carry 8/7."""
    t = cd.ring(8)
    util = {}
    for ties in ("first", "random"):
        cfg = SimConfig(routing="dor", packet_length=1, measure=20000, tie_break=ties)
        r = simulate(t, cfg, "uniform", 0.3, seed=1)
        u = r.channel_utilisation
        plus, minus = u[0::2].mean(), u[1::2].mean()  # even arcs run + on a ring
        util[ties] = (plus, minus)
        assert plus + minus == pytest.approx(0.3 * 16 / 7, rel=0.03)
    lo, hi = sorted(util["first"])
    assert hi / lo == pytest.approx(10 / 6, rel=0.05)
    assert util["random"][0] / util["random"][1] == pytest.approx(1.0, abs=0.05)


def test_random_ties_raise_rtt_throughput_toward_the_bound():
    """RTT(8) past saturation: the fixed Y- tie rule caps the records at
    0.6225 phits/cycle/PE (the Y- channels carry 1.606 hops per packet);
    random ties lift the cap to 0.744 ~ 6/a, even out Y+ and Y- and accept
    more (a few percent here: the adaptive network saturates below either
    cap)."""
    t = cd.rtt(8)
    base = sim.preset("tpds2010", warmup=2000, measure=4000, drain=2000)
    first = simulate(t, base, "uniform", 0.9, seed=2)
    rand = simulate(t, base.replace(tie_break="random"), "uniform", 0.9, seed=2)
    assert first.accepted < 0.6225 and rand.accepted > 1.03 * first.accepted
    assert not rand.deadlock and rand.conservation

    def y_plus_minus(r):
        u = r.channel_utilisation
        y = t.arc_dim == 1
        return u[y & (np.arange(t.num_arcs) % 2 == 0)].mean(), u[y & (np.arange(t.num_arcs) % 2 == 1)].mean()

    yp, ym = y_plus_minus(first)
    assert ym > yp + 0.1          # the fixed rule sends every tie Y-
    yp, ym = y_plus_minus(rand)
    assert abs(yp - ym) < 0.03


def test_tie_break_validation_and_determinism():
    with pytest.raises(SimError, match="tie_break"):
        SimConfig(tie_break="coin")
    t = cd.torus((4, 4))
    cfg = SimConfig(routing="dor", tie_break="random", measure=3000)
    a = simulate(t, cfg, "uniform", 0.3, seed=5).to_dict()
    b = simulate(t, cfg, "uniform", 0.3, seed=5).to_dict()
    for d in (a, b):
        d.pop("seconds"), d.pop("router_cycles_per_second"), d.pop("cpu_seconds"), d.pop("compile_seconds")
    assert a == b
