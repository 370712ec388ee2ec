"""Flow results as tables: to_dataframe() holds to_dict()'s values, the notebook's table shows the numbers."""

import dataclasses

import pytest

import candidates as cd
import flows
from common.tables import cell_text, flatten

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def ring8():
    p = flows.FlowProblem.from_topology(cd.from_spec("ring:8"), flows.Demands.uniform(8))
    return p, flows.solve(p)


def test_flow_result_frame_is_its_dict(ring8, frame_rows):
    _, r = ring8
    # uniform demands of one unit per PE on a ring of 8: 128/7 units of flow-hops over 16 channels, 8/7
    # on each, so lambda = 7/8
    assert r.lam == pytest.approx(7 / 8, rel=1e-9)
    before = r.to_dict()
    df = r.to_dataframe()
    assert list(df.columns) == list(flatten(before)) and len(df) == 1
    assert frame_rows(df) == [flatten(before)]
    assert df["lambda"].iloc[0] == r.lam and df["solver"].iloc[0] == r.solver
    r._repr_html_()
    assert r.to_dict() == before                              # neither view changes the result


def test_flow_result_table_shows_the_answer_with_its_certificate(ring8):
    _, r = ring8
    page = r._repr_html_()
    assert f"lambda = {cell_text(r.lam)} x the demands (certified &lt;= {cell_text(r.upper_bound)}" in page
    assert "<td class='l'>upper_bound</td>" in page and f"{r.bottlenecks()[0][0].replace('>', '&gt;')} (1)" in page
    bad = dataclasses.replace(r, solver=HOSTILE, resource_names=(HOSTILE,) * len(r.resource_names))
    page = bad._repr_html_()
    assert "<img" not in page and page.count("&lt;img src=x onerror=alert(1)&gt;") >= 2


def test_latency_result_headline_is_the_latency(ring8):
    p, _ = ring8
    r = flows.solve(p.scaled(0.5), objective="latency")
    # below capacity the linear model routes every pair on a shortest path: the mean distance, 16/7 hops
    assert r.average_latency == pytest.approx(16 / 7, rel=1e-6)
    assert f"average latency {cell_text(r.average_latency)} per unit of demand" in r._repr_html_()


def test_latency_curve_frame_is_its_points(frame_rows):
    p = flows.FlowProblem.from_topology(cd.ring(3), flows.Demands.uniform(3))
    c = flows.latency_curve(p, points=2, up_to=0.5, eps=1e-4)
    df = c.to_dataframe()
    assert frame_rows(df) == c.to_dict()["points"] and len(df) == 2
    # a ring of 3 at a quarter and a half of its capacity (the module's example): 4/3 and 2 hops
    assert df["load"].round(6).tolist() == [0.25, 0.5]
    assert df["average_latency"].round(3).tolist() == [1.333, 2.0]
    page = c._repr_html_()
    assert f"capacity lambda = {cell_text(c.capacity)} x the demands" in page and "queueing load model" in page
    assert all(f"<td>{cell_text(q.average_latency)}</td>" in page for q in c.points)
    hostile = dataclasses.replace(c, points=(dataclasses.replace(c.points[0], status=HOSTILE),) + c.points[1:])
    assert "<img" not in hostile._repr_html_() and "&lt;img" in hostile._repr_html_()
