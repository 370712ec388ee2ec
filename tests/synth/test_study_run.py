"""The design flow: study validation, ranking, resumability, parallel backends, outputs."""

import csv
import json
import re

import pytest

import flows
from candidates import from_spec, read_topology
from synth.cli import main
from synth.evaluate import build_problem, evaluate
from synth.runner import run
from synth.study import StudyError, builtin_study, load_study, study_from_dict

SMALL = {
    "name": "small",
    "seed": 3,
    "candidates": {"specs": ["ring:16", "torus:4x4", "mesh:4x4", "rtt:a=2:c=2", "hypercube:4", "complete:16"],
                   "sweep": [{"family": "twisted", "shape": ["4x4"], "t1": [1, 2]}], "max_degree": 6},
    "traffic": {"pattern": "random", "count": 48, "scales": [0.2, 0.5]},
    "ranking": {"objective": "both", "eps": 0.05, "baseline": "torus:4x4"},
    "cross_check": {"top": 2},
}


def strip(records):
    records = [r.to_dict() for r in records]
    return [{k: v for k, v in r.items() if k not in ("seconds", "compile_seconds")} | (
        {"capacity": {k: v for k, v in r["capacity"].items() if k != "seconds"}} if "capacity" in r else {}) | (
        {"latency": [{k: v for k, v in x.items() if k != "seconds"} for x in r["latency"]]} if "latency" in r else {})
        for r in records]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("small")
    return run(study_from_dict(SMALL), out, jobs=1), out


def test_ranking_and_pruning(small_run):
    res, _ = small_run
    st = {r.spec: r.status for r in res.records}
    assert st["complete:16"] == "pruned"                   # degree 15 > max_degree 6
    # 8 routers with 2 PEs each realise the 16-PE machine: the random demands are drawn between PEs
    assert st["rtt:a=2:c=2"] == "ok" and res.record("rtt:a=2:c=2").pes == 16
    assert all(s == "ok" for k, s in st.items() if k != "complete:16")
    # every capacity is certified: the exact LP lies inside [lambda, upper_bound]
    study = res.study
    for r in res.records:
        if r.status != "ok" or r.spec not in ("ring:16", "mesh:4x4"):
            continue
        lp = flows.solve_lp(build_problem(from_spec(r.spec), study)).lam
        assert r.capacity.lam <= lp * (1 + 1e-9) <= r.capacity.upper_bound * (1 + 1e-9)
    # ranked by latency at the first scale: non-decreasing
    lat = [res.record(s).latency[0].average_latency or float("inf") for s in res.ranking]
    assert lat == sorted(lat)
    assert all(c["within_eps"] for c in res.cross_check) and len(res.cross_check) == 2


def test_latency_never_below_average_distance(small_run):
    res, _ = small_run
    for r in res.records:
        if r.status == "ok":
            for x in r.latency:
                if x.average_latency is not None:
                    assert x.latency_bound <= x.average_latency * (1 + 1e-9)
                    assert x.latency_bound >= 1.0 - 1e-9   # every demand needs at least one hop


def test_outputs(small_run):
    res, out = small_run
    d = json.loads((out / "results.json").read_text())
    # the 4-cube is the 4x4 torus (the baseline stands for their network): evaluated once
    assert d["ranking"] == res.ranking and len(d["records"]) == 7
    assert d["same_network"] == {"torus:4x4": ["hypercube:4"]}
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert [r["spec"] for r in rows[: len(res.ranking)]] == res.ranking
    for r in rows:
        rec = next(x.to_dict() for x in res.records if x.spec == r["spec"])
        for k, lat in enumerate(rec.get("latency") or []):
            s = f"{SMALL['traffic']['scales'][k]:g}"
            if lat["average_latency"] is None:
                assert r[f"latency@{s}"] == r[f"latency_bound@{s}"] == r[f"latency_solver@{s}"] == ""
            else:
                assert float(r[f"latency_bound@{s}"]) <= float(r[f"latency@{s}"]) <= float(r[f"latency_bound@{s}"]) * 1.05
                assert r[f"latency_solver@{s}"] == lat["solver"] in ("ptas", "lp")
    html = (out / "report.html").read_text()
    for needle in ("Ranking", "Latency–throughput trade-off", "Bottleneck resources", "Exact LP cross-check",
                   "Winners", "data:image/png;base64", "(baseline)", "Pruned before the PTAS: 1 x router degree 15"):
        assert needle in html
    winners = sorted((out / "winners").glob("*.graphml"))
    assert len(winners) == 3
    first = read_topology(winners[0])
    assert first.num_links == from_spec(res.ranking[0]).num_links
    # `toposynth report DIR` re-renders the same file from results.json
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0
    assert "Exact LP cross-check" in (out / "report.html").read_text()


def test_resume_after_interruption_gives_the_same_results(small_run, tmp_path):
    res, out = small_run
    lines = (out / "records.jsonl").read_text().splitlines()
    (tmp_path / "records.jsonl").write_text("\n".join(lines[:4]) + "\n" + lines[4][: len(lines[4]) // 2])
    again = run(study_from_dict(SMALL), tmp_path, jobs=1)
    assert again.resumed == 4
    assert strip(again.records) == strip(res.records) and again.ranking == res.ranking
    # a changed study does not reuse the records
    other = dict(SMALL, seed=4)
    assert run(study_from_dict(other), tmp_path, jobs=1).resumed == 0


def test_jobs_and_dask_give_identical_results(small_run):
    res, _ = small_run
    two = run(study_from_dict(SMALL), None, jobs=2)
    assert strip(two.records) == strip(res.records) and two.ranking == res.ranking
    pytest.importorskip("distributed")
    dk = run(study_from_dict(SMALL), None, jobs=2, backend="dask")
    assert strip(dk.records) == strip(res.records) and dk.ranking == res.ranking


def test_failures_are_recorded_and_the_sweep_goes_on(tmp_path):
    g = tmp_path / "two.edges"
    g.write_text("0 1\n2 3\n")                                 # disconnected
    s = study_from_dict({"candidates": {"specs": ["ring:4"], "files": [str(g)]},
                         "traffic": {"pattern": "uniform"}, "cross_check": {"top": 0}})
    res = run(s)
    st = {r.spec: (r.status, r.reason) for r in res.records}
    assert st["ring:4"][0] == "ok"
    assert st[f"graph:{g}"] == ("failed", "disconnected topology")


def test_default_study_is_valid_and_builtin():
    s = builtin_study()
    assert s.name == "default" and s.objective == "both" and len(s.scales) >= 3


@pytest.mark.parametrize("patch,message", [
    ({"colour": 1}, r"study field colour: unknown field; valid top-level fields"),
    ({"ranking": {"objective": "speed"}}, r"ranking.objective: must be one of capacity, latency, both; got 'speed'"),
    ({"traffic": {"pattern": "random"}}, r"traffic.count: the random pattern needs a number of demands"),
    ({"traffic": {"pattern": "zipf"}}, r"traffic.pattern: must be one of uniform, random, local, file"),
    ({"candidates": {"specs": ["torus:0x4"]}}, r"candidates.specs: 'torus:0x4'"),
    ({"candidates": {}}, r"the pool is empty"),
    ({"ranking": {"eps": 2}}, r"ranking.eps: must be a number in \(0, 1\)"),
    ({"ranking": {"lp_limit": -1}}, r"ranking.lp_limit: must be an integer >= 0, got -1"),
    ({"traffic": {"scales": [0.1, -1]}}, r"traffic.scales: must be a list of finite positive numbers"),
    ({"physical": {"wiring": "uniform"}}, r"physical.packaging: wiring, blocks, connector_pins and technology need a packaging"),
])
def test_study_errors_name_the_field(patch, message):
    d = {"candidates": {"specs": ["ring:4"]}} | patch
    with pytest.raises(StudyError, match=message):
        study_from_dict(d)


def test_cli_run_and_bad_study_file(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('name = "cli"\n[candidates]\nspecs = ["ring:6", "complete:6"]\n[cross_check]\ntop = 1\n')
    assert main(["run", str(f), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "1. complete:6: lambda" in out and "within eps" in out
    assert load_study(f).objective == "capacity"
    bad = tmp_path / "bad.toml"
    bad.write_text("[candidates\nspecs = 1\n")
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert re.match(r"toposynth: error: study file .* is not valid TOML", err) and err.count("\n") == 1
    assert main(["run", "builtin:nope"]) == 2
    assert "built-in studies: default" in capsys.readouterr().err


def _reduced(name, **patch):
    import copy

    from synth.study import BUILTIN_STUDIES

    d = copy.deepcopy(BUILTIN_STUDIES[name])
    for path, value in patch.items():
        sec, key = path.split("__")
        d[sec][key] = value
    return study_from_dict(d)


def test_builtin_studies_are_listed(capsys):
    assert main(["studies"]) == 0
    out = capsys.readouterr().out
    for name in ("default", "bgl-midplane", "twisted-tori", "5dt-vs-3d"):
        assert name in out


@pytest.mark.slow   # minutes: the uniform-wired torus's latency search (tests/synth/test_bgl_uniform.py covers
#                     the uniform baseline in the default run)
def test_bgl_midplane_study_reduced(tmp_path):
    hier = {"rows": ["enumerate:8:3"], "columns": ["ring:4"], "upper_rows": ["ring:4"], "upper_columns": ["ring:4"],
            "placements": "min-cutwidth", "limit": 2}
    s = _reduced("bgl-midplane", candidates__hierarchy=hier, traffic__count=[256, 384], traffic__scales=[1.0],
                 candidates__specs=["torus:8x8x8", "bgl:g6:Gr`GpK*ring:4*complete:4*complete:4"])
    assert [label for label, _ in s.variants()] == ["count=256", "count=384"]
    res = run(s, tmp_path, jobs=2)
    res = res.variants[0][1]
    tmp_path = tmp_path / "count=256"
    assert [r.status for r in res.records] == ["ok"] * 4 and res.records[0].spec == "torus:8x8x8"
    for r in res.records:
        assert r.routers == 512
        # the real torus's links are all alike (uniform wiring): its own share of a board binds first;
        # the compositions' flow is in wires: connector pins bind, as the paper reports for its boards
        if r.spec == "torus:8x8x8":
            assert r.wiring == "uniform" and "uniform share" in r.capacity.bottlenecks[0].resource
        else:
            assert r.wiring == "flexible" and "connector pins" in r.capacity.bottlenecks[0].resource
        lat = r.latency[0]
        assert lat.average_latency >= lat.latency_bound > 3.0    # ns: at least one router delay
    html = (tmp_path / "report.html").read_text()
    assert "torus:8x8x8 (baseline)" in html and "connector pins" in html


def test_twisted_tori_study_matches_the_analytic_bounds():
    import candidates as cd

    s = _reduced("twisted-tori", cross_check__top=0, traffic__scales=[0.2], traffic__pattern="uniform")
    res = run(s)
    big = ["pdtt:a=4", "ptt:a=4", "pt:a=4", "rtt:a=8", "rt:a=8", "mesh:16x8"]       # the 128-router ones
    assert sorted(big, key=lambda s: -res.record(s).capacity.lam) == big
    # two machines ranked apart (machine.compare_sizes): the 32-router RTT(4) never outranks a 128-router one
    assert sorted(res.ranking) == sorted(big) and list(res.classes) == [128, 32]
    assert res.classes[32] == ["rtt:a=4", "rt:a=4"]      # by latency: RTT(4) has the shorter paths
    # by latency at 0.2: the shortest average distance of the 128-router machines wins (pdtt 4.06 hops)
    assert res.ranking[0] == min(big, key=lambda s: cd.distance_stats(cd.from_spec(s)).average_distance)
    for spec in ("rt:a=8", "rtt:a=8", "pt:a=4", "ptt:a=4", "pdtt:a=4"):
        cap = res.record(spec).capacity
        bound = cd.uniform_load(cd.from_spec(spec)).injection_bound       # equals the exact LP for these
        assert cap.lam <= bound * (1 + 1e-9) <= cap.upper_bound * (1 + 1e-9)
        # uncongested latency = average distance over distinct pairs (one unit per hop)
        ad = cd.distance_stats(cd.from_spec(spec)).average_distance
        assert res.record(spec).latency[0].average_latency == pytest.approx(ad, rel=0.05)


def test_twin_torus_study():
    res = run(_reduced("5dt-vs-3d", traffic__scales=[0.1]))
    a, b = (res.record(s).latency[0].average_latency for s in ("ndt:4x4x2x2x2", "torus:8x8x4"))
    assert a < b        # 5DT: shorter average path than the 3D torus with the same cards (11.6% at 256 PEs)
    assert res.ranking[0] == "ndt:4x4x2x2x2"


def test_hierarchy_pool_placements():
    import networkx as nx

    from candidates.enumeration.linear import count_linear_placements, linear_placements
    from synth.pool import _placed, candidate_specs

    # every linear placement of the 4-vertex star gives a distinct row graph; their number is the
    # count of placements up to automorphism and reflection
    star = "g6:" + nx.to_graph6_bytes(nx.star_graph(3), header=False).decode().strip()
    rows = _placed(star, "all")
    assert len(rows) == len(set(rows)) == count_linear_placements(nx.star_graph(3))
    # the min-cutwidth placement really has the minimum cut width
    g = from_spec("g6:G}KGGK")
    best = linear_placements(g.to_networkx(multigraph=False))[0].cutwidth
    h = from_spec(_placed("g6:G}KGGK", "min-cutwidth")[0])
    assert max(sum(1 for u, v in h.links.tolist() if min(u, v) <= gap < max(u, v)) for gap in range(7)) == best
    s = study_from_dict({"candidates": {"hierarchy": {
        "rows": ["enumerate:8:3"], "columns": ["ring:4", "path:4"], "upper_rows": ["ring:4"],
        "upper_columns": ["complete:4"], "limit": 3}}})
    specs = candidate_specs(s)
    assert len(specs) == 6 and all(x.startswith("bgl:g6:") and x.endswith("*ring:4*complete:4") for x in specs)
    with pytest.raises(StudyError, match=r"candidates.hierarchy.columns: 'ring:5' has 5 nodes"):
        study_from_dict({"candidates": {"hierarchy": {"rows": ["ring:8"], "columns": ["ring:5"],
                                                      "upper_rows": ["ring:4"], "upper_columns": ["ring:4"]}}})


def test_simulation_of_winners_and_baseline(tmp_path):
    d = {"candidates": {"specs": ["ring:16", "torus:4x4", "hypercube:4"]},
         "traffic": {"pattern": "random", "count": 48},
         "ranking": {"objective": "capacity", "baseline": "ring:16"}, "cross_check": {"top": 0},
         "simulation": {"top": 1, "preset": "tpds2010", "step": 0.2, "max_load": 1.0}}
    res = run(study_from_dict(d), tmp_path)
    assert [x["spec"] for x in res.simulation] == [res.ranking[0], "ring:16"]
    sat = {x["spec"]: x["saturation"] for x in res.simulation}
    for x in res.simulation:
        assert x["status"] == "ok" and not any(p["deadlock"] for p in x["points"])
        assert all(p["accepted"] <= p["offered"] * 1.05 for p in x["points"])
        assert x["points"][0]["accepted"] == pytest.approx(x["points"][0]["offered"], rel=0.1)
    # the flow ranking's winner also carries more in simulation than the ring
    assert sat[res.ranking[0]] > sat["ring:16"]
    html = (tmp_path / "report.html").read_text()
    assert "Simulation of the winners" in html and "ring:16 (baseline)" in html
    # resumed: the simulations are not run again
    again = run(study_from_dict(d), tmp_path)
    assert [x["saturation"] for x in again.simulation] == [x["saturation"] for x in res.simulation]
    with pytest.raises(StudyError, match="simulation.preset: must be one of"):
        study_from_dict(d | {"simulation": {"preset": "fast"}})


def test_pruning_by_certified_bounds_is_sound_and_deterministic(monkeypatch):
    from synth import runner as R
    from synth.evaluate import bounds

    monkeypatch.setattr(R, "WAVE", 2)
    d = {"candidates": {"specs": ["hypercube:4", "complete:16", "ring:16", "path:16", "mesh:4x4"]},
         "traffic": {"pattern": "uniform"}, "ranking": {"objective": "capacity"}, "cross_check": {"top": 0}}
    res = run(study_from_dict(d))
    st = {r.spec: r.status for r in res.records}
    # wave 1 meets the complete graph's lambda = 15: ring, path and torus cannot reach it
    assert st == {"hypercube:4": "ok", "complete:16": "ok", "ring:16": "pruned", "path:16": "pruned",
                  "mesh:4x4": "pruned"}
    best = res.record("complete:16").capacity.lam
    for s in ("ring:16", "path:16", "mesh:4x4"):
        b = res.record(s).bound["capacity"]
        assert b < best
        # the bound is certified: the exact LP optimum lies below it
        lp = flows.solve_lp(build_problem(from_spec(s), res.study)).lam
        assert lp <= b * (1 + 1e-9)
    assert strip(run(study_from_dict(d), None, jobs=2).records) == strip(res.records)
    # without pruning everything is evaluated and the ranking head is the same
    full = run(study_from_dict(d | {"ranking": {"objective": "capacity", "prune": False}}))
    assert all(r.status == "ok" for r in full.records) and full.ranking[0] == res.ranking[0]
    # latency objective: prunes on the latency lower bound
    dl = d | {"traffic": {"pattern": "uniform", "scales": [0.05]}, "ranking": {"objective": "latency"}}
    resl = run(study_from_dict(dl))
    for r in resl.records:
        if r.status == "pruned":
            assert r.bound["latency"] > resl.record("complete:16").latency[0].average_latency
    assert bounds("ring:16", study_from_dict(dl))["latency"] == pytest.approx(64 / 15)


@pytest.mark.slow   # minutes: the uniform-wired torus at two pin counts
def test_pins_sweep_reduced(tmp_path):
    hier = {"rows": ["enumerate:8:3"], "columns": ["ring:4"], "upper_rows": ["ring:4"], "upper_columns": ["ring:4"],
            "placements": "min-cutwidth", "limit": 1}
    s = _reduced("bgl-pins", candidates__hierarchy=hier, traffic__count=512, traffic__scales=[3.0],
                 physical__connector_pins={"node_card": [160, 320]}, candidates__specs=["torus:8x8x8"])
    assert [label for label, _ in s.variants()] == ["node_card=160", "node_card=320"]
    res = run(s, tmp_path, jobs=1)
    few, many = (r for _, r in res.variants)
    for spec in ("torus:8x8x8",):
        a, b = few.record(spec), many.record(spec)
        # more pins never hurt: certified bounds of the richer packaging against the poorer one's answers
        assert b.capacity.upper_bound >= a.capacity.lam
        if a.latency[0].average_latency is not None:
            assert b.latency[0].latency_bound <= a.latency[0].average_latency * (1 + 1e-9)
    assert max(r.capacity.lam for r in many.records) > max(r.capacity.lam for r in few.records)
    summ = json.loads((tmp_path / "sweep.json").read_text())["summary"]
    assert [v["variant"] for v in summ] == ["node_card=160", "node_card=320"]
    assert "Physical sweep" in (tmp_path / "report.html").read_text()
    assert (tmp_path / "node_card=320" / "report.html").exists()
    with pytest.raises(StudyError, match="unknown level 'rack'"):
        _reduced("bgl-pins", physical__connector_pins={"rack": 10})


def test_mixed_traffic_through_a_mapping_matches_the_paper_model():
    from synth.mapping import paper_model

    s = study_from_dict({"candidates": {"specs": ["rt:a=4:c=2", "rtt:a=4:c=2"]},
                         "traffic": {"pattern": "mixed", "mapping": "fv2", "alpha": 0.5}, "cross_check": {"top": 2}})
    res = run(s)
    lp = {c["spec"]: c["lp_lambda"] for c in res.cross_check}
    # per task -> per router (2 tasks each): RT's minimal-routing model is the LP optimum
    assert 2 * lp["rt:a=4:c=2"] == pytest.approx(paper_model("rt", "fv2", 4, 0.5).throughput[0])
    # RTT: the LP may route non-minimally, so it can only beat the minimal-routing model
    assert 2 * lp["rtt:a=4:c=2"] >= paper_model("rtt", "fv2", 4, 0.5).throughput[0] - 1e-9
    assert res.ranking[0] == "rtt:a=4:c=2"
    with pytest.raises(StudyError, match="traffic.mapping"):
        study_from_dict({"candidates": {"specs": ["ring:4"]}, "traffic": {"pattern": "mixed", "mapping": "fz9"}})
    with pytest.raises(StudyError, match="belong to the mixed pattern"):
        study_from_dict({"candidates": {"specs": ["ring:4"]}, "traffic": {"mapping": "fv2"}})


def test_a_killed_worker_stops_the_sweep_with_one_line_and_keeps_the_records(tmp_path, monkeypatch, capsys):
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    from synth import runner as R
    real = R.Executor

    class DiesAfterOne(real):
        """The first task completes, then the pool breaks as when loky loses a worker."""

        def as_completed(self):
            it = super().as_completed()
            yield next(it)
            raise TerminatedWorkerError("a worker process was killed (SIGKILL)")

    monkeypatch.setattr(R, "Executor", DiesAfterOne)
    f = tmp_path / "s.toml"
    f.write_text('[candidates]\nspecs = ["ring:16", "mesh:4x4", "torus:4x4"]\n[cross_check]\ntop = 0\n')
    out = tmp_path / "o"
    rc = main(["run", str(f), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("toposynth: error: the sweep stopped: TerminatedWorkerError")
    assert "the 1 records in" in err and "rerun the same command" in err and err.count("\n") == 1
    monkeypatch.setattr(R, "Executor", real)
    assert main(["run", str(f), "--out", str(out), "--quiet"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["resumed"] == 1 and {r["spec"] for r in res["records"]} == {"ring:16", "mesh:4x4", "torus:4x4"}


def test_mixed_traffic_with_annealed_placement():
    from synth.evaluate import study_demands

    s = study_from_dict({"candidates": {"specs": ["rtt:a=4"]}, "seed": 5,
                         "traffic": {"pattern": "mixed", "mapping": "anneal", "alpha": 1.0}})
    t = from_spec("rtt:a=4")
    dem = study_demands(t, s)
    from candidates.analytics._kernels import all_pairs_bfs

    D = all_pairs_bfs(t.indptr, t.indices)
    ident = study_demands(t, study_from_dict({"candidates": {"specs": ["rtt:a=4"]},
                                              "traffic": {"pattern": "mixed", "mapping": "id", "alpha": 1.0}}))
    cost = float(dem.amount @ D[dem.src, dem.dst])
    # annealing starts from id and keeps the best placement seen: never worse than id
    assert cost <= float(ident.amount @ D[ident.src, ident.dst]) + 1e-9
    assert dem.total == pytest.approx(ident.total)
    assert study_demands(t, s).src.tolist() == dem.src.tolist()      # same seed, same placement


def test_pattern_sweep_with_simulator_patterns(tmp_path):
    import candidates as cd

    d = {"candidates": {"specs": ["rt:a=4", "rtt:a=4", "ring:32"]},
         "traffic": {"pattern": ["uniform", "sim:bitcomplement"]}, "cross_check": {"top": 1}}
    s = study_from_dict(d)
    assert [label for label, _ in s.variants()] == ["pattern=uniform", "pattern=sim-bitcomplement"]
    res = run(s, tmp_path)
    uni, bc = (r for _, r in res.variants)
    assert {r.status for r in uni.records} == {r.status for r in bc.records} == {"ok"}
    # bit complement on RT(4) (8 x 4 = 32 PEs): every PE sends to its complement; the exact LP agrees
    assert all(c["within_eps"] for c in bc.cross_check)
    p = build_problem(from_spec("rt:a=4"), bc.study)
    assert len(p.demands) == 32 and set(p.demands.amount.tolist()) == {1.0}
    assert bc.record("rtt:a=4").capacity.lam > bc.record("rt:a=4").capacity.lam
    assert (tmp_path / "pattern=sim-bitcomplement" / "report.html").exists()
    with pytest.raises(StudyError, match=r"traffic.pattern: must be one of uniform, random, .*bitcomplement, .* "
                                         r"got 'sim:zipf'"):
        study_from_dict({"candidates": {"specs": ["ring:4"]}, "traffic": {"pattern": "sim:zipf"}})
    # the registry's name alone means the same pattern
    bare = study_from_dict({"candidates": {"specs": ["rt:a=4"]}, "traffic": {"pattern": "bitcomplement"}})
    q = build_problem(from_spec("rt:a=4"), bare)
    assert q.demands.src.tolist() == p.demands.src.tolist() and q.demands.dst.tolist() == p.demands.dst.tolist()
    assert cd.from_spec("rt:a=4").n == 32


def test_application_skeleton_traffic():
    from candidates.analytics._kernels import all_pairs_bfs
    from synth.evaluate import study_demands

    t = from_spec("rtt:a=4")
    base = {"candidates": {"specs": ["rtt:a=4"]}, "seed": 2}
    ident = study_demands(t, study_from_dict(base | {"traffic": {"pattern": "app", "app": "cg"}}))
    sa = study_demands(t, study_from_dict(base | {"traffic": {"pattern": "app", "app": "cg", "mapping": "anneal"}}))
    # bytes scaled to one unit per process on average; identity keeps process p on router p
    assert ident.total == pytest.approx(32.0) and sa.total <= 32.0 + 1e-9
    D = all_pairs_bfs(t.indptr, t.indices)
    cost = lambda d: float(d.amount @ D[d.src, d.dst])  # noqa: E731
    assert cost(sa) <= cost(ident) + 1e-9       # annealing never ends worse than its start
    res = run(study_from_dict({"candidates": {"specs": ["rtt:a=4", "torus:16x8"]}, "machine": {"compare_sizes": True},
                               "traffic": {"pattern": "app", "app": "ft"}, "cross_check": {"top": 0}}))
    st = {r.spec: r for r in res.records}
    assert st["rtt:a=4"].status == "ok"
    assert st["torus:16x8"].status == "failed" and "FT" in st["torus:16x8"].reason   # 128 does not divide nz = 64
    with pytest.raises(StudyError, match="traffic.app: must be one of cg, mg, ft, is, lu, bt, sp"):
        study_from_dict(base | {"traffic": {"pattern": "app", "app": "hpl"}})


def test_custom_packaging_and_technology_in_a_study():
    from flows.physical import Board, Packaging, RouterDelay, Technology, physical_problem
    from candidates.placement import block_placement

    boards = [{"level": "card", "width_m": 0.1, "height_m": 0.1, "signal_layers": 2, "wire_pitch_m": 0.001,
               "connectors": 1, "pins_per_connector": 40},
              {"level": "board", "width_m": 0.4, "height_m": 0.3, "signal_layers": 4, "wire_pitch_m": 0.001}]
    d = {"candidates": {"specs": ["torus:4x4"]}, "traffic": {"pattern": "uniform", "scales": [0.5]},
         "physical": {"packaging": "custom", "boards": boards, "blocks": [[2, 4], [4, 4]], "router_pins": 64,
                      "technology": {"wire_delay_ns_per_m": 0.0, "fo4_ns": 0.1}},
         "cross_check": {"top": 1}}
    s = study_from_dict(d)
    p = build_problem(build_problem.__globals__["build_topology"]("torus:4x4", s), s)
    t = block_placement(from_spec("torus:4x4"), [(2, 4), (4, 4)], ("card", "board"))
    q = physical_problem(t, flows.Demands.uniform(16), Technology(0.0, RouterDelay(fo4_ns=0.1)),
                         Packaging(tuple(Board(**b) for b in boards), 2, 64))
    assert p.R.shape == q.R.shape and abs(p.R - q.R).max() == 0 and (p.capacity == q.capacity).all()
    # no wire delay: every channel costs the router delay of a 5-port router (4 links + 1 PE)
    assert p.latency == pytest.approx(RouterDelay(fo4_ns=0.1)(5))
    res = run(s)
    assert res.cross_check[0]["within_eps"]
    with pytest.raises(StudyError, match=r"physical.boards\[0\]: board 'card': width_m must be a positive number"):
        study_from_dict(d | {"physical": {"packaging": "custom", "boards": [boards[0] | {"width_m": -1}]}})
    with pytest.raises(StudyError, match="physical.blocks: one block per packaging level"):
        study_from_dict(d | {"physical": {"packaging": "custom", "boards": boards, "blocks": [[2, 4]]}})
    with pytest.raises(StudyError, match="physical.technology.speed: unknown field"):
        study_from_dict(d | {"physical": {"packaging": "bgl", "technology": {"speed": 1}}})


def test_the_default_study_end_to_end(tmp_path, capsys):
    # the README's main job: `toposynth run` with no study
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert main(["run", "--quiet"]) == 0
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert "study 'default': 11 candidates" in out         # rt:a=4 is torus:8x4: evaluated once and "within eps" in out and "NOT within eps" not in out
    d = json.loads((tmp_path / "toposynth-default" / "results.json").read_text())
    assert all(r["status"] == "ok" for r in d["records"])
    assert len(d["cross_check"]) == 3 and all(c["within_eps"] for c in d["cross_check"])
    sims = d["simulation"]
    assert len(sims) == 3 and all(x["status"] == "ok" and x["saturation"] > 0 for x in sims)
    assert sims[-1]["spec"] == "torus:8x4"           # the baseline is simulated too
    html = (tmp_path / "toposynth-default" / "report.html").read_text()
    for needle in ("Ranking", "Latency–throughput trade-off", "Exact LP cross-check", "Simulation of the winners",
                   "Winners", "torus:8x4 (baseline)"):
        assert needle in html


def test_fingerprint_follows_the_contents_of_the_files_a_study_reads(tmp_path):
    """Resuming must not reuse records computed from an older demand file."""
    dem = tmp_path / "d.csv"
    dem.write_text("src,dst,amount\n0,5,0.5\n3,9,0.25\n")
    d = {"name": "f", "candidates": {"specs": ["torus:4x4"]}, "traffic": {"pattern": "file", "file": str(dem)}}
    first = study_from_dict(d).fingerprint()
    assert study_from_dict(d).fingerprint() == first
    dem.write_text("src,dst,amount\n0,5,0.5\n3,9,0.75\n")
    assert study_from_dict(d).fingerprint() != first


def test_latency_inside_the_capacity_bracket_is_decided_by_the_lp_when_it_fits(tmp_path):
    """Scales between the PTAS's certified lambda and its upper bound: the
    exact LP decides them (a latency below lambda*, infeasible above); with
    lp_limit = 0 they are undecided and the reason says how to decide them.
    Far below capacity the PTAS answers within eps of the LP optimum."""
    base = {"candidates": {"specs": ["torus:4x4"]}, "traffic": {"pattern": "random", "count": 40}}
    st0 = study_from_dict(base | {"ranking": {"objective": "capacity"}})
    p = build_problem(from_spec("torus:4x4"), st0)
    cap = flows.max_concurrent_flow(p, eps=st0.eps)
    lam = flows.solve_lp(p).lam
    assert cap.lam < lam < cap.upper_bound   # 0.5643 < 4/7 < 0.5898
    far, below, above = 0.5 * cap.lam, 0.5 * (cap.lam + lam), 0.5 * (lam + cap.upper_bound)
    exact = {s: flows.solve_lp(p.scaled(s), "latency").average_latency for s in (far, below)}
    res = run(study_from_dict(base | {"traffic": base["traffic"] | {"scales": [far, below, above]},
                                      "cross_check": {"top": 0}}), tmp_path, jobs=1)
    lat = [x.to_dict() for x in res.records[0].latency]
    assert [x["solver"] for x in lat] == ["ptas", "lp", "lp"]
    assert lat[0]["latency_bound"] <= exact[far] * (1 + 1e-7)
    assert exact[far] <= lat[0]["average_latency"] * (1 + 1e-7)
    assert lat[1]["status"] == "ok" and lat[1]["average_latency"] == pytest.approx(exact[below])
    assert lat[1]["latency_bound"] == lat[1]["average_latency"]
    assert lat[2]["status"] == "infeasible" and lat[2]["average_latency"] is None
    assert f"{exact[below]:.4g} (LP)</td>" in (tmp_path / "report.html").read_text()
    off = evaluate("torus:4x4", study_from_dict(base | {"traffic": base["traffic"] | {"scales": [below]},
                                                       "ranking": {"lp_limit": 0}})).latency[0]
    assert off.status == "undecided"
    assert f"raise ranking.lp_limit to {flows.lp_columns(p, 'latency')} to decide" in off.reason


def test_the_same_network_is_evaluated_once_and_listed(tmp_path):
    d = {"candidates": {"specs": ["torus:4x4x4", "hypercube:6", "torus:8x8", "torus:8x8:c=1"]},
         "traffic": {"pattern": "uniform"}, "ranking": {"baseline": "hypercube:6"}, "cross_check": {"top": 0}}
    res = run(study_from_dict(d), tmp_path)
    # the baseline stands for its network; the 8x8 torus spelled twice is one candidate
    assert [r.spec for r in res.records] == ["hypercube:6", "torus:8x8"]
    assert res.same_network == {"hypercube:6": ["torus:4x4x4"], "torus:8x8": ["torus:8x8:c=1"]}
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["same_network"] == res.same_network
    page = (tmp_path / "report.html").read_text()
    assert "The same network" in page and "torus:4x4x4" in page


def test_under_a_packaging_only_the_same_placed_machine_is_one_candidate():
    from synth.pool import candidate_pool

    base = {"traffic": {"pattern": "uniform"}, "physical": {"packaging": "bgl"}}
    s = study_from_dict({**base, "candidates": {"specs": ["torus:8x8x8", "torus:8x8x8:c=1", "ptt:a=4"]}})
    p = candidate_pool(s)
    assert list(p.sizes) == ["torus:8x8x8", "ptt:a=4"] and p.same == {"torus:8x8x8": ["torus:8x8x8:c=1"]}
    # without the packaging, isomorphic candidates are one network: RT(4) is the 8x4 torus
    q = candidate_pool(study_from_dict({"candidates": {"specs": ["rt:a=4", "torus:8x4"]}}))
    assert list(q.sizes) == ["rt:a=4"] and q.same == {"rt:a=4": ["torus:8x4"]}


def test_the_queueing_load_model_ranks_by_latency_under_load(tmp_path):
    """[ranking] latency_model = "queueing": flow deviation at every scale, each record certified and
    equal to flows.min_latency_queueing's own answer; the latency rises with the scale (the linear
    model's stays flat); linear studies keep their fingerprint."""
    base = {"candidates": {"specs": ["torus:4x4", "mesh:4x4"]},
            "traffic": {"pattern": "random", "count": 40, "scales": [0.1, 0.2, 0.3]},
            "ranking": {"objective": "latency", "baseline": "torus:4x4"}, "cross_check": {"top": 0}}
    linear = study_from_dict(base)
    q = study_from_dict(base | {"ranking": base["ranking"] | {"latency_model": "queueing", "service": 2.0}})
    assert "latency_model" not in linear.to_dict()["ranking"] and q.fingerprint() != linear.fingerprint()
    assert q.queueing == flows.QueueingModel(2.0, 1.0) and linear.queueing is None
    res = run(q, tmp_path, jobs=1)
    torus = next(r for r in res.records if r.spec == "torus:4x4")
    lat = [x.to_dict() for x in torus.latency]
    assert [x["solver"] for x in lat] == ["deviation"] * 3 and all(x["solver_status"] == "optimal" for x in lat)
    assert lat[0]["average_latency"] < lat[1]["average_latency"] < lat[2]["average_latency"]
    p = build_problem(from_spec("torus:4x4"), q)
    own = flows.min_latency_queueing(p.scaled(0.3), flows.QueueingModel(2.0), eps=q.eps)
    assert own.latency_bound <= lat[2]["average_latency"] * (1 + 1e-9)
    assert lat[2]["latency_bound"] <= own.average_latency * (1 + 1e-9)
    assert lat[2]["zero_load_part"] + lat[2]["queueing_part"] == pytest.approx(lat[2]["average_latency"])
    assert "queueing wait (Kleinrock&#x27;s model: service 2 hops" in (tmp_path / "report.html").read_text()
    with pytest.raises(StudyError, match="add latency_model"):
        study_from_dict(base | {"ranking": base["ranking"] | {"service": 2.0}})
    with pytest.raises(StudyError, match="ranking.terminals: the PEs' own channels need a plain topology"):
        study_from_dict(base | {"ranking": base["ranking"] | {"latency_model": "queueing", "terminals": True},
                                "physical": {"packaging": "bgl"}})
    assert study_from_dict(base | {"ranking": base["ranking"] | {"latency_model": "queueing", "terminals": True}}
                           ).queueing.terminals is True
    with pytest.raises(StudyError, match="ranking.latency_model"):
        study_from_dict(base | {"ranking": base["ranking"] | {"latency_model": "mm1"}})


def test_distances_between_pes_as_networkx_counts_them(small_run):
    """A record's PE distances are over ordered pairs of distinct PEs (two PEs of one router at 0 hops):
    rtt:a=2:c=2 has 2 PEs a router, so they differ from the routers' own average."""
    import itertools

    import networkx as nx

    res, _ = small_run
    for r in res.records:
        if not r.ok:
            continue
        t = from_spec(r.spec)
        g = nx.Graph(list(t.to_networkx().edges()))
        hops = dict(nx.all_pairs_shortest_path_length(g))
        pes = [v for v in range(t.n) for _ in range(int(t.terminals[v]))]
        d = [hops[a][b] for a, b in itertools.permutations(range(len(pes)), 2) for a, b in [(pes[a], pes[b])]]
        assert r.pe_average_distance == pytest.approx(sum(d) / len(d)) and r.pe_diameter == max(d)
    rt = res.record("rtt:a=2:c=2")
    assert rt.pe_average_distance < rt.average_distance


def test_ties_are_the_neighbours_the_certificates_do_not_order():
    """Ranked by capacity: a candidate is a tie with the one above exactly when their certified intervals
    overlap; every pair not called a tie is in the order of the exact LP (HiGHS), so the order the ranking
    states as certain is right; the answer names the runner-up it ties with."""
    from synth.ties import capacity_interval, overlap

    d = {"seed": 1, "machine": {"pes": 32},
         "candidates": {"specs": ["torus:8x4", "rtt:a=4", "twisted:8x4:t1=3", "twisted:8x4:t1=2", "ndt:4x2x2",
                                  "product:ring:8*path:4", "mesh:8x4"]},
         "traffic": {"pattern": "random", "count": 128}, "ranking": {"objective": "capacity", "eps": 0.1},
         "cross_check": {"top": 0}}
    study = study_from_dict(d)
    res = run(study)
    lp = {s: flows.solve_lp(build_problem(from_spec(s), study)).lam for s in res.ranking}
    assert res.ties                                               # eps 0.1 leaves some order open
    for up, down in zip(res.ranking, res.ranking[1:]):
        a, b = capacity_interval(res.record(up)), capacity_interval(res.record(down))
        assert (down in res.ties) == overlap(a, b)
        if down not in res.ties:
            assert lp[up] > lp[down]
        else:
            assert res.ties[down] == up
    first = res.answers[0]
    assert (first.tied_with is not None) == (res.ranking[1] in res.ties)
    assert res.to_dict()["ties"] == res.ties


def test_progress_lines_estimate_the_time_left(monkeypatch, capsys):
    """Past the first seconds (here at once) a candidate's progress line says about how long the rest takes;
    the last candidate's says nothing more is left."""
    import synth.runner as R

    monkeypatch.setattr(R, "_ESTIMATE_AFTER", 0.0)
    monkeypatch.setattr(R, "_ESTIMATE_LEFT", 0.0)
    run(study_from_dict({**SMALL, "cross_check": {"top": 0}}), progress=True)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("  [")]
    assert len(lines) == 7                                  # the pool, complete:16 pruned included
    assert all(re.search(r"\); about \d+ (s|min) left$", x) for x in lines[:-1])
    assert not lines[-1].endswith("left")
