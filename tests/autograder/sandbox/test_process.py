"""A started worker process: reading how it ended."""

from __future__ import annotations

import signal

import pytest

from autograder.sandbox import process
from autograder.sandbox.isolation import Isolation


@pytest.mark.parametrize(
    "returncode, level, words",
    [
        (-signal.SIGKILL, Isolation.NONE, "killed by SIGKILL"),
        (128 + signal.SIGKILL, Isolation.BWRAP, "killed by SIGKILL"),
        (128 + signal.SIGXCPU, Isolation.BWRAP, "CPU time limit"),
        (-signal.SIGSEGV, Isolation.NONE, "segmentation fault"),
        (137, Isolation.NONE, "exited with status 137"),
        (3, Isolation.BWRAP, "exited with status 3"),
    ],
)
def test_exit_statuses_are_described(returncode, level, words):
    assert words in process.describe_exit(returncode, level)
