"""The pytest stand-in: marks and parameters recorded as pytest records them, everything else pytest's own."""

import subprocess
import sys
import textwrap

import pytest

from autograder.engine import marks


def _marked(pytest_module):
    """The same decorated test, written against ``pytest_module``."""
    question = pytest_module.mark.question("softmax")

    @question(weight=2)
    @pytest_module.mark.parametrize("n, text", [(1, "a"), pytest_module.param(2, "b", id="two", marks=question)])
    @pytest_module.mark.parametrize("flag", [True], ids=["on"])
    def test_something(n, text, flag):
        pass

    return test_something


def _as_data(mark):
    mark = getattr(mark, "mark", mark)
    args = tuple(
        [(tuple(v.values), tuple((m.mark if hasattr(m, "mark") else m).name for m in v.marks), v.id)
         if marks.is_parameter_set(v) else v for v in arg] if isinstance(arg, list) else arg
        for arg in mark.args
    )
    return mark.name, args, mark.kwargs


def test_marks_are_recorded_in_pytests_order_with_pytests_arguments():
    with marks.stand_in() as stand_in:
        ours = _marked(stand_in)
    real = _marked(pytest)
    assert [_as_data(m) for m in ours.pytestmark] == [_as_data(m) for m in real.pytestmark]
    assert [m.name for m in ours.pytestmark] == ["parametrize", "parametrize", "question"]


def test_a_mark_given_one_function_marks_it_and_given_other_arguments_collects_them():
    decorator = marks.MarkGenerator().question

    def helper():
        pass

    assert decorator(helper) is helper and helper.pytestmark == [marks.Mark("question")]
    assert decorator("a", weight=2).mark == marks.Mark("question", ("a",), {"weight": 2})
    assert decorator(lambda: 0).mark.args[0].__name__ == "<lambda>", "a lambda is an argument, as in pytest"


def test_everything_else_is_the_real_pytest():
    with marks.stand_in() as stand_in:
        assert stand_in.raises is pytest.raises and stand_in.approx is pytest.approx
        with pytest.raises(pytest.skip.Exception):
            stand_in.skip("later")


def test_the_stand_in_leaves_sys_modules_as_it_found_them():
    with marks.stand_in():
        assert isinstance(sys.modules["pytest"], marks._StandIn)
    assert sys.modules["pytest"] is pytest


STAND_IN_WITHOUT_PYTEST = """
import sys
from autograder.engine import marks
with marks.stand_in() as stand_in:
    import pytest as seen
    assert seen is stand_in
assert "pytest" not in sys.modules and "_pytest" not in sys.modules, "the stand-in imported pytest"
with marks.stand_in() as stand_in:
    stand_in.approx  # needs the real pytest: imported now, and kept
assert type(sys.modules["pytest"]).__name__ == "module" and sys.modules["pytest"].approx is stand_in.approx
print("ok")
"""


def test_without_pytest_imported_the_stand_in_imports_it_only_when_a_suite_needs_more_than_marks():
    done = subprocess.run([sys.executable, "-c", STAND_IN_WITHOUT_PYTEST], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


GRADING_WITHOUT_PYTEST = """
import sys
from pathlib import Path
import attn_reference
from autograder.config import load_course
from autograder.engine import run_suite
from autograder.grade.api import hidden_test_files
from autograder.judge.compare import Tolerance
from tests.autograder.support import InProcessSubmission

course = load_course()
for assignment in course.assignments:
    functions = {q.function: getattr(attn_reference, q.function) for q in assignment.questions}
    wrong = dict(functions, **{assignment.questions[0].function: lambda *a, **k: 1 / 0})
    for submission in (functions, wrong):
        results = run_suite(hidden_test_files(assignment), InProcessSubmission(submission),
                            Tolerance(course.defaults.rtol, course.defaults.atol), seed=3, questions=assignment.functions)
        assert results and (submission is wrong) == any(not r.passed for r in results)
assert "pytest" not in sys.modules and "_pytest" not in sys.modules, sorted(m for m in sys.modules if "pytest" in m)
skipping = Path(sys.argv[1])
skipping.write_text("import pytest\\n\\n@pytest.mark.question('a')\\ndef test_skips(submission):\\n    pytest.skip('no')\\n\\n"
                    "@pytest.mark.question('a')\\ndef test_runs(submission):\\n    pass\\n")
results = run_suite([skipping], InProcessSubmission({}), None)
assert [r.name for r in results] == ["test_runs"], results
print("ok")
"""


def test_grading_imports_no_pytest_unless_a_test_uses_it(tmp_path):
    from autograder.paths import PROJECT_ROOT

    done = subprocess.run([sys.executable, "-c", GRADING_WITHOUT_PYTEST, str(tmp_path / "test_skipping.py")],
                          capture_output=True, text=True, timeout=300, cwd=PROJECT_ROOT)
    assert done.stdout.strip() == "ok", done.stderr[-3000:]


@pytest.mark.parametrize("source", [
    "import pytest\npytest.importorskip('no_such_module_here')\n\ndef test_x(submission):\n    pass\n",
    "import pytest\n\n@pytest.mark.skipif(True, reason='no')\ndef test_x(submission):\n    pass\n",
])
def test_suites_that_need_pytest_at_import_are_left_to_pytest(tmp_path, source):
    from autograder.engine.direct import Unsupported, plan

    path = tmp_path / "test_needs_pytest.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    with pytest.raises(Unsupported):
        plan([path])
