"""The command line: output values, JSON keys, exit codes."""

import json
import subprocess
import sys

import pytest

from synth.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_describe_json_rtt(capsys):
    rc, out, _ = run(capsys, "describe", "rtt:a=4", "--json")
    assert rc == 0
    d = json.loads(out)
    for key in ("nodes", "links", "diameter", "average_distance", "average_distance_with_self", "per_dimension"):
        assert key in d
    assert d["nodes"] == 32 and d["links"] == 64 and d["diameter"] == 4
    assert d["average_distance_with_self"] == pytest.approx((4 * 16 - 1) / 24)
    assert d["average_distance"] == pytest.approx((4 * 16 - 1) / 24 * 32 / 31)
    assert set(d["per_dimension"]) == {"x", "y"}


def test_describe_default_and_text(capsys):
    rc, out, _ = run(capsys, "describe")
    assert rc == 0 and "rtt:a=8" in out and "diameter" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["describe", "foo:3"], "unknown topology family"),
        (["describe", "rtt:a=1"], "a >= 2"),
        (["describe", "twisted:8x4:t1=8"], "not a valid offset"),
        (["describe", "graph:/nonexistent.graphml"], "no such graph file"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toposynth: error: ") and message in lines[0]


def test_not_a_graph_file(capsys, tmp_path):
    p = tmp_path / "x.graphml"
    p.write_text("hello")
    rc, _, err = run(capsys, "describe", f"graph:{p}")
    assert rc == 2 and "not a GraphML file" in err


def test_families_lists_every_family(capsys):
    rc, out, _ = run(capsys, "families", "--json")
    names = {f["name"] for f in json.loads(out)}
    assert {"torus", "mesh", "rt", "rtt", "pt", "ptt", "pdtt", "twisted", "hypercube", "graph", "g6"} <= names


def test_console_script_exit_code():
    """The installed entry point really exits 2 on a bad spec."""
    r = subprocess.run([sys.executable, "-m", "synth", "describe", "nope:1"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_flow_json_uniform_matches_analytic_bound(capsys):
    import candidates as cd

    rc, out, _ = run(capsys, "flow", "rtt:a=4", "--solver", "both", "--eps", "0.05", "--json")
    assert rc == 0
    d = json.loads(out)
    for key in ("lambda", "upper_bound", "gap", "solver", "seconds"):
        assert key in d
    exact = cd.uniform_load(cd.rtt(4)).injection_bound
    assert d["lp"]["lambda"] == pytest.approx(exact, rel=1e-7)
    assert d["lambda"] <= exact <= d["upper_bound"] and d["gap"] <= 0.05
    assert 0 <= d["lp_relative_difference"] <= 0.05


def test_flow_latency_and_demand_file(capsys, tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("src,dst,amount\n0,5,0.5\n3,9,0.25\n")
    rc, out, _ = run(capsys, "flow", "torus:4x4", "--demands", str(p), "--latency", "--json")
    assert rc == 0
    d = json.loads(out)
    assert d["average_latency"] == pytest.approx((0.5 * 2 + 0.25 * 4) / 0.75)  # hop distances 2 and 4


def test_flow_latency_by_column_generation(capsys):
    import flows
    import candidates as cd

    rc, out, _ = run(capsys, "flow", "torus:4x4x2", "--traffic", "random:128", "--scale", "0.25", "--latency",
                     "--solver", "colgen", "--eps", "0", "--json")
    assert rc == 0
    d = json.loads(out)
    p = flows.FlowProblem.from_topology(cd.torus((4, 4, 2)), flows.Demands.random(32, 128, seed=0).scaled(0.25))
    exact = flows.solve_lp(p, "latency").average_latency
    assert d["method"] == "colgen (ipm master)" and d["status"] == "optimal" and d["latency_gap"] <= 1e-6
    assert d["latency_bound"] <= exact * (1 + 1e-7) and exact <= d["average_latency"] * (1 + 1e-7)
    rc, out, _ = run(capsys, "flow", "torus:4x4x2", "--traffic", "random:128", "--scale", "0.25", "--latency")
    assert rc == 0 and "[auto] colgen (ipm master): optimal" in out and "certified lower bound" in out


def test_flow_solver_choices_are_the_registry(capsys):
    """--solver offers the registry's names (and both), and the symmetry path goes through flows.solve."""
    import flows
    import candidates as cd
    from synth.cli import build_parser

    flow = next(a for a in build_parser()._subparsers._group_actions[0].choices["flow"]._actions
                if a.dest == "solver")
    assert tuple(flow.choices) == flows.SOLVERS + ("both",)
    for solver in ("auto", "symmetry"):
        rc, out, _ = run(capsys, "flow", "torus:4x4", "--solver", solver, "--scale", "2", "--json")
        d = json.loads(out)
        assert rc == 0 and d["method"] == "symmetry" and d["solver_requested"] == solver
        assert d["lambda"] == flows.symmetric_uniform(cd.torus((4, 4))).lam / 2 == d["upper_bound"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["flow", "torus:4x4", "--traffic", "bogus"], "unknown traffic"),
        (["flow", "torus:4x4", "--demands", "/nonexistent.csv"], "no such demand file"),
        (["flow", "torus:4x4", "--eps", "1.5"], "eps must be in"),
        (["flow", "torus:4x4", "--eps", "0", "--solver", "ptas"], "the PTAS needs eps > 0"),
        (["flow", "torus:4x4", "--scale", "-1"], "--scale must be a positive number in 1e-30..1e+30"),
    ],
)
def test_flow_bad_input(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and message in err and err.count("\n") == 1


def test_flow_disconnected_demand(capsys, tmp_path):
    g = tmp_path / "two.edges"
    g.write_text("0 1\n1 2\n2 0\n3 4\n")
    d = tmp_path / "d.csv"
    d.write_text("src,dst,amount\n0,4,1\n")
    rc, _, err = run(capsys, "flow", f"graph:{g}", "--demands", str(d))
    assert rc == 2 and "cannot be routed" in err


def test_enumerate_count_192(capsys):
    rc, out, _ = run(capsys, "enumerate", "--nodes", "8", "--max-degree", "3", "--exact-max-degree", "--count")
    assert rc == 0 and out.strip() == "192"


def test_enumerate_out_file(capsys, tmp_path):
    p = tmp_path / "g.g6"
    rc, _, err = run(capsys, "enumerate", "--nodes", "6", "--max-degree", "3", "--out", str(p))
    assert rc == 0 and "wrote 29 graphs" in err
    import candidates as cd

    lines = p.read_text().split()
    assert len(lines) == 29 and all(cd.from_spec(f"g6:{g}").n == 6 for g in lines)


def test_enumerate_bad_input(capsys):
    rc, _, err = run(capsys, "enumerate", "--nodes", "5", "--max-degree", "2", "--min-degree", "3")
    assert rc == 2 and err.startswith("toposynth: error:")


def test_describe_equivalent_updown(capsys):
    # 6-ring rooted at 0: 2 -> 4 must climb over the root, 4 hops of a single route
    rc, out, _ = run(capsys, "describe", "ring:6", "--equivalent", "updown", "--json")
    assert rc == 0
    assert json.loads(out)["equivalent_distance"] == pytest.approx({"routing": "updown", "mean": 55 / 30, "max": 4.0})


def test_flow_with_bluegene_packaging(capsys):
    # the torus on Blue Gene/L boards: the binding resources are connector pins (flow in wires)
    rc, out, _ = run(capsys, "flow", "torus:8x8x4", "--blocks", "1x1x2,4x4x2,8x8x4", "--packaging", "bgl",
                     "--traffic", "local:64", "--json")
    assert rc == 0
    d = json.loads(out)
    assert d["gap"] <= 0.05 and d["lambda"] > 0
    assert all("connector pins" in b["resource"] for b in d["bottlenecks"][:1])


@pytest.mark.parametrize("argv,message", [
    (["flow", "torus:8x8x8", "--packaging", "bgl", "--traffic", "local:64"], "needs a placed topology"),
    (["flow", "torus:8x8x8", "--blocks", "1x1x3,4x4x2,8x8x8", "--packaging", "bgl"], "is not a multiple|does not tile"),
    (["flow", "torus:4x4", "--wiring", "uniform"], "need --packaging"),
    (["flow", "torus:4x4", "--packaging", "bgl", "--blocks", "2x2"], "the bgl packaging has 3 levels"),
])
def test_flow_packaging_errors(capsys, argv, message):
    import re

    rc, _, err = run(capsys, *argv)
    assert rc == 2 and re.search(message, err) and err.count("\n") == 1


def test_flow_uniform_on_a_lattice_is_solved_by_symmetry(capsys):
    """auto takes one source's flow for uniform traffic on a lattice: the
    exact LP's optimum, without building the n (n - 1) demands; --scale
    divides it."""
    import candidates as cd
    import flows

    lp = flows.solve_lp(flows.FlowProblem.from_topology(cd.from_spec("rtt:a=4"), flows.Demands.uniform(32))).lam
    rc, out, err = run(capsys, "flow", "rtt:a=4", "--json")
    d = json.loads(out)
    assert rc == 0 and err == ""
    assert d["method"] == "symmetry" and d["demands"] == 32 * 31
    assert d["lambda"] == pytest.approx(lp, rel=1e-7) and d["lambda"] == pytest.approx(31 / 21, rel=1e-7)
    rc, out, _ = run(capsys, "flow", "rtt:a=4", "--json", "--scale", "2")
    assert json.loads(out)["lambda"] == pytest.approx(31 / 42, rel=1e-7)
    # not a lattice: auto goes on to the other solvers
    rc, out, _ = run(capsys, "flow", "complete:6", "--json")
    assert rc == 0 and json.loads(out)["method"] != "symmetry" and json.loads(out)["lambda"] <= 5.0 + 1e-9


@pytest.mark.parametrize("argv", [["flow", "ring:8"], ["flow", "torus:4x4", "--traffic", "random:64"],
                                  ["flow", "rtt:a=4"], ["--help"]])
def test_small_commands_do_not_import_numba(argv):
    """A small `flow` is answered by the LP or by symmetry, and `--help` by the parser: neither may pay for
    importing numba (~0.2 s of a ~0.3 s start-up; benchmarks/bench_startup.py has the times)."""
    code = ("import sys; from synth.cli import main\n"
            "try:\n    rc = main(sys.argv[1:])\nexcept SystemExit as e:\n    rc = e.code\n"
            "print('numba' in sys.modules, rc)")
    r = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert r.stdout.splitlines()[-1] == "False 0", r.stdout + r.stderr


def test_a_larger_flow_still_loads_its_kernels(capsys):
    """The lazy names resolve: a 64-router flow runs column generation (numba kernels) through them."""
    rc, out, _ = run(capsys, "flow", "torus:4x4x4", "--traffic", "random:256", "--json")
    assert rc == 0 and json.loads(out)["method"].startswith("colgen")


def test_flow_latency_under_the_queueing_model(capsys):
    """--load-model queueing: JSON keeps average_latency and its certified latency_bound, and says the model."""
    rc, out, _ = run(capsys, "flow", "torus:4x4", "--latency", "--load-model", "queueing", "--scale", "0.5",
                     "--json", "--eps", "0.001")
    d = json.loads(out)
    # uniform traffic on the 4x4 torus: a channel carries 8/15 of a router's injection (16 routers x 32/15
    # hops over 64 channels); at scale 0.5 every channel is at 4/15 and a hop waits 4/11 beyond its delay of 1
    expected = 32 / 15 * (1 + 4 / 11)
    assert rc == 0 and d["load_model"] == "queueing" and d["queueing"] == {"service": 1.0, "variability": 1.0,
                                                                          "terminals": False, "tau": 1.0}
    assert d["latency_bound"] <= expected * (1 + 1e-9) and expected <= d["average_latency"] * (1 + 1e-9)
    assert d["average_latency"] <= d["latency_bound"] * 1.001 and d["method"].startswith("deviation")
    rc, out, _ = run(capsys, "flow", "torus:4x4", "--latency", "--load-model", "queueing", "--scale", "0.5",
                     "--service", "2", "--variability", "0")
    assert rc == 0 and "of which   router and wire delays 2.13333" in out
    # --terminals: each PE's own channels at 0.5 add 2 x tau x 0.5 / 0.5 = 2
    rc, out, _ = run(capsys, "flow", "torus:4x4", "--latency", "--load-model", "queueing", "--scale", "0.5",
                     "--terminals", "--json", "--eps", "0.001")
    t = json.loads(out)
    assert rc == 0 and t["terminal_part"] == pytest.approx(2.0) and t["queueing"]["terminals"] is True
    assert t["average_latency"] == pytest.approx(d["average_latency"] + 2.0, rel=2e-3)


def test_flow_curve(capsys):
    rc, out, _ = run(capsys, "flow", "ring:8", "--curve", "4", "--up-to", "0.8", "--load-model", "queueing",
                     "--json", "--eps", "0.001")
    d = json.loads(out)
    pts = d["curve"]["points"]
    assert rc == 0 and d["latency_unit"] == "hops" and d["curve"]["load_model"] == "queueing"
    assert [round(p["load"], 6) for p in pts] == [0.2, 0.4, 0.6, 0.8]
    # uniform traffic on a ring of 8 (routing both ways): every channel at the load; average distance 16/7
    for p in pts:
        rho = p["scale"] * 8 / 7      # the load is over the PTAS's lambda, within eps of 7/8
        assert p["latency_bound"] <= 16 / 7 * (1 + rho / (1 - rho)) * (1 + 1e-9) <= p["average_latency"] * (1 + 1e-9)
    rc, out, _ = run(capsys, "flow", "ring:8", "--curve", "3")
    assert rc == 0 and "latency-throughput curve of ring:8" in out and "linear" in out
    assert len([ln for ln in out.splitlines() if ln.strip().endswith("optimal")]) == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["flow", "torus:4x4", "--latency", "--service", "2"], "add --load-model queueing"),
        (["flow", "torus:4x4", "--latency", "--terminals"], "add --load-model queueing"),
        (["flow", "torus:8x8x8", "--packaging", "bgl", "--blocks", "1x1x2,4x4x2,8x8x8", "--traffic", "random:64",
          "--latency", "--load-model", "queueing", "--terminals"], "plain topology"),
        (["flow", "torus:4x4", "--load-model", "queueing"], "add --latency or --curve"),
        (["flow", "torus:4x4", "--latency", "--load-model", "queueing", "--service", "-1"], "service time must be"),
        (["flow", "torus:4x4", "--latency", "--load-model", "queueing", "--solver", "ptas"],
         "takes the linear load model, not queueing"),
        (["flow", "torus:4x4", "--latency", "--load-model", "queueing", "--solver", "both"], "drop --load-model"),
        (["flow", "torus:4x4", "--curve", "0"], "at least 1"),
        (["flow", "torus:4x4", "--curve", "--up-to", "1.2"], "--up-to must be"),
    ],
)
def test_flow_queueing_bad_input(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == "" and message in err and err.count("\n") == 1


def test_run_check_sizes_the_study_without_running_it(capsys, tmp_path, monkeypatch):
    # the built-in default: the pool and the isomorphic pair the run leaves out (benchmarks and README
    # print the same), its largest flow problem, and no output directory made
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--check", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    v = d["variants"][0]
    assert d["valid"] and v["candidates"] == 11 and v["pes"] == 32
    assert v["same_network"] == {"torus:8x4": ["rt:a=4"]}
    assert v["largest"]["routers"] == 32 and v["largest"]["channels"] == 192
    assert d["flow_runs"] == 1 + d["latency_scales"]
    assert list(tmp_path.iterdir()) == []
    # a study that the run would refuse, the check refuses with the same line and exit status
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "mixed"\n[candidates]\nspecs = ["torus:4x4", "ring:8"]\n')
    assert main(["run", "--check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toposynth: error: ") and "has 8 PEs but the machine has 16" in err
    # a candidate too big for this machine's memory: refused before anything is built
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "100kB")
    assert main(["run", "--check"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("toposynth: error: flow of torus:4x4x2 (32 routers, 128 demands) needs about")
