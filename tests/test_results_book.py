"""The results book (docs/results/): the benchmark scripts' ``--record`` writes into it, and its pages speak of
the project only (no machine paths, no branch names).

Recording is checked on a copy of the book: an existing section is replaced on the page that holds it, a part
(``### title``) of a section in place, and a new section lands on the page of its subject.
"""

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "docs" / "results"
sys.path.insert(0, str(ROOT / "benchmarks"))

import _record  # noqa: E402  (benchmarks/: not a package of the tree)

PAGES = ("index.md", "twisted-tori-tpds2010.md", "5d-twin-torus-extoll.md", "topology-synthesis-mcf-bgl.md",
         "rtt-mapping-concentration.md", "equivalent-distance-irregular.md", "candidates.md", "flows.md",
         "simulator.md", "queueing-model.md", "design-flow.md")


@pytest.fixture
def book(tmp_path, monkeypatch):
    """A copy of the book that ``_record`` writes into, with a fixed command and machine."""
    copy = tmp_path / "results"
    shutil.copytree(BOOK, copy)
    monkeypatch.setattr(_record, "BOOK", copy)
    monkeypatch.setattr(_record, "command", lambda: "python bench_x.py --record")
    monkeypatch.setattr(_record, "machine", lambda: "Test CPU, 2 cores")
    return copy


def _sections(text: str) -> list[str]:
    return re.findall(r"^## (.*)$", text, re.M)


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in folder.glob("*.md")}


def test_the_book_has_its_pages():
    for name in PAGES:
        assert (BOOK / name).is_file(), name
    assert not (ROOT / "benchmarks" / "RESULTS.md").exists()     # the book replaced it


def test_no_page_sends_the_reader_to_the_old_results_file():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted((ROOT / "examples").glob("*.py"))]
    assert [str(p.relative_to(ROOT)) for p in pages if "RESULTS.md" in p.read_text()] == []


def test_an_existing_section_is_replaced_on_its_page(book):
    before = _snapshot(book)
    section = "Flows: PTAS vs HiGHS"
    assert _record.page_for(section) == book / "flows.md"
    _record.record(section, "| a | b |\n|---|---|\n| 1 | 2 |")
    after = _snapshot(book)
    assert {name for name in after if after[name] != before[name]} == {"flows.md"}
    text = after["flows.md"]
    # in place: the same sections in the same order, the old body gone, the new one with its provenance line
    assert _sections(text) == _sections(before["flows.md"])
    block = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M).group(1)
    assert block.strip().splitlines()[0].startswith("`python bench_x.py --record` — ")
    assert block.strip().endswith("| 1 | 2 |")
    assert "| torus:4x4x2 | 32 | uniform | 992 |" not in text


def test_a_section_recorded_again_keeps_its_parts(book):
    """A script's table replaces the section's own text; a part under it (a hand-written run from a fresh clone)
    stays, with its figures."""
    section = "First run from an empty numba cache (cold) and again (warm), per command"
    before = (book / "design-flow.md").read_text()
    assert "### From a fresh clone and venv, as the README's first command" in before
    _record.record(section, "| command | cold wall s |\n|---|---|\n| run | 1.0 |")
    text = (book / "design-flow.md").read_text()
    block = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M).group(1)
    own, _, part = block.partition("### ")
    assert own.strip().endswith("| run | 1.0 |")
    assert "| run | 42.0 |" not in own
    assert part.startswith("From a fresh clone and venv, as the README's first command\n")
    assert "| cold (empty cache) | 36.1 | 32.8 |" in part
    assert _sections(text) == _sections(before)


def test_parts_keep_the_machine_the_section_named_for_all(book):
    """A section whose first line named one machine for every part (``Machine: ...``): recording a part gives
    each older part that machine on its own provenance line and the new part this machine's. The section is
    planted in the old form (the book's own sections are in the new one once a part was recorded)."""
    section, named = "Simulator: a section of the old form", "Old CPU, 4 cores, Python 3.11.7"
    page = book / "simulator.md"
    page.write_text(page.read_text().rstrip() + f"\n\n## {section}\n\nMachine: {named}\n\nRecorded part by part; "
                    "each part gives its own command and date.\n\n### Kept part\n\n"
                    "_`python bench_y.py --record` — 2026-01-02 03:04 UTC_\n\nOld table.\n\n"
                    "### Replaced part\n\n_`python bench_x.py --record` — 2026-01-02 03:05 UTC_\n\nOld table.\n")
    _record.record_subsection(section, "Replaced part", "New table.")
    text = page.read_text()
    new = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M).group(1)
    assert not re.search(r"^Machine: ", new, re.M)
    kept = re.search(r"^### Kept part\n\n(_.*_)$", new, re.M).group(1)
    assert kept == f"_`python bench_y.py --record` — 2026-01-02 03:04 UTC; {named}_"
    part = re.search(r"^### Replaced part\n\n(_.*_)$", new, re.M).group(1)
    assert part.startswith("_`python bench_x.py --record` — ") and part.endswith(f"; {_record.machine()}_")
    assert "New table." in new and new.count("Old table.") == 1


def test_a_part_of_a_section_is_replaced_in_place(book):
    before = _snapshot(book)
    section, title = "Reproduction: 5d-twin-torus-extoll", "Zero-load latency per packet and per cell"
    _record.record_subsection(section, title, "New latency table.")
    after = _snapshot(book)
    assert {name for name in after if after[name] != before[name]} == {"5d-twin-torus-extoll.md"}
    text = after["5d-twin-torus-extoll.md"]
    parts = re.findall(r"^### (.*)$", text, re.M)
    assert parts == re.findall(r"^### (.*)$", before["5d-twin-torus-extoll.md"], re.M)
    part = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^### |^## |\Z)", text, re.S | re.M).group(1)
    assert part.strip().splitlines()[-1] == "New latency table."
    assert "_`python bench_x.py --record` — " in part
    # the other parts keep their figures
    assert "| 256 | torus:8x8x4 | ndt:4x4x2x2x2 | 5.020 | 4.439 |" in text


@pytest.mark.parametrize("section, page", [
    ("Reproduction: twisted-tori-tpds2010 at 128x64x64", "twisted-tori-tpds2010.md"),
    ("Permutations of 'twisted-tori-tpds2010': the bound of the routing used (64x32)", "twisted-tori-tpds2010.md"),
    ("Reproduction: rtt-mapping-concentration, a new figure", "rtt-mapping-concentration.md"),
    ("Flows: a new solver", "flows.md"),
    ("Simulator: a new router", "simulator.md"),
    ("Queueing model against the simulator, a new router", "queueing-model.md"),
    ("Synthesis by a new search", "candidates.md"),
    ("Python API: a new sweep", "design-flow.md"),
    ("Something no prefix names", _record.FALLBACK),
])
def test_a_new_section_lands_on_the_page_of_its_subject(book, section, page):
    before = _snapshot(book)
    _record.record(section, "New figures.")
    after = _snapshot(book)
    assert {name for name in after if after[name] != before[name]} == {page}
    assert _sections(after[page]) == _sections(before[page]) + [section]
    # a re-run replaces it rather than adding it again
    _record.record(section, "Newer figures.")
    text = (book / page).read_text()
    assert _sections(text).count(section) == 1 and "Newer figures." in text and "New figures." not in text


def test_a_new_part_lands_in_its_section(book):
    section = "Reproduction: twisted-tori-tpds2010, like for like on the tpds2010 router"
    _record.record_subsection(section, "A new comparison", "New figures.")
    text = (book / "twisted-tori-tpds2010.md").read_text()
    block = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M).group(1)
    assert re.findall(r"^### (.*)$", block, re.M) == [
        "RT vs RTT like for like (tpds2010 router)", "PT / PTT / PDTT like for like (tpds2010 router)",
        "A new comparison"]


@pytest.mark.parametrize("name", PAGES)
def test_a_page_speaks_of_the_project_only(name):
    text = (BOOK / name).read_text()
    for path in ("/work/", "/tmp/", "/home/"):
        assert path not in text, (name, path)
    assert "(branch " not in text, name
    # provenance is a command, a date, a machine and a commit -- not who ran it or when in whose schedule
    assert not re.search(r"\bsessions?\b", text, re.I), name
    assert not re.search(r"\b(work|this|that|next|last|previous) period\b|\bperiod \d", text, re.I), name
