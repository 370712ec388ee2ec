"""The search engine: its kernels against networkx, its reproducibility, its refusals."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import candidates as cd
from candidates.errors import SpecError
from candidates.analytics.moore import moore_bound, moore_gap
from candidates.search import search_graph, search_problem
from candidates.search._bits import seed_state
from candidates.search._kernels import NST, ST_BEST, ST_CUR, Sched, anneal, evaluate, fill
from candidates.search.engine import move_weights, run_restart
from candidates.search.state import (lifted_links, new_best, new_graph, new_log, new_work, objective_tuple,
                                     _lift_all)
from candidates.search.objectives import OBJ_ASPL, OBJ_THROUGHPUT


# ------------------------------------------------------------------ Moore bound
def test_moore_bound_meets_the_moore_graphs():
    """The Petersen and Hoffman-Singleton graphs are Moore graphs: they meet the bound exactly."""
    for G, d in ((nx.petersen_graph(), 3), (cd.from_spec("slimfly:q=5").to_networkx(), 7)):
        n = G.number_of_nodes()
        b = moore_bound(n, d)
        assert b.diameter == nx.diameter(G) == 2
        assert b.aspl == pytest.approx(nx.average_shortest_path_length(G), abs=1e-12)
        assert b.distribution == (1, d, n - 1 - d)


@pytest.mark.parametrize("n, d, aspl, gap", [
    # Graph Golf 2016's table: the record's ASPL and its published gap to the bound (3 decimals, rounded)
    (256, 8, 2.736, 0.674), (1024, 8, 3.505, 0.617), (1024, 32, 1.998, 1.479), (1024, 3, 7.679, 2.007),
    (10000, 20, 3.376, 5.634), (3250, 57, 2.070, 4.417)])
def test_moore_gap_matches_the_published_gaps(n, d, aspl, gap):
    # the ASPL the published gap implies, over our bound, is the published (rounded) ASPL
    assert moore_bound(n, d).aspl * (1 + gap / 100) == pytest.approx(aspl, abs=0.0006)
    assert 100 * moore_gap(aspl, n, d) == pytest.approx(gap, abs=0.02)


def test_moore_bound_refuses_what_cannot_be_connected():
    with pytest.raises(cd.TopologyError):
        moore_bound(5, 1)
    assert moore_bound(2, 1).aspl == 1.0


def test_describe_reports_the_moore_gap():
    d = cd.describe(cd.from_spec("torus:8x8x8"))
    assert d["moore_diameter"] == 4
    assert d["moore_aspl"] == pytest.approx(moore_bound(512, 6).aspl)
    assert d["moore_gap"] == pytest.approx(d["average_distance"] / moore_bound(512, 6).aspl - 1)


# ------------------------------------------------------------------ the kernels against networkx
def _graph_of(G, lift):
    ne = int(G.ecount[0])
    links = lifted_links(lift, G.eu[:ne], G.ev[:ne], G.es[:ne])
    H = nx.MultiGraph()
    H.add_nodes_from(range(lift.n))
    H.add_edges_from(links.tolist())
    return H


def _check_state(G, lift):
    """Ports, link records and the lifted adjacency tell the same simple graph."""
    H = _graph_of(G, lift)
    assert nx.number_of_selfloops(H) == 0
    assert H.number_of_edges() == nx.Graph(H).number_of_edges(), "a duplicate link"
    for u in range(lift.m):
        for p in range(G.bdeg[u]):
            e = G.bedge[u, p]
            ends = {(G.eu[e], G.epu[e]), (G.ev[e], G.epv[e])}
            assert (u, p) in ends
    adj = G.adj.copy()
    _lift_all(G)
    for v in range(lift.n):
        assert sorted(adj[v, :G.deg[v]].tolist()) == sorted(G.adj[v, :G.deg[v]].tolist())
        assert sorted(adj[v, :G.deg[v]].tolist()) == sorted(H.neighbors(v))


def _truth(H):
    n = H.number_of_nodes()
    total, diam, unreach = 0, 0, 0
    for s, dist in nx.all_pairs_shortest_path_length(nx.Graph(H)):
        total += sum(dist.values())
        diam = max(diam, max(dist.values()))
        unreach += n - len(dist)
    return total, diam, unreach


def _started(p, w, code, shuffles):
    """A random start of problem ``p`` and the kernels' structures, its energy in the statistics."""
    G = new_graph(p.lift, p.caps, p.fixed_base)
    L, W = new_log(), new_work(p.lift, len(G.eu))
    rs = seed_state(p.seed, 0)
    fill(G, L, rs, np.zeros(int(p.caps.sum()) + 1, np.int32), 1000, shuffles, w)
    O = objective_tuple(code, 0.5, p.lift, p.caps)
    evaluate(G, W, O)
    stv = np.zeros(NST)
    stv[ST_CUR:ST_CUR + 6] = W.res[:6]
    stv[ST_BEST:ST_BEST + 6] = W.res[:6]
    return G, new_best(G), L, W, O, rs, stv


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_annealing_keeps_a_consistent_graph_and_scores_it_as_networkx(data):
    """Every kind of move (swaps, voltages, moved ends, added and removed links) on random
    lifts, with and without fixed links: the graph stays simple and consistent, the
    kernel's distances and even-split load are networkx's."""
    m = data.draw(st.integers(4, 12))
    g = data.draw(st.sampled_from([1, 2, 3, 4]))
    n = m * g
    d = data.draw(st.integers(2, min(5, n - 1)))
    regular = data.draw(st.booleans())
    if regular and (m * d) % 2:
        d += 1 if d + 1 < n else -1
    fix = data.draw(st.booleans()) and g == 1
    fixed = np.array([[i, (i + 1) % n] for i in range(n)]) if fix and n >= 3 else None
    p = search_problem(n, d, symmetry=g, regular=regular, fixed=fixed, seed=data.draw(st.integers(0, 99)))
    lift = p.lift
    w = move_weights(p, 0)
    w[2:] = [0.3, 0.2, 0.2]          # exercise every move kind
    code = data.draw(st.sampled_from([OBJ_ASPL, OBJ_THROUGHPUT]))
    G, B, L, W, O, rs, stv = _started(p, w, code, shuffles=50)
    _check_state(G, lift)
    for chunk in range(4):
        anneal(G, B, L, W, O, Sched((chunk + 1) * 50, 150, 5.0, 0.05, w), rs, stv)
        _check_state(G, lift)
        H = _graph_of(G, lift)
        total, diam, unreach = _truth(H)
        assert stv[ST_CUR + 3] == total and stv[ST_CUR + 4] == unreach
        if unreach == 0:
            assert stv[ST_CUR + 2] == diam
            if code == OBJ_THROUGHPUT:
                eb = nx.edge_betweenness_centrality(nx.Graph(H), normalized=False)
                assert stv[ST_CUR + 5] == pytest.approx(max(eb.values()), rel=1e-9)


def test_chunks_do_not_change_the_moves():
    """One call of 400 moves and 400 calls of one move make the same graph."""
    p = search_problem(64, 4, symmetry=4, seed=5)
    finals = []
    for step in (400, 1):
        w = move_weights(p, 0)
        G, B, L, W, O, rs, stv = _started(p, w, OBJ_ASPL, shuffles=100)
        for t in range(step, 401, step):
            anneal(G, B, L, W, O, Sched(t, 360, 20.0, 0.2, w), rs, stv)
        finals.append((B.eu.tolist(), B.ev.tolist(), B.es.tolist(), stv.tolist()))
    assert finals[0] == finals[1]


# ------------------------------------------------------------------ the search
def test_search_graph_is_regular_connected_and_above_the_bound():
    r = search_graph(128, 5, moves=20_000, seed=2)
    t = r.topology
    G = t.to_networkx()
    assert set(t.degree.tolist()) == {5} and nx.is_connected(G)
    assert r.diameter == nx.diameter(G)
    assert r.aspl == pytest.approx(nx.average_shortest_path_length(G), abs=1e-12)
    assert r.aspl >= r.moore_aspl and r.diameter >= r.moore_diameter
    assert r.moore_gap == pytest.approx(r.aspl / moore_bound(128, 5).aspl - 1)
    # the search improves on its random start, and on a random regular graph
    rr = nx.random_regular_graph(5, 128, seed=1)
    assert r.aspl < nx.average_shortest_path_length(rr)


def test_the_bounds_bracket_the_certified_capacity():
    import flows
    from flows.problem import Demands, FlowProblem

    r = search_graph(40, 3, moves=5000, seed=1, symmetry=1)
    t = r.topology
    lam = flows.solve(FlowProblem.from_topology(t, Demands.uniform(t.n)), eps=0, solver="lp").lam
    assert r.split_throughput <= lam * (1 + 1e-9)
    assert lam <= r.throughput_bound * (1 + 1e-9)


def test_same_seed_same_graph_and_the_spec_rebuilds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOSYNTH_CACHE", str(tmp_path / "cache"))
    a = search_graph(96, 4, moves=8000, seed=7)
    b = search_graph(96, 4, moves=8000, seed=7)
    c = search_graph(96, 4, moves=8000, seed=8)
    assert np.array_equal(a.topology.links, b.topology.links)
    assert not np.array_equal(a.topology.links, c.topology.links)
    assert a.topology.spec == "search:n=96:d=4:moves=8000:seed=7"
    t = cd.from_spec(a.topology.spec)
    assert np.array_equal(t.links, a.topology.links) and t.params["aspl"] == a.aspl
    # from the disk cache in a fresh process's memory
    from candidates.search import cache

    cache._MEMORY.clear()
    assert np.array_equal(cd.from_spec(a.topology.spec).links, a.topology.links)
    assert any((tmp_path / "cache" / "search").iterdir())


def test_a_restart_is_the_same_alone_or_among_others():
    many = search_graph(48, 3, moves=3000, seed=4, restarts=3, symmetry=1)
    for k in range(3):
        one = search_graph(48, 3, moves=3000, seed=4, restart=k, symmetry=1)
        assert np.array_equal(one.restarts[0].links, many.restarts[k].links)
    best = search_graph(48, 3, moves=3000, seed=4, restart=many.best_restart, symmetry=1)
    assert np.array_equal(best.topology.links, many.topology.links)


def test_an_interrupted_restart_resumes_to_the_same_graph(tmp_path):
    p = search_problem(64, 4, seed=3, symmetry=2)
    whole = run_restart(p, 0, moves=20_000)
    calls = []

    def stop_soon():
        calls.append(1)
        return len(calls) > 2   # two chunks (1,000 and 4,000 moves), then stop

    part = run_restart(p, 0, moves=20_000, checkpoint=tmp_path, should_stop=stop_soon)
    assert part.stopped == "interrupted" and part.moves < 20_000
    rest = run_restart(p, 0, moves=20_000, checkpoint=tmp_path)
    assert rest.stopped == "moves" and rest.moves == 20_000
    assert np.array_equal(rest.links, whole.links) and rest.sum_distances == whole.sum_distances
    # a finished restart is read back, not run again
    again = run_restart(p, 0, moves=20_000, checkpoint=tmp_path)
    assert np.array_equal(again.links, whole.links)


def test_fixed_links_stay():
    torus = cd.from_spec("torus:8x8")
    r = search_graph(64, 6, moves=5000, seed=1, fixed=torus, symmetry=1)
    t = r.topology
    kept = {tuple(sorted(e)) for e in torus.links.tolist()}
    got = {tuple(sorted(e)) for e in t.links.tolist()}
    assert kept <= got and set(t.degree.tolist()) == {6}
    assert t.dims == ("fixed", "searched") and (t.link_dim == 0).sum() == len(kept)
    # symmetric fixed links under a lift: the 8x8 torus is invariant under x -> x + 8
    r2 = search_graph(64, 6, moves=3000, seed=1, fixed=torus, symmetry=8)
    assert kept <= {tuple(sorted(e)) for e in r2.topology.links.tolist()}


def test_irregular_search_stays_within_the_port_budget():
    r = search_graph(30, 4, moves=4000, seed=2, regular=False, symmetry=1)
    assert r.topology.degree.max() <= 4 and nx.is_connected(r.topology.to_networkx())


@pytest.mark.parametrize("kwargs, words", [
    (dict(routers=8, degree=8), "degree 8 needs more routers"),
    (dict(routers=9, degree=3), "odd number"),
    (dict(routers=10, degree=1), "cannot be connected"),
    (dict(routers=12, degree=3, symmetry=5), "must divide"),
    (dict(routers=12, degree=3, symmetry=4), "odd number of port ends"),
    (dict(routers=12, degree=3, objective="speed"), "unknown search objective"),
    (dict(routers=12, degree=3, moves=0), "moves must be a positive integer"),
    (dict(routers=12, degree=3, moves=None), "needs a budget"),
    (dict(routers=12, degree=3, seed=-1), "seed must be"),
    (dict(routers=12, degree=2, fixed=np.array([[0, 1], [0, 2], [0, 3]])), "fixed links but only 2 ports"),
])
def test_bad_input_is_one_line(kwargs, words):
    with pytest.raises(SpecError, match=words):
        search_graph(**kwargs)


def test_fixed_links_that_break_the_symmetry_are_refused():
    with pytest.raises(cd.TopologyError, match="not symmetric"):
        search_graph(16, 3, fixed=np.array([[0, 1]]), symmetry=4)


def test_specs_of_searches_with_fixed_or_start_links_rebuild_them():
    torus = cd.from_spec("torus:8x8")
    r = search_graph(64, 6, moves=2000, seed=1, fixed=torus, symmetry=1)
    assert r.topology.spec == "search:n=64:d=6:moves=2000:seed=1:fixed=torus/8x8:symmetry=1"
    assert np.array_equal(cd.from_spec(r.topology.spec).links, r.topology.links)
    s = search_graph(60, 8, moves=2000, seed=2, start=cd.from_spec("polarfly:q=7"), temperature=0.1)
    assert s.topology.spec == "search:n=60:d=8:moves=2000:seed=2:start=polarfly/q=7:temperature=0.1"
    assert np.array_equal(cd.from_spec(s.topology.spec).links, s.topology.links)
    # links given as an array have no spec: the graph is saved to a file instead
    a = search_graph(64, 6, moves=2000, seed=1, fixed=torus.links, symmetry=1)
    assert a.topology.spec == "" and np.array_equal(a.topology.links, r.topology.links)


def test_a_start_graph_is_kept_at_a_low_temperature():
    """Starting from PolarFly (57 routers) for 60 routers: the three new routers split its links, and
    polishing at a low temperature keeps it far better than a random start of the same budget."""
    pf = cd.from_spec("polarfly:q=7")
    s = search_graph(60, 8, moves=2000, seed=2, start=pf, temperature=0.01)
    rnd = search_graph(60, 8, moves=2000, seed=2)
    assert s.aspl < rnd.aspl
    kept = {tuple(sorted(e)) for e in pf.links.tolist()} & {tuple(sorted(e)) for e in s.topology.links.tolist()}
    assert len(kept) >= 0.8 * pf.num_links


def test_a_time_budget_cools_within_it_and_has_no_spec():
    r = search_graph(128, 4, moves=None, time_limit=1.0, seed=1)
    assert r.stopped == "time" and r.topology.spec == ""
    assert 0 < r.moves == r.restarts[0].moves
    # the schedule ran to its end (the hill-climbing tail): far better than the random start
    assert r.aspl < search_graph(128, 4, moves=1, seed=1).aspl
