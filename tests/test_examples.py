"""The example gallery (examples/*.py, shown on docs/gallery/): every script runs with the command its page
shows, prints what the page shows, and its numbers are the tool's.

Each gallery page holds its command and output in a ```text block that starts with ``$ python examples/...``;
the command runs here (from the repository's root, in a fresh process, as a reader runs it) and its standard
output must equal the block line by line, run times aside (``2.62 s``), so a page goes stale only by failing
this test. Then the numbers the scripts print are checked against the packages themselves: the design-space
capacities against ``flows.solve``, the joblib sweep's job counts against each other, the exported GraphML
against ``candidates.from_spec``'s graph and the CSV against the ranking, the BookSim2 comparison against the
recorded reference with bench_booksim's tolerances. About 30 s with numba's kernels cached (no wall-clock
limit: a cold cache compiles them first, a minute or more).
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest

import candidates as cd
import flows
import sim

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "docs" / "gallery"
SCRIPTS = ("design_space", "joblib_sweep", "export_and_load", "booksim_comparison")
PAGES = {name: GALLERY / f"{name.replace('_', '-')}.md" for name in SCRIPTS}
BOOKSIM_REFERENCE = ROOT / "benchmarks" / "booksim_reference.json"


def page_example(page: Path) -> tuple[str, list[str]]:
    """The command (after ``$ ``) and the output lines of the page's ```text block that starts with
    ``$ python examples/``."""
    blocks = re.findall(r"^```text\n(\$ python examples/.*?)^```", page.read_text(), re.S | re.M)
    assert len(blocks) == 1, f"{page.name}: one ```text block with a `$ python examples/...` command"
    command, *output = blocks[0].splitlines()
    return command[2:], output


def normal(line: str) -> str:
    return re.sub(r"\b\d+\.\d+ s\b", "T s", line).rstrip()


def run_script(command: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python examples/NAME.py ARGS`` in a fresh interpreter (this one), the tree's packages first."""
    argv = shlex.split(command)
    assert argv[0] == "python" and argv[1].startswith("examples/")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    env.pop("BOOKSIM", None)       # the pages show the comparison with BookSim2's recorded figures
    return subprocess.run([sys.executable, str(ROOT / argv[1]), *argv[2:]], cwd=cwd, env=env,
                          capture_output=True, text=True)


_runs: dict[str, subprocess.CompletedProcess] = {}


def page_run(name: str) -> tuple[list[str], list[str]]:
    """The page's output lines and the script's, the command run once per test run."""
    command, documented = page_example(PAGES[name])
    if command not in _runs:
        _runs[command] = run_script(command)
    run = _runs[command]
    assert run.returncode == 0, run.stdout + run.stderr
    return documented, run.stdout.splitlines()


def test_every_script_has_its_page_and_the_index_lists_it():
    index = (GALLERY / "index.md").read_text()
    assert sorted(p.stem for p in (ROOT / "examples").glob("*.py")) == sorted(SCRIPTS)
    for name, page in PAGES.items():
        text = page.read_text()
        assert f"```{{literalinclude}} ../../examples/{name}.py\n" in text, page.name
        assert f"\n{page.stem}\n" in index, f"gallery/index.md's toctree lacks {page.stem}"


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_page_shows_the_scripts_output(name):
    documented, actual = page_run(name)
    assert [normal(x) for x in documented] == [normal(x) for x in actual], "\n".join(
        ["documented:", *documented, "script:", *actual])


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_script_has_a_docstring_and_no_private_names(name):
    source = (ROOT / "examples" / f"{name}.py").read_text()
    assert source.startswith('"""') and "Run it" in source.split('"""')[1]
    # no private name of the packages (`module._x`, `from module import _x`)
    assert not re.search(r"\b(candidates|traffic|flows|sim|synth|common|cd)\._", source)
    assert not re.search(r"^from \S+ import .*\b_[a-z]", source, re.M)


# ---------------------------------------------------------------- design_space.py
def design_rows(lines: list[str]) -> dict[str, list[str]]:
    start = next(i for i, x in enumerate(lines) if x.startswith("candidate "))
    rows = {}
    for line in lines[start + 1:]:
        if line.startswith("Pareto set"):
            break
        # spec links radix lambda bound solver... hops latency bound [*]: the solver may hold spaces
        spec, links, radix, lam, bound, *rest = line.split()
        rows[spec] = [links, radix, lam, bound, *rest]
    return rows


@pytest.mark.parametrize("spec", ["torus:8x8", "mesh:8x8"])
def test_design_space_capacities_are_flows_own(spec):
    _, out = page_run("design_space")
    row = design_rows(out)[spec]
    t = cd.from_spec(spec)
    r = flows.solve(flows.FlowProblem.from_topology(t, flows.Demands.uniform(t.n, t.terminals)), 0.01, topology=t)
    assert (float(row[2]), float(row[3])) == (round(r.lam, 4), round(r.upper_bound, 4))
    assert int(row[0]) == t.num_links and r.upper_bound <= r.lam * 1.01
    if spec == "torus:8x8":
        assert r.extra["method"] == "symmetry" and r.lam == pytest.approx(63 / 64)   # exact


def test_design_space_pareto_set_is_the_non_dominated_rows():
    _, out = page_run("design_space")
    rows = design_rows(out)
    figures = {s: (float(r[2]), float(r[-3] if r[-1] == "*" else r[-2]), int(r[0])) for s, r in rows.items()}

    def dominated(s):
        lam, lat, links = figures[s]
        return any(o != s and f[0] >= lam and f[1] <= lat and f[2] <= links and f != figures[s]
                   for o, f in figures.items())

    front = [s for s in rows if not dominated(s)]
    assert [s for s, r in rows.items() if r[-1] == "*"] == front
    assert out[-1] == "Pareto set (capacity, latency, links): " + ", ".join(front)
    assert "hypercube:6" in front and "torus:8x8" not in front


def test_design_space_plot_is_written(tmp_path):
    run = run_script(f"python examples/design_space.py --moves 0 --plot {tmp_path / 'f.png'}")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert run.stdout.splitlines()[-1] == f"figure: {tmp_path / 'f.png'}"
    assert "search:" not in run.stdout


# ---------------------------------------------------------------- joblib_sweep.py
def test_joblib_sweep_is_the_same_for_one_and_two_jobs():
    _, out = page_run("joblib_sweep")
    assert "n_jobs=1 and n_jobs=2 (threads): identical results" in out
    row = next(x.split() for x in out if x.startswith("torus:8x8 ") and " uniform " in x)
    t = cd.torus((8, 8))
    r = flows.solve(None, topology=t)          # uniform traffic, one unit per router: exact by symmetry
    assert float(row[2]) == round(r.lam, 4) == round(63 / 64, 4)


def test_joblib_sweep_numbers_do_not_depend_on_the_job_count():
    # the script's own functions, imported: every number of the two runs equal, to the last bit
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import joblib_sweep
    finally:
        sys.path.remove(str(ROOT / "examples"))
    tasks = [("torus:8x4", "randperm:seed=3"), ("torus:4x4x4", "bitcomplement"), ("mesh:4x4", "uniform")]
    one = joblib_sweep.sweep(tasks, 0.01, 1, "threads")
    assert joblib_sweep.sweep(tasks, 0.01, 2, "threads") == one
    assert [(r["spec"], r["pattern"]) for r in one] == tasks


# ---------------------------------------------------------------- export_and_load.py
def test_export_and_load_checks_pass():
    _, out = page_run("export_and_load")
    assert out[-1] == "all checks passed"
    assert not [x for x in out if "FAILED" in x]
    assert sum(x.startswith("  ok: ") for x in out) == 9


def test_exported_files_are_the_tools(tmp_path):
    run = run_script(f"python examples/export_and_load.py --out {tmp_path / 'run'}", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    out = tmp_path / "run"
    ranking = json.loads((out / "results.json").read_text())["ranking"]
    table = pd.read_csv(out / "results.csv")
    assert list(table.sort_values("rank")["spec"]) == ranking
    assert ranking[0] == "twisted:4x4:t1=2" and "hypercube:4" not in ranking
    graphs = sorted((out / "winners").glob("*.graphml"))
    assert len(graphs) == 3
    for path in graphs:
        g = nx.relabel_nodes(nx.read_graphml(path), int)
        t = cd.from_spec(g.graph["spec"])
        assert sorted(g.nodes) == list(range(t.n)) and g.number_of_edges() == t.num_links
        assert {frozenset(e) for e in g.edges} == {frozenset(e) for e in t.links.tolist()}


# ---------------------------------------------------------------- booksim_comparison.py
def booksim_rows(lines: list[str]) -> list[list[str]]:
    start = next(i for i, x in enumerate(lines) if x.startswith("case "))
    return [x.split() for x in lines[start + 1:] if not x[0].isdigit()]


def test_booksim_comparison_is_within_the_benchmarks_tolerances():
    _, out = page_run("booksim_comparison")
    assert out[0].startswith("BookSim2: the figures recorded in benchmarks/booksim_reference.json")
    reference = json.loads(BOOKSIM_REFERENCE.read_text())["cases"]
    points = {("zero", "load"): "zero_load", ("50%", "sat."): "latency_50", ("80%", "sat."): "latency_80"}
    tolerance = {"zero_load": 0.02, "latency_50": 0.05, "latency_80": 0.05}   # bench_booksim.TOL
    rows = booksim_rows(out)
    assert len(rows) == 12
    for case, p1, p2, load, seeds, theirs, ours, ratio, within, _ in rows:
        figure = reference[case][points[p1, p2]]
        assert float(load) == round(figure["load"], 4)
        assert float(theirs) == round(figure["mean"], 2) and int(seeds) == len(figure["per_seed"])
        assert abs(float(ours) / figure["mean"] - 1) <= tolerance[points[p1, p2]] and within == "yes"
    assert out[-1] == "12 of 12 points within tolerance"


def test_booksim_comparisons_toposynth_column_is_the_simulators():
    _, out = page_run("booksim_comparison")
    row = next(r for r in booksim_rows(out) if r[0] == "torus8x8-dor-vc2-p1-uniform" and r[1] == "zero")
    r = sim.simulate(cd.torus((8, 8)), sim.preset("booksim", sample_period=10000), "uniform", 0.005, seed=1)
    assert float(row[6]) == round(r.latency_generation, 2)


@pytest.mark.skipif(not os.environ.get("BOOKSIM"), reason="no BookSim2 binary (set BOOKSIM to one to run it)")
def test_booksim_comparison_with_booksim_run_alongside():
    run = run_script(f"python examples/booksim_comparison.py --booksim {os.environ['BOOKSIM']} "
                     "--cases torus8x8-dor-vc2-p1-uniform")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout.splitlines()
    assert out[0].startswith("BookSim2: run alongside")
    assert out[-1] == "3 of 3 points within tolerance"
