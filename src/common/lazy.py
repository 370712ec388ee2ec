"""Package names that load on first use (PEP 562).

Every ``toposynth`` command imports all four packages, and the modules
holding numba kernels would make each pay for importing numba (~0.2 s of a
small ``toposynth flow``'s ~0.3 s): their names load when first asked for.

>>> ns = {}
>>> getattr_, dir_ = lazy_names("json", {"JSONDecoder": "decoder"}, ns)
>>> getattr_("JSONDecoder").__name__, "JSONDecoder" in ns
('JSONDecoder', True)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, where: Mapping[str, str], namespace: dict[str, Any]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose names ``where[name]``
    (a submodule, relative) are imported on first use and then kept in
    ``namespace`` (the package's globals).

    A lazy name must not be a submodule's name as well: once the submodule
    is imported the package attribute would be the module.
    """
    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
