"""The candidate pool of a study: every candidate as a spec string.

Specs are the identity of a candidate: they rebuild it anywhere (a worker
process, a dask worker, a later session resuming the sweep) and key its
record in the results.
"""

from __future__ import annotations

import itertools

from candidates import from_spec
from candidates.errors import ToposynthError

from .study import Study, StudyError

__all__ = ["candidate_specs"]


def _sweep_specs(entry: dict) -> list[str]:
    family = entry["family"]
    keys = [k for k in entry if k != "family"]
    out = []
    for values in itertools.product(*(entry[k] for k in keys)):
        out.append(":".join([family] + [f"{k}={v}" for k, v in zip(keys, values)]))
    return out


def candidate_specs(study: Study) -> list[str]:
    """Every candidate of the study, canonical specs, in a fixed order
    (specs, sweeps, enumerated graphs, files), duplicates removed.

    >>> from synth.study import study_from_dict
    >>> s = study_from_dict({"candidates": {"specs": ["torus:8x4"],
    ...                      "sweep": [{"family": "rtt", "a": [2, 3]}]}})
    >>> candidate_specs(s)
    ['torus:8x4', 'rtt:a=2', 'rtt:a=3']
    """
    raw: list[str] = list(study.specs)
    for entry in study.sweep:
        raw += _sweep_specs(entry)
    if study.enumerate:
        from candidates.enumeration import iter_graph6

        en = study.enumerate
        raw += ["g6:" + g for g in iter_graph6(en["nodes"], en["max_degree"], min_degree=en.get("min_degree", 0),
                                               regular=bool(en.get("regular", False)))]
    raw += ["graph:" + f for f in study.files]
    seen: dict[str, None] = {}
    for s in raw:
        try:
            t = from_spec(s)
        except ToposynthError as exc:
            raise StudyError(f"study field candidates: {s!r}: {exc}") from None
        seen.setdefault(t.spec or s, None)
    return list(seen)
