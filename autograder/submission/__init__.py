"""Turning what a student hands in (module, notebook, folder, zip) into module source text."""

from autograder.submission.locate import SubmissionSource, read_submission

__all__ = ["SubmissionSource", "read_submission"]
