"""Run a pytest suite against one submission and collect a result per test.

Shared by ``check`` (public tests) and ``grade`` (hidden tests): the suites are ordinary
pytest files whose tests take a ``submission`` fixture and a ``tol`` fixture and carry a
``@pytest.mark.question("<function>", weight=1)`` marker.
"""

from autograder.engine.results import TestResult
from autograder.engine.runner import run_suite

__all__ = ["TestResult", "run_suite"]
