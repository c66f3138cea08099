"""Tests of autograder.report."""
