"""toposynth.synth — the design flow users run: studies, parallel sweeps, reports, the CLI.

>>> import synth
>>> s = synth.study_from_dict({"candidates": {"specs": ["ring:4", "complete:4"]}, "cross_check": {"top": 0}})
>>> synth.run(s).ranking
['complete:4', 'ring:4']
"""

from common.lazy import lazy_names

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
__getattr__, __dir__ = lazy_names(__name__, _LAZY_MODULE, globals())
