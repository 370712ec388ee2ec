"""Several injectors/ejectors per PE, distance-class VCs, per-pair latency."""

import numpy as np
import pytest

import candidates as cd
from sim import SimConfig, SimError, simulate
from sim import traffic as sim_traffic


def test_injectors_lift_the_injection_cap():
    # the 3-cube carries 3 / (12/7) = 1.75 phits/cycle/PE of uniform traffic,
    # more than one injection queue can feed (DOR saturates near 1.2)
    t = cd.hypercube(3)
    base = SimConfig(routing="dor", packet_length=4, injection="poisson", warmup=1000, measure=4000)
    one = simulate(t, base, "uniform", 1.1, seed=2)
    two = simulate(t, base.replace(injectors=2, ejectors=2), "uniform", 1.1, seed=2)
    assert one.accepted <= 1.0 + 1e-9
    assert two.accepted == pytest.approx(two.offered, rel=0.02)
    assert two.accepted > 1.05
    assert two.conservation and one.conservation


def test_ejectors_alone_do_not_lift_injection():
    t = cd.torus((4, 4))
    cfg = SimConfig(routing="dor", packet_length=4, injection="poisson", ejectors=3, warmup=500, measure=2000)
    assert simulate(t, cfg, "uniform", 1.3, seed=2).accepted <= 1.0 + 1e-9


def test_pair_latency_is_the_zero_load_formula():
    t = cd.torus((4, 4))
    cfg = SimConfig(routing="dor", packet_length=4, router_delay=2, link_latency=3, warmup=0, measure=40000)
    r = simulate(t, cfg, "uniform", 0.004, seed=5, pair_latency=True)
    import networkx as nx

    dist = dict(nx.all_pairs_shortest_path_length(t.to_networkx()))
    seen = np.argwhere(r.pair_packets > 0)
    assert len(seen) > 200
    # no pair is faster than the formula; contention at this load is rare
    dev = [r.pair_latency[s, q] - ((dist[s][q] + 1) * 2 + 3 * dist[s][q] + 4) for s, q in seen.tolist()]
    assert min(dev) >= -1e-9
    assert np.mean(dev) < 0.1
    assert r.pair_packets.sum() == r.packets


def test_distance_classes_avoid_deadlock_where_minimal_deadlocks():
    ring = cd.ring(8)
    kw = dict(packet_length=4, buffer_packets=1, warmup=500, measure=3000, watchdog=1000)
    bad = simulate(ring, SimConfig(routing="minimal", vcs=1, transit_priority=False, **kw), "tornado", 0.9, seed=1)
    assert bad.deadlock
    good = simulate(ring, SimConfig(routing="distance", vcs=4, transit_priority=False, **kw), "tornado", 0.9, seed=1)
    assert not good.deadlock and good.conservation
    assert good.hops == pytest.approx(good.min_hops)


def test_distance_classes_need_enough_vcs():
    with pytest.raises(SimError, match="diameter 4"):
        simulate(cd.ring(8), SimConfig(routing="distance", vcs=3), "uniform", 0.1)


def test_hot_region_is_the_lowest_rows_whatever_the_numbering():
    # RT 16x8 numbers routers x-major, so its lowest rows (y = 0) are not a prefix
    t = cd.from_spec("rt:a=8")
    dest = sim_traffic("hotregion").destinations(t)
    hot = dest.perm[:dest.hot_count]
    assert dest.hot_count == 16 and set(t.coords[hot, 1]) == {0}
    m = dest.matrix()
    assert np.allclose(m.sum(axis=1), 1.0)
    cold = np.setdiff1d(np.arange(t.n), hot)
    # from a cold router: 25% to the hot region plus its uniform share of the rest
    assert m[cold[0], hot].sum() == pytest.approx(0.25 + 0.75 * 16 / 127)
    r = simulate(t, SimConfig(routing="adaptive", packet_length=4, warmup=500, measure=20000), "hotregion", 0.05,
                 seed=4, pair_latency=True)
    share = r.pair_packets[:, hot].sum() / r.pair_packets.sum()
    assert share == pytest.approx(0.25 + 0.75 * 16 / 127, abs=0.02)


def test_record_routings_refuse_links_that_break_the_direction_convention():
    t = cd.from_spec("torus:4x4")
    links = t.links.copy()
    links[3] = links[3][::-1]  # one link stored backwards: its even arc now steps -1
    bad = t.replace(links=links)
    with pytest.raises(SimError, match="does not step"):
        simulate(bad, SimConfig(routing="adaptive"), "uniform", 0.1)
    assert not simulate(bad, SimConfig(routing="table"), "uniform", 0.1).deadlock
