"""The documentation site (docs/): its generated reference covers the code, its pages' Python examples run, and
it builds with Sphinx without a warning.

The reference pages are written from the code when the site is built (docs/_ext/toposynth_docs.py); the
generators run here without Sphinx, so these checks need nothing the test extra lacks. The build itself needs
the docs extra (``pip install ".[docs]"``) and is skipped without it; .ci/run installs the extra and builds
the site after the tests.
"""

import argparse
import doctest
import importlib
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

import toposynth_docs  # noqa: E402  (docs/_ext: not a package of the tree)


@pytest.fixture(scope="module")
def pages():
    return toposynth_docs.pages()


def test_the_generators_examples_run():
    result = doctest.testmod(toposynth_docs, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_every_command_and_option_is_on_the_cli_page(pages):
    from synth.cli import build_parser

    page = pages["cli.md"]
    missing = []
    for name, _, sub in toposynth_docs._subcommands(build_parser()):
        if f"```{{program}} toposynth {name}\n" not in page:
            missing.append(name)
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            first = action.option_strings[0] if action.option_strings else (action.metavar or action.dest)
            if f"```{{option}} {first}" not in page:
                missing.append(f"{name} {first}")
    assert not missing, f"not on the generated CLI page: {missing}"


def test_every_study_field_is_described():
    assert toposynth_docs.check_study_fields() == []


def test_every_study_field_is_on_its_page(pages):
    page = pages["study-file.md"]
    for section, fields in toposynth_docs.study_sections().items():
        for field in fields:
            assert f"| `{field}` |" in page, (section, field)


def test_every_registry_entry_has_its_section(pages):
    import sim.engine  # noqa: F401 (registers the router models)
    from candidates import FAMILIES
    from candidates.search.objectives import OBJECTIVES
    from flows import SOLVER_REGISTRY
    from sim.routers import ROUTER_REGISTRY
    from sim.routing import ROUTING_REGISTRY
    from traffic import PATTERNS

    for page, prefix, registry in (("families.md", "family", FAMILIES), ("traffic-patterns.md", "pattern", PATTERNS),
                                   ("routings.md", "routing", ROUTING_REGISTRY),
                                   ("router-models.md", "router-model", ROUTER_REGISTRY),
                                   ("solvers.md", "solver", SOLVER_REGISTRY),
                                   ("search-objectives.md", "objective", OBJECTIVES)):
        missing = [name for name in registry if f"({prefix}-{name})=\n" not in pages[page]]
        assert not missing, f"{page}: no section for {missing}"


def test_exit_codes_and_limits_are_the_codes(pages):
    from common.errors import EXIT_CODES

    for status in EXIT_CODES:
        assert f"` | {status} |" in pages["exit-codes.md"]
    for module, name in toposynth_docs.LIMITS:
        assert f"- `{name}` = " in pages["size-limits.md"]
        assert hasattr(importlib.import_module(module), name)


def test_every_public_name_is_in_the_api_reference(pages):
    from synth import api_index

    for package in api_index.PACKAGES:
        page = pages[f"api/{package}.rst"]
        missing = [name for name in importlib.import_module(package).__all__ if f":: {package}.{name}\n" not in page]
        assert not missing, f"api/{package}.rst documents no {missing}"


def _page_examples(page: Path) -> doctest.DocTest:
    """The `>>>` examples of a Markdown page as one doctest (a page reads top to bottom like a session): the
    fenced blocks that hold examples, every other line blanked, so a block's closing fence ends its last
    expected output and a failure names the page's own line."""
    lines = page.read_text().splitlines()
    kept = [""] * len(lines)
    for m in re.finditer(r"^```[^\n]*\n(.*?)^```", "\n".join(lines) + "\n", re.S | re.M):
        if ">>> " in m.group(1):
            first = "\n".join(lines).count("\n", 0, m.start(1))
            block = m.group(1).splitlines()
            kept[first:first + len(block)] = block
    return doctest.DocTestParser().get_doctest("\n".join(kept) + "\n", {}, page.name, str(page), 0)


def test_a_pages_examples_are_found_in_its_fenced_blocks(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n```python\n>>> x = 2\n>>> x + 1\n3\n```\n\nMore.\n\n```pycon\n>>> x * 5\n10\n```\n")
    test = _page_examples(page)
    assert [e.lineno for e in test.examples] == [3, 4, 11]
    assert doctest.DocTestRunner().run(test).failed == 0


def test_the_pages_python_examples_run():
    # a `>>>` example on a written page of the site runs (the CLI examples: tests/test_readme_examples.py)
    written = [p for p in DOCS.rglob("*.md") if "generated" not in p.parts and "_build" not in p.parts]
    assert written
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for page in written:
        runner.run(_page_examples(page))
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_parser") is None,
                    reason="the site's toolchain is the docs extra: pip install '.[docs]'")
def test_the_site_builds_without_a_warning(tmp_path):
    # about 10 s: the same command as .ci/run's
    p = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                        str(tmp_path / "html")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "html" / "reference" / "generated" / "cli.html").is_file()


# ------------------------------------------------------------ every code block runs or says it does not
FENCE = re.compile(r"^(\s*)(`{3,})(.*)$")
PROMPT = re.compile(r"^\s*\$ toposynth ")
#: the README and the written pages (the generated reference and API index hold no examples)
WRITTEN = [ROOT / "README.md"] + sorted(p for p in DOCS.rglob("*.md") if "generated" not in p.parts
                                         and "_build" not in p.parts and p.name != "API.md")


def _fenced(text: str):
    """(line, info string, body lines) of every fenced block of a Markdown page."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3).strip(), i
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        yield start + 1, info, body


def _block_problem(info: str, body: list[str]) -> str | None:
    """Why a block neither runs in a test nor is marked as not run (None: it is fine).

    Run: a plain block whose every ``$ toposynth`` line is followed by its output (tests/test_readme_examples.py),
    ```python / ```pycon with ``>>>`` (doctests, above), a Python script without ``>>>`` (compiled here), ```toml
    (a study, or a section of one, validated here). Marked as not run: ```text (output, illustrations) and
    ```shell (commands a test cannot run: installs, cluster submissions). MyST directives are not code."""
    from synth.study import study_from_dict

    lang = info.split()[0] if info else ""
    if lang.startswith("{"):
        return None
    if lang in ("text", "shell"):
        return None
    if lang in ("python", "pycon"):
        if not any(x.lstrip().startswith(">>> ") for x in body):
            compile("\n".join(body) + "\n", "<docs>", "exec")      # a script: at least it parses
        return None
    if lang == "toml":
        d = tomllib.loads("\n".join(body))
        study_from_dict(d if "candidates" in d else {"candidates": {"specs": ["ring:4"]}, **d})
        return None
    if lang:
        return f"a ```{lang} block: run it in a test or mark it ```text / ```shell"
    prompts = [k for k, x in enumerate(body) if PROMPT.match(x)]
    if not prompts:
        return "a plain block without a `$ toposynth` example: mark it ```text (output) or ```shell (not run)"
    for k in prompts:
        j = k
        while body[j].rstrip().endswith("\\"):
            j += 1
        j += 1
        while j < len(body) and body[j].strip().startswith("#"):
            j += 1
        if j >= len(body) or not body[j].strip() or PROMPT.match(body[j]):
            return f"`{body[k].strip()}` shows no output: show it (the tests run it) or mark the block ```shell"
    return None


@pytest.mark.parametrize("page", WRITTEN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_code_block_runs_or_is_marked_as_not_run(page):
    bad = [f"{page.relative_to(ROOT)}:{line}: {why}" for line, info, body in _fenced(page.read_text())
           if (why := _block_problem(info, body)) is not None]
    assert not bad, "\n".join(bad)


def test_the_block_rule_tells_run_from_unmarked():
    assert _block_problem("", ["$ toposynth describe ring:4", "topology  ring:4"]) is None
    assert "shows no output" in _block_problem("", ["$ toposynth describe ring:4"])
    assert "mark it" in _block_problem("", ["pip install toposynth"])
    assert _block_problem("shell", ["pip install toposynth"]) is None
    assert "```bash" in _block_problem("bash", ["ls"])
    with pytest.raises(SyntaxError):
        _block_problem("python", ["def f(:"])
    with pytest.raises(ValueError):                        # a study field that does not exist
        _block_problem("toml", ["[ranking]", "colour = 'red'"])


def test_the_citation_file_names_this_version():
    # CITATION.cff (what GitHub's "Cite this repository" reads) cites the version pyproject.toml installs
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf'^version: "{re.escape(version)}"$', cff, re.M), version
    assert re.search(r"^cff-version: 1\.2\.0$", cff, re.M) and "\ntitle: " in cff and "\nauthors:\n" in cff
