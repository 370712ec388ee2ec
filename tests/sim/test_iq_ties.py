"""Router iq's k/2 ties (BookSim2's ``dim_order`` on a torus of even side):
drawn from a hash of the run's seed, the packet and its hop, they still
split evenly between the two directions."""

from __future__ import annotations

import pytest

import candidates as cd
import sim
from sim import simulate


@pytest.mark.parametrize("spec", ["ring:8", "torus:4x4"])
def test_ties_split_evenly(spec):
    """Uniform traffic (the source included) on rings of even side k: a
    packet k/2 hops away in a dimension may go either way, so each direction
    carries, per packet and dimension, (1 + ... + (k/2 - 1)) / k hops of the
    other routes plus half of the ties' (k/2) / k: on a ring of 8, 0.75 +
    0.25 = 1 hop each way, where ties all one way would give 1.25 against
    0.75. Some 4,000 ties split at random leave the two directions equal
    within 0.2% (one standard deviation)."""
    t = cd.from_spec(spec)
    load = 0.2
    cfg = sim.preset("booksim", measurement="fixed", warmup=1000, measure=20000)
    r = simulate(t, cfg, "uniform", load, seed=11)
    assert r.stable and not r.deadlock
    k = t.shape[0]
    per_dir = sum(range(1, k // 2)) / k + (k // 2) / k / 2       # hops each way per packet and dimension
    util = r.channel_utilisation
    plus, minus = util[0::2], util[1::2]                         # arcs: + even, - odd
    # every channel carries load x its direction's hops (one terminal a router, 1-flit packets)
    assert plus.mean() == pytest.approx(load * per_dir, rel=0.03)
    assert minus.mean() == pytest.approx(load * per_dir, rel=0.03)
    assert abs(plus.sum() - minus.sum()) / (plus.sum() + minus.sum()) < 0.02

