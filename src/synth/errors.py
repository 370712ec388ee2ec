"""The design flow's error: a study (file, dict or command-line workload) that cannot be run as given."""

from common.errors import ToposynthError

__all__ = ["StudyError", "RecordError"]


class StudyError(ToposynthError):
    """A study file or study dict is malformed.

    >>> from synth import study_from_dict
    >>> study_from_dict({"candidates": {"specs": ["ring:8"]}, "ranking": {"objective": "speed"}})
    Traceback (most recent call last):
    ...
    synth.errors.StudyError: study field ranking.objective: must be one of capacity, latency, both; got 'speed'
    """


class RecordError(ToposynthError):
    """A stored record (a line of records.jsonl or simulation.jsonl, a
    record in results.json) is malformed or impossible."""
