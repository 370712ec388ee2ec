"""The exact LP against closed forms and networkx max-flow."""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from flows import Demands, FlowError, FlowProblem, build_lp_arrays, lp_columns, solve_lp


@pytest.mark.parametrize("spec", ["rt:a=2", "rt:a=4", "rtt:a=3", "rtt:a=4", "pt:a=2", "ptt:a=2", "pdtt:a=2", "pdtt:a=3"])
def test_uniform_lambda_equals_the_analytic_injection_bound(spec):
    """With unit links and 'every router sends one unit over the N-1
    others', lambda* is the injection bound 2|E_j|/(N tau_j) exactly."""
    t = cd.from_spec(spec)
    r = solve_lp(FlowProblem.from_topology(t, Demands.uniform(t.n)))
    assert r.lam == pytest.approx(cd.uniform_load(t).injection_bound, rel=1e-7)


def test_rt_closed_form():
    for a in (2, 4):
        t = cd.rt(a)
        r = solve_lp(FlowProblem.from_topology(t, Demands.uniform(t.n)))
        assert r.lam == pytest.approx(2 * (2 * a * a - 1) / a**3, rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 12), st.integers(0, 10**6))
def test_single_commodity_equals_max_flow(n, seed):
    G = nx.connected_watts_strogatz_graph(n, 4, 0.5, seed=seed)
    rng = np.random.default_rng(seed)
    t = cd.Topology.from_networkx(G)
    cap = rng.integers(1, 5, size=t.num_arcs).astype(float)
    s, d = 0, n - 1
    p = FlowProblem.from_topology(t, Demands([s], [d], [2.0]), capacity=cap)
    D = nx.DiGraph()
    for a in range(t.num_arcs):
        u, v = int(t.arc_src[a]), int(t.arc_dst[a])
        D.add_edge(u, v, capacity=D[u][v]["capacity"] + cap[a] if D.has_edge(u, v) else cap[a])
    mf = nx.maximum_flow_value(D, s, d)
    assert solve_lp(p).lam == pytest.approx(mf / 2.0, rel=1e-7)


def test_cut_resource_limits_lambda():
    """A resource over every channel crossing a cut caps lambda at its
    capacity over the demand across the cut."""
    t = cd.torus((4, 4))
    left = t.coords[:, 0] < 2
    cross = np.flatnonzero(left[t.arc_src] & ~left[t.arc_dst])
    A = t.num_arcs
    cut_row = sp.csr_matrix((np.ones(len(cross)), (np.zeros(len(cross), int), cross)), shape=(1, A))
    R = sp.vstack([sp.identity(A, format="csr"), cut_row]).tocsr()
    cap = np.concatenate([np.full(A, 100.0), [3.0]])
    dem = Demands.uniform(16)
    p = FlowProblem.from_topology(t, dem, R=R, capacity=cap)
    across = dem.amount[left[dem.src] & ~left[dem.dst]].sum()
    assert solve_lp(p).lam == pytest.approx(3.0 / across, rel=1e-9)


def test_min_latency_uses_shortest_paths_when_uncongested():
    t = cd.torus((4, 4))
    p = FlowProblem.from_topology(t, Demands.uniform(16).scaled(0.1))
    r = solve_lp(p, "latency")
    # hop latency 1: the average latency is the average distance
    assert r.average_latency == pytest.approx(cd.distance_stats(t).average_distance, rel=1e-9)


def test_min_latency_infeasible_reports_capacity():
    t = cd.ring(6)
    p = FlowProblem.from_topology(t, Demands.uniform(6).scaled(10.0))
    r = solve_lp(p, "latency")
    assert r.status == "infeasible"
    assert r.lam == pytest.approx(cd.uniform_load(t).injection_bound / 10.0, rel=1e-7)
    assert "capacity lambda" in r.extra["message"]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda t: FlowProblem.from_topology(t, Demands([0], [5], [1.0])), "cannot be routed"),
        (lambda t: FlowProblem.from_topology(t, Demands([0], [1], [1.0]), capacity=0.0), "capacities must be positive"),
        (lambda t: FlowProblem.from_topology(t, Demands([0], [1], [1.0]), capacity=-1.0), "capacities must be positive"),
        (lambda t: FlowProblem.from_topology(t, Demands([0], [1], [np.nan])), "NaN"),
        (lambda t: FlowProblem.from_topology(t, Demands([], [], [])), "no demands"),
        (lambda t: FlowProblem.from_topology(t, Demands([0], [1], [-1.0])), "negative"),
        (lambda t: FlowProblem.from_topology(t, Demands([0], [9], [1.0])), "router indices"),
    ],
)
def test_errors(make, message):
    t = cd.Topology(6, np.array([[0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3]]))
    with pytest.raises(FlowError, match=message):
        make(t)


def test_demand_csv_round_trip_and_errors(tmp_path):
    d = Demands([0, 1], [2, 0], [1.5, 0.25])
    p = tmp_path / "d.csv"
    d.write_csv(p)
    e = Demands.read_csv(p)
    assert e.src.tolist() == [0, 1] and e.amount.tolist() == [1.5, 0.25]
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(FlowError, match="header src,dst,amount"):
        Demands.read_csv(bad)
    bad.write_text("src,dst,amount\n1,x,3\n")
    with pytest.raises(FlowError, match="router indices"):
        Demands.read_csv(bad)


def test_random_local_shares_are_exact():
    """40% inside a compute card, 50% across cards within a node card, 10%
    across node cards, as in the paper's experiments."""
    unit = np.array([[v // 2, v // 32] for v in range(512)])
    d = Demands.random_local(unit, 2048, [0.4, 0.5, 0.1], seed=3)
    same_card = unit[d.src, 0] == unit[d.dst, 0]
    same_node = unit[d.src, 1] == unit[d.dst, 1]
    assert int(same_card.sum()) == round(0.4 * 2048)
    assert int((~same_card & same_node).sum()) == round(0.5 * 2048)
    assert int((~same_node).sum()) == 2048 - round(0.4 * 2048) - round(0.5 * 2048)
    assert np.all(d.src != d.dst)
    again = Demands.random_local(unit, 2048, [0.4, 0.5, 0.1], seed=3)
    assert np.array_equal(again.dst, d.dst)  # same seed, same demands
    with pytest.raises(FlowError, match="adding up to 1"):
        Demands.random_local(unit, 10, [0.5, 0.6, 0.1], seed=0)


def test_random_demands_seeded():
    a = Demands.random(64, 256, seed=5)
    b = Demands.random(64, 256, seed=5)
    assert np.array_equal(a.src, b.src) and np.array_equal(a.dst, b.dst)
    assert np.all(a.src != a.dst)


@pytest.mark.parametrize("objective", ["concurrent", "latency"])
def test_exported_model_solves_to_the_same_optimum(tmp_path, objective):
    """The .mps PuLP writes, read back and solved by HiGHS, and PuLP's own
    CBC solve, give the optimum of solve_lp."""
    import highspy
    import pulp

    from flows import to_pulp, write_model

    t = cd.rtt(3)
    p = FlowProblem.from_topology(t, Demands.random(t.n, 30, seed=2), latency=np.linspace(1, 2, t.num_arcs))
    if objective == "latency":
        p = p.scaled(0.5 * solve_lp(p).lam)
    ref = solve_lp(p, objective)
    value = ref.lam if objective == "concurrent" else ref.average_latency * p.demands.total
    path = tmp_path / "m.mps"
    write_model(p, path, objective)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    h.run()
    obj = h.getInfo().objective_function_value
    assert obj == pytest.approx(value, rel=1e-6)
    m = to_pulp(p, objective)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PuLP 3.3 deprecates the bundled-CBC name
        m.solve(pulp.PULP_CBC_CMD(msg=False))
    assert pulp.value(m.objective) == pytest.approx(value, rel=1e-6)
    write_model(p, tmp_path / "m.lp", objective)
    text = (tmp_path / "m.lp").read_text()
    assert text.startswith("\\*")
    # rows named for what they hold: a group's flow conservation at a router, a resource's capacity
    assert "flow_" in text and "cap_" in text and "\nr0:" not in text


def test_cross_check_reports_agreement():
    from flows import cross_check

    t = cd.torus((4, 4))
    c = cross_check(FlowProblem.from_topology(t, Demands.random(16, 64, seed=4)), eps=0.05)
    assert c.ok and 0 <= c.relative_difference <= 0.05 / 1.05 + 1e-9


@pytest.mark.parametrize("objective", ["concurrent", "latency"])
def test_lp_columns_is_the_size_of_the_built_lp(objective):
    t = cd.torus((3, 4))
    rng = np.random.default_rng(2)
    s = rng.integers(0, 12, 30)
    d = (s + rng.integers(1, 12, 30)) % 12
    for dem in (Demands(s, d, np.ones(30)), Demands(s, np.full(30, 5), np.ones(30))):
        dem = Demands(dem.src[dem.src != dem.dst], dem.dst[dem.src != dem.dst], dem.amount[dem.src != dem.dst])
        p = FlowProblem.from_topology(t, dem)
        assert lp_columns(p, objective) == build_lp_arrays(p, objective)[1].shape[1]
