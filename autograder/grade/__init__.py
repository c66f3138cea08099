"""Grading a submission: comparing its results with the reference."""
