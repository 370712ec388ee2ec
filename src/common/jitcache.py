"""Keeping numba's on-disk kernel cache true to the source it was built from.

numba decides whether a cached kernel is fresh from the source file that
defines the kernel alone. The simulator's kernels (``sim._vct``) inline
helpers and constants from another module (``sim._core``): after that
module changes -- a developer's edit, or an upgrade that leaves the old
``__pycache__`` in place -- numba would go on loading the old machine code
and the numbers would silently be those of the old source. A kernel module
calls :func:`refresh_kernel_cache` at import with the modules it inlines
from; when their source differs from the stamp stored beside the cache, the
module's cached kernels are dropped and compile afresh on first use.

>>> import types
>>> refresh_kernel_cache(types.ModuleType("empty"), ())
False
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

__all__ = ["refresh_kernel_cache", "sources_stamp"]


def sources_stamp(modules: Iterable[ModuleType]) -> str:
    """SHA-256 over the source files of ``modules``, in the order given."""
    h = hashlib.sha256()
    for m in modules:
        assert m.__file__ is not None, f"{m.__name__} has no source file"
        h.update(Path(m.__file__).read_bytes())
    return h.hexdigest()


def _cached_kernels(module: ModuleType) -> list:
    # numba's dispatchers keep their cache as ``_cache`` (a NullCache when
    # caching is off); ``cache_path`` and ``flush`` are that object's own API
    out = []
    for obj in vars(module).values():
        cache = getattr(obj, "_cache", None)
        if getattr(obj, "__module__", None) == module.__name__ and getattr(cache, "cache_path", None):
            out.append(obj)
    return out


def refresh_kernel_cache(module: ModuleType, depends_on: Iterable[ModuleType]) -> bool:
    """Drop the on-disk cache of ``module``'s cached numba kernels if the
    modules in ``depends_on`` changed since it was written (or if no stamp
    says what it was written from). Returns whether anything was dropped.
    A cache directory that cannot be written is left alone (numba does not
    write one there either)."""
    kernels = _cached_kernels(module)
    if not kernels:
        return False
    stamp = sources_stamp(depends_on)
    where = Path(kernels[0]._cache.cache_path) / f"{module.__name__.rsplit('.', 1)[-1]}.deps.sha256"
    try:
        if where.read_text() == stamp:
            return False
    except OSError:
        pass
    try:
        for k in kernels:
            k._cache.flush()
        where.parent.mkdir(parents=True, exist_ok=True)
        # written whole or not at all: another process importing the module at the same moment (the test
        # suite's workers) must not read half a stamp, take it for a stale one and drop the cache again
        tmp = where.with_name(f"{where.name}.{os.getpid()}.tmp")
        tmp.write_text(stamp)
        os.replace(tmp, where)
    except OSError:
        return False
    return True
