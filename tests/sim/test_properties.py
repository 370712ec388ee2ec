"""Property-based checks of the simulator's invariants on random graphs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import candidates as cd
import sim


@st.composite
def connected_graphs(draw):
    n = draw(st.integers(4, 12))
    # a random spanning tree plus some extra links (parallel links allowed)
    links = [(i, draw(st.integers(0, i - 1))) for i in range(1, n)]
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    links += [(a, b) for a, b in extra if a != b]
    c = draw(st.integers(1, 2))
    return cd.Topology(n, np.array(links), terminals=np.full(n, c))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(connected_graphs(), st.sampled_from(["table", "updown"]), st.integers(1, 3),
       st.sampled_from([1, 4, (1, 8)]), st.floats(0.05, 1.0), st.integers(0, 2**31 - 1),
       st.booleans())
def test_any_graph_is_deadlock_free_and_conserves_packets(t, routing, vcs, length, load, seed, prio):
    cfg = sim.SimConfig(routing=routing, vcs=vcs, packet_length=length, warmup=200, measure=1500, drain=3000,
                        watchdog=1500, check=True, transit_priority=prio)
    r = sim.simulate(t, cfg, "uniform", load, seed=seed)
    assert not r.deadlock, r.deadlock_kind
    assert r.conservation and r.injected == r.delivered + r.in_flight
    assert r.accepted <= r.offered + 0.05
    if r.packets:
        assert r.hops >= r.min_hops
        if routing == "table" and r.escape_fraction == 0:
            # escape_fraction counts the hops taken inside the measurement window, hops a measured packet's
            # whole route: one that left the window for the drain may still have taken an escape (up*/down*)
            # hop there (a 12-router graph with parallel links, seed 1589: one hop in 3,846 more than minimal)
            assert r.hops == pytest.approx(r.min_hops, rel=1e-3)


def test_an_escape_hop_after_the_window_is_not_in_the_escape_fraction():
    """The example that showed it: table routing, no escape hop inside the window, one outside it."""
    links = [(1, 0), (2, 1), (3, 0), (4, 1), (5, 3), (6, 0), (7, 6), (8, 7), (9, 8), (10, 0), (11, 0), (1, 2),
             (2, 10), (5, 7), (7, 11), (0, 10), (1, 2), (1, 2), (2, 7), (5, 9), (4, 5), (5, 9), (7, 11)]
    t = cd.Topology(12, np.array(links), terminals=np.full(12, 1))
    cfg = sim.SimConfig(routing="table", vcs=2, packet_length=(1, 8), warmup=200, measure=1500, drain=3000,
                        watchdog=1500, check=True, transit_priority=True)
    r = sim.simulate(t, cfg, "uniform", 0.49042839084083784, seed=1589)
    assert r.escape_fraction == 0 and r.hops > r.min_hops
    assert r.hops == pytest.approx(r.min_hops, rel=1e-3)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["ring:5", "ring:8", "torus:3x4", "torus:4x4", "rtt:a=3", "mesh:3x5", "pdtt:a=2"]),
       st.sampled_from(["dor", "adaptive"]), st.integers(1, 3), st.floats(0.05, 1.0), st.integers(0, 1000))
def test_lattices_with_records_are_minimal_and_deadlock_free(spec, routing, vcs, load, seed):
    t = cd.from_spec(spec)
    dl = "bubble" if vcs == 1 else "auto"
    cfg = sim.SimConfig(routing=routing, vcs=vcs, deadlock=dl if routing == "dor" else "auto", packet_length=(1, 6),
                        warmup=200, measure=1500, drain=3000, watchdog=1500, check=True)
    r = sim.simulate(t, cfg, "uniform", load, seed=seed)
    assert not r.deadlock and r.conservation
    if r.packets:
        assert r.hops == r.min_hops
