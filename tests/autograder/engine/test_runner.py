"""run_suite: ordinary pytest files in, one TestResult per test out."""

import textwrap

import pytest

from autograder.engine import run_suite
from autograder.engine.results import FAILED, PASSED

SUITE = '''
import pytest

from autograder.errors import NotImplementedYet
from autograder.grade.compare import Mismatch
from autograder.mutants import mutant


@pytest.mark.question("alpha")
def test_passes(submission, tol):
    """alpha works."""
    assert submission.value() == 1 and tol == "TOL"


@pytest.mark.question("alpha", weight=3)
def test_plain_assertion(submission):
    """alpha is two."""
    assert submission.value() == 2, "secret hidden input 12345"


@pytest.mark.question("beta")
def test_submission_error(submission):
    """beta exists."""
    raise NotImplementedYet("beta: not implemented yet")


@pytest.mark.question("beta")
def test_mismatch_with_diagnosis(submission):
    """beta matches."""
    raise Mismatch("beta: wrong at index (0,)", (mutant("softmax.no_max_shift"),))


def test_unmarked(submission):
    """no marker."""


@pytest.mark.question("gamma")
@pytest.mark.parametrize("n", [1, 2])
def test_parametrized(submission, n):
    """gamma for several n."""
    assert n == 1
'''


class FakeSubmission:
    def value(self):
        return 1


@pytest.fixture
def suite(tmp_path):
    path = tmp_path / "test_suite.py"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return path


def _by_name(results):
    return {r.name: r for r in results}


def test_every_test_gives_one_result_with_its_question_and_weight(suite):
    results = _by_name(run_suite([suite], FakeSubmission(), "TOL"))
    assert set(results) == {
        "test_passes", "test_plain_assertion", "test_submission_error", "test_mismatch_with_diagnosis",
        "test_unmarked", "test_parametrized[1]", "test_parametrized[2]",
    }
    assert results["test_passes"].status == PASSED and results["test_passes"].question == "alpha"
    assert results["test_plain_assertion"].weight == 3.0
    assert results["test_unmarked"].question == "(unassigned)"
    assert [results[f"test_parametrized[{n}]"].status for n in (1, 2)] == [PASSED, FAILED]


def test_hidden_assertion_text_is_replaced_by_the_description(suite):
    failed = _by_name(run_suite([suite], FakeSubmission(), "TOL"))["test_plain_assertion"]
    assert failed.status == FAILED and "12345" not in failed.message
    assert failed.message == "check failed: alpha is two."


def test_public_assertion_text_is_shown(suite):
    failed = _by_name(run_suite([suite], FakeSubmission(), "TOL", show_assertions=True))["test_plain_assertion"]
    assert "secret hidden input 12345" in failed.message


def test_submission_errors_keep_their_kind_and_message(suite):
    failed = _by_name(run_suite([suite], FakeSubmission(), "TOL"))["test_submission_error"]
    assert (failed.kind, failed.message) == ("not_implemented", "beta: not implemented yet")


def test_mismatches_carry_diagnoses(suite):
    failed = _by_name(run_suite([suite], FakeSubmission(), "TOL"))["test_mismatch_with_diagnosis"]
    assert failed.kind == "mismatch" and [d.id for d in failed.diagnoses] == ["softmax.no_max_shift"]
    assert failed.diagnoses[0].hint


def test_runs_are_independent(suite):
    first = run_suite([suite], FakeSubmission(), "TOL")
    second = run_suite([suite], FakeSubmission(), "TOL")
    assert [(r.name, r.status) for r in first] == [(r.name, r.status) for r in second]


def test_a_suite_that_cannot_run_is_a_grader_error_not_a_zero(tmp_path):
    from autograder.errors import GraderError

    broken = tmp_path / "test_broken.py"
    broken.write_text("def test_x(:\n", encoding="utf-8")
    with pytest.raises(GraderError, match="did not run"):
        run_suite([broken], FakeSubmission(), "TOL")


def test_a_grader_error_inside_a_test_stops_the_run_instead_of_costing_points(tmp_path):
    from autograder.errors import GraderError

    suite = tmp_path / "test_grader_bug.py"
    suite.write_text(
        "import pytest\nfrom autograder.errors import GraderError\n\n"
        "@pytest.mark.question('alpha')\ndef test_reference_rejects(submission):\n"
        "    raise GraderError('the reference rejected the inputs')\n",
        encoding="utf-8",
    )
    with pytest.raises(GraderError, match="reference rejected"):
        run_suite([suite], FakeSubmission(), "TOL")
