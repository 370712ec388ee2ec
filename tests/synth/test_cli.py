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
