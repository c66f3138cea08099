"""The gradebook: one SQLite file, one row per graded submission, committed as soon as graded."""

from autograder.gradebook.store import Gradebook, GradebookRow

__all__ = ["Gradebook", "GradebookRow"]
