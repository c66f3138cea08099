"""The direct runner: the same cases, node ids and results as pytest, without pytest's machinery.

Each course suite (hidden and public, assignments from course.yml) is collected both ways
and graded both ways on the reference and on every catalogued mutant; suites using
pytest features the direct runner does not reproduce fall back to pytest.
"""

import textwrap

import pytest

import attn_reference
from autograder.check.api import public_test_file
from autograder.config import load_course
from autograder.engine import run_suite
from autograder.engine.direct import Unsupported, plan
from autograder.engine.pytest_runner import PYTEST_ARGS, forget_modules
from autograder.errors import GraderError
from autograder.grade.api import hidden_test_files
from autograder.judge.compare import Tolerance
from autograder.mutants import mutants_for
from tests.autograder.support import InProcessSubmission

COURSE = load_course()
TOLERANCE = Tolerance(COURSE.defaults.rtol, COURSE.defaults.atol)
SEED = 7


class _Collected:
    """A pytest plugin noting the node id of every collected item."""

    def __init__(self):
        self.nodeids = []

    def pytest_collection_modifyitems(self, items):
        self.nodeids = [item.nodeid for item in items]


def _pytest_nodeids(files) -> list[str]:
    collected = _Collected()
    folder = files[0].parent
    args = [*PYTEST_ARGS, "--collect-only", "-p", "no:randomly", "--rootdir", str(folder), *map(str, files)]
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        try:
            pytest.main(args, plugins=[collected])
        finally:
            forget_modules(files)
    return collected.nodeids


def _suites():
    for assignment in COURSE.assignments:
        yield pytest.param(assignment, hidden_test_files(assignment), False, id=f"{assignment.id}-hidden")
        yield pytest.param(assignment, [public_test_file(COURSE, assignment.id)], True, id=f"{assignment.id}-public")


@pytest.mark.parametrize("assignment, files, public", list(_suites()))
def test_the_course_suites_plan_the_node_ids_pytest_collects(assignment, files, public):
    assert [case.nodeid for case in plan(files)] == _pytest_nodeids(files)


def _both_ways(files, functions, public, questions):
    submission = InProcessSubmission(functions)
    direct = run_suite(files, submission, TOLERANCE, seed=SEED, questions=questions, show_assertions=public)
    through_pytest = run_suite(files, submission, TOLERANCE, seed=SEED, questions=questions,
                               show_assertions=public, use_pytest=True)
    return direct, through_pytest


def _submissions(assignment):
    reference = {q.function: getattr(attn_reference, q.function) for q in assignment.questions}
    yield "reference", reference
    yield "nothing", {}
    for question in assignment.questions:
        for mutant in mutants_for(question.function):
            yield f"{mutant.id}[{mutant.variant}]", reference | {question.function: mutant.implementation}


@pytest.mark.longest
@pytest.mark.parametrize("assignment, files, public", list(_suites()))
def test_the_course_suites_grade_the_same_both_ways(assignment, files, public):
    for label, functions in _submissions(assignment):
        direct, through_pytest = _both_ways(files, functions, public, assignment.functions)
        assert direct == through_pytest, label


FEATURES_SUITE = '''
import enum

import pytest

question = pytest.mark.question("alpha", weight=2)


class Colour(enum.Enum):
    RED = 1


def helper():
    pass


@question
@pytest.mark.parametrize("n, text", [(1, "a b"), (2.5, "\\u00e9t\\u00e9"), (None, "x")])
@pytest.mark.parametrize("kind", [Colour.RED, helper, int, [1, 2], pytest.param(3, id="three")])
def test_ids(submission, draw, n, text, kind):
    """ids follow pytest's rules; each draws from its own node id."""
    raise AssertionError(f"drew {draw.rng.random()}")


@pytest.mark.question("beta")
@pytest.mark.parametrize("flag", [True, False], ids=["on", None])
def test_listed_ids(submission, flag):
    """the ids list, with a gap."""
    if not flag:
        raise AssertionError("off")


@pytest.mark.question("beta")
def test_skipped(submission):
    """skips."""
    pytest.skip("not today")


def test_defined_after():
    """runs last, in definition order."""


def test_defined_early():
    """moves nowhere."""


test_defined_early.__test__ = False
'''


def _write(tmp_path, source: str, name: str = "test_suite.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return [path]


def test_parameter_ids_follow_pytests_rules(tmp_path):
    files = _write(tmp_path, FEATURES_SUITE)
    nodeids = [case.nodeid for case in plan(files)]
    assert nodeids == _pytest_nodeids(files)
    assert "test_suite.py::test_ids[three-1-a b]" in nodeids and "test_suite.py::test_listed_ids[False]" in nodeids


def test_skips_marks_and_draws_give_the_same_results_as_pytest(tmp_path):
    files = _write(tmp_path, FEATURES_SUITE)
    direct, through_pytest = _both_ways(files, {}, True, ("alpha", "beta"))
    assert direct == through_pytest
    assert len({r.message for r in direct if r.name.startswith("test_ids")}) == 15, "every case draws its own"
    assert {r.question: r.weight for r in direct} == {"alpha": 2.0, "beta": 1.0, "(unassigned)": 1.0}
    assert not any(r.name == "test_skipped" for r in direct)


@pytest.mark.parametrize("feature", [
    "class TestGroup:\n    def test_x(self, submission):\n        pass\n",
    "@pytest.fixture\ndef extra():\n    return 1\n\ndef test_x(extra):\n    pass\n",
    "def test_x(request, submission):\n    pass\n",
    "@pytest.mark.xfail\ndef test_x(submission):\n    pass\n",
    "@pytest.mark.parametrize('n', [1, 1])\ndef test_x(n):\n    pass\n",
    "def setup_module():\n    pass\n\ndef test_x(submission):\n    pass\n",
])
def test_pytest_features_beyond_the_direct_runner_fall_back_to_pytest(tmp_path, feature):
    files = _write(tmp_path, "import pytest\n\n" + feature)
    with pytest.raises(Unsupported):
        plan(files)
    results = run_suite(files, InProcessSubmission({}), TOLERANCE, seed=SEED)
    assert [r.name for r in results] == [nodeid.split("::")[-1] for nodeid in _pytest_nodeids(files)]


def test_a_bug_in_a_hidden_suite_is_a_grader_error_both_ways(tmp_path):
    files = _write(tmp_path, "def test_x(submission):\n    {}['missing']\n")
    for use_pytest in (False, True):
        with pytest.raises(GraderError, match="KeyError"):
            run_suite(files, InProcessSubmission({}), TOLERANCE, seed=SEED, use_pytest=use_pytest)
