"""`toposynth search`: its JSON, its files, its refusals, and jobs that do not change the answer."""

import json
import subprocess
import sys

import networkx as nx
import numpy as np
import pytest

import candidates as cd
from synth.cli import main
from synth.search import search


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "synth", *args], capture_output=True, text=True)


def test_json_has_the_promised_fields(tmp_path, capsys):
    out = tmp_path / "best.graphml"
    assert main(["search", "--routers", "64", "--degree", "4", "--moves", "5000", "--seed", "2",
                 "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("routers", "degree", "diameter", "aspl", "moore_diameter", "moore_aspl", "seconds", "moves", "out"):
        assert key in d
    assert (d["routers"], d["degree"], d["moves"], d["out"]) == (64, 4, 5000, str(out))
    G = nx.read_graphml(out)
    assert G.number_of_nodes() == 64 and G.number_of_edges() == 128
    assert G.graph["objective"] == "aspl" and G.graph["seed"] == 2 and G.graph["moves"] == 5000
    assert G.graph["spec"] == d["spec"] == "search:n=64:d=4:moves=5000:seed=2"
    # the file and the spec are the same graph, which the search's figures describe
    t = cd.read_topology(out)
    assert nx.diameter(t.to_networkx()) == d["diameter"]
    assert nx.average_shortest_path_length(t.to_networkx()) == pytest.approx(d["aspl"], abs=1e-12)
    assert np.array_equal(cd.from_spec(d["spec"]).links, t.links)


def test_graph6_out_keeps_the_provenance_beside_it(tmp_path, capsys):
    out = tmp_path / "best.g6"
    assert main(["search", "--routers", "32", "--degree", "3", "--moves", "2000", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Moore bound" in text and str(out) in text
    t = cd.read_topology(out)
    prov = json.loads((tmp_path / "best.g6.json").read_text())
    assert t.n == 32 and prov["spec"] == "search:n=32:d=3:moves=2000:seed=0" and prov["degree"] == 3


@pytest.mark.parametrize("args, words", [
    (["--routers", "8", "--degree", "8"], "degree 8 needs more routers"),
    (["--routers", "9", "--degree", "3"], "odd number"),
    (["--routers", "16", "--degree", "3", "--moves", "0"], "a budget of 0 moves"),
    (["--routers", "16", "--degree", "3", "--time", "0"], "--time must be a positive"),
    (["--routers", "16", "--degree", "3", "--symmetry", "5"], "must divide"),
    (["--routers", "16", "--degree", "1"], "cannot be connected"),
    (["--routers", "16", "--degree", "3", "--out", "x.png"], "written as .graphml"),
    (["--routers", "20", "--degree", "4", "--grid", "4x4"], "holds 16 routers"),
    (["--routers", "20", "--degree", "4", "--max-length", "1.5"], "--max-length needs the routers' positions"),
    (["--routers", "20", "--degree", "4", "--grid", "5x4", "--max-length", "1.5", "--symmetry", "4"],
     "use symmetry 1"),
    (["--routers", "64", "--degree", "4", "--blocks", "1x1x2,4x4x4"], "give --packaging too"),
    (["--routers", "64", "--degree", "4", "--connector-pins", "node_card=240"], "need --packaging"),
    (["--routers", "64", "--degree", "4", "--packaging", "bgl"], "--blocks"),
    (["--routers", "64", "--degree", "4", "--packaging", "bgl", "--blocks", "1x1x2,2x2x2,4x4x2"], "holds 32 routers"),
    (["--routers", "64", "--degree", "4", "--packaging", "nope"], "--packaging takes bgl or a TOML file"),
    (["--routers", "64", "--degree", "4", "--objective", "physical"], "prices links by a packaging"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    p = run_cli("search", *args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toposynth: error:") and words in lines[0]


def test_jobs_do_not_change_the_graph_and_a_rerun_resumes(tmp_path):
    # more restarts than loky takes at once (jobs + 1): the rest wait and must still run
    one = search(64, 4, moves=3000, restarts=5, seed=9, jobs=1)
    two = search(64, 4, moves=3000, restarts=5, seed=9, jobs=2, checkpoint=tmp_path / "ck")
    assert len(two.result.restarts) == 5
    assert np.array_equal(one.result.topology.links, two.result.topology.links)
    assert [r.sum_distances for r in one.result.restarts] == [r.sum_distances for r in two.result.restarts]
    # the checkpoint holds every restart's end: the same command answers from it
    again = search(64, 4, moves=3000, restarts=5, seed=9, checkpoint=tmp_path / "ck")
    assert np.array_equal(again.result.topology.links, one.result.topology.links)
    with pytest.raises(cd.SpecError, match="another search"):
        search(64, 4, moves=4000, restarts=5, seed=9, checkpoint=tmp_path / "ck")


def test_throughput_finalists_are_certified_and_the_best_kept():
    out = search(64, 4, objective="throughput", moves=3000, restarts=2, seed=1)
    assert out.capacity is not None and len(out.finalists) == 2
    assert out.capacity.lam == max(f.lam for f in out.finalists)
    assert out.result.best_restart == out.capacity.restart
    assert out.capacity.gap <= 0.01
    # the answer's spec rebuilds that restart's graph
    assert np.array_equal(cd.from_spec(out.result.topology.spec).links, out.result.topology.links)


def test_a_dask_cluster_gives_the_same_graph():
    pytest.importorskip("distributed")
    one = search(48, 3, moves=2000, restarts=2, seed=3, jobs=1)
    on_dask = search(48, 3, moves=2000, restarts=2, seed=3, jobs=2, backend="dask")
    assert np.array_equal(one.result.topology.links, on_dask.result.topology.links)


def test_a_searched_graph_is_a_candidate_of_a_study(tmp_path):
    """Ranked, cross-checked by the exact LP and simulated like any family: at the torus's cost (64
    routers of degree 4) the searched graph carries more uniform traffic than the 8x8 torus."""
    from synth.runner import run
    from synth.study import study_from_dict

    study = study_from_dict({
        "name": "searched", "seed": 1, "machine": {"pes": 64},
        "candidates": {"specs": ["torus:8x8", "search:n=64:d=4:moves=5000:seed=1"]},
        "traffic": {"pattern": "uniform"}, "ranking": {"objective": "capacity", "eps": 0.05, "baseline": "torus:8x8"},
        "cross_check": {"top": 2}, "simulation": {"top": 2}})
    res = run(study, tmp_path / "out", jobs=1)
    s, t = res.record("search:n=64:d=4:moves=5000:seed=1"), res.record("torus:8x8")
    assert s.status == t.status == "ok" and s.links == t.links == 128
    assert s.capacity.lam > 1.2 * t.capacity.upper_bound
    assert res.ranking[0] == "search:n=64:d=4:moves=5000:seed=1"
    assert all(c["within_eps"] for c in res.cross_check)


def test_grid_and_max_length_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "chip.graphml"
    assert main(["search", "--routers", "20", "--degree", "4", "--grid", "5x4", "--max-length", "1.5", "--irregular",
                 "--moves", "3000", "--seed", "1", "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["spec"] == "search:n=20:d=4:moves=3000:seed=1:grid=5x4:max_length=1.5:regular=0"
    t = cd.read_topology(out)
    # the file carries the grid: router i at (i mod 5, i div 5), every link at most sqrt(2) long
    assert t.coords.tolist() == [[i % 5, i // 5] for i in range(20)] and t.shape == (5, 4)
    xy = t.coords.astype(float)
    assert np.hypot(*(xy[t.links[:, 0]] - xy[t.links[:, 1]]).T).max() <= 2 ** 0.5 + 1e-12
    assert t.degree.max() <= 4
    assert nx.average_shortest_path_length(t.to_networkx()) == pytest.approx(d["aspl"], abs=1e-12)


def test_packaging_on_the_command_line(tmp_path, capsys):
    """32 routers in Blue Gene/L's cards (compute cards of 2, node cards of 8), local traffic: the physical
    objective's even split is a feasible flow, so at most the certified capacity; the graph keeps its cards."""
    out = tmp_path / "packed.graphml"
    assert main(["search", "--routers", "32", "--degree", "5", "--irregular", "--packaging", "bgl",
                 "--blocks", "1x1x2,2x2x2,4x4x2", "--connector-pins", "node_card=100", "--traffic", "local:96",
                 "--max-length", "1.0", "--moves", "400", "--seed", "1", "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["objective"] == "physical" and d["spec"] == ""
    assert 0 < d["split_physical"] <= d["capacity"]["upper_bound"] * (1 + 1e-9)
    t = cd.read_topology(out)
    assert t.placement is not None and t.placement.levels == ("compute_card", "node_card", "midplane")
    from flows.physical import Packaging, link_lengths

    assert link_lengths(t.placement, Packaging.bluegene_l(), t.links[:, 0], t.links[:, 1]).max() <= 1.0
    # 0.8 m of wire does not reach from one node card to another (0.87 m at least): no connected graph
    p = run_cli("search", "--routers", "32", "--degree", "5", "--irregular", "--packaging", "bgl",
                "--blocks", "1x1x2,2x2x2,4x4x2", "--max-length", "0.8", "--moves", "200")
    assert p.returncode == 2 and "no connected graph" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_uniform_traffic_too_large_to_certify_says_so(monkeypatch):
    """Uniform traffic has a demand per router pair: past the limit the finalists are not certified, and the
    outcome says why (the even split's capacity stays a lower bound)."""
    import synth.search as ss
    from candidates.search.layout import box_layout
    from synth.workload import physical_from_options

    monkeypatch.setattr(ss, "CERTIFY_MAX_DEMANDS", 500)
    phys = physical_from_options("bgl", blocks="1x1x2,2x2x2,4x4x2")
    placed = phys.place(cd.mesh((4, 4, 2)))
    out = search(32, 4, objective="physical", moves=100, layout=box_layout((4, 4, 2), placed.placement),
                 physical=phys, regular=False)
    assert out.capacity is None and "992 demands" in out.not_certified
    assert out.result.split_physical > 0
