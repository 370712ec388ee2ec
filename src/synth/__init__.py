"""toposynth.synth — the design flow users run: studies, parallel sweeps, reports, the CLI.

>>> import synth
>>> s = synth.study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}})
>>> synth.run(s).ranking
['complete:4', 'ring:4']
"""

import importlib

from .run import StudyResult, run
from .study import BUILTIN_STUDIES, DEFAULT_STUDY, Study, StudyError, builtin_study, load_study, study_from_dict

__all__ = ["run", "StudyResult", "Study", "StudyError", "load_study", "study_from_dict", "builtin_study",
           "BUILTIN_STUDIES", "DEFAULT_STUDY", "render_report"]


def __getattr__(name: str):
    # the report loads on first use (PEP 562): every `toposynth` command
    # imports this package first (synth.cli is in it), and the report's
    # module cost `toposynth flow` and `describe` ~25 ms of start-up
    # (measured with -X importtime). Only render_report: a lazy `run` would
    # be shadowed by the submodule synth.run once anything imports it
    if name == "render_report":
        value = importlib.import_module(".report", __name__).render_report
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
