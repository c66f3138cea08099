"""Error carried forward over a run: upstream tests first, carried passes kept only for a failing upstream."""

from __future__ import annotations

import textwrap

from autograder.engine import run_suite
from autograder.engine.carried import in_dependency_order, levels, settle
from autograder.engine.results import FAILED, PASSED, TestResult

SUITE = '''
import pytest


@pytest.mark.question("downstream")
def test_downstream_first_in_the_file(submission):
    """downstream."""
    submission.call("seen", "downstream")
    submission.carry_from(("upstream",))


@pytest.mark.question("upstream")
@pytest.mark.parametrize("passes", [True, False] if {failing} else [True])
def test_upstream(submission, passes):
    """upstream."""
    submission.call("seen", "upstream")
    assert passes
'''


class Recorder:
    def __init__(self):
        self.order = []

    def call(self, function, *args):
        self.order.append(args[0])


def _run(tmp_path, failing: bool, **options):
    path = tmp_path / "test_suite.py"
    path.write_text(textwrap.dedent(SUITE).replace("{failing}", str(failing)), encoding="utf-8")
    recorder = Recorder()
    results = run_suite([path], recorder, "TOL", upstream={"downstream": ("upstream",), "upstream": ()}, **options)
    return recorder.order, {r.name: r for r in results}


def test_levels_follow_the_call_graph():
    assert levels({"a": (), "b": ("a",), "c": ("b", "a"), "d": ()}) == {"a": 0, "b": 1, "c": 2, "d": 0}
    assert levels({"a": ("b",), "b": ("a",)})  # a cycle ends


def test_order_is_stable_and_puts_callees_first():
    items = [("c", 1), ("a", 2), ("b", 3), ("a", 4)]
    ordered = in_dependency_order(items, lambda item: item[0], {"c": ("b",), "b": ("a",)})
    assert ordered == [("a", 2), ("a", 4), ("b", 3), ("c", 1)]


def test_the_upstream_tests_run_before_the_downstream_ones_whatever_the_file_order(tmp_path):
    for use_pytest in (False, True):
        order, _ = _run(tmp_path, failing=True, use_pytest=use_pytest)
        assert order == ["upstream", "upstream", "downstream"], use_pytest


def test_a_carried_pass_counts_when_the_upstream_fails_its_own_tests(tmp_path):
    _, results = _run(tmp_path, failing=True)
    carried = results["test_downstream_first_in_the_file"]
    assert carried.passed and carried.carried_from == ("upstream",)


def test_a_carried_pass_fails_when_the_upstream_passes_all_its_tests(tmp_path):
    _, results = _run(tmp_path, failing=False)
    refused = results["test_downstream_first_in_the_file"]
    assert not refused.passed and refused.carried_from == ()
    assert "upstream()" in str(refused.message) and "passes its own tests" in str(refused.message)


def test_settle_leaves_plain_results_alone():
    plain = [TestResult("t", "q", 1.0, "d", PASSED), TestResult("u", "q", 1.0, "d", FAILED, "m")]
    assert settle(plain) == plain
