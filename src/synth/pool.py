"""The candidate pool of a study: every candidate as a spec string.

Specs are the identity of a candidate: they rebuild it anywhere (a worker
process, a dask worker, a later run resuming the sweep) and key its
record in the results.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from candidates import Topology, from_spec
from candidates.enumeration.graphs import iter_graph6
from candidates.enumeration.linear import linear_placements
from candidates.isomorphism import isomorphism_classes, labelled_key
from common.errors import ToposynthError

from .study import Study, StudyError

__all__ = ["candidate_specs", "candidate_sizes", "candidate_pool", "CandidatePool"]


def _sweep_specs(entry: dict) -> list[str]:
    family = entry["family"]
    keys = [k for k in entry if k != "family"]
    out = []
    for values in itertools.product(*(entry[k] for k in keys)):
        out.append(":".join([family] + [f"{k}={v}" for k, v in zip(keys, values)]))
    return out


def _factor_pool(entries: list[str]) -> list[str]:
    out: list[str] = []
    for x in entries:
        if x.startswith("enumerate:"):
            _, n, d = x.split(":")
            out += ["g6:" + g for g in iter_graph6(int(n), int(d))]
        else:
            out.append(x)
    return out


def _placed(spec: str, mode: str) -> list[str]:
    """The row graph in each linear placement the mode asks for, as g6 specs
    whose vertex i sits at position i."""
    if mode == "canonical":
        return [spec]
    import networkx as nx  # deferred: networkx takes 0.08 s to import (docs/ARCHITECTURE.md)

    G = from_spec(spec).to_networkx(multigraph=False)
    pls = linear_placements(G)
    if mode == "min-cutwidth":
        pls = [p for p in pls if p.cutwidth == pls[0].cutwidth][:1]
    out = []
    for p in pls:
        pos = {v: i for i, v in enumerate(p.order)}
        H = nx.Graph()
        H.add_nodes_from(range(G.number_of_nodes()))  # graph6 follows node order: position order
        H.add_edges_from((pos[u], pos[v]) for u, v in G.edges())
        out.append("g6:" + nx.to_graph6_bytes(H, header=False).decode("ascii").strip())
    return out


def _hierarchy_specs(h: dict) -> list[str]:
    rows = _factor_pool(h["rows"])
    if "limit" in h:
        rows = rows[: h["limit"]]
    rows = [p for r in rows for p in _placed(r, h["placements"])]
    cols, urs, ucs = (_factor_pool(h[k]) for k in ("columns", "upper_rows", "upper_columns"))
    return [f"bgl:{r}*{c}*{u}*{w}" for r in rows for c in cols for u in urs for w in ucs]


@dataclass(frozen=True)
class CandidatePool:
    """The candidates of a study, one per network.

    sizes : spec -> processing elements, in pool order, one spec per network.
    same : kept spec -> the specs left out as the same network (isomorphic, with as many PEs on
        corresponding routers; under a packaging, the same placed machine), in pool order.
    topologies : kept spec -> the topology built to compare it (unplaced), so that no caller builds it again.
    """

    sizes: dict[str, int]
    same: dict[str, list[str]] = field(default_factory=dict)
    topologies: dict[str, Topology] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict:
        return {"sizes": dict(self.sizes), "same": {k: list(v) for k, v in self.same.items()}}


def candidate_specs(study: Study) -> list[str]:
    """Every candidate of the study (see :func:`candidate_pool`), canonical specs in pool order."""
    return list(candidate_pool(study).sizes)


def candidate_sizes(study: Study, extra: list[str] | tuple[str, ...] = ()) -> dict[str, int]:
    """Every candidate of the study with its number of processing elements (:func:`candidate_pool`'s sizes).

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["torus:8x4"],
    ...                      "sweep": [{"family": "rtt", "a": [2, 3]}]}})
    >>> candidate_sizes(s)          # spec -> processing elements
    {'torus:8x4': 32, 'rtt:a=2': 8, 'rtt:a=3': 18}
    """
    return candidate_pool(study, extra).sizes


def candidate_pool(study: Study, extra: list[str] | tuple[str, ...] = (), keep: str | None = None) -> CandidatePool:
    """Every candidate of the study, one spec per network: canonical specs in a fixed order (specs,
    sweeps, enumerated graphs, hierarchy, files, then ``extra``: the searched graphs); a candidate that
    is the same network as an earlier one is left out (and listed in ``same``), unless it is ``keep``
    (the baseline), which then stands for its network in place of the earlier ones.

    Without a packaging two candidates are the same network when they are isomorphic with as many PEs
    on corresponding routers (:mod:`candidates.isomorphism`): every flow figure is the same. Under a
    packaging, where the routers sit matters too: only the same placed machine counts.

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["torus:8x4", "rt:a=4", "hypercube:6", "torus:4x4x4"]}})
    >>> p = candidate_pool(s)
    >>> list(p.sizes), p.same
    (['torus:8x4', 'hypercube:6'], {'torus:8x4': ['rt:a=4'], 'hypercube:6': ['torus:4x4x4']})
    """
    raw: list[str] = list(study.specs)
    for entry in study.sweep:
        raw += _sweep_specs(entry)
    if study.enumerate:
        en = study.enumerate
        raw += ["g6:" + g for g in iter_graph6(en["nodes"], en["max_degree"], min_degree=en.get("min_degree", 0),
                                               regular=bool(en.get("regular", False)))]
    if study.hierarchy:
        raw += _hierarchy_specs(study.hierarchy)
    raw += ["graph:" + f for f in study.files]
    raw += list(extra)      # the searched candidates' graphs (synth.study_search)
    topos: dict[str, Topology] = {}
    for s in raw:
        try:
            t = from_spec(s)
        except ToposynthError as exc:
            raise StudyError(f"study field candidates: {s!r}: {exc}") from None
        topos.setdefault(t.spec or s, t)
    specs = list(topos)
    if study.physical.packaging == "none":
        groups = isomorphism_classes([topos[s] for s in specs])
    else:
        by_machine: dict[tuple, list[int]] = {}
        for i, s in enumerate(specs):
            placed = study.physical.place(topos[s])
            unit = None if placed.placement is None else placed.placement.unit.tobytes()
            by_machine.setdefault((labelled_key(placed), unit), []).append(i)
        groups = sorted(by_machine.values(), key=lambda g: g[0])
    kept: dict[int, list[int]] = {}
    for g in groups:
        rep = next((i for i in g if specs[i] == keep), g[0])
        kept[rep] = [i for i in g if i != rep]
    order = sorted(kept)
    return CandidatePool({specs[i]: topos[specs[i]].num_terminals for i in order},
                         {specs[i]: [specs[j] for j in kept[i]] for i in order if kept[i]},
                         {specs[i]: topos[specs[i]] for i in order})
