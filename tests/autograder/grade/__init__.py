"""Tests of autograder.grade."""
