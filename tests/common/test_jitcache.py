"""numba's cache is refreshed when a module a kernel inlines from changes.

Each step runs in a fresh interpreter (numba keeps compiled code in-process),
on a throwaway package whose kernel returns a constant from a helper module.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERNEL = textwrap.dedent("""
    import sys
    from numba import njit
    from common.jitcache import refresh_kernel_cache
    from . import helper
    from .helper import VALUE

    @njit(cache=True)
    def kernel():
        return VALUE

    {refresh}
""")


def _package(root: Path, value: int, refresh: bool) -> None:
    pkg = root / "jcpkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text(f"VALUE = {value}\n")
    line = "refresh_kernel_cache(sys.modules[__name__], (helper,))" if refresh else ""
    (pkg / "kern.py").write_text(KERNEL.format(refresh=line))


def _run(root: Path, cache: Path | None) -> int:
    # the cache where the user puts it: next to the sources by default, or under NUMBA_CACHE_DIR
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    out = subprocess.run([sys.executable, "-c", "from jcpkg.kern import kernel; print(kernel())"], cwd=root,
                         capture_output=True, text=True, check=True, env=env)
    return int(out.stdout.split()[-1])


@pytest.mark.parametrize("relocated", [False, True], ids=["next to the sources", "NUMBA_CACHE_DIR"])
@pytest.mark.parametrize("refresh", [False, True])
def test_a_changed_helper_reaches_the_cached_kernel(tmp_path, refresh, relocated):
    cache = tmp_path / "numba-cache" if relocated else None
    where = cache if relocated else tmp_path / "jcpkg" / "__pycache__"
    _package(tmp_path, 1, refresh)
    assert _run(tmp_path, cache) == 1
    assert list(where.rglob("kern.kernel-*.nbi"))
    _package(tmp_path, 2, refresh)       # kern.py itself is unchanged
    # without the refresh numba loads the kernel compiled from the old helper:
    # the stale result this module exists to prevent
    assert _run(tmp_path, cache) == (2 if refresh else 1)
    if refresh:
        assert list(where.rglob("kern.deps.sha256"))
        assert _run(tmp_path, cache) == 2       # and the fresh code is cached again
