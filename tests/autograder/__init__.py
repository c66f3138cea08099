"""Tests of the autograder package, mirroring its tree."""
