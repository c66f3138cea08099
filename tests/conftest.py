"""Suite-wide hooks: the longest tests are collected first, so that the parallel workers finish together."""

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
