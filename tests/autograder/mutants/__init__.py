"""Tests of autograder.mutants."""
