"""Each new family's published closed forms (its `figures` capability, shown by `describe`) equal what the
analytics compute on the built graph: counts, diameter, bisection, the uniform-traffic bound."""

from __future__ import annotations

import pytest

import candidates as cd
from candidates.analytics.measures import describe
from candidates.capabilities import capabilities, published_figures

TREES = ["fattree:k=4", "fattree:k=4:c=4", "ktree:k=2:n=3", "ktree:k=4:n=2"]   # even k: PE halves exist
HYPERX = ["hyperx:4x4", "hyperx:4x4:t=2", "hyperx:3x4", "flatfly:k=4:n=3"]


@pytest.mark.parametrize("spec", TREES)
def test_trees(spec):
    t = cd.from_spec(spec)
    d = describe(t)
    f = d["published"]
    assert (f["switches"], f["links"], f["pes"]) == (t.n, t.num_links, t.num_terminals)
    assert f["leaf_switches"] == int((t.terminals > 0).sum()) and f["pes_per_leaf"] == int(t.terminals.max())
    assert f["diameter"] == d["pe_diameter"]                 # between the farthest leaves
    assert d["bisection"]["exact"] and f["bisection_links"] == d["bisection"]["width"]
    assert f["uniform_bound"] == pytest.approx(d["injection_bound"], rel=1e-12)
    assert f["full_bisection"] == (spec != "fattree:k=4:c=4")   # 4 hosts per edge switch: oversubscribed 2:1


@pytest.mark.parametrize("spec", HYPERX)
def test_hyperx(spec):
    t = cd.from_spec(spec)
    d = describe(t)
    f = d["published"]
    assert (f["routers"], f["links"], f["pes"], f["diameter"]) == (t.n, t.num_links, t.num_terminals, d["diameter"])
    assert f["degree"] == int(t.degree.max()) == int(t.degree.min())
    assert f["uniform_bound"] == pytest.approx(d["injection_bound"], rel=1e-12)
    b = d["bisection"]
    if b["exact"]:
        # the cut through the largest dimension is the bisection when that dimension is even
        assert f["bisection_links"] == b["width"] if max(t.shape) % 2 == 0 else f["bisection_links"] >= b["width"]
    assert ("Kim, Dally, Abts" in f["source"]) == spec.startswith("flatfly")


@pytest.mark.parametrize("spec", ["dragonfly:a=4:p=2:h=2", "dragonfly:a=2:p=1:h=2:arrangement=circulant",
                                  "dragonfly:a=4:p=2:h=2:c=3"])
def test_dragonfly(spec):
    t = cd.from_spec(spec)
    d = describe(t)
    f = d["published"]
    assert (f["routers"], f["links"], f["terminals"]) == (t.n, t.num_links, t.num_terminals)
    # local-global-local: the diameter, but for tiny groups (a=2, h=2 with 5 groups is a Petersen-like graph: 2)
    assert d["diameter"] == f["diameter"] if t.params["a"] >= 4 else d["diameter"] <= f["diameter"]
    assert f["degree"] == int(t.degree.max()) and f["p"] == int(t.terminals[0])


@pytest.mark.parametrize("spec", ["slimfly:q=5", "slimfly:q=4", "slimfly:q=7:p=2"])
def test_slimfly(spec):
    t = cd.from_spec(spec)
    d = describe(t)
    f = d["published"]
    assert (f["routers"], f["links"], f["terminals"], f["diameter"]) == (t.n, t.num_links, t.num_terminals,
                                                                          d["diameter"])
    assert f["average_distance"] == pytest.approx(d["average_distance"], rel=1e-12)


def test_families_without_figures():
    for spec in ("torus:4x4", "complete:5", "graph:" + __file__.replace(".py", ".edges")):
        if spec.startswith("graph:"):
            continue
        t = cd.from_spec(spec)
        assert published_figures(t) is None and "published" not in describe(t)
    assert capabilities("fattree").to_dict()["figures"] is True and capabilities("torus").to_dict()["figures"] is False
