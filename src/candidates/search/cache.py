"""Rebuilding a searched graph from its spec, once.

A ``search:`` spec is a deterministic function of its fields, but running it
again costs the whole search; a study rebuilds a candidate in several places
(the pool, each worker, the LP cross-check, the simulation). The graph is
kept in memory for the process and on disk in the cache folder,
``$TOPOSYNTH_CACHE/search`` (default ``~/.cache/toposynth/search``), keyed by
the spec's fields and :data:`~candidates.search.result.SEARCH_VERSION` -- a
version of the search that moves differently never reads an older graph.
``TOPOSYNTH_CACHE=off`` keeps nothing on disk. A cache entry that cannot be
read is ignored and written again; a folder that cannot be written is left
alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..topology import Topology
from .layout import grid_layout

__all__ = ["cache_dir", "cached_search", "CACHE_ENV"]

CACHE_ENV = "TOPOSYNTH_CACHE"

_MEMORY: dict[str, Topology] = {}


def cache_dir() -> Path | None:
    """The disk cache's folder, or None when ``TOPOSYNTH_CACHE=off``."""
    root = os.environ.get(CACHE_ENV, "")
    if root.lower() in ("off", "0", "none"):
        return None
    base = Path(root) if root else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "toposynth"
    return base / "search"


def _key(fields: dict[str, object]) -> str:
    from .result import SEARCH_VERSION  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

    text = json.dumps({"version": SEARCH_VERSION, **{k: fields[k] for k in sorted(fields)}}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_search(fields: dict[str, object], build: Callable[[str], Topology]) -> Topology:
    """The topology of a ``search:`` spec's fields (``search_graph``'s keyword
    arguments plus ``routers`` and ``degree``; ``fixed`` and ``start`` as
    spec strings, which ``build`` turns into topologies: the registry's
    ``from_spec``), from the caches or by searching."""
    key = _key(fields)
    if key in _MEMORY:
        return _MEMORY[key]
    folder = cache_dir()
    path = None if folder is None else folder / f"{key}.npz"
    topo = _load(path)
    if topo is None:
        from . import search_graph  # deferred: numba takes 0.35 s to import (docs/ARCHITECTURE.md)

        kw = dict(fields)
        for k in ("fixed", "start"):     # given as specs
            if k in kw:
                kw[k] = build(str(kw[k]))
        if "grid" in kw:
            cols, rows = (int(x) for x in str(kw.pop("grid")).split("x"))
            kw["layout"] = grid_layout(cols, rows)
        topo = search_graph(kw.pop("routers"), kw.pop("degree"), **kw).topology
        _store(path, topo)
    _MEMORY[key] = topo
    return topo


def _load(path: Path | None) -> Topology | None:
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            coords = z["coords"] if "coords" in z.files else None
            return Topology(n=int(meta["n"]), links=z["links"], link_dim=z["link_dim"], dims=tuple(meta["dims"]),
                            family="search", spec=meta["spec"], params=meta["params"], coords=coords,
                            shape=None if meta.get("shape") is None else tuple(meta["shape"]))
    except Exception:  # a damaged or foreign file: search again and write it anew
        return None


def _store(path: Path | None, topo: Topology) -> None:
    if path is None:
        return
    meta = {"n": topo.n, "dims": list(topo.dims), "spec": topo.spec, "params": topo.params,
            "shape": None if topo.shape is None else list(topo.shape)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp.npz")
        extra = {} if topo.coords is None else {"coords": topo.coords}
        # numpy's stub lets **extra reach savez's allow_pickle (a bool); its only key is "coords"
        np.savez(tmp, links=topo.links, link_dim=topo.link_dim, meta=np.array(json.dumps(meta)),
                 **extra)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError:
        pass
