"""The worker's running report: a timeout names the student's function that was running, and its line."""

from __future__ import annotations

import textwrap

import pytest

from autograder.errors import CallTimeout
from autograder.sandbox import protocol


def test_a_timeout_names_the_helper_that_was_running_and_its_line(sandbox):
    from autograder.sandbox.running import RUNNING

    assert RUNNING == protocol.Op.RUNNING
    source = """
        def dot_score(s, h):
            while True:
                pass

        def general_score(s, h):
            return dot_score(s, h)

        def spin(x):
            total = 0
            while True:
                total += 1
    """
    lines = textwrap.dedent(source).splitlines()
    helper_loop = {i + 1 for i, line in enumerate(lines) if line.strip() in ("while True:", "pass")} & set(range(1, 5))
    spin_loop = {i + 1 for i, line in enumerate(lines) if line.strip() in ("while True:", "total += 1")} - helper_loop
    submission = sandbox(source)
    with pytest.raises(CallTimeout) as caught:
        submission.call("general_score", 1, 2)
    message = str(caught.value.student_message)
    assert any(message.startswith(f"general_score() did not finish within 1 s: it was running dot_score() (line {n}) "
                                  "when it was stopped") for n in helper_loop), message
    with pytest.raises(CallTimeout) as caught:
        submission.call("spin", 1)
    message = str(caught.value.student_message)
    assert any(message.startswith(f"spin() did not finish within 1 s: it was at line {n} when") for n in spin_loop), message


def test_a_running_report_about_another_call_or_malformed_is_ignored():
    from autograder.sandbox.reported import running_report

    assert running_report({"id": 4, "function": "dot_score", "line": 3}, 4) == ("dot_score", 3)
    for forged in ({"id": 3, "function": "dot_score", "line": 3}, {"id": 4, "function": "x; rm", "line": 3},
                   {"id": 4, "function": "f" * 300, "line": 3}, {"id": 4, "function": "f", "line": True},
                   {"id": 4, "function": "f", "line": 0}, {"id": 4, "function": ["f"], "line": 3}):
        assert running_report(forged, 4) is None
