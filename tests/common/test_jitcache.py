"""numba's cache is refreshed when a module a kernel inlines from changes.

Each step runs in a fresh interpreter (numba keeps compiled code in-process),
on a throwaway package whose kernel returns a constant from a helper module.
"""

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


def _run(root: Path) -> int:
    out = subprocess.run([sys.executable, "-c", "from jcpkg.kern import kernel; print(kernel())"], cwd=root,
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


@pytest.mark.parametrize("refresh", [False, True])
def test_a_changed_helper_reaches_the_cached_kernel(tmp_path, refresh):
    _package(tmp_path, 1, refresh)
    assert _run(tmp_path) == 1
    assert list((tmp_path / "jcpkg" / "__pycache__").glob("kern.kernel-*.nbi"))
    _package(tmp_path, 2, refresh)       # kern.py itself is unchanged
    # without the refresh numba loads the kernel compiled from the old helper:
    # the stale result this module exists to prevent
    assert _run(tmp_path) == (2 if refresh else 1)
    if refresh:
        assert (tmp_path / "jcpkg" / "__pycache__" / "kern.deps.sha256").exists()
        assert _run(tmp_path) == 2       # and the fresh code is cached again
