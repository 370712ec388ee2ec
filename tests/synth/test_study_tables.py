"""Study results as tables: to_dataframe() holds to_dict()'s values (the rows of results.csv), and the
notebook's table shows the answer and the numbers with their units."""

import csv

import pytest

from common.tables import cell_text, flatten
from synth.runner import run
from synth.study import study_from_dict

HOSTILE = "<script>alert(1)</script>"
# the smallest study of the tests (synth's own example), with a baseline and a demand scale for the latency
TINY = {"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0},
        "ranking": {"objective": "both", "baseline": "ring:4"}, "traffic": {"scales": [0.5]}}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    return run(study_from_dict(TINY | {"name": HOSTILE}), out, jobs=1), out


def test_study_frame_is_its_records(tiny, frame_rows):
    res, out = tiny
    df = res.to_dataframe()
    d = res.to_dict()
    rec = {r["spec"]: r for r in d["records"]}
    assert df["spec"].tolist() == d["ranking"] == ["complete:4", "ring:4"] and df["rank"].tolist() == [1, 2]
    for row in frame_rows(df):
        r = rec[row["spec"]]
        assert (row["lambda"], row["upper_bound"], row["gap"]) == (
            r["capacity"]["lambda"], r["capacity"]["upper_bound"], r["capacity"]["gap"])
        assert (row["latency@0.5"], row["latency_bound@0.5"]) == (
            r["latency"][0]["average_latency"], r["latency"][0]["latency_bound"])
        assert row["cost_links"] == r["cost"]["links"] and row["baseline"] == (row["spec"] == "ring:4")
        assert row["seconds"] == r["seconds"] and row["sim_saturation"] is None
    # uniform traffic, one unit per PE: K4 carries 3 and the ring of 4 1.5; below capacity the latency is the
    # mean distance, 1 and 4/3 hops
    assert df["lambda"].tolist() == pytest.approx([3.0, 1.5])
    assert df["latency@0.5"].tolist() == pytest.approx([1.0, 4 / 3])
    # the same table as results.csv, column for column
    with (out / "results.csv").open(newline="") as f:
        written = list(csv.reader(f))
    assert written[0] == list(df.columns)
    assert [row[2] for row in written[1:]] == df["spec"].tolist()
    assert [float(row[written[0].index("lambda")]) for row in written[1:]] == df["lambda"].tolist()


def test_study_table_states_the_answer_with_units(tiny):
    res, _ = tiny
    page = res._repr_html_()
    assert "<script>" not in page and "study &#x27;&lt;script&gt;alert(1)&lt;/script&gt;&#x27;" in page
    assert "<p>Best: complete:4 (4 routers, 6 links, radix 4); carries 100.0% more capacity than ring:4" in page
    assert "<th>lambda (phits/cycle/PE)</th>" in page and "<th>latency at 0.5 (hops)</th>" in page
    for r in res.records:
        assert f"<td>{r.spec}</td>" in page and f"<td>{cell_text(r.capacity.lam)}</td>" in page
        assert f"<td>{cell_text(r.latency[0].average_latency)}</td>" in page


def test_sweep_study_frame_is_its_summary(frame_rows):
    d = {"candidates": {"specs": ["ring:8", "torus:4x2"]}, "cross_check": {"top": 0},
         "ranking": {"baseline": "ring:8"}, "traffic": {"pattern": "random", "count": [12, 16], "scales": [0.3]}}
    res = run(study_from_dict(d), jobs=1)
    df = res.to_dataframe()
    assert frame_rows(df) == [flatten(x) for x in res.summary()]
    assert df["variant"].tolist() == ["count=12", "count=16"]
    page = res._repr_html_()
    assert "a sweep of 2 variants" in page and "<th>best lambda (x demands)</th>" in page
    for x in res.summary():
        assert f"<td>{cell_text(x['best_capacity'])}</td>" in page
        assert f"<td>{cell_text(x['capacity_gain'])}</td>" in page
