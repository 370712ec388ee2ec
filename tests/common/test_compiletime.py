"""numba's compile time is measured apart from run time, and a cold compile is announced once.

In-process for the timer itself (a fresh function compiles, a compiled one does not); a fresh
interpreter per step for numba's on-disk cache, which an in-process call would not consult again.
"""

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from numba import njit

from common import compiletime

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_a_fresh_compile_counts_and_a_compiled_call_does_not():
    @njit
    def fresh(x):        # defined here: no process has compiled it, and without cache=True no disk has it
        return x * 3 + 1

    t0 = compiletime.clock()
    assert fresh(2) == 7
    first = compiletime.compile_seconds(t0)
    assert first > 0.0
    run, comp = compiletime.run_seconds(t0)
    assert comp >= first and run >= 0.0
    assert run + comp == pytest.approx(time.perf_counter() - t0, abs=0.05)
    t1 = compiletime.clock()
    assert fresh(3) == 10
    assert compiletime.compile_seconds(t1) < 1e-3       # compiled already: nothing to count
    assert compiletime.compile_seconds(t0, t1) == pytest.approx(first, rel=0.5, abs=0.05)
    assert compiletime.compile_cpu_seconds(t0) > 0.0


def test_spans_and_their_union():
    t0 = compiletime.clock()

    @njit
    def other(x):
        return x - 1

    other(1)
    spans = compiletime.spans(t0)
    assert spans and all(b >= a for a, b in spans)
    now = time.time()
    total = compiletime.union_seconds(spans + spans, now - 3600, now)      # a span twice counts once
    assert total == pytest.approx(compiletime.compile_seconds(t0), abs=0.01)


def test_notices_can_be_turned_off():
    @njit
    def cold(x):
        return x + 5

    assert compiletime.is_cold(cold)
    was = compiletime.notices_enabled()
    compiletime.set_notices(False)
    try:
        assert not compiletime.announce("a test's kernel", 1.0, [cold])
    finally:
        compiletime.set_notices(was)
    cold(1)
    assert not compiletime.is_cold(cold)
    assert not compiletime.announce("a test's compiled kernel", 1.0, [cold])


STEP = textwrap.dedent("""
    import json, sys
    from common import compiletime
    from ctpkg.kern import kernel
    cold = compiletime.is_cold(kernel)
    printed = compiletime.announce("the test kernel", 2.0, [kernel])
    printed_again = compiletime.announce("the test kernel", 2.0, [kernel])
    t0 = compiletime.clock()
    value = kernel(4)
    print(json.dumps({"cold": cold, "printed": printed, "again": printed_again, "value": value,
                      "compile": compiletime.compile_seconds(t0)}))
""")


def _step(root: Path, cache: Path) -> tuple[dict, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, str(root)]), "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", STEP], cwd=root, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def test_a_cached_kernel_loads_without_compiling_or_notice(tmp_path):
    pkg = tmp_path / "ctpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text("from numba import njit\n\n\n@njit(cache=True)\ndef kernel(x):\n    return x * x\n")
    cache = tmp_path / "numba-cache"
    cold, err = _step(tmp_path, cache)
    assert cold == {**cold, "cold": True, "printed": True, "again": False, "value": 16}
    assert cold["compile"] > 0.0
    assert err.count("compiling the test kernel (first run only, about 2 s) ...") == 1
    warm, err = _step(tmp_path, cache)           # a fresh process: numba's disk cache has the kernel now
    assert warm == {**warm, "cold": False, "printed": False, "value": 16}
    assert warm["compile"] < 0.01
    assert "compiling" not in err


def test_compile_note():
    assert compiletime.compile_note(0.01) == ""
    assert compiletime.compile_note(12.34) == " (+12.3 s compiling, first run)"
    assert compiletime.compile_note(12.34, inside=True) == "; +12.3 s compiling, first run"
