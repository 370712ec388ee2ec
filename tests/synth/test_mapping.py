"""Task mapping ('rtt-mapping-concentration') and SA placement ('topology-synthesis-mcf-bgl').

Values are checked against the paper's definitions and closed forms, against
networkx BFS distances over the mapped demand matrix, against the exact LP
(HiGHS) for throughput, and against brute force for the annealer.
"""

import itertools
import pickle

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
import flows
from common.errors import ToposynthError
from flows import Demands
from synth.mapping import (
    PAPER_CASES,
    MappingError,
    TaskPlacement,
    anneal,
    compose,
    diagonal_shift,
    global_traffic,
    grid_map,
    horizontal_concentration,
    link_sets,
    local_traffic,
    map_demands,
    mapping_model,
    mixed_traffic,
    model_demands,
    paper_model,
    place,
    placement_cost,
    placement_from_routers,
    task_coords,
    task_index,
    twisted_concentration,
    vertical_concentration,
)

ALPHAS = np.linspace(0.0, 1.0, 9)


def topo_for(family, mapping, a):
    c = grid_map(mapping).concentration
    return cd.from_spec(f"{family}:a={a}" + (f":c={c}" if c > 1 else ""))


def bfs_dist(topo):
    g = topo.to_networkx()
    D = np.zeros((topo.n, topo.n))
    for s, row in nx.all_pairs_shortest_path_length(g):
        for t, d in row.items():
            D[s, t] = d
    return D


def logical_neighbours(shape):
    """(task, neighbour) for the four torus directions of every task."""
    W, H = shape
    out = []
    for x in range(W):
        for y in range(H):
            t = task_index((x, y), shape)
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                out.append((t, task_index(((x + dx) % W, (y + dy) % H), shape), dx, dy))
    return out


# ------------------------------------------------------------------ the functions
def test_definitions_at_points():
    # fd(x, y) = (x + y mod m, y)
    assert diagonal_shift(7, 3, 8) == (2, 3)
    assert diagonal_shift(0, 0, 8) == (0, 0)
    # f^h_c(x, y) = (floor(x / c), y); f^v_c(x, y) = (x, floor(y / c))
    assert horizontal_concentration(5, 3, 2) == (2, 3)
    assert vertical_concentration(5, 3, 2) == (5, 1)
    assert horizontal_concentration(11, 0, 4) == (2, 0)
    # f^t_c on R_{m, cn}: band floor(y/n) shifted by m/2, y reduced mod n
    m, n = 8, 4
    for x in range(m):
        for y in range(n):
            assert twisted_concentration(x, y, m, n) == (x, y)
            assert twisted_concentration(x, y + n, m, n) == ((x + m // 2) % m, y)


def test_vectorised_composition_is_f_of_g():
    shape = (8, 4)
    f = grid_map("fd.fv2")
    assert f.task_shape(shape) == (8, 8)
    x, y = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    px, py = f(x.ravel(), y.ravel(), shape)
    gx, gy = vertical_concentration(x.ravel(), y.ravel(), 2)
    fx, fy = diagonal_shift(gx, gy, 8)
    assert np.array_equal(px, fx) and np.array_equal(py, fy)
    assert compose("fd", "fv2") == f and (grid_map("fd") @ grid_map("fv2")) == f
    # the other order is a different function (fd acts on the 8 x 8 task grid first)
    g = grid_map("fv2.fd")
    qx, qy = g(x.ravel(), y.ravel(), shape)
    assert not (np.array_equal(qx, px) and np.array_equal(qy, py))
    ex, ey = diagonal_shift(x.ravel(), y.ravel(), 8)
    assert np.array_equal(qx, ex) and np.array_equal(qy, ey // 2)


def test_names_shapes_and_concentration():
    assert grid_map("FD ∘ fv2").name == "fd.fv2"
    assert grid_map("f_t2.f_h2").name == "ft2.fh2"
    for name, c, shape in [("id", 1, (8, 4)), ("fd", 1, (8, 4)), ("fh2", 2, (16, 4)), ("fv2", 2, (8, 8)),
                           ("ft2", 2, (8, 8)), ("fd.fv2", 2, (8, 8)), ("fv2.fh2", 4, (16, 8)),
                           ("ft2.fh2", 4, (16, 8)), ("id.ft2.fh2", 4, (16, 8))]:
        f = grid_map(name)
        assert f.concentration == c
        assert f.task_shape((8, 4)) == shape
    # paper Fig. 12: 128 tasks on RT(4)/RTT(4) with c = 4
    assert place("ft2.fh2", cd.from_spec("rtt:a=4:c=4")).num_tasks == 128


@pytest.mark.parametrize("name", ["id", "fd", "fh2", "fv2", "ft2", "fd.fv2", "fv2.fh2", "ft2.fh2", "fd.ft2.fh2"])
@pytest.mark.parametrize("family", ["rt", "rtt"])
def test_every_router_gets_c_tasks(name, family):
    topo = topo_for(family, name, 4)
    p = place(name, topo)
    c = grid_map(name).concentration
    assert p.num_tasks == c * topo.n
    assert np.array_equal(np.bincount(p.router, minlength=topo.n), np.full(topo.n, c))
    assert sorted(set(p.terminal.tolist())) == list(range(c))
    assert len(np.unique(p.terminal_index)) == p.num_tasks
    # the router of task (x, y) sits at f(x, y)
    x, y = task_coords(np.arange(p.num_tasks), p.task_shape)
    fx, fy = grid_map(name)(x, y, topo.shape)
    assert np.array_equal(topo.coords[p.router], np.stack([fx, fy], axis=1))


_PRIMS = {"id": lambda x, y, m, n: (x, y), "fd": lambda x, y, m, n: diagonal_shift(x, y, m),
          "fh2": lambda x, y, m, n: horizontal_concentration(x, y, 2),
          "fv2": lambda x, y, m, n: vertical_concentration(x, y, 2),
          "ft2": lambda x, y, m, n: twisted_concentration(x, y, m, n)}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(_PRIMS)), min_size=1, max_size=3),
       st.sampled_from([4, 6, 8]), st.sampled_from([2, 3, 4]))
def test_any_composition_is_c_to_one_and_applies_innermost_first(steps, m, n):
    f = grid_map(".".join(steps))
    topo = cd.torus((m, n)).with_concentration(f.concentration)
    p = place(f, topo)
    assert np.array_equal(np.bincount(p.router, minlength=topo.n), np.full(topo.n, f.concentration))
    # apply the primitives by hand, innermost (last written) first, tracking each range rectangle
    shapes = [(m, n)]
    for s_ in steps:
        w, h = shapes[-1]
        shapes.append((2 * w, h) if s_ == "fh2" else (w, 2 * h) if s_ in ("fv2", "ft2") else (w, h))
    assert p.task_shape == shapes[-1]
    x, y = task_coords(np.arange(p.num_tasks), p.task_shape)
    for i in range(len(steps) - 1, -1, -1):
        x, y = _PRIMS[steps[i]](x, y, *shapes[i])
    assert np.array_equal(topo.coords[p.router], np.stack([x, y], axis=1))


def test_identity_numbering_matches_routers():
    topo = cd.rtt(4)
    p = place("id", topo)
    assert p.router.tolist() == list(range(topo.n))
    # slot-order identity with c = 2 is the vertical union (consecutive tasks share a router)
    pc = place("fv2", cd.from_spec("rtt:a=4:c=2"))
    assert pc.router.tolist() == (np.arange(64) // 2).tolist()


def test_twisted_concentration_keeps_neighbours_apart_and_adjacent():
    """Fig. 4 / Section 3.4.4: f^t_2 collocates no neighbours; on RTT every
    logical neighbour is one hop away (dilation 1), while f^v_2 and f^h_2 put a
    neighbour pair on every router."""
    topo = cd.from_spec("rtt:a=4:c=2")
    D = bfs_dist(topo)
    for name in ("ft2", "fv2"):
        p = place(name, topo)
        pairs = logical_neighbours(p.task_shape)
        same = sum(p.router[s] == p.router[t] for s, t, _, _ in pairs)
        if name == "ft2":
            assert same == 0
            assert all(D[p.router[s], p.router[t]] == 1 for s, t, _, _ in pairs)
        else:
            assert same == 2 * topo.n  # one vertical pair per router, both directions
    ph = place("fh2", cd.from_spec("rt:a=2:c=2"))
    assert sum(ph.router[s] == ph.router[t] for s, t, _, _ in logical_neighbours(ph.task_shape)) == 2 * 8


@pytest.mark.parametrize("a", [3, 4, 6])
def test_dilations_stated_in_the_paper(a):
    """Sections 3.3-3.4, by networkx BFS: id on RTT has average dilation
    3/2 - 1/a and maximum a - 1; fd has every vertical neighbour at (+-1, +-1)
    (dilation 2, average 3/2, maximum 2); fv2 on RTT has maximum a - 1."""
    rtt = cd.rtt(a)
    D = bfs_dist(rtt)
    p = place("id", rtt)
    dil = [D[p.router[s], p.router[t]] for s, t, _, _ in logical_neighbours(p.task_shape)]
    assert np.mean(dil) == pytest.approx(1.5 - 1 / a)
    assert max(dil) == a - 1
    p = place("fd", rtt)
    rec = cd.routing_records(rtt, [p.router[s] for s, t, _, _ in logical_neighbours(p.task_shape)],
                             [p.router[t] for s, t, _, _ in logical_neighbours(p.task_shape)])
    for (s, t, dx, dy), r in zip(logical_neighbours(p.task_shape), rec):
        if dy:
            assert r.tolist() == [dy, dy]
        else:
            assert r.tolist() == [dx, 0]
    m = mapping_model(rtt, "fd", [1.0])
    assert m.latency == [1.5] and m.max_dilation == 2
    mv = mapping_model(cd.rtt(a).with_concentration(2), "fv2", [1.0])
    assert mv.max_dilation == a - 1
    assert mapping_model(cd.rtt(a).with_concentration(2), "ft2", [1.0]).max_dilation == 1


def test_errors_are_one_line_mapping_errors():
    with pytest.raises(MappingError, match="unknown mapping step 'fq2'") as e:
        grid_map("fd.fq2")
    assert "\n" not in str(e.value) and isinstance(e.value, ToposynthError)
    with pytest.raises(MappingError, match="use a concentrated topology such as 'rtt:a=4:c=2'"):
        place("ft2", cd.rtt(4))
    with pytest.raises(MappingError, match="puts 1 task on every router"):
        place("id", cd.from_spec("rtt:a=4:c=2"))
    with pytest.raises(MappingError, match="even width"):
        place("ft2", cd.torus((5, 4)).with_concentration(2))
    with pytest.raises(MappingError, match="2D lattice"):
        place("id", cd.pt(2))
    with pytest.raises(MappingError, match="outside"):
        grid_map("fv2")(np.array([0]), np.array([8]), (8, 4))
    with pytest.raises(MappingError, match="share terminal slot"):
        TaskPlacement([0, 0], [0, 0], [2])
    with pytest.raises(MappingError, match="has 1 terminals"):
        placement_from_routers([0, 0], cd.ring(3))
    with pytest.raises(MappingError, match="alpha"):
        mapping_model(cd.rt(3), "id", [1.5])
    with pytest.raises(MappingError, match="no closed form"):
        paper_model("rt", "fd", 4, 0.5)


def test_placement_dict_roundtrip_and_pickle():
    p = place("fd.fv2", cd.from_spec("rtt:a=3:c=2"))
    q = TaskPlacement.from_dict(p.to_dict())
    assert np.array_equal(q.router, p.router) and q.task_shape == p.task_shape and q.mapping == "fd.fv2"
    r = pickle.loads(pickle.dumps(p))
    assert np.array_equal(r.terminal, p.terminal)
    assert pickle.loads(pickle.dumps(MappingError("x"))).args == ("x",)


# ----------------------------------------------------------------- demands mapping
def test_map_demands_moves_every_unit_to_the_routers():
    topo = cd.from_spec("rtt:a=3:c=2")
    p = place("ft2", topo)
    d = mixed_traffic(p.task_shape, 0.3)
    M = np.zeros((p.num_tasks, p.num_tasks))
    np.add.at(M, (d.src, d.dst), d.amount)
    R = p.router_matrix(M)
    kept = map_demands(d, p, keep_local=True)
    K = np.zeros((topo.n, topo.n))
    np.add.at(K, (kept.src, kept.dst), kept.amount)
    assert np.allclose(K, R)
    net = map_demands(d, p)
    assert bool(np.all(net.src != net.dst))
    assert net.total == pytest.approx(d.total - np.trace(R))
    # ft2 collocates no neighbours: the only intra-router traffic is the uniform part to itself and its partner
    assert np.trace(R) == pytest.approx(0.7 * p.num_tasks * 2 / p.num_tasks)
    # terminal-level matrix for the simulator: same traffic, terminals in router order
    Tm = p.terminal_matrix(M)
    assert Tm.sum() == pytest.approx(M.sum())
    ti = p.terminal_index
    assert Tm[ti[5], ti[7]] == M[5, 7]


def test_map_demands_rejects_unknown_tasks():
    p = place("id", cd.rt(2))
    with pytest.raises(MappingError, match="placement has 8 tasks"):
        map_demands(Demands([0], [8], [1.0]), p)


def test_local_and_global_traffic():
    d = local_traffic((4, 3))
    assert d.total == pytest.approx(12.0) and np.allclose(d.amount, 0.25)
    dm = local_traffic((4, 3), "mesh")
    # corner task (0, 0) has two neighbours
    assert np.allclose(dm.amount[dm.src == 0], 0.5)
    g = global_traffic(5, include_self=False)
    assert len(g) == 20 and g.total == pytest.approx(5.0)
    # a dimension of size 2: both directions reach the same neighbour
    d2 = local_traffic((4, 2))
    assert sorted(d2.amount[d2.src == 0].tolist()) == [0.25, 0.25, 0.5]


# --------------------------------------------------------------------- the model
@pytest.mark.parametrize("a", [3, 4, 5, 8])
@pytest.mark.parametrize("case", list(PAPER_CASES))
def test_exact_model_equals_the_closed_forms(case, a):
    """The model computed from the mapped traffic (routed on minimal records)
    reproduces every closed form of Sections 3.3-3.4 exactly once Table 1's
    per-dimension distances are replaced by their exact values."""
    family, name = case
    topo = topo_for(family, name, a)
    m = mapping_model(topo, name, ALPHAS)
    p = paper_model(family, name, a, ALPHAS, exact=True)
    assert np.allclose(m.latency, p.latency, rtol=1e-12)
    assert np.allclose(m.throughput, p.throughput, rtol=1e-12)
    # the paper's link sets are evenly loaded: the busiest channel of the routing saturates with its set
    assert np.allclose(m.routing_bound, m.throughput, rtol=1e-9)
    # and Table 1's approximation is close (k = 2a/3 vs (4a^2 - 1)/(6a) for RTT)
    q = paper_model(family, name, a, ALPHAS)
    assert np.allclose(m.latency, q.latency, rtol=0.05)
    assert np.allclose(m.throughput, q.throughput, rtol=0.07)


def test_bottleneck_sets_named_by_the_paper():
    assert mapping_model(cd.rtt(4), "id", [0.5, 1.0]).bottleneck == ["y-internal", "y-internal"]  # E_vi
    assert mapping_model(cd.rtt(4), "fd", [0.5, 1.0]).bottleneck == ["x", "x"]
    assert mapping_model(cd.rt(4), "id", [0.0, 0.5, 1.0]).bottleneck == ["x", "x", "x"]
    m = mapping_model(cd.rtt(4), "id", [1.0])
    # |Ehi| = 2a^2 - a, |Ehp| = a, |Evi| = 2a^2 - 2a, |Evp| = 2a
    assert m.set_links == {"x": 32, "x-internal": 28, "x-peripheral": 4, "y": 32, "y-internal": 24,
                           "y-peripheral": 8}
    # local vertical traffic never uses the twisted wraparound under id (Section 3.3.2)
    assert m.local_hops["y-peripheral"] == 0.0
    assert m.local_hops["y-internal"] == pytest.approx(1 - 1 / 4)  # tau^l_vi = (1 - 1/a) alpha


def test_paper_numbers_a4():
    """Numbers the paper states for RT(4)/RTT(4) (Sections 3.3-3.4, Figs. 5-6)."""
    a = 4
    rt_id = paper_model("rt", "id", a, [0.0, 1.0])
    assert rt_id.throughput == [4 / a, 4.0]          # 4/a uniform, 4 phits/(node cycle) local
    assert rt_id.latency == [3 * a / 4, 1.0]
    rtt_id = paper_model("rtt", "id", a, [0.0, 1.0])
    assert rtt_id.throughput == pytest.approx([6 / a, 2.0])
    assert rtt_id.throughput[0] / rt_id.throughput[0] == pytest.approx(1.5)  # "up to 50% throughput improvements"
    assert rtt_id.latency[0] == pytest.approx(2 * a / 3)
    # fd obtains the same throughput as id on the RTT, with worse latency
    fd = paper_model("rtt", "fd", a, ALPHAS)
    idm = paper_model("rtt", "id", a, ALPHAS)
    assert np.allclose(fd.throughput, idm.throughput)
    assert all(f >= i for f, i in zip(fd.latency, idm.latency))
    # RT and RTT throughput curves intersect at alpha = a / (a + 3)
    x = a / (a + 3)
    assert paper_model("rt", "id", a, x).throughput[0] == pytest.approx(paper_model("rtt", "id", a, x).throughput[0])
    lo, hi = paper_model("rtt", "id", a, [x - 0.05, x + 0.05]), paper_model("rt", "id", a, [x - 0.05, x + 0.05])
    assert lo.throughput[0] > hi.throughput[0] and lo.throughput[1] < hi.throughput[1]
    # c = 2: both RTT concentrations beat the RT for any locality; fv2 has the lower latency
    rt_v = paper_model("rt", "fv2", a, ALPHAS)
    for name in ("fv2", "ft2"):
        r = paper_model("rtt", name, a, ALPHAS)
        assert all(t >= u - 1e-12 for t, u in zip(r.throughput, rt_v.throughput))
    assert all(v <= t for v, t in zip(paper_model("rtt", "fv2", a, ALPHAS).latency,
                                      paper_model("rtt", "ft2", a, ALPHAS).latency))
    assert paper_model("rtt", "fd.fv2", a, 1.0).throughput == [pytest.approx(8 / 3)]  # 4 / (3/2)
    assert paper_model("rt", "fv2", a, 1.0).latency == [0.75]                          # d = 3/4


def test_latency_against_bfs_over_the_mapped_demands():
    """tau = sum of demand x BFS distance of the router-level traffic, 1 unit per router."""
    for family, name in PAPER_CASES:
        topo = topo_for(family, name, 3)
        D = bfs_dist(topo)
        p = place(name, topo)
        for alpha in (0.0, 0.4, 1.0):
            d = mixed_traffic(p.task_shape, alpha)
            tau = float((d.amount * D[p.router[d.src], p.router[d.dst]]).sum()) / p.num_tasks
            assert mapping_model(topo, name, [alpha]).latency[0] == pytest.approx(tau, rel=1e-12)
    # uniform traffic alone gives the topology's average distance (self pairs included)
    for t in (cd.rt(4), cd.rtt(4), cd.rtt(5)):
        assert mapping_model(t, "id", [0.0]).latency[0] == pytest.approx(cd.distance_stats(t).average_distance_with_self)
        assert mapping_model(t, "id", [0.0], include_self=False).latency[0] == pytest.approx(
            cd.distance_stats(t).average_distance)
    assert mapping_model(cd.rtt(4), "id", [0.0]).latency[0] == pytest.approx((4 * 16 - 1) / 24)


def test_throughput_against_the_exact_lp():
    """With optimal (possibly non-minimal) routing the LP can only do better
    than the minimal-routing model and never beyond the capacity bound
    2|E| / (N tau); it matches the model exactly where the traffic is
    translation-invariant (RT, RTT f^t_2) or uniform."""
    a = 3
    for family, name in PAPER_CASES:
        topo = topo_for(family, name, a)
        for alpha in (0.0, 0.5, 1.0):
            m = mapping_model(topo, name, [alpha])
            lam = flows.solve_lp(flows.FlowProblem.from_topology(topo, model_demands(topo, name, alpha))).lam
            cap = 2 * topo.num_links / (topo.n * m.latency[0])
            assert m.throughput[0] <= lam * (1 + 1e-6)
            assert lam <= cap * (1 + 1e-6)
            if family == "rt" or name == "ft2" or alpha == 0.0:
                assert lam == pytest.approx(m.throughput[0], rel=1e-6)
    # where non-minimal routes help: id on RTT(3) at alpha = 1 (model 2, LP 2.5)
    lam = flows.solve_lp(flows.FlowProblem.from_topology(cd.rtt(3), model_demands(cd.rtt(3), "id", 1.0))).lam
    assert lam == pytest.approx(2.5, rel=1e-6)


@pytest.mark.parametrize("family,name", [("rtt", "id"), ("rtt", "fv2"), ("rt", "fv2")])
def test_model_latency_against_simulated_hops(family, name):
    """The mapped traffic fed to the packet simulator (terminal-level matrix)
    travels the hops the model predicts (sampling noise of ~2000-4000 packets)."""
    import sim

    topo = topo_for(family, name, 4)
    p = place(name, topo)
    d = mixed_traffic(p.task_shape, 0.5, include_self=False)
    M = np.zeros((p.num_tasks, p.num_tasks))
    np.add.at(M, (d.src, d.dst), d.amount)
    r = sim.simulate(topo, "tpds2010", sim.demand(p.terminal_matrix(M)), load=0.2, seed=1)
    model = mapping_model(topo, name, [0.5], include_self=False).latency[0]
    assert not r.deadlock
    assert r.hops == pytest.approx(model, rel=0.04)


def test_model_of_any_placement_and_to_dict():
    topo = cd.rtt(3)
    r = anneal(local_traffic((6, 3)), topo, seed=0, steps=20000)
    m = mapping_model(topo, r.placement, [1.0], logical=cd.torus((6, 3)))
    assert m.latency[0] == pytest.approx(r.cost / 18)
    d = m.to_dict()
    assert d["mapping"].startswith("anneal(seed=0") and d["alpha"] == [1.0]
    assert link_sets(cd.mesh((4, 3))).keys() == {"x", "y"}
    mm = mapping_model(cd.mesh((4, 3)), "id", [1.0], logical="mesh")
    assert mm.latency == [1.0] and mm.max_dilation == 1


# ---------------------------------------------------------------------- annealing
def _brute(M, topo):
    D = bfs_dist(topo)
    slots = np.repeat(np.arange(topo.n), topo.terminals)
    T = M.shape[0]
    s, t = np.nonzero(M)
    best = np.inf
    perms = np.array(list(itertools.permutations(range(len(slots)), T)))
    r = slots[perms]
    cost = (M[s, t][None, :] * D[r[:, s], r[:, t]]).sum(axis=1)
    best = float(cost.min())
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_anneal_finds_the_brute_force_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    # 7 tasks on the 8 routers of a 2 x 4 mesh (one free router)
    M = rng.integers(0, 4, size=(7, 7)).astype(float)
    np.fill_diagonal(M, 0)
    topo = cd.mesh((2, 4))
    r = anneal(M, topo, seed=seed, steps=30000)
    assert r.cost == pytest.approx(_brute(M, topo))
    assert r.cost == pytest.approx(placement_cost(M, r.placement, topo))
    # 8 tasks, concentration 2 on a 4-ring
    M = rng.random((8, 8))
    np.fill_diagonal(M, 0)
    topo = cd.ring(4).with_concentration(2)
    r = anneal(M, topo, seed=seed, steps=30000)
    assert r.cost == pytest.approx(_brute(M, topo))
    assert np.all(np.bincount(r.placement.router, minlength=4) <= 2)


def test_anneal_recovers_a_scrambled_torus():
    """A 4 x 4 torus application with scrambled task numbers on a 4 x 4 torus:
    the optimum puts every neighbour one hop away (cost = 16 units x 1 hop)."""
    d = local_traffic((4, 4))
    perm = np.random.default_rng(7).permutation(16)
    scrambled = Demands(perm[d.src], perm[d.dst], d.amount)
    r = anneal(scrambled, cd.torus((4, 4)), seed=0)
    assert r.start_cost > 16
    assert r.cost == pytest.approx(16.0)


@pytest.mark.parametrize("seed", range(4))
def test_anneal_never_worse_than_its_start(seed):
    rng = np.random.default_rng(seed)
    topo = cd.from_spec("rtt:a=3:c=2")
    d = Demands.random(36, 120, seed=seed)
    r = anneal(d, topo, seed=seed, steps=5000)
    assert r.cost <= r.start_cost
    assert r.start_cost == pytest.approx(placement_cost(d, placement_from_routers(np.arange(36) // 2, topo), topo))
    # from a good mapping of torus traffic: never worse than the mapping itself
    loc = local_traffic((6, 6))
    r2 = anneal(loc, topo, seed=seed, start="ft2", steps=3000, t_start=float(rng.uniform(0.5, 5)))
    assert r2.start_cost == pytest.approx(36.0)  # ft2 on RTT: every neighbour one hop away
    assert r2.cost <= r2.start_cost


def test_anneal_same_seed_same_result():
    d = Demands.random(32, 200, seed=3)
    topo = cd.rtt(4)
    a = anneal(d, topo, seed=11, steps=20000)
    b = anneal(d, topo, seed=11, steps=20000)
    assert np.array_equal(a.placement.router, b.placement.router)
    assert a.cost == b.cost and a.accepted == b.accepted and a.t_start == b.t_start
    assert a.to_dict() == b.to_dict()


def test_anneal_with_latency_matrix_and_errors():
    topo = cd.ring(5)
    M = np.zeros((5, 5))
    M[0, 1] = 1.0
    lat = np.array([[abs(i - j) * 2.0 for j in range(5)] for i in range(5)])
    r = anneal(M, topo, seed=0, distance=lat, steps=2000)
    assert r.cost == pytest.approx(2.0)
    with pytest.raises(MappingError, match="do not fit"):
        anneal(np.ones((6, 6)), cd.ring(5), seed=0)
    with pytest.raises(MappingError, match="symmetric"):
        anneal(M, topo, seed=0, distance=np.triu(lat))
    with pytest.raises(MappingError, match="square"):
        anneal(np.ones((2, 3)), topo, seed=0)
    disconnected = cd.Topology(4, np.array([[0, 1], [2, 3]]))
    with pytest.raises(MappingError, match="disconnected"):
        anneal(np.ones((4, 4)), disconnected, seed=0)
