"""Suite-wide hooks: the longest tests are collected first (the workers finish together); the course has its secret."""

from __future__ import annotations

import pytest

#: The marker of a test among the suite's longest (real tools, every mutant of every suite).
LONGEST = "longest"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests marked ``longest`` to the front; the order of the others is kept.

    pytest-xdist hands out tests in this order: started first, a long test runs while the
    other worker works through the short ones, instead of holding the suite's last minute.
    """
    items.sort(key=lambda item: item.get_closest_marker(LONGEST) is None)


def pytest_sessionstart(session: pytest.Session) -> None:
    """The project's course has its secret before any test grades (as after its first grade): a secret made halfway
    through the run would change the grading fingerprint between a fixture's batch and the test's."""
    from autograder.config import DEFAULT_COURSE_FILE
    from autograder.seeding import ensure_secret

    ensure_secret(DEFAULT_COURSE_FILE)
