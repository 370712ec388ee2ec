"""The README's and the documentation's printed examples are what the tool prints.

Every ``$ toposynth ...`` line of the README, or of a page of the docs site
(``docs/**/*.md``, the generated reference aside), that is followed by output is
run (in a scratch directory; a study file the README shows just before is
written there), and its standard output plus its error lines compared line
by line. Allowed differences: run times (``0.39 s``), a first run's compile
time beside them (``(+7.3 s compiling, first run)``: the cache was cold), the
memory this machine has, and a ``...`` line, which stands for any number of lines.
"""

import re
import shlex
from pathlib import Path

import pytest

from synth.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: the docs site's pages whose examples run: every Markdown page but the generated reference (made from the
#: code, no examples) and the generated API index
DOCS = sorted(p for p in (ROOT / "docs").rglob("*.md")
              if "generated" not in p.relative_to(ROOT / "docs").parts and p.name != "API.md"
              and not p.relative_to(ROOT / "docs").parts[0].startswith("_"))
PROMPT = re.compile(r"^(\s*)\$ (toposynth .*)$")
#: examples that take more than a few seconds run with `pytest -m slow` (the 65,536-router saturation search:
#: about 23 minutes on 2 cores; the dragonfly's stable saturation search, about 17 s)
SLOW = ("toposynth run studies/", "toposynth simulate pdtt:a=32", "toposynth run builtin:families-1024",
        "toposynth simulate dragonfly:a=4:p=2:h=2 --routing ugal")


def _examples(page: Path = README) -> list[tuple[int, str, list[str]]]:
    lines = page.read_text().splitlines()
    name = "README" if page == README else page.relative_to(ROOT).as_posix()
    out = []
    i = 0
    while i < len(lines):
        m = PROMPT.match(lines[i])
        if not m:
            i += 1
            continue
        indent, command = m.groups()
        start = i
        i += 1
        while command.endswith("\\"):                 # a command continued on the next line
            command = command[:-1] + " " + lines[i].strip()
            i += 1
        while i < len(lines) and lines[i].strip().startswith("#"):   # its comment, wrapped
            i += 1
        expected = []
        while i < len(lines) and lines[i].strip() and not PROMPT.match(lines[i]) and lines[i].strip() != "```":
            expected.append(lines[i][len(indent):])
            i += 1
        if expected:
            study = None
            if command.split()[1] == "run":
                toml = [b for b in re.findall(r"```toml\n(.*?)```", "\n".join(lines[:start]), re.S)]
                study = toml[-1] if toml else None
            out.append(pytest.param(start + 1, command, expected, study, id=f"{name}:{start + 1}",
                                    marks=[pytest.mark.slow] if command.startswith(SLOW) else []))
    return out


def _normal(line: str) -> str:
    line = re.sub(r"; \+[\d.]+ s compiling, first run\)", ")", line)
    line = re.sub(r" \(\+[\d.]+ s compiling, first run\)", "", line)
    line = re.sub(r"\b\d+(\.\d+)?(e-?\d+)? s\b", "T s", line)
    line = re.sub(r"this machine has [\d.]+ [KMGT]?B available", "this machine has M available", line)
    return line.rstrip()


def _matches(expected: list[str], actual: list[str]) -> bool:
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(_matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and _normal(expected[0]) == _normal(actual[0]) and _matches(expected[1:], actual[1:])


EXAMPLES = [example for page in (README, *DOCS) for example in _examples(page)]


def test_the_readme_has_printed_examples():
    assert len(_examples(README)) >= 4


@pytest.mark.parametrize("line,command,expected,study", EXAMPLES)
def test_readme_example(line, command, expected, study, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "studies").symlink_to(README.parent / "studies")
    argv = shlex.split(command, comments=True)[1:]
    if study is not None and not Path(argv[1]).exists():
        Path(argv[1]).write_text(study)
    main(argv)
    out, err = capsys.readouterr()
    actual = out.splitlines() + [x for x in err.splitlines() if x.startswith("toposynth: error")]
    assert _matches(expected, actual), "\n".join(["documented:", *expected, "tool:", *actual])
