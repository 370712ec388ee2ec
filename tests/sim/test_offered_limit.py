"""A saturation search stops at the highest load the sources can offer: past it there is nothing to
simulate (each such load was a one-line refusal that failed the whole search)."""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimError
from sim.engine import MAX_POISSON_RATE, check_load
from traffic import traffic


def shifted(n: int, k: int, busiest: float) -> np.ndarray:
    """Terminal i sends to i + k; terminal 0 sends ``busiest`` times as much as the others."""
    M = np.zeros((n, n))
    M[np.arange(n), (np.arange(n) + k) % n] = 1.0
    M[0, k] = busiest
    return M


def test_the_highest_offered_load_in_closed_form():
    ring = cd.ring(8)
    assert sim.max_offered_load(ring, "singleflit", "uniform") == 1.0          # one 1-phit packet a cycle
    cfg = sim.preset("singleflit", packet_length=4)
    assert sim.max_offered_load(ring, cfg, "uniform") == 4.0                   # one 4-phit packet a cycle
    assert sim.max_offered_load(ring, cfg.replace(injection="poisson"), "uniform") == 4.0 * MAX_POISSON_RATE
    # a demand table whose busiest source sends twice the mean: half the load
    t = cd.torus((4, 4))
    pat = sim.demand(shifted(16, 1, busiest=2.0))
    top = sim.max_offered_load(t, "singleflit", pat)
    w = traffic(pat).destinations(t).weight
    assert top == pytest.approx(1.0 / w.max())
    check_load(top * (1 - 1e-12), sim.preset("singleflit"), traffic(pat).destinations(t))     # admissible
    with pytest.raises(SimError, match="more than one packet per cycle"):
        check_load(top * 1.001, sim.preset("singleflit"), traffic(pat).destinations(t))


def test_a_saturation_search_stops_at_the_sources_limit():
    t = cd.torus((4, 4))
    pat = sim.demand(shifted(16, 3, busiest=3.0))
    top = sim.max_offered_load(t, "booksim", pat)
    assert 0.3 < top < 0.5
    s = sim.saturation(t, "booksim", pat, step=0.1, max_load=1.0, seed=1)
    loads = [p.offered for p in s.points]
    assert max(p.load for p in s.points) <= top and len(s.points) == int(top / 0.1)
    assert s.saturation == max(p.accepted for p in s.points) and loads


def test_a_search_whose_first_load_is_out_of_reach_is_one_line():
    t = cd.torus((4, 4))
    pat = sim.demand(shifted(16, 3, busiest=30.0))
    with pytest.raises(SimError, match=r"first load 0.1 is more than these sources can offer"):
        sim.saturation(t, "booksim", pat, step=0.1, max_load=1.0, seed=1)
