"""toposynth.synth — the design flow users run: studies, parallel sweeps, reports, the CLI.

>>> import synth
>>> s = synth.study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}})
>>> synth.run(s).ranking
['complete:4', 'ring:4']
"""

import importlib

from .study import BUILTIN_STUDIES, DEFAULT_STUDY, Study, StudyError, builtin_study, load_study, study_from_dict

__all__ = ["run", "StudyResult", "Study", "StudyError", "load_study", "study_from_dict", "builtin_study",
           "BUILTIN_STUDIES", "DEFAULT_STUDY", "render_report"]

# the sweep and the report load on first use (PEP 562): every `toposynth`
# command imports this package first (synth.cli is in it), and the sweep's
# modules (evaluation: flows' and candidates' numba kernels) were ~0.3 s of
# a small `toposynth flow`'s start-up, the report's ~25 ms (measured, -X
# importtime). The sweep lives in synth.runner, not synth.run, so that the
# submodule cannot shadow the function.
_LAZY_MODULE = {"run": "runner", "StudyResult": "runner", "render_report": "report"}


def __getattr__(name: str):
    module = _LAZY_MODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULE))
