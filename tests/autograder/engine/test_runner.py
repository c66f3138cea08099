"""run_suite: ordinary pytest files in, one TestResult per test out."""

import textwrap

import pytest

from autograder.engine import run_suite
from autograder.engine.results import FAILED, PASSED

SUITE = '''
import pytest

from autograder.errors import NotImplementedYet
from autograder.grade.expect import Mismatch
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

DRAWING_SUITE = '''
import pytest


@pytest.mark.question("alpha")
@pytest.mark.parametrize("n", [1, 2])
def test_draws(submission, draw, n):
    """alpha draws."""
    submission.record(draw.normal((3,)), draw.sizes(2))


@pytest.mark.question("alpha")
def test_carries(submission):
    """alpha carries."""
    submission.carry_from(("softmax",))


@pytest.mark.question("alpha")
def test_after(submission):
    """alpha after."""


@pytest.mark.question("softmax")
def test_upstream_fails(submission):
    """softmax fails its own test."""
    assert False
'''


class FakeSubmission:
    def call(self, function, *args, **kwargs):
        assert function == "value"
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


class Recorder:
    def __init__(self):
        self.seen = []

    def call(self, function, *args):
        if function == "record":
            self.seen.append((args[0].tolist(), args[1]))


@pytest.fixture
def drawing_suite(tmp_path):
    path = tmp_path / "test_drawing.py"
    path.write_text(textwrap.dedent(DRAWING_SUITE), encoding="utf-8")
    return path


def _draws(path, seed):
    recorder = Recorder()
    run_suite([path], recorder, "TOL", seed=seed)
    return recorder.seen


def test_each_test_draws_its_own_inputs_and_a_seed_replays_them_exactly(drawing_suite):
    first = _draws(drawing_suite, seed=11)
    assert len(first) == 2 and first[0] != first[1], "two tests (here two parameters) draw different inputs"
    assert _draws(drawing_suite, seed=11) == first
    assert _draws(drawing_suite, seed=12) != first


def test_a_carried_result_is_noted_on_its_own_test_only(drawing_suite):
    results = _by_name(run_suite([drawing_suite], Recorder(), "TOL", upstream={"alpha": ("softmax",)}))
    assert results["test_carries"].passed
    assert results["test_carries"].carried_from == ("softmax",)
    assert results["test_after"].carried_from == ()
    assert results["test_draws[1]"].carried_from == ()
