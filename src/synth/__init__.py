"""toposynth.synth — the design flow users run: studies, parallel sweeps, reports, the CLI.

>>> import synth
>>> s = synth.study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}})
>>> synth.run(s).ranking
['complete:4', 'ring:4']
"""

from .report import render_report
from .run import StudyResult, run
from .study import BUILTIN_STUDIES, DEFAULT_STUDY, Study, StudyError, builtin_study, load_study, study_from_dict

__all__ = ["run", "StudyResult", "Study", "StudyError", "load_study", "study_from_dict", "builtin_study",
           "BUILTIN_STUDIES", "DEFAULT_STUDY", "render_report"]
