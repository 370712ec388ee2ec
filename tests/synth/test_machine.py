"""One machine per study: refusals, size classes, concentration, cost columns, budgets, Pareto, the answer."""

import csv

import numpy as np
import pytest

import candidates as cd
import flows
from flows.physical import Packaging, Technology, physical_model, physical_problem
from synth.answer import study_answers
from synth.cli import main
from synth.evaluate import build_problem, build_topology, evaluate, study_demands
from synth.machine import MachineError, pareto_front
from synth.runner import run
from synth.study import StudyError, study_from_dict


def _study(specs, **extra):
    d = {"candidates": {"specs": specs}, "traffic": {"pattern": "uniform"}, "ranking": {"objective": "capacity"},
         "cross_check": {"top": 0}}
    d.update(extra)
    return study_from_dict(d)


def test_a_candidate_of_another_size_is_refused_before_any_work(tmp_path):
    s = _study(["torus:8x4", "ring:16", "hypercube:3"], ranking={"objective": "capacity", "baseline": "torus:8x4"})
    with pytest.raises(MachineError) as e:
        run(s, tmp_path / "out")
    msg = str(e.value)
    # one line: the first offender, how many more, and the fixes (concentration where it divides)
    assert "\n" not in msg
    assert "'ring:16' has 16 PEs but the machine has 32 (and 1 more)" in msg and "ring:16:c=2" in msg
    assert "machine.compare_sizes" in msg
    assert not (tmp_path / "out" / "records.jsonl").exists()       # refused up front: nothing evaluated
    # the machine's size is the baseline's unless [machine] pes says otherwise
    with pytest.raises(MachineError, match="'torus:8x4' has 32 PEs but the machine has 16"):
        run(_study(["torus:8x4", "ring:16"], machine={"pes": 16}))


def test_the_cli_refuses_with_one_line_and_exit_2(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('[candidates]\nspecs = ["torus:8x4", "ring:16"]\n[ranking]\nobjective = "capacity"\n'
                 '[cross_check]\ntop = 0\n')
    assert main(["run", str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("toposynth: error: candidate 'ring:16' has 16 PEs")


def test_size_classes_are_ranked_apart():
    s = _study(["torus:8x4", "ring:16", "hypercube:4", "mesh:8x4"], machine={"pes": 32, "compare_sizes": True})
    res = run(s)
    assert res.pes == 32 and list(res.classes) == [32, 16]
    assert sorted(res.ranking) == ["mesh:8x4", "torus:8x4"]
    assert res.classes[16] == ["hypercube:4", "ring:16"]             # the 4-cube carries more than the ring
    rows = {r["spec"]: r for r in csv.DictReader(_csv(res))}
    assert rows["hypercube:4"]["rank"] == "1" and rows["hypercube:4"]["size_class"] == "16"


def _csv(res):
    import io
    import tempfile
    from pathlib import Path

    from synth.report import _write_csv

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "r.csv"
        _write_csv(res.to_dict(), p)
        return io.StringIO(p.read_text())


def test_concentration_realises_the_machine_with_demands_between_pes():
    s = _study(["torus:8x4", "torus:4x4:c=2"], machine={"pes": 32})
    res = run(s)
    lam = {r.spec: r.capacity for r in res.records}
    # uniform per PE on 4x4 routers with 2 PEs each: every router injects 2 lambda, spread over the 15
    # others, so lambda is half the 4x4 torus's uniform injection bound (which is its exact LP optimum)
    half = cd.uniform_load(cd.from_spec("torus:4x4")).injection_bound / 2
    full = cd.uniform_load(cd.from_spec("torus:8x4")).injection_bound
    assert lam["torus:4x4:c=2"].lam <= half * (1 + 1e-9) <= lam["torus:4x4:c=2"].upper_bound * (1 + 1e-9)
    assert lam["torus:8x4"].lam <= full * (1 + 1e-9) <= lam["torus:8x4"].upper_bound * (1 + 1e-9)
    # random demands are drawn between the 32 PEs, then mapped to routers (PE p on router p // 2)
    sr = study_from_dict({"candidates": {"specs": ["torus:4x4:c=2"]}, "traffic": {"pattern": "random", "count": 200},
                          "seed": 5})
    d = study_demands(cd.from_spec("torus:4x4:c=2"), sr)
    pe = flows.Demands.random(32, 200, seed=5)
    keep = pe.src // 2 != pe.dst // 2
    assert np.array_equal(d.src, pe.src[keep] // 2) and np.array_equal(d.dst, pe.dst[keep] // 2)
    assert len(d) == int(keep.sum()) < 200                          # pairs on one router need no link


def test_cost_columns_structural():
    s = _study(["hypercube:5", "torus:8x4", "torus:4x4x2", "torus:4x4:c=2"])
    for spec, (links, radix, ports, routers) in {
        "hypercube:5": (80, 6, 192, 32),       # 32 x 5 / 2 links; 5 ports + 1 PE
        "torus:8x4": (64, 5, 160, 32),
        "torus:4x4x2": (96, 7, 224, 32),       # the size-2 ring is a double link: degree 6
        "torus:4x4:c=2": (32, 6, 96, 16),      # 4 ports + 2 PEs
    }.items():
        c = evaluate(spec, s).cost
        assert (c.links, c.radix, c.ports, c.routers, c.pes) == (links, radix, ports, routers, 32)
        assert c.wire_length is None and c.wires is None        # no packaging: no wires priced


BOARDS = [{"level": "card", "width_m": 0.1, "height_m": 0.1, "signal_layers": 2, "wire_pitch_m": 0.001,
           "connectors": 1, "pins_per_connector": 40},
          {"level": "board", "width_m": 0.4, "height_m": 0.3, "signal_layers": 4, "wire_pitch_m": 0.001}]


def test_cost_columns_with_a_packaging_follow_the_physical_model():
    """Uniform wiring: the wires are the fixed shares; pins: 2 ends x 2 pins per wire at every level a wire
    leaves; flexible wiring: the capacity flow's wires."""
    from flows.physical import Board

    d = {"candidates": {"specs": ["torus:4x4", "mesh:4x4"]}, "traffic": {"pattern": "uniform"},
         "physical": {"packaging": "custom", "boards": BOARDS, "blocks": [[2, 4], [4, 4]],
                      "wiring": {"default": "flexible", "torus:4x4": "uniform"}},
         "ranking": {"objective": "capacity", "baseline": "torus:4x4", "cost": "pins"}, "cross_check": {"top": 0}}
    s = study_from_dict(d)
    assert s.physical.wiring_for("torus:4x4") == "uniform" and s.physical.wiring_for("mesh:4x4") == "flexible"
    rec = evaluate("torus:4x4", s)
    assert rec.wiring == "uniform" and rec.status == "ok"
    t = build_topology("torus:4x4", s)
    pk = Packaging(tuple(Board(**b) for b in BOARDS), 2)
    m = physical_model(t, Technology(), pk)
    cap = m.uniform_capacity()
    c = rec.cost
    assert c.wires == pytest.approx(cap.sum())
    assert c.wire_length == pytest.approx(float(cap @ m.length))
    assert c.pins == pytest.approx(float(sum(cap[a] * 2 * 2 * m.level[a] for a in range(t.num_arcs))))
    assert c.cables == 0                                          # one board: no cables
    # the uniform-wired torus's capacity brackets the exact LP of the uniform problem
    lp = flows.solve_lp(physical_problem(t, study_demands(t, s), Technology(), pk, wiring="uniform")).lam
    assert rec.capacity.lam <= lp * (1 + 1e-9) <= rec.capacity.upper_bound * (1 + 1e-9)
    # flexible wiring: the wires are the capacity flow's, within the resources
    mesh = evaluate("mesh:4x4", s)
    tm = build_topology("mesh:4x4", s)
    pm = physical_problem(tm, study_demands(tm, s), Technology(), pk)
    cap_m = flows.max_concurrent_flow(pm, eps=s.eps)
    assert mesh.wiring == "flexible" and mesh.cost.wires == pytest.approx(cap_m.arc_flow.sum())
    assert (pm.R @ cap_m.arc_flow <= pm.capacity * (1 + 1e-9)).all()


def test_budgets_prune_with_the_reason():
    s = _study(["torus:8x4", "hypercube:5", "torus:4x4x2"], machine={"links": 64})
    res = run(s)
    st = {r.spec: (r.status, r.reason) for r in res.records}
    assert st["hypercube:5"] == ("pruned", "over budget: links 80 > machine.links 64")
    assert st["torus:4x4x2"][0] == "pruned" and res.ranking == ["torus:8x4"]
    s2 = _study(["torus:8x4", "hypercube:5"], machine={"radix": 5})
    assert evaluate("hypercube:5", s2).reason == "over budget: radix 6 > machine.radix 5"
    with pytest.raises(StudyError, match="machine.wire_length: a wire-length budget needs a packaging"):
        _study(["torus:8x4"], machine={"wire_length": 10.0})
    with pytest.raises(StudyError, match="machine.pes: must be a positive integer"):
        _study(["torus:8x4"], machine={"pes": 0})
    with pytest.raises(StudyError, match="unknown field; valid fields of \\[machine\\]"):
        _study(["torus:8x4"], machine={"nodes": 32})
    with pytest.raises(StudyError, match="ranking.cost: pins needs a packaging"):
        _study(["torus:8x4"], ranking={"cost": "pins"})


def test_pareto_front_against_brute_force():
    s = _study(["torus:8x4", "hypercube:5", "torus:4x4x2", "ring:32", "mesh:8x4", "rtt:a=4", "product:ring:8*path:4"])
    res = run(s)
    ok = [r for r in res.records if r.status == "ok"]
    front = []
    for r in ok:
        c, p = r.cost.links, r.capacity.lam
        if not any(q.cost.links <= c and q.capacity.lam >= p
                   and (q.cost.links < c or q.capacity.lam > p) for q in ok):
            front.append(r.spec)
    assert sorted(res.pareto["capacity"]) == sorted(front) and res.pareto["cost"] == "links"
    assert "torus:8x4" not in front            # rtt:a=4 has the same 64 links and carries more
    pts = [("a", 1, 1.0), ("b", 1, 1.0), ("c", 2, 0.5)]
    assert pareto_front(pts) == ["a", "b"]     # equal points both kept, dominated dropped


def test_the_answer_states_certified_gains_and_the_best_at_the_baseline_cost():
    s = _study(["torus:8x4", "hypercube:5", "rtt:a=4"], ranking={"objective": "capacity", "baseline": "torus:8x4"})
    res = run(s)
    best, cheap = res.answers
    w, b = res.record("hypercube:5").capacity, res.record("torus:8x4").capacity
    assert best.winner == "hypercube:5" and best.baseline == "torus:8x4"
    assert best.capacity_gain == pytest.approx((w.lam / b.lam, w.lam / b.upper_bound, w.upper_bound / b.lam))
    # the hypercube costs 80 links against the torus's 64: the answer also names the best at 64 links
    assert cheap.label == "at the baseline's cost" and cheap.winner == "rtt:a=4"
    assert "at a different cost: links 80 vs 64" in best.sentence()
    # the exact LP optima lie inside the certified interval of the gain
    lp = {sp: flows.solve_lp(build_problem(cd.from_spec(sp), s)).lam for sp in ("hypercube:5", "torus:8x4")}
    assert best.capacity_gain[1] <= lp["hypercube:5"] / lp["torus:8x4"] <= best.capacity_gain[2]
    # no baseline in the pool: the answer says so instead of inventing a gain
    s2 = _study(["hypercube:5", "rtt:a=4"], ranking={"objective": "capacity", "baseline": "torus:8x4"})
    a = study_answers(s2, ["hypercube:5", "rtt:a=4"], [evaluate(x, s2) for x in ("hypercube:5", "rtt:a=4")], [], 32)
    assert a[0].capacity_gain is None and "not in the pool" in a[0].notes[0]


def test_simulation_routing_is_chosen_for_arbitrary_graphs():
    from synth.runner import simulation_routing

    s = study_from_dict({"candidates": {"specs": ["torus:4x4"]}, "simulation": {"top": 1, "preset": "tpds2010"}})
    assert simulation_routing(cd.from_spec("torus:4x4"), s) == "adaptive"          # the preset's own
    assert simulation_routing(cd.from_spec("g6:G?r@f_"), s) == "table"             # no records: table
    s2 = study_from_dict({"candidates": {"specs": ["torus:4x4"]}, "simulation": {"top": 1, "routing": "updown"}})
    assert simulation_routing(cd.from_spec("g6:G?r@f_"), s2) == "updown"
    with pytest.raises(StudyError, match="simulation.routing: must be one of"):
        study_from_dict({"candidates": {"specs": ["torus:4x4"]}, "simulation": {"routing": "magic"}})


def test_a_fat_tree_realises_the_machine_with_its_hosts_only():
    """Routers without PEs (the fat tree's aggregation and core switches) count
    in the cost, not in the machine's size; demands run between hosts."""
    s = _study(["torus:4x4", "fattree:k=4", "hyperx:4x4"], machine={"pes": 16})
    res = run(s)
    lam = {r.spec: r.capacity for r in res.records}
    # the ranking's certified interval holds the exact optima: 1 per host (full bisection) and, on the
    # HyperX, channels / (PEs x mean hops)
    for spec, exact in (("fattree:k=4", 1.0), ("hyperx:4x4", 96 / (16 * 1.6))):
        assert lam[spec].lam <= exact * (1 + 1e-9) <= lam[spec].upper_bound * (1 + 1e-9)
        assert lam[spec].lam > 0.9 * exact
    c = evaluate("fattree:k=4", s).cost
    assert (c.routers, c.pes, c.radix, c.ports, c.links) == (20, 16, 4, 80, 32)
    # random demands are drawn between the 16 hosts: only edge switches (routers 0..7) send or receive
    sr = study_from_dict({"candidates": {"specs": ["fattree:k=4"]}, "traffic": {"pattern": "random", "count": 100},
                          "seed": 3})
    d = study_demands(cd.from_spec("fattree:k=4"), sr)
    pe = flows.Demands.random(16, 100, seed=3)
    keep = pe.src // 2 != pe.dst // 2
    assert np.array_equal(d.src, pe.src[keep] // 2) and np.array_equal(d.dst, pe.dst[keep] // 2)


def test_the_concentration_hint_counts_routers_with_pes(tmp_path):
    # 8 edge switches carry the hosts: 32 PEs need c=4 there (the spines stay without)
    with pytest.raises(MachineError, match=r"'fattree:k=4' has 16 PEs but the machine has 32: write fattree:k=4:c=4"):
        run(_study(["torus:8x4", "fattree:k=4"]), tmp_path / "o")
    assert cd.from_spec("fattree:k=4:c=4").num_terminals == 32


def test_the_concentration_hint_on_a_tree_whose_switches_equal_its_pes(tmp_path):
    # ktree:k=2:n=2 has 4 switches and 4 PEs, but only its 2 leaves carry them: 16 PEs need c=8
    with pytest.raises(MachineError, match=r"write ktree:k=2:n=2:c=8 to concentrate it"):
        run(_study(["torus:4x4", "ktree:k=2:n=2"]), tmp_path / "o")


def test_the_answer_names_the_studys_own_cost_measure():
    s = _study(["torus:8x4", "hypercube:5"], ranking={"objective": "capacity", "baseline": "torus:8x4",
                                                      "cost": "ports"})
    best = run(s).answers[0]
    # ports = degree + PEs per router, summed: 32 x (5 + 1) for the 5-cube, 32 x (4 + 1) for the 8x4 torus
    assert best.winner == "hypercube:5"
    assert "at a different cost: ports 192 vs 160, links 80 vs 64, radix 6 vs 5" in best.sentence()
