"""The Blue Gene/L studies compare with the real machine: the 8x8x8 torus with uniform wiring
(its links all alike), the compositions with flexible wiring; the pool varies the column and
upper-level graphs ('topology-synthesis-mcf-bgl', Sec. IV)."""

import copy

import pytest

import flows
from flows.physical import physical_problem
from synth.evaluate import build_topology, evaluate, study_demands
from synth.pool import candidate_specs
from synth.study import BUILTIN_STUDIES, builtin_study, study_from_dict

TORUS = "torus:8x8x8"
ROW = "g6:Gr`GpK"
GRAPHS4 = ("path:4", "g6:Cs", "ring:4", "g6:C{", "g6:C}", "complete:4")


def _small(specs, count, scales=()):
    d = copy.deepcopy(BUILTIN_STUDIES["bgl-midplane"])
    d["candidates"] = {"specs": list(specs)}
    d["traffic"] = {**d["traffic"], "count": count, "scales": list(scales)}
    d["ranking"] = {**d["ranking"], "objective": "both" if scales else "capacity"}
    return study_from_dict(d)


@pytest.mark.parametrize("name, size", [("bgl-midplane", 230), ("bgl-pins", 61)])
def test_bgl_studies_rank_against_the_uniform_wired_torus(name, size):
    s = builtin_study(name)
    if name == "bgl-pins":
        specs = candidate_specs(s)
        assert len(specs) == size
    else:    # enumerating and placing all 194 row graphs takes half a minute: the parts instead
        h = s.hierarchy
        assert h["rows"] == ["enumerate:8:3"] and h["placements"] == "min-cutwidth" and "limit" not in h
        assert h["columns"] == h["upper_rows"] == h["upper_columns"] == ["ring:4"]
        specs = list(s.specs)
        assert len(specs) == 1 + 36
    assert specs[0] == TORUS and s.baseline == TORUS
    assert s.physical.wiring_for(TORUS) == "uniform"
    assert all(s.physical.wiring_for(x) == "flexible" for x in specs[1:])
    # the column graph and the upper-level graph each over the six connected 4-node graphs (all of
    # degree <= 3), jointly; the rows over every connected 8-node graph of degree <= 3
    for c in GRAPHS4:
        for u in GRAPHS4:
            assert f"bgl:{ROW}*{c}*{u}*{u}" in specs
    if name == "bgl-pins":
        assert len({x.split("*")[0] for x in specs[1:]}) == 25      # the first 24 row graphs and ROW


def test_uniform_torus_baseline_is_the_exact_lp_optimum():
    s = _small([TORUS], 8)
    rec = evaluate(TORUS, s)
    assert rec.status == "ok" and rec.wiring == "uniform"
    # independently: the same demands on the same placed torus, every channel its equal share of the
    # board cross-sections and connectors it uses, solved exactly by HiGHS
    topo = build_topology(TORUS, s)
    dem = study_demands(topo, s)
    pk, tech = s.physical.packaging_and_technology()
    uni = flows.solve_lp(physical_problem(topo, dem, tech, pk, wiring="uniform"))
    cap = rec.capacity
    assert cap.lam <= uni.lam * (1 + 1e-6) and uni.lam <= cap.upper_bound * (1 + 1e-6)
    assert cap.upper_bound <= cap.lam * (1 + s.eps) * (1 + 1e-9)
    # and its first bottleneck is a channel's own share, not a board resource
    assert "uniform share" in cap.bottlenecks[0].resource


def test_complete_upper_level_carries_more_at_the_same_pins():
    specs = [f"bgl:{ROW}*ring:4*ring:4*ring:4", f"bgl:{ROW}*ring:4*complete:4*complete:4"]
    s = _small(specs, 2048)
    rings, k4_up = (evaluate(x, s).capacity for x in specs)
    # complete graphs of 4 node cards along the midplane's rows and columns: every node card one hop
    # from the others, less transit traffic through the node-card connectors (whose pins bind), so
    # certifiably more capacity with the same 200 pins per node card
    assert k4_up.lam > 1.2 * rings.upper_bound
    assert "node_card" in rings.bottlenecks[0].resource and "connector pins" in rings.bottlenecks[0].resource
