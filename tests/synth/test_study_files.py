"""Shipped study files (studies/*.toml), the built-in studies, `toposynth studies --show`, and the
study guide's annotated example: every one loads, and each compares like with like."""

import re
import tomllib
from pathlib import Path

import pytest

from synth.cli import main
from synth.machine import check_machine
from synth.pool import candidate_sizes
from synth.study import BUILTIN_STUDIES, builtin_study, load_study, study_from_dict

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted((ROOT / "studies").glob("*.toml"))


def test_studies_are_shipped():
    assert {p.name for p in SHIPPED} >= {"example.toml", "concentration.toml", "enumerated-8.toml"}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_study_loads_and_is_one_machine(path):
    s = load_study(path)
    sizes = candidate_sizes(s)
    pes = check_machine(s.machine, sizes, s.baseline)        # raises if sizes are mixed
    assert pes == s.machine.pes and set(sizes.values()) == {pes}


@pytest.mark.parametrize("name", list(BUILTIN_STUDIES))
def test_every_builtin_study_loads_and_show_prints_it_as_toml(name, capsys):
    s = builtin_study(name)
    assert main(["studies", "--show", name]) == 0
    text = capsys.readouterr().out
    again = study_from_dict(tomllib.loads(text))
    assert again.fingerprint() == s.fingerprint() and again.name == s.name
    if name in ("bgl-midplane", "bgl-pins"):
        return       # hundreds of 512-router compositions: the pool is checked by the machine test below
    sizes = candidate_sizes(s)
    check_machine(s.machine, sizes, s.baseline)


def test_the_twisted_tori_study_declares_its_two_sizes():
    s = builtin_study("twisted-tori")
    assert s.machine.compare_sizes and s.machine.pes == 128
    assert set(candidate_sizes(s).values()) == {128, 32}


def test_the_documented_example_is_the_shipped_file():
    page = (ROOT / "docs" / "how-to" / "write-a-study.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", page, flags=re.S)
    assert blocks, "the study guide shows a study file"
    for b in blocks:
        tomllib.loads(b)                                      # every TOML block of the guide is valid TOML
    example = (ROOT / "studies" / "example.toml").read_text()
    assert example in blocks                                  # the annotated example, comments and all


def test_show_refuses_an_unknown_study(capsys):
    assert main(["studies", "--show", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no built-in study 'nope'" in err



def test_a_study_with_several_bad_fields_reports_them_all_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ncolour = "red"\n[candidates]\nspecs = ["torus:4x4", "torus:4x"]\n'
                   '[traffic]\npattern = "nosuch"\n[ranking]\neps = 0\nprune = "yes"\n')
    assert main(["run", "--check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("toposynth: error: 5 problems in the study: (1) study field colour")
    for field in ("colour", "candidates.specs: 'torus:4x'", "traffic.pattern", "ranking.eps", "ranking.prune"):
        assert f"study field {field}" in err, field
    # one bad field: the single error as before
    with pytest.raises(Exception, match=r"^study field ranking.eps: must be a number in \(0, 1\), got 0$"):
        study_from_dict({"candidates": {"specs": ["ring:8"]}, "ranking": {"eps": 0}})
    # a consequence of leaving a bad field out (the pool emptied by its only spec) is not reported
    with pytest.raises(Exception, match=r"^study field candidates.specs: 'ring:x'.*$") as exc:
        study_from_dict({"candidates": {"specs": ["ring:x"]}})
    assert "problems" not in str(exc.value)
