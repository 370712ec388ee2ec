"""Table-free routing records: the records, ties and twin-torus next hops by
difference class equal the all-pairs tables they replace, the minimal hops
are graph distances, and a 65,536-router simulation allocates nothing n x n."""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

import candidates as cd
from sim import cache as sim_cache
import sim
from candidates.analytics.records import routing_records
from common.size import SizeError
from candidates.topology import Topology
from sim import SimConfig, simulate
from sim.memory import check_sim_memory
from sim.routing import build_tables, class_index, pair_records, with_ties

SRC = str(Path(__file__).resolve().parents[2] / "src")

FAMILIES = ["torus:4x3", "torus:4x1x2", "ring:5", "ring:6", "mesh:3x4", "path:5", "hypercube:3", "rt:a=3",
            "rtt:a=3", "rtt:a=4", "pt:a=2", "ptt:a=3", "pdtt:a=3", "twisted:8x4x4:t1=4,0:t2=4,2",
            "twisted:6x4:t1=3", "twisted:6x4x3:t1=3,0:t2=0,2", "torus:4x4:c=2"]


_TIE_FAMILIES = {"rt", "rtt", "pt", "ptt", "pdtt", "torus", "ring", "twisted"}


def _tie_records_all_pairs(topo: Topology, rec: np.ndarray, out_arc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The simulator's tie expansion before records went by difference
    class (kept as the reference): every minimal routing record from the S routers whose out-arcs are
    ``out_arc`` (S, D, 2) to every router, whose base records are ``rec``
    (S, n, D): the base record plus its lattice translates ``rec + c @
    lattice`` (``c`` in {-1, 0, 1}^D) of the same length whose hops exist.
    Returns ``(records (K, S, n, D), count (S, n))`` with the base record
    first. The simulator passes router 0 alone (the records of every
    difference class); all n routers give the all-pairs tables.
    """
    S, n, D = rec.shape
    if topo.family not in _TIE_FAMILIES or topo.lattice is None:
        return rec[None].copy(), np.ones((S, n), dtype=np.int8)
    lat = np.asarray(topo.lattice, dtype=np.int64)
    shifts = [np.asarray(c, dtype=np.int64) @ lat for c in itertools.product((-1, 0, 1), repeat=lat.shape[0])
              if any(c)]
    base = rec.astype(np.int64)
    length = np.abs(base).sum(axis=2)
    alts = [base]
    ok_all = []
    for sh in shifts:
        cand = base + sh
        ok = np.abs(cand).sum(axis=2) == length
        ok &= length > 0
        if not ok.any():
            continue
        # every hop the record asks for must exist
        for d in range(D):
            need = cand[:, :, d] != 0
            sgn = (cand[:, :, d] < 0).astype(np.int64)
            ok &= ~need | (out_arc[:, d, :][np.arange(S)[:, None], sgn] >= 0)
        if ok.any():
            alts.append(cand)
            ok_all.append(ok)
    cnt = np.ones((S, n), dtype=np.int64)
    if not ok_all:
        return rec[None].copy(), cnt.astype(np.int8)
    # keep distinct records only, packed at the front
    K = 1 + max(1, int(np.sum(ok_all, axis=0).max()))
    out = np.zeros((K, S, n, D), dtype=np.int16)
    out[0] = rec
    for cand, ok in zip(alts[1:], ok_all):
        dup = np.zeros((S, n), dtype=bool)
        for j in range(K):
            dup |= (cnt > j) & (out[j].astype(np.int64) == cand).all(axis=2)
        ok = ok & ~dup & (cnt < K)
        i, j = np.nonzero(ok)
        out[cnt[i, j], i, j] = cand[i, j]
        cnt[i, j] += 1
    K = int(cnt.max())
    return np.ascontiguousarray(out[:K]), cnt.astype(np.int8)


def _all_pairs_reference(t):
    """The n x n record tables the simulator built before (every pair's
    record by candidates.routing_records, the hypercube's by the coordinate
    difference; the ties of every pair from every router's out-arcs)."""
    n, D = t.n, t.ndim
    s, d = np.divmod(np.arange(n * n), n)
    if t.family == "hypercube":
        rec = t.coords[d] - t.coords[s]
    else:
        rec = routing_records(t, s, d)
    rec = rec.reshape(n, n, D).astype(np.int16)
    tabs = build_tables(t, "dor")
    return _tie_records_all_pairs(t, rec, tabs.out_arc)


@pytest.mark.parametrize("spec", FAMILIES)
def test_records_by_class_equal_all_pairs_tables(spec):
    t = cd.from_spec(spec)
    ref, ref_cnt = _all_pairs_reference(t)
    tabs = with_ties(t, build_tables(t, "adaptive"))
    s, d = np.divmod(np.arange(t.n * t.n), t.n)
    recs, cnt = pair_records(tabs, s, d)
    assert np.array_equal(cnt.reshape(t.n, t.n), ref_cnt)
    K = len(ref)
    assert len(recs) == K
    for k in range(K):
        sel = ref_cnt > k
        assert np.array_equal(recs[k].reshape(t.n, t.n, -1)[sel], ref[k][sel])
    # nothing n x n is kept
    assert all(np.size(x) <= 4 * t.n * max(t.ndim, 1) * 2 for x in vars(tabs).values() if isinstance(x, np.ndarray))


def test_class_index_is_the_box_representative():
    """PDTT(3): the class of (u, v) is the router that coords[v] - coords[u]
    reaches from router 0 (checked against BFS: same distance from 0 as the
    pair's)."""
    t = cd.from_spec("pdtt:a=3")
    tabs = build_tables(t, "dor")
    s, d = np.divmod(np.arange(t.n * t.n), t.n)
    c = class_index(tabs, s, d).reshape(t.n, t.n)
    dist = cd.shortest_path_table(t).dist
    assert np.array_equal(dist, dist[0][c])
    assert np.array_equal(c[0], np.arange(t.n))


def one_pair(T, s, d):
    M = np.zeros((T, T))
    M[s, d] = 1.0
    return sim.demand(M)


@pytest.mark.parametrize("spec, routing", [("twisted:6x4x3:t1=3,0:t2=0,2", "dor"), ("pdtt:a=3", "adaptive"),
                                           ("hypercube:4", "dor"), ("mesh:4x3", "adaptive"),
                                           ("ndt:3x3x3", "tsdor"), ("ndt:3x4x5", "dort")])
def test_min_hops_are_graph_distances(spec, routing):
    """One source-destination pair at a time: the kernel's minimal hops
    (from its difference class) are the networkx distance, and DOR takes
    exactly that many hops."""
    t = cd.from_spec(spec)
    G = nx.Graph(t.to_networkx())
    vcs = {"tsdor": 4, "dort": 2}.get(routing, 2)
    cfg = SimConfig(routing=routing, vcs=vcs, packet_length=2, warmup=0, measure=400, drain=2000)
    rng = np.random.default_rng(3)
    for s, d in rng.integers(0, t.n, size=(5, 2)).tolist() + [[0, t.n - 1], [t.n - 1, 0]]:
        if s == d:
            continue
        r = simulate(t, cfg, one_pair(t.n, s, d), 0.2 / t.n, seed=1)
        want = nx.shortest_path_length(G, s, d)
        assert r.packets > 0 and r.min_hops == want
        if routing == "dor":
            assert r.hops == want


def test_record_routing_refused_in_one_line(monkeypatch, empty_table_cache):
    """64x32x32 under a 1 GB limit: the simple router's estimate (~1.6 GB at
    tpds2010) is refused before anything is built."""
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")
    t = cd.from_spec("torus:64x32x32")
    with pytest.raises(SizeError, match=r"^simulating torus:64x32x32 \(65,536 routers, adaptive routing: tables by "
                                        r"difference class\) needs about 1\.6 GB but the memory limit is 1\.0 GB"):
        simulate(t, "tpds2010", "uniform", 0.1)
    assert not sim_cache.holds(t, "tables")


def test_table_routing_refusal_says_the_limit(monkeypatch, empty_table_cache):
    """The table routings keep (n, n) arrays: the refusal says how many routers fit."""
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")
    t = cd.from_spec("torus:32x32x16")
    m = sim.memory_estimate(t, routing="table")
    assert m.per_pair == 40.0 and m.parts["tables"] > 16384 ** 2 * 40
    with pytest.raises(SizeError, match=r"\(16,384 routers, table routing: n x n tables\) needs about 11 GB .*"
                                        r"at most about 4,\d\d\d routers fit"):
        simulate(t, SimConfig(routing="table"), "uniform", 0.1)
    assert not sim_cache.holds(t, "tables")


_PROBE = r"""
import json, sys
import numpy as np
import candidates as cd, sim
from sim.routing import build_tables, with_ties
cfg = sim.preset("singleflit", warmup=0, measure=30, drain=300)
sim.simulate(cd.from_spec("torus:4x4"), cfg, "uniform", 0.05, seed=1)
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
with open("/proc/self/clear_refs", "w") as f: f.write("5")
with open("/proc/self/statm") as f: b0 = int(f.read().split()[1]) * 4096
t = cd.from_spec(sys.argv[1])
r = sim.simulate(t, cfg.replace(tie_break="random"), "uniform", 0.05, seed=1)
tabs = with_ties(t, build_tables(t, "dor"))
big = max(x.nbytes for x in vars(tabs).values() if isinstance(x, np.ndarray))
print(json.dumps({"peak": hwm() - b0, "est": sim.memory_estimate(t, cfg).nbytes, "big": big,
                  "packets": r.packets, "hops": r.hops, "min_hops": r.min_hops, "drained": r.drained}))
"""


@pytest.mark.parametrize("spec, routing", [("pdtt:a=32", "adaptive"), ("torus:64x32x32", "dor"),
                                           ("ndt:16x16x16x4x2", "tsdor")])
def test_65k_router_tables_are_linear(spec, routing, monkeypatch):
    """65,536 routers: every routing array is O(n D) (the old tables were
    (n, n, D) int16, 26 GB, built through ~178 GB of temporaries), and
    the estimate fits a 3 GB limit."""
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "3G")
    t = cd.from_spec(spec)
    assert t.n == 65536
    tabs = build_tables(t, routing, vcs=4)
    if routing != "tsdor":
        tabs = with_ties(t, tabs)
    big = max(x.nbytes for x in vars(tabs).values() if isinstance(x, np.ndarray))
    assert big <= t.n * (t.ndim + 1) * 2 * 8      # out_arc (n, D, 2) int64 is the largest
    assert check_sim_memory(t, SimConfig(routing=routing, vcs=4)).nbytes < (2.5e9 if routing == "tsdor" else 2e9)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["pdtt:a=32"])
def test_65k_routers_without_n_by_n(spec):
    """PDTT(32), 65,536 routers, under a 3 GB limit (the old record tables
    needed ~178 GB): the largest routing array is O(n D), the peak stays
    within the estimate, DOR packets take minimal routes."""
    out = patience.run([sys.executable, "-c", _PROBE, spec], cpu=1200, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": SRC, "TOPOSYNTH_MEMORY_LIMIT": "3G"}, check=True)
    r = json.loads(out.stdout)
    n = 65536
    assert r["big"] <= n * 3 * 2 * 8          # out_arc (n, D, 2) int64 is the largest
    assert r["peak"] < r["est"] < 1.5e9
    assert r["drained"] and r["packets"] > 50 and r["hops"] == r["min_hops"]
