"""Simulation results as tables: to_dataframe() holds to_dict()'s values, the notebook's table shows the numbers."""

import dataclasses

import pytest

import candidates as cd
import sim
from common.tables import cell_text, flatten

HOSTILE = "<img src=x onerror=alert(1)>"
# short runs: the tables, not the simulator, are under test
CFG = sim.preset("default", routing="dor", vcs=2, warmup=300, measure=1500)


@pytest.fixture(scope="module")
def sweep():
    return sim.sweep(cd.from_spec("ring:8"), CFG, "uniform", [0.1, 0.3], seed=1)


def test_run_frame_is_its_dict(sweep, frame_rows):
    r = sweep.points[0]
    df = r.to_dataframe()
    assert list(df.columns) == list(flatten(r.to_dict())) and len(df) == 1
    assert frame_rows(df) == [flatten(r.to_dict())]
    assert {"config.routing", "utilisation.x.mean", "latency_percentiles.p99"} <= set(df.columns)
    assert df["accepted"].iloc[0] == r.accepted and df["config.warmup"].iloc[0] == 300


def test_run_table_shows_the_measured_figures(sweep):
    r = sweep.points[0]
    page = r._repr_html_()
    assert (f"accepted {cell_text(r.accepted)} of offered {cell_text(r.offered)} phits/cycle/PE, latency "
            f"{cell_text(r.latency)} cycles") in page
    assert f"<td class='l'>hops</td><td>{cell_text(r.hops)}</td>" in page and "config." not in page
    page = dataclasses.replace(r, spec=HOSTILE)._repr_html_()
    assert "<img" not in page and page.count("&lt;img") == 2      # the headline and the spec's row


def test_sweep_frame_has_a_row_per_load(sweep, frame_rows):
    df = sweep.to_dataframe()
    assert frame_rows(df) == [flatten(p.to_dict()) for p in sweep.points]
    assert df["load"].tolist() == [0.1, 0.3] and df["accepted"].tolist() == [p.accepted for p in sweep.points]
    page = sweep._repr_html_()
    assert f"saturation {cell_text(sweep.saturation)} phits/cycle/PE accepted" in page
    assert "<th>latency (cycles)</th>" in page
    assert all(f"<td>{cell_text(p.latency)}</td>" in page for p in sweep.points)
    bad = sim.SweepResult([dataclasses.replace(p, traffic=HOSTILE) for p in sweep.points], 0.0, 0.0)
    assert "<img" not in bad._repr_html_()


def test_seeds_frame_is_the_means_per_load(frame_rows):
    rep = sim.sweep_seeds(cd.from_spec("ring:8"), CFG, "uniform", [0.1, 0.3], seeds=[1, 2])
    df = rep.to_dataframe()
    assert frame_rows(df) == rep.to_dict()["by_load"] and len(df) == 2
    # the mean over the seeds of each seed's own run
    assert df["accepted"].tolist() == pytest.approx([sum(r.points[i].accepted for r in rep.runs) / 2 for i in (0, 1)])
    page = rep._repr_html_()
    assert f"saturation {cell_text(rep.saturation)} \u00b1 {cell_text(rep.saturation_ci95)}" in page
    assert "over 2 seeds (1, 2)" in page
