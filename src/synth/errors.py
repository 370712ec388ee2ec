"""The design flow's error: a study (file, dict or command-line workload) that cannot be run as given."""

from common.errors import ToposynthError

__all__ = ["StudyError", "RecordError"]


class StudyError(ToposynthError):
    """A study file or study dict is malformed."""


class RecordError(ToposynthError):
    """A stored record (a line of records.jsonl or simulation.jsonl, a
    record in results.json) is malformed or impossible."""
