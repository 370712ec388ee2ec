"""The design flow's error: a study (file, dict or command-line workload) that cannot be run as given."""

from candidates.errors import ToposynthError

__all__ = ["StudyError"]


class StudyError(ToposynthError):
    """A study file or study dict is malformed."""
