"""The tree is lint-clean: ruff with the rules of pyproject.toml ([tool.ruff.lint]), and mypy finds no type
error in the modules of [tool.mypy] (its ``files``: the typed public modules)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "benchmarks", "tests", "docs"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_finds_nothing(tmp_path):
    # the configuration (scope, third-party libraries) is pyproject.toml's; a fresh cache: a cold run,
    # about 10 s of CPU
    p = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
