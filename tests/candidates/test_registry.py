"""The family registry and the spec grammar."""

import numpy as np
import pytest

import candidates as cd


def test_every_family_example_builds_and_round_trips(tmp_path):
    for fam in cd.families():
        example = fam.example
        if fam.name == "graph":
            p = tmp_path / "net.graphml"
            cd.write_topology(cd.ring(6), p)
            example = f"graph:{p}"
        t = cd.from_spec(example)
        assert t.n >= 2, fam.name
        u = cd.from_spec(t.spec)
        assert np.array_equal(u.links, t.links), fam.name


@pytest.mark.parametrize(
    "spec, n, links",
    [
        ("torus:8x8x8", 512, 1536),
        ("mesh:4x4", 16, 24),
        ("ring:8", 8, 8),
        ("path:5", 5, 4),
        ("hypercube:6", 64, 192),
        ("complete:6", 6, 15),
        ("rt:a=8", 128, 256),
        ("rtt:8", 128, 256),
        ("pt:a=4", 128, 384),
        ("ptt:a=4", 128, 384),
        ("pdtt:a=4", 128, 384),
        ("twisted:16x8:t1=8", 128, 256),
        ("torus:4x4x4:mesh=2", 64, 176),
    ],
)
def test_spec_sizes(spec, n, links):
    t = cd.from_spec(spec)
    assert (t.n, t.num_links) == (n, links)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("foo:3", "unknown topology family 'foo'; valid families: torus"),
        ("torus", "torus needs shape"),
        ("torus:8y8", "sizes joined by 'x'"),
        ("torus:0x4", "positive"),
        ("rtt:a=x", "must be an integer"),
        ("rtt:b=3", "does not take parameter 'b'; it takes: a"),
        ("rtt:a=3:a=4", "given twice"),
        ("torus:4x4:c=0", "positive"),
        ("torus:4x4:c=two", "must be an integer"),
        ("twisted:8x4:t1=9", "not a valid offset"),
        ("torus::4", "empty field"),
        ("", "empty topology spec"),
    ],
)
def test_bad_specs(spec, message):
    with pytest.raises(cd.SpecError, match=message):
        cd.from_spec(spec)
