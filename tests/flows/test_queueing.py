"""The queueing load model: closed forms (one channel, Kleinrock's square-root
assignment), an independent convex solve (scipy), the two methods against each
other, the curve, the registry and the refusals."""

import dataclasses
import math

import networkx as nx
import numpy as np
import pytest
import scipy.optimize as so
import scipy.sparse as sp

import candidates as cd
import flows
from flows import Demands, FlowError, FlowProblem, QueueingModel
from flows.curve import latency_curve
from flows.deviation import deviation, min_latency_queueing
from flows.queueing import fixed_widths


def _problem(n, arcs, demands, R, cap, lat):
    src, dst = zip(*arcs)
    s, t, a = zip(*demands)
    return FlowProblem(n, np.array(src), np.array(dst), Demands(np.array(s), np.array(t), np.array(a, dtype=float)),
                       sp.csr_matrix(R), np.asarray(cap, dtype=float), np.asarray(lat, dtype=float))


def _within(r, value, eps):
    """The answer brackets the optimum ``value`` (computed independently) within eps."""
    assert r.latency_bound <= value * (1 + 1e-6)
    assert value <= r.average_latency * (1 + 1e-6)
    assert r.average_latency <= r.latency_bound * (1 + eps) + 1e-12


@pytest.mark.parametrize("variability", [0.0, 1.0, 2.5])
def test_one_channel_is_the_pollaczek_khinchine_wait(variability):
    # one channel of width 2, latency 3, demand 1.5: rho = 3/4, wait = S (1 + cv2) / 2 * rho / (1 - rho)
    p = _problem(2, [(0, 1), (1, 0)], [(0, 1, 1.5)], np.eye(2), [2.0, 2.0], [3.0, 3.0])
    m = QueueingModel(service=0.8, variability=variability)
    r = min_latency_queueing(p, m, eps=1e-9)
    expected = 3.0 + 0.8 * (1 + variability) / 2 * 0.75 / 0.25
    assert r.average_latency == pytest.approx(expected, rel=1e-9)
    assert r.extra["zero_load_part"] == pytest.approx(3.0) and r.extra["max_channel_load"] == pytest.approx(0.75)
    assert m.wait(0.75) == pytest.approx(expected - 3.0) and m.wait(1.0) == math.inf


def test_two_routes_split_where_marginal_delays_meet():
    # 0 -> 2 directly (latency 1) or through 1 (latency 1 + 1); unit widths; demand 1.2 must split
    arcs = [(0, 2), (2, 0), (0, 1), (1, 0), (1, 2), (2, 1)]
    p = _problem(3, arcs, [(0, 2, 1.2)], np.eye(6), np.ones(6), np.ones(6))
    tau = 1.0

    def marginal(x):       # d/dx of x + tau x^2 / (1 - x)
        return 1.0 + tau * (1.0 / (1.0 - x) ** 2 - 1.0)

    y = so.brentq(lambda y: marginal(1.2 - y) - 2 * marginal(y), 1e-12, 0.999)
    x = 1.2 - y
    opt = (x + tau * x * x / (1 - x) + 2 * (y + tau * y * y / (1 - y))) / 1.2
    for method in ("projection", "frank-wolfe"):
        r = deviation(p, QueueingModel(tau), eps=1e-6, method=method)[0]
        _within(r, opt, 1e-6)
        assert r.arc_flow[0] == pytest.approx(x, rel=1e-3) and r.arc_flow[2] == pytest.approx(y, rel=1e-2)


@pytest.mark.parametrize("coef", [(1.0, 1.0, 1.0, 1.0), (1.0, 2.0, 0.5, 3.0)])
def test_a_shared_resource_is_kleinrocks_square_root_assignment(coef):
    # a path 0 - 1 - 2 routes every demand one way; one resource of capacity C shared by the four
    # channels with coefficients R_a: the best widths give Q = tau (sum_a f_a sqrt(R_a))^2 / (C - sum_a R_a f_a)
    arcs = [(0, 1), (1, 0), (1, 2), (2, 1)]
    demands = [(0, 2, 0.5), (2, 0, 0.25), (0, 1, 0.3), (1, 2, 0.2)]
    C, tau, lat = 6.0, 2.0, np.array([1.0, 1.5, 2.0, 0.5])
    p = _problem(3, arcs, demands, np.array([coef]), [C], lat)
    assert fixed_widths(p) is None
    f = np.array([0.8, 0.25, 0.7, 0.25])
    R = np.array(coef)
    q = tau * float(f @ np.sqrt(R)) ** 2 / (C - float(R @ f))
    expected = (float(lat @ f) + q) / 1.25
    r = min_latency_queueing(p, QueueingModel(tau), eps=1e-7)
    _within(r, expected, 1e-6)
    assert r.arc_flow == pytest.approx(f)


def _scipy_optimum(p, tau):
    """The minimum total latency over path flows (every simple path of at most
    5 hops) and spare widths u within the resources, R (f + u) <= c: SLSQP
    (fixed widths are the case of one channel per resource)."""
    g = nx.DiGraph()
    for a, (u, v) in enumerate(zip(p.arc_src, p.arc_dst)):
        g.add_edge(int(u), int(v), arc=a)
    dem = p.demands
    cols, owner = [], []
    for k in range(len(dem)):
        for path in nx.all_simple_paths(g, int(dem.src[k]), int(dem.dst[k]), cutoff=5):
            cols.append([g[u][v]["arc"] for u, v in zip(path, path[1:])])
            owner.append(k)
    P = np.zeros((p.num_arcs, len(cols)))
    for j, c in enumerate(cols):
        P[c, j] = 1.0
    E = np.zeros((len(dem), len(cols)))
    E[owner, np.arange(len(cols))] = 1.0
    R = p.R.toarray()
    A = p.num_arcs
    lat = p.latency
    x0 = np.zeros(len(cols))
    for k in range(len(dem)):
        x0[owner.index(k)] = dem.amount[k]
    def obj(z):
        x, u = z[:len(cols)], z[len(cols):]
        f = P @ x
        return float(lat @ f + np.sum(tau * f * f / np.maximum(u, 1e-12)))

    cons = [{"type": "eq", "fun": lambda z: E @ z[:len(cols)] - dem.amount},
            {"type": "ineq", "fun": lambda z: p.capacity - R @ (P @ z[:len(cols)] + z[len(cols):])}]
    z0 = np.concatenate([x0, np.full(A, 1e-3)])
    res = so.minimize(obj, z0, method="SLSQP", bounds=[(0, None)] * len(cols) + [(1e-9, None)] * A,
                      constraints=cons, options={"maxiter": 3000, "ftol": 1e-13})
    # SLSQP may stop on its line search ("positive directional derivative") at the optimum's
    # precision: take its point if it routes the demands within the resources
    z = res.x
    assert np.allclose(E @ z[:len(cols)], dem.amount, atol=1e-8)
    assert np.all(R @ (P @ z[:len(cols)] + z[len(cols):]) <= p.capacity + 1e-8)
    return res.fun


def test_fixed_widths_agree_with_an_independent_convex_solve():
    t = cd.ring(6)
    dem = Demands.random(6, 8, seed=3)
    p0 = FlowProblem.from_topology(t, dem)
    cap = flows.max_concurrent_flow(p0, eps=0.01)
    p = p0.scaled(0.8 * cap.lam)
    ref = _scipy_optimum(p, 1.5) / p.demands.total
    for method in ("projection", "conic"):
        r = deviation(p, QueueingModel(1.5), eps=1e-6, method=method)[0]
        assert r.latency_bound <= ref * (1 + 1e-9) and r.average_latency == pytest.approx(ref, rel=1e-6)
    # Frank-Wolfe's tail is slow (sublinear): a looser eps, the same bracket
    r = deviation(p, QueueingModel(1.5), eps=3e-3, method="frank-wolfe")[0]
    assert r.certified
    _within(r, ref, 3e-3)


def test_shared_widths_agree_with_an_independent_convex_solve():
    # a 4-cycle whose channels draw on two shared resources (one per pair of opposite sides)
    arcs = [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2), (3, 0), (0, 3)]
    R = np.array([[1, 1, 0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0, 1, 1.5]])
    demands = [(0, 2, 0.6), (1, 3, 0.4), (3, 1, 0.3), (0, 1, 0.5)]
    p = _problem(4, arcs, demands, R, [3.0, 2.5], np.array([1.0, 1, 2, 2, 1, 1, 2, 2]))
    ref = _scipy_optimum(p, 0.7) / p.demands.total
    for method in ("conic", "frank-wolfe", "auto"):
        r = min_latency_queueing(p, QueueingModel(0.7), eps=1e-3 if method == "frank-wolfe" else 1e-6,
                                 method=method)
        assert r.certified and r.extra["method"].startswith(f"deviation ({method if method != 'auto' else ''}")
        _within(r, ref, 1e-3 if method == "frank-wolfe" else 1e-6)
    with pytest.raises(FlowError, match="the projection method needs fixed channel widths"):
        min_latency_queueing(p, method="projection")


def test_projection_and_frank_wolfe_bracket_the_same_optimum_on_a_torus():
    p0 = FlowProblem.from_topology(cd.torus((6, 6)), Demands.random(36, 120, seed=5))
    cap = flows.max_concurrent_flow(p0)
    p = p0.scaled(0.9 * cap.lam)
    a = deviation(p, QueueingModel(), eps=0.005, method="projection")[0]
    b = deviation(p, QueueingModel(), eps=0.005, method="frank-wolfe", max_iterations=20000)[0]
    assert a.certified and b.certified
    assert max(a.latency_bound, b.latency_bound) <= min(a.average_latency, b.average_latency) * (1 + 1e-9)
    assert a.extra["method"] == "deviation (projection)"


def test_light_load_is_the_zero_load_latency():
    # at a tiny load the waits vanish: the average distance of the 4x4 torus, 32/15 hops
    p = FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16).scaled(1e-6))
    r = min_latency_queueing(p, eps=1e-6)
    assert r.average_latency == pytest.approx(32 / 15, rel=1e-5)
    assert r.extra["queueing_part"] == pytest.approx(0.0, abs=1e-4)


def test_uniform_traffic_on_a_torus_loads_every_channel_alike():
    # 8x8 torus, uniform traffic: a channel carries 64/63 of a router's injection (the average distance
    # 4 * 64/63 over 4 channels a router); at 60% every channel is at 0.6 and waits 1.5 per hop
    p = FlowProblem.from_topology(cd.torus((8, 8)), Demands.uniform(64).scaled(0.6 * 63 / 64))
    r = min_latency_queueing(p, method="frank-wolfe", eps=1e-6)
    hops = 4 * 64 / 63       # the average distance of the 8x8 torus
    assert r.average_latency == pytest.approx(hops * (1 + 0.6 / 0.4), rel=1e-6)


def test_above_capacity_is_infeasible_and_at_it_undecided():
    p0 = FlowProblem.from_topology(cd.ring(5), Demands.uniform(5))
    lam = flows.solve_lp(p0).lam
    r = min_latency_queueing(p0.scaled(1.5 * lam))
    assert r.status == "infeasible" and r.average_latency is None and "capacity" in r.extra["message"]
    r = min_latency_queueing(p0.scaled(lam))
    assert r.status in ("undecided", "infeasible") and r.average_latency is None


def test_the_curve_rises_and_bends():
    p = FlowProblem.from_topology(cd.torus((6, 6)), Demands.random(36, 120, seed=2))
    c = latency_curve(p, points=6, up_to=0.9, eps=0.01)
    lat = [q.average_latency for q in c.points]
    assert c.certified and all(b > a for a, b in zip(lat, lat[1:]))
    # convex in the load: each rise larger than the last
    rises = np.diff(lat)
    assert all(b > a for a, b in zip(rises, rises[1:]))
    assert [q.load for q in c.points] == pytest.approx([0.15, 0.3, 0.45, 0.6, 0.75, 0.9])
    d = c.to_dict()
    assert d["load_model"] == "queueing" and len(d["points"]) == 6 and d["queueing"]["tau"] == 1.0
    flat = latency_curve(p, load_model="linear", points=3, up_to=0.6, eps=0.01)
    assert max(q.average_latency for q in flat.points) <= min(q.average_latency for q in flat.points) * 1.02


def test_registry_and_refusals():
    p = FlowProblem.from_topology(cd.torus((4, 4)), Demands.uniform(16).scaled(0.5))
    entry = flows.SOLVER_REGISTRY["deviation"]
    assert entry.objectives == ("latency",) and entry.load_models == ("queueing",)
    assert flows.choose_solver(p, 0.05, "latency", load_model="queueing") == "deviation"
    r = flows.solve(p, objective="latency", queueing=QueueingModel())
    assert r.extra["method"].startswith("deviation") and r.extra["solver_requested"] == "auto"
    with pytest.raises(FlowError, match="takes the linear load model, not queueing"):
        flows.solve(p, solver="ptas", objective="latency", queueing=QueueingModel())
    with pytest.raises(FlowError, match="takes the queueing load model, not linear"):
        flows.solve(p, solver="deviation", objective="latency")
    with pytest.raises(FlowError, match="for the latency objective"):
        flows.solve(p, queueing=QueueingModel())
    with pytest.raises(FlowError, match="service time must be a finite positive"):
        QueueingModel(service=0.0)
    with pytest.raises(FlowError, match="variability"):
        QueueingModel(variability=-1.0)
    with pytest.raises(FlowError, match="unknown flow deviation method"):
        deviation(p, method="newton")


def test_a_warm_start_gives_the_same_answer():
    p0 = FlowProblem.from_topology(cd.torus((6, 6)), Demands.random(36, 120, seed=4))
    cap = flows.max_concurrent_flow(p0)
    light = p0.scaled(0.5 * cap.lam)
    heavy = p0.scaled(0.8 * cap.lam)
    _, state = deviation(light, eps=1e-3)
    cap_h = dataclasses.replace(cap, lam=cap.lam / (0.8 * cap.lam), upper_bound=cap.upper_bound / (0.8 * cap.lam))
    warm = deviation(heavy, eps=1e-3, start=state, capacity=cap_h)[0]
    cold = deviation(heavy, eps=1e-3, capacity=cap_h)[0]
    assert max(warm.latency_bound, cold.latency_bound) <= min(warm.average_latency, cold.average_latency) * (1 + 1e-9)


def test_the_pes_own_channels_add_their_wait_whatever_the_routing():
    # 8x8 torus, uniform at 60% (every channel at 0.6): each PE sends and receives 0.6 * 63/64 units on its own
    # channels of capacity 1, whose wait is the same closed form, once on the way in and once on the way out
    s = 0.6 * 63 / 64
    p = FlowProblem.from_topology(cd.torus((8, 8)), Demands.uniform(64).scaled(s))
    plain = min_latency_queueing(p, method="frank-wolfe", eps=1e-6)
    both = min_latency_queueing(p, QueueingModel(terminals=True), method="frank-wolfe", eps=1e-6)
    assert both.extra["terminal_part"] == pytest.approx(2 * s / (1 - s))
    assert both.average_latency == pytest.approx(plain.average_latency + 2 * s / (1 - s), rel=1e-9)
    assert both.latency_bound <= both.average_latency and both.extra["latency_gap"] <= 1e-6
    # concentration: 2 PEs per router share the router's load; a PE at load 1 or more is infeasible
    t = cd.from_spec("torus:4x4:c=2")
    q = FlowProblem.from_topology(t, Demands.uniform(16, np.full(16, 2.0)).scaled(0.25))
    from flows.queueing import terminal_wait
    assert terminal_wait(q, QueueingModel(terminals=True)) == pytest.approx(2 * 32 * 0.25 * (0.25 / 0.75))
    # K4 under uniform traffic carries 3 units per PE; at 1.5 the network is fine but a PE's own channel is not
    k4 = FlowProblem.from_topology(cd.from_spec("complete:4"), Demands.uniform(4).scaled(1.5))
    assert min_latency_queueing(k4).average_latency is not None
    r = min_latency_queueing(k4, QueueingModel(terminals=True))
    assert r.status == "infeasible" and r.average_latency is None and "its own channel" in r.extra["message"]
    with pytest.raises(FlowError, match="plain topology"):
        from flows.physical import physical_problem
        pp = physical_problem(cd.bgl_midplane("ring:8", "ring:4", "ring:4", "ring:4"), Demands.random(512, 64, seed=1))
        terminal_wait(pp, QueueingModel(terminals=True))


def test_shared_widths_from_prices_that_leave_a_loaded_channel_unpriced():
    # a warm start's prices (a lighter load's) are 0 on a resource that load did not cross; a channel on it
    # that now carries flow must still get a finite width: the same allocation as from no prices at all
    from flows.deviation import _Shared

    R = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    shared = _Shared(R, np.array([4.0, 2.0]), 1.0, 1e-9)
    f = np.array([1.0, 0.5, 0.8])
    # Kleinrock's square-root assignment on each resource: (1 + sqrt(0.25))^2 / 2.5 + 0.8^2 / 1.2
    q = 1.5 ** 2 / 2.5 + 0.64 / 1.2
    cold = shared.evaluate(f, None)
    warm = shared.evaluate(f, np.array([0.3, 0.0]))
    assert cold[0] == pytest.approx(q, rel=1e-6) and warm[0] == pytest.approx(q, rel=1e-6)
    assert np.all(np.isfinite(shared.widths(f, np.array([0.3, 0.0]))))


def test_spare_widths_fit_each_resource_by_its_own_ratio():
    # two overlapping resources: the first is over-full twice, the second holds; the channel on the
    # second alone keeps its width, the two on the first halve (one global ratio would halve all three)
    from flows._spare import fit_spare

    R = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]))
    s = np.array([1.0, 2.0])
    fit = fit_spare(R, R.tocsc(), np.ones(3), s)
    assert fit == pytest.approx([0.5, 0.5, 1.0])
    assert np.all(R @ fit <= s + 1e-12)
    # a channel no resource holds keeps its width
    R2 = sp.csr_matrix(np.array([[1.0, 0.0]]))
    assert fit_spare(R2, R2.tocsc(), np.array([3.0, 7.0]), np.array([1.0])) == pytest.approx([1.0, 7.0])


def test_auto_hands_over_to_the_conic_master_when_allocations_do_not_settle(monkeypatch):
    # no Newton step in an inner allocation: none settles, so Frank-Wolfe has no reliable step and auto
    # must hand the problem to the conic master from the start, with the same certified answer
    import flows.deviation as dev

    arcs = [(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2), (3, 0), (0, 3)]
    R = np.array([[1, 1, 0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0, 1, 1.5]])
    demands = [(0, 2, 0.6), (1, 3, 0.4), (3, 1, 0.3), (0, 1, 0.5)]
    p = _problem(4, arcs, demands, R, [3.0, 2.5], np.array([1.0, 1, 2, 2, 1, 1, 2, 2]))
    ref = _scipy_optimum(p, 0.7) / p.demands.total
    monkeypatch.setattr(dev, "_INNER_MAX_ROUNDS", 0)
    r = min_latency_queueing(p, QueueingModel(0.7), eps=1e-6)
    assert r.extra["method"] == "deviation (conic)"
    _within(r, ref, 1e-6)


def test_no_design_below_the_widths_is_undecided_not_an_infinite_latency():
    """Inside the capacity's certified bracket the conic master may find no design that routes the whole demand
    below every width (a BG/L composition under NAS traffic at 1.0007x its feasible lambda: DualInfeasible after
    10 masters). The solve then states no latency -- status undecided, the bracket in its message -- where it
    returned an infinite latency marked ok, which a study's record log refused as damaged."""
    import time

    from flows import deviation as dv

    t = cd.torus([4, 4])
    p = FlowProblem.from_topology(t, Demands.uniform(t.n))
    cap = flows.max_concurrent_flow(p, eps=0.05)
    res, state = dv._finish(p, None, cap, cap.arc_flow, math.inf, 1.0, 10,
                            "gap inf: the conic master stopped (DualInfeasible) after 10 masters", None, None,
                            "conic", {}, time.perf_counter())
    assert state is None and res.status == "undecided" and res.average_latency is None
    assert "DualInfeasible" in res.extra["message"] and f"{cap.lam:.6g}" in res.extra["message"]
