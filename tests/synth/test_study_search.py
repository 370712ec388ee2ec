"""Searched candidates in a study: validated entries, the graph written with its placement and
ranked beside the listed ones, a rerun answered from the file, the machine's max_length swept."""

import json

import numpy as np
import pytest

import candidates as cd
from synth.errors import StudyError
from synth.runner import run
from synth.study import study_from_dict


def _chip(**entry):
    return {"name": "chip", "seed": 1, "machine": {"pes": 20, "radix": 5, "max_length": 2.0},
            "candidates": {"specs": ["interposer:kite_medium", "interposer:kite_large", "interposer:mesh"],
                           "search": [{"label": "found", "grid": "5x4", "regular": False, "moves": 3000,
                                       "restarts": 2, **entry}]},
            "traffic": {"pattern": "uniform"}, "ranking": {"objective": "capacity", "eps": 0.01},
            "cross_check": {"top": 0}}


def test_searched_candidate_is_ranked_and_kept(tmp_path):
    study = study_from_dict(_chip())
    assert study.search[0]["objective"] == "aspl" and study.search[0]["degree"] == 4
    assert study.to_dict()["candidates"]["search"][0]["label"] == "found"
    res = run(study, tmp_path / "out", jobs=1)
    path = tmp_path / "out" / "searched" / "found.json"
    spec = f"graph:{path}"
    rec = res.record(spec)
    assert rec.status == "ok"
    t = cd.read_topology(path)
    # on the grid, within the machine's max_length (the study's), at most 4 ports
    xy = t.coords.astype(float)
    assert np.sqrt(((xy[t.links[:, 0]] - xy[t.links[:, 1]]) ** 2).sum(axis=1)).max() <= 2.0 + 1e-12
    assert t.degree.max() <= 4 and t.params["label"] == "found" and t.params["moves"] == 3000
    # kite_large's sqrt(5) links are over the machine's budget
    assert res.record("interposer:kite_large").status == "pruned"
    assert "max_length" in res.record("interposer:kite_large").reason
    # a rerun answers from the written graph (same file, same records)
    before = path.stat().st_mtime_ns
    again = run(study, tmp_path / "out", jobs=1)
    assert path.stat().st_mtime_ns == before and again.resumed == len(again.records)


def test_max_length_sweep_searches_each_value(tmp_path):
    d = _chip()
    d["machine"]["max_length"] = [1.5, 2.5]
    res = run(study_from_dict(d), tmp_path / "out", jobs=1)
    labels = [label for label, _ in res.variants]
    assert labels == ["max_length=1.5", "max_length=2.5"]
    for label, limit in zip(labels, (1.5, 2.5)):
        t = cd.read_topology(tmp_path / "out" / label / "searched" / "found.json")
        xy = t.coords.astype(float)
        assert np.sqrt(((xy[t.links[:, 0]] - xy[t.links[:, 1]]) ** 2).sum(axis=1)).max() <= limit + 1e-12


def test_packaged_search_uses_the_study_traffic(tmp_path):
    """32 routers on Blue Gene/L cards, local traffic: the physical objective's graph is evaluated by the
    study with the same demands, its certified capacity at least the search's even split."""
    study = study_from_dict({
        "name": "packed", "seed": 1, "machine": {"pes": 32},
        "candidates": {"specs": ["torus:4x4x2"],
                       "search": [{"label": "p", "degree": 5, "regular": False, "moves": 300}]},
        "traffic": {"pattern": "local", "count": 96, "shares": [0.4, 0.5, 0.1]},
        "physical": {"packaging": "bgl", "blocks": [[1, 1, 2], [2, 2, 2], [4, 4, 2]]},
        "ranking": {"objective": "capacity", "eps": 0.01}, "cross_check": {"top": 0}})
    assert study.search[0]["objective"] == "physical" and study.search[0]["symmetry"] == 1
    res = run(study, tmp_path / "out", jobs=1)
    path = tmp_path / "out" / "searched" / "p.json"
    rec = res.record(f"graph:{path}")
    t = cd.read_topology(path)
    assert rec.status == "ok" and t.placement is not None
    assert t.params["split_physical"] <= rec.capacity.upper_bound * (1 + 1e-9)


@pytest.mark.parametrize("entry, words", [
    ({"nope": 1}, "unknown field"),
    ({"grid": "4x4"}, "holds 16 routers"),
    ({"objective": "physical"}, "set physical.packaging"),
    ({"moves": 0}, "must be an integer >= 1"),
    ({"start": "nope:3"}, "start"),
])
def test_bad_entries_are_one_line(entry, words):
    with pytest.raises(StudyError, match=words):
        study_from_dict(_chip(**entry))


def test_labels_are_unique():
    d = _chip()
    d["candidates"]["search"].append(dict(d["candidates"]["search"][0]))
    with pytest.raises(StudyError, match="unique"):
        study_from_dict(d)


def test_fingerprint_of_studies_without_search_is_unchanged():
    d = _chip()
    del d["candidates"]["search"]
    assert "search" not in json.dumps(study_from_dict(d).to_dict()["candidates"])
