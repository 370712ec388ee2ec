"""Traffic patterns: destinations, demand matrices, and what the simulator draws."""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimError
from sim.traffic import DEST_HOT, DEST_PERM, DEST_TABLE, traffic


def perm_of(name, topo):
    d = traffic(name).destinations(topo)
    assert d.mode == DEST_PERM
    return d.perm.tolist()


def test_bit_permutations_by_hand():
    t = cd.ring(8)  # 3 address bits
    assert perm_of("bitcomplement", t) == [7, 6, 5, 4, 3, 2, 1, 0]
    # reversal: 1=001 -> 100=4, 3=011 -> 110=6; palindromes 0,2,5,7 send nothing
    assert perm_of("bitreversal", t) == [-1, 4, -1, 6, 1, -1, 3, -1]
    # shuffle: rotate left; 0 and 7 are fixed points
    assert perm_of("shuffle", t) == [-1, 2, 4, 6, 1, 3, 5, -1]
    t16 = cd.ring(16)  # 4 bits: transpose swaps the 2-bit halves
    p = perm_of("transpose", t16)
    assert p[0b0001] == 0b0100 and p[0b1110] == 0b1011 and p[0b0101] == -1


def test_tornado_on_a_torus():
    t = cd.torus((8, 4))
    p = perm_of("tornado", t)
    for s in range(t.n):
        x, y = t.coords[s]
        assert tuple(t.coords[p[s]]) == ((x + 3) % 8, (y + 1) % 4)


def test_uniform_and_weights_sum():
    t = cd.from_spec("torus:4x4:c=2")
    M = traffic("uniform").demand_matrix(t, 0.5, level="terminal")
    assert M.shape == (32, 32) and np.allclose(M.sum(axis=1), 0.5) and np.all(np.diag(M) == 0)
    R = traffic("uniform").demand_matrix(t, 0.5)
    assert R.shape == (16, 16) and R.sum() == pytest.approx(16.0)
    # two terminals of a router exchange traffic inside the router
    assert R[0, 0] == pytest.approx(2 * 0.5 / 31)


def test_hotregion_is_the_lowest_rows():
    t = cd.rt(4)  # 8 x 4: 12.5% = 4 routers = the row y = 0? no: 32 * 0.125 = 4 = half a row
    d = traffic("hotregion").destinations(t)
    M = d.matrix()
    hot = np.flatnonzero(M.sum(axis=0) > M.sum(axis=0).mean() * 1.5)
    assert len(hot) == 4 and np.all(t.coords[hot, 1] == 0)
    # a source outside the region sends 25% + 75% x 4/31 there
    s = t.node_index((5, 2))
    assert M[s, hot].sum() == pytest.approx(0.25 + 0.75 * 4 / 31)
    assert traffic("hotregion").destinations(cd.ring(16)).mode == DEST_HOT


def test_neighbor_and_matrix():
    t = cd.torus((4, 4))
    M = traffic("neighbor").demand_matrix(t)
    assert np.allclose(M.sum(axis=1), 1.0)
    A = np.zeros((16, 16))
    A[t.arc_src, t.arc_dst] = 1
    assert np.array_equal(M > 0, A > 0)
    D = sim.demand(np.arange(16 * 16, dtype=float).reshape(16, 16))
    dd = D.destinations(t)
    assert dd.mode == DEST_TABLE and dd.weight.mean() == pytest.approx(1.0)


@pytest.mark.parametrize("name,topo", [("bitcomplement", "ring:6"), ("transpose", "ring:8"),
                                       ("tornado", "complete:6"), ("uniform:x=1", "ring:4")])
def test_pattern_errors(name, topo):
    t = cd.from_spec(topo)
    with pytest.raises(SimError):
        sim.simulate(t, "default", name, 0.1) if name.startswith("uniform:") else traffic(name).destinations(t)


def test_simulated_flows_follow_the_pattern():
    """A permutation on a ring with DOR: exactly the channels on the routes
    carry traffic, each at the source's load."""
    t = cd.ring(8)
    perm = [2, 3, 4, 5, 6, 7, 0, 1]  # everyone 2 hops forward (+ direction)
    r = sim.simulate(t, sim.SimConfig(routing="dor", packet_length=1, measure=20000),
                     sim.permutation(perm), 0.2, seed=1)
    u = r.channel_utilisation
    plus = u[0::2]  # arcs 2i go +1 on the ring
    assert np.allclose(plus, 0.4, atol=0.02) and np.all(u[1::2] == 0)
    assert r.hops == 2 and r.accepted == pytest.approx(0.2, abs=0.01)


def dor_channel_load(t, M):
    """Expected phits/cycle on every channel: DOR paths of the demand M,
    walked independently of the simulator (records, lowest dimension first)."""
    load = np.zeros(t.num_arcs)
    out = {(int(t.arc_src[a]), int(t.arc_dim[a]), 1 if a % 2 == 0 else -1): a for a in range(t.num_arcs)}
    for s in range(t.n):
        for d in range(t.n):
            if M[s, d] == 0:
                continue
            rec = cd.routing_records(t, [s], [d])[0]
            u = s
            for k, r in enumerate(rec):
                for _ in range(abs(int(r))):
                    a = out[(u, k, 1 if r > 0 else -1)]
                    load[a] += M[s, d]
                    u = int(t.arc_dst[a])
            assert u == d
    return load


@pytest.mark.parametrize("spec,pattern", [("ring:16", "hotregion"), ("torus:4x4", "hotregion"),
                                          ("torus:4x4", "bitreversal"), ("torus:8x4", "tornado")])
def test_channel_utilisation_matches_independent_dor_paths(spec, pattern):
    t = cd.from_spec(spec)
    load = 0.15
    expected = dor_channel_load(t, traffic(pattern).demand_matrix(t, load))
    r = sim.simulate(t, sim.SimConfig(routing="dor", packet_length=1, measure=40000), pattern, load, seed=2)
    assert np.abs(r.channel_utilisation - expected).max() < 0.02
    assert r.hops == r.min_hops
