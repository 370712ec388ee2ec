"""In a Jupyter kernel the plotting API leaves the notebook's matplotlib backend as it was, and results
render as tables (their ``_repr_html_``): a notebook run by nbclient, as a user's would be."""

import json
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

import synth

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

KERNEL = "toposynth-test"

SETUP = """\
import matplotlib
import candidates as cd, flows, sim, synth
from sim.plot import plot_sweeps
from synth.answer import units
from synth.drawing import draw_topology
from synth.report_figures import capacity_figure, pareto_figure, png, tradeoff_figure
assert synth.__file__ == {synth!r}, synth.__file__          # the kernel runs the code under test
study = synth.study_from_dict({{"candidates": {{"specs": ["ring:4", "complete:4"]}}, "cross_check": {{"top": 0}},
                               "ranking": {{"objective": "both", "baseline": "ring:4"}},
                               "traffic": {{"scales": [0.5]}}}})
res = synth.run(study)
swept = sim.sweep(cd.ring(6), "singleflit", "uniform", [0.1, 0.3], seed=1)


def plot_everything(tag):
    d, u = res.to_dict(), units(study)
    figs = [capacity_figure(d["records"], d["ranking"], "ring:4", u),
            tradeoff_figure(d["records"], d["ranking"], d["tradeoff"], "ring:4", u),
            pareto_figure(d["records"], d["pareto"], "ring:4", d["ranking"][:1], 0.5, u, "links"),
            draw_topology(cd.from_spec("torus:4x4")).figure]
    assert all(png(f)[:4] == b"\\x89PNG" for f in figs)
    assert plot_sweeps({{"ring:6": swept}}, f"sweep-{{tag}}.svg").endswith(".svg")
"""

PLOTS = """\
before = matplotlib.get_backend()      # the kernel's own (inline) backend
plot_everything("inline")
assert matplotlib.get_backend() == before, (before, matplotlib.get_backend())
matplotlib.use("svg")                  # a backend a user chose, not the Agg a script defaults to
plot_everything("svg")
import matplotlib.pyplot as plt
assert matplotlib.get_backend() == "svg" and plt.get_fignums() == [], (matplotlib.get_backend(), plt.get_fignums())
before
"""


def _kernel(where: Path) -> None:
    """A kernel spec of this interpreter (a user's own ``python3`` kernel may run another one)."""
    spec = where / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "toposynth tests", "language": "python"}))


def test_a_notebook_keeps_its_backend_and_shows_results_as_tables(tmp_path, monkeypatch):
    _kernel(tmp_path / "jupyter")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    src = str(Path(synth.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([src, *filter(None, [os.environ.get("PYTHONPATH")])]))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP.format(synth=synth.__file__)),
                                         nbformat.v4.new_code_cell(PLOTS),
                                         nbformat.v4.new_code_cell("res"),
                                         nbformat.v4.new_code_cell("swept")])
    # the backstop, not a budget: the machine may be busy, and a first run compiles the simulator
    NotebookClient(nb, timeout=patience.BACKSTOP, startup_timeout=patience.BACKSTOP, kernel_name=KERNEL,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    backend = nb.cells[1].outputs[0]["data"]["text/plain"]
    assert "inline" in backend, backend            # ipykernel's default: what a notebook user plots with
    study, sweep = (c.outputs[0] for c in nb.cells[2:])
    assert study["output_type"] == sweep["output_type"] == "execute_result"
    page = study["data"]["text/html"]
    assert "<table>" in page and "<p>Best: complete:4" in page and "<th>lambda (phits/cycle/PE)</th>" in page
    assert "<table>" in sweep["data"]["text/html"] and "load sweep of ring:6" in sweep["data"]["text/html"]
    assert (tmp_path / "sweep-svg.svg").read_text().lstrip().startswith("<?xml")
