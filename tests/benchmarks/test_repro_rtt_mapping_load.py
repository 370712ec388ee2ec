"""benchmarks/repro_rtt_mapping.py --load: the network load of the NAS skeletons (the paper's Fig. 9).

The load figures are checked against what the trace alone implies: every phit the trace sends is delivered
(accepted x cycles x tasks), and, as the tpds2010 router routes minimally, the phits the links carry are the
trace's phits times the hop distance between the routers of sender and receiver (distances by networkx).
"""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import sim
from sim.trace import SEND

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import repro_rtt_mapping as R  # noqa: E402


def _routers_and_phits(kernel: str, cls: str, it: int):
    P, _c, (fam, mp), _k = R.LOAD_CASE
    topo, terms = R.rank_terminals(fam, 4, mp)
    tr = sim.nas(kernel, P, cls, iterations=it)
    send = tr.kind == SEND
    router = np.repeat(np.arange(topo.n), topo.terminals)
    src = router[terms[tr.rank_of_event()[send]]]
    dst = router[terms[tr.a[send]]]
    phits = np.maximum(1, -(-tr.nbytes[send] // 4))
    return topo, src, dst, phits


def test_local_phits_are_the_messages_within_one_router():
    # fv2 puts two vertically adjacent tasks of the 8 x 8 task grid on one router: LU's 2D mesh keeps half of
    # its vertical messages inside a router, FT's all-to-all 1 pair in 63
    P, _c, (fam, mp), _k = R.LOAD_CASE
    topo, terms = R.rank_terminals(fam, 4, mp)
    for kern, cls in (("lu", "S"), ("ft", "S")):
        tr = sim.nas(kern, P, cls, iterations=1)
        total, local = R.local_phits(tr, topo, terms)
        _t, src, dst, phits = _routers_and_phits(kern, cls, 1)
        assert total == phits.sum()
        assert local == phits[src == dst].sum()
        assert 0 < local < total
    tr = sim.nas("ft", P, "S", iterations=1)
    total, local = R.local_phits(tr, topo, terms)
    assert local / total == pytest.approx(1 / 63, rel=0.05)   # the checksum's 63 small messages aside


def test_the_load_of_a_run_is_what_its_trace_and_the_distances_imply():
    rows = R.nas_load("W", scales=(0.0,), case=(64, 2, ("rt", "fv2"), ["cg", "mg"]),
                      iterations={"cg": 1, "mg": 1}, log=lambda *_: None)
    for r in rows:
        topo, src, dst, phits = _routers_and_phits(r["kernel"], r["cls"], 1)
        G = nx.Graph()
        G.add_edges_from(map(tuple, topo.links))
        d = dict(nx.all_pairs_shortest_path_length(G))
        hops = np.array([d[s][t] for s, t in zip(src, dst)])
        # every phit delivered, over the run's cycles, per task
        assert r["accepted"] * r["cycles"] * 64 == pytest.approx(phits.sum(), rel=1e-12)
        # minimal routing: the links carry every phit once per hop of its shortest path
        assert r["util"] * topo.num_arcs * r["cycles"] == pytest.approx((phits * hops).sum(), rel=1e-9)
        assert r["network_share"] == pytest.approx(phits[hops > 0].sum() / phits.sum())


def test_the_recorded_ranking_at_class_a_without_computation():
    # about 10 s
    # the recorded run (docs/results/rtt-mapping-concentration.md, "NAS network load per kernel (Fig. 9)"): by
    # mean channel utilisation FT, IS, MG, SP lead and CG is fifth, 1% under SP
    rows = R.nas_load("A", scales=(0.0,), log=lambda *_: None)
    by = {r["kernel"]: r for r in rows}
    assert R.top(rows, "util") == ["ft", "is", "mg", "sp"]
    assert by["cg"]["util"] == pytest.approx(0.238, abs=0.003)
    assert by["sp"]["util"] == pytest.approx(0.241, abs=0.003)
    assert R.top(rows, "accepted")[:2] == ["sp", "bt"]
