"""Fixtures for the sandbox tests: small limits, and a factory of started submissions."""

from __future__ import annotations

import textwrap

import pytest

from autograder.config import Defaults
from autograder.sandbox import SandboxedSubmission
from autograder.sandbox import isolation
from autograder.sandbox.isolation import Isolation, choose_isolation

#: Limits small enough to keep the suite fast, large enough for numpy to start.
TEST_LIMITS = Defaults(
    call_timeout_s=1.0,
    submission_timeout_s=60.0,
    cpu_time_s=10,
    memory_mb=512,
    max_processes=16,
    max_file_size_mb=1,
    output_limit_kb=4,
)

#: The level the suite runs at (what the grader would pick, or ATTN_SANDBOX).
ISOLATION = choose_isolation(TEST_LIMITS)
#: Levels where the worker cannot signal, fork-bomb or out-privilege the grader.
CONFINED = (Isolation.BWRAP,)

needs_bwrap = pytest.mark.skipif(
    not isolation.bwrap_works(),
    reason="bwrap cannot start the worker on this machine (no bwrap binary, or namespaces are not permitted)",
)
needs_confinement = pytest.mark.skipif(
    ISOLATION not in CONFINED,
    reason=f"isolation is {ISOLATION!r}: without bwrap this test would attack the grader itself",
)


def make_submission(source: str, limits: Defaults = TEST_LIMITS, isolation: str | None = None) -> SandboxedSubmission:
    """A not-yet-started submission of ``source`` (dedented) named ``student.py``."""
    return SandboxedSubmission("student", textwrap.dedent(source), limits, filename="student.py", isolation=isolation)


@pytest.fixture
def sandbox():
    """``sandbox(source, limits=..., isolation=...)`` -> a started submission, closed after the test."""
    made: list[SandboxedSubmission] = []

    def start(source: str, limits: Defaults = TEST_LIMITS, isolation: str | None = None) -> SandboxedSubmission:
        sub = make_submission(source, limits, isolation)
        made.append(sub)
        sub.start()
        return sub

    yield start
    for sub in made:
        sub.close()
