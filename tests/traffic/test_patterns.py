"""Traffic patterns: destinations, demand matrices, and what the simulator draws."""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import simulate
from traffic import TrafficError
from traffic import DEST_HOT, DEST_PERM, DEST_TABLE, PATTERNS, localglobal_matrix, traffic


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


def test_butterfly_swaps_the_outer_address_bits():
    # by hand, 4 bits: 1=0001 -> 1000=8, 3=0011 -> 1010=10, 12=1100 -> 0101=5; 0, 6=0110, 9=1001 fixed
    p = perm_of("butterfly", cd.ring(16))
    assert p[1] == 8 and p[3] == 10 and p[12] == 5 and p[8] == 1
    assert p[0] == p[6] == p[9] == p[15] == -1
    # independently, on the binary strings of 6-bit addresses (64 terminals, as 16 switches x 4 hosts)
    t = cd.from_spec("ring:16:c=4")
    d = traffic("butterfly").destinations(t)
    want = []
    for s in range(64):
        bits = list(f"{s:06b}")
        bits[0], bits[-1] = bits[-1], bits[0]
        x = int("".join(bits), 2)
        want.append(-1 if x == s else x)
    assert d.perm.tolist() == want
    # an involution (so a permutation) on the terminals that send; half of them are fixed points
    full = np.where(d.perm >= 0, d.perm, np.arange(64))
    assert np.array_equal(np.sort(full), np.arange(64)) and np.array_equal(full[full], np.arange(64))
    assert int((d.perm < 0).sum()) == 32 and d.weight.sum() == pytest.approx(64)
    # 3 bits: swapping bits 0 and 2 is the bit reversal
    assert perm_of("butterfly", cd.ring(8)) == perm_of("bitreversal", cd.ring(8))
    with pytest.raises(TrafficError, match="power of 2"):
        traffic("butterfly").destinations(cd.from_spec("ring:20:c=4"))


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
    with pytest.raises(TrafficError):
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


# ------------------------------------------------ local/global mix (rtt-mapping-concentration)
def _mean_hops(topo, M):
    dist = cd.shortest_path_table(topo).dist
    return float((M * dist).sum() / M.sum())


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_localglobal_on_rt_with_id_mapping_matches_the_papers_tau(alpha):
    """tau = alpha * d + (1 - alpha) * k with d = 1 (id mapping on the RT
    keeps every logical neighbour adjacent) and k = 3a/4 (the mean over all
    nodes, self included; excluding self multiplies it by N / (N - 1))."""
    a = 4
    t = cd.rt(a)
    M = sim.traffic(f"localglobal:alpha={alpha}").demand_matrix(t, 1.0)
    N = t.n
    assert np.allclose(M.sum(axis=1), 1.0)
    tau = alpha * 1 + (1 - alpha) * (3 * a / 4) * N / (N - 1)
    assert _mean_hops(t, M) == pytest.approx(tau, rel=1e-12)


def test_localglobal_structure_and_options():
    t = cd.torus((4, 4))
    M = sim.traffic("localglobal:alpha=1").demand_matrix(t, 1.0, level="terminal")
    # every process sends 1/4 to each of its logical (= physical) neighbours
    for p in range(16):
        nb = sorted(set(t.neighbors(p).tolist()))
        assert sorted(np.flatnonzero(M[p]).tolist()) == nb and np.allclose(M[p, nb], 0.25)
    mesh = sim.traffic("localglobal:alpha=1:wrap=0").demand_matrix(t, 1.0, level="terminal")
    assert np.allclose(mesh[0, [1, 4]], 0.5) and mesh[0].sum() == pytest.approx(1.0)
    # size-2 dimension: both directions reach the same process
    two = localglobal_matrix(8, 4, 2, 1.0)
    assert two[0, 1] == pytest.approx(0.5) and two[0, 2] == pytest.approx(0.25)
    # concentration: a 16x16 logical torus on the 16x8 network with c=2 (grid given explicitly)
    tc = cd.from_spec("rt:a=8:c=2")
    Mc = sim.traffic("localglobal:alpha=0.5:grid=16x16").demand_matrix(tc, 1.0, level="terminal")
    assert Mc.shape == (256, 256) and np.allclose(Mc.sum(axis=1), 1.0)
    # an explicit mapping moves the rows and columns
    perm = np.random.default_rng(0).permutation(16)
    Mp = sim.traffic("localglobal", alpha=0.7, mapping=perm).demand_matrix(t, 1.0, level="terminal")
    M7 = localglobal_matrix(16, 4, 4, 0.7)
    assert np.allclose(Mp[np.ix_(perm, perm)], M7)
    with pytest.raises(TrafficError, match="grid 3x4"):
        sim.traffic("localglobal:grid=3x4").destinations(t)
    with pytest.raises(TrafficError, match="alpha"):
        sim.traffic("localglobal:alpha=2").destinations(t)
    assert sim.traffic("lg").name == "localglobal"


def test_localglobal_simulated_hops_follow_the_matrix():
    """The simulator draws destinations from the same matrix: the mean hops
    of the delivered packets approach the matrix's expectation; the RTT
    with the id mapping dilates the vertical wraparound neighbours."""
    for spec in ("rt:a=4", "rtt:a=4"):
        t = cd.from_spec(spec)
        pat = sim.traffic("localglobal:alpha=0.6")
        r = simulate(t, sim.SimConfig(packet_length=1, warmup=0, measure=40000), pat, 0.05, seed=4)
        assert r.hops == pytest.approx(_mean_hops(t, pat.demand_matrix(t, 1.0)), abs=0.03)
    local_rt = _mean_hops(cd.rt(4), sim.traffic("localglobal:alpha=1").demand_matrix(cd.rt(4)))
    local_rtt = _mean_hops(cd.rtt(4), sim.traffic("localglobal:alpha=1").demand_matrix(cd.rtt(4)))
    assert local_rt == 1.0 and local_rtt > 1.0


def test_pattern_needs():
    df = cd.from_spec("dragonfly:a=4:p=2:h=2")
    with pytest.raises(TrafficError, match="tornado traffic needs a lattice topology with coordinates; .* has none"):
        traffic("tornado").destinations(cd.from_spec("complete:6"))
    with pytest.raises(TrafficError, match=r"groupshift traffic needs a topology whose routers form groups \(dragonfly\)"):
        traffic("groupshift").destinations(cd.from_spec("torus:4x4"))
    assert traffic("groupshift").destinations(df).mode == 2
    assert traffic("HR").name == "hotregion" and traffic("nearest-neighbour").name == "neighbor"
    assert PATTERNS["groupshift"].needs == "groups" and PATTERNS["tornado"].needs == "lattice"


# ---------------------------------------------------------------- one name, one meaning everywhere
def test_random_is_count_pairs_of_pes_for_simulator_and_flows():
    from flows import Demands

    from synth.workload import Traffic

    t = cd.torus((4, 4))
    pat = traffic("random:48:seed=5")
    assert pat.options == {"count": 48, "seed": 5}
    s, d, a = pat.demand_pairs(t)
    # the flow solvers' demands are the drawn pairs, as flows.Demands.random draws them
    ref = Demands.random(16, 48, seed=5)
    assert s.tolist() == ref.src.tolist() and d.tolist() == ref.dst.tolist() and a.sum() == 48
    # the simulator's destination table puts the same pairs in the rows
    M = pat.destinations(t).matrix()
    counts = np.zeros((16, 16))
    np.add.at(counts, (s, d), 1.0)
    rows = counts.sum(axis=1)
    nz = rows > 0
    assert np.allclose(M[nz] / M[nz].sum(axis=1, keepdims=True), counts[nz] / rows[nz, None])
    assert np.allclose(M.sum(axis=1), rows * 16 / 48)        # the injection weight: the PE's share of the pairs
    # a study's random pattern is the same pattern
    w = Traffic.parse("random:48", seed=5)
    assert str(w.pattern_of()) == "random:count=48:seed=5"
    dem = w.demands(t)
    assert dem.src.tolist() == s.tolist() and dem.dst.tolist() == d.tolist()


def test_random_on_concentrated_routers_drops_pairs_inside_a_router():
    t = cd.from_spec("ring:8:c=4")
    s, d, _ = traffic("random:200:seed=1").demand_pairs(t)
    from traffic import random_pairs, terminal_router

    ps, pd = random_pairs(32, 200, seed=1)
    tr = terminal_router(t)
    inside = int((tr[ps] == tr[pd]).sum())
    assert inside > 0 and len(s) == 200 - inside and (s != d).all()


def test_local_needs_a_placement_and_keeps_its_shares():
    t = cd.from_spec("torus:8x4x2")
    with pytest.raises(TrafficError, match="local traffic needs a placed topology"):
        traffic("local:100").demand_pairs(t)
    placed = cd.block_placement(t, [(1, 1, 2), (4, 4, 2)])
    s, d, a = traffic("local:100:0.4,0.5,0.1:seed=3").demand_pairs(placed)
    unit = placed.placement.unit
    # largest remainder: exactly 40 pairs share a compute card, 50 more a node card, 10 cross node cards
    assert int((unit[s, 0] == unit[d, 0]).sum()) == 40
    assert int(((unit[s, 0] != unit[d, 0]) & (unit[s, 1] == unit[d, 1])).sum()) == 50
    assert len(s) == 100 and a.sum() == 100


def test_positional_options_and_errors():
    assert traffic("local:64").options == {"count": 64}
    assert traffic("random:64:7").options == {"count": 64, "seed": 7}
    with pytest.raises(TrafficError, match="random traffic needs a number of demands >= 1, e.g. random:128"):
        traffic("random").destinations(cd.ring(8))
    with pytest.raises(TrafficError, match="must look like key=value"):
        traffic("hotregion:0.5")
    with pytest.raises(TrafficError, match=r"takes options \['fraction', 'region'\], got \['alpha'\]"):
        traffic("hotregion:alpha=1")


def test_every_pattern_is_in_the_command_lines_help():
    from synth.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    helps = sub.choices["simulate"].format_help().replace("\n", " ").replace("  ", " ")
    for name in PATTERNS:
        if name not in ("permutation", "matrix"):       # arrays: the Python API only
            assert name in helps, name
