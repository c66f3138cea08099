"""run_on_submission: the shared read, parse, sandbox and suite sequence."""

import io
import json
import time
import zipfile

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.errors import LoadFailed
from autograder.grade.api import hidden_test_files
from autograder.grade.run import read_and_parse, run_on_submission
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR
from autograder.submission import bounded, locate
from autograder.submission.locate import MAX_CODE_BYTES, MAX_FILE_BYTES, release_stubs

pytestmark = pytest.mark.slow
COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")


def test_a_syntax_error_stops_before_the_sandbox(tmp_path):
    path = tmp_path / HW1.module
    path.write_text("def softmax(:\n", encoding="utf-8")
    run = run_on_submission(COURSE, HW1, path, hidden_test_files(HW1))
    assert run.tree is None and "does not parse" in run.load_error
    assert run.isolation == "not started" and run.results == []


def test_an_import_failure_keeps_the_tree_and_the_output(tmp_path):
    path = tmp_path / HW1.module
    path.write_text("import sys\nprint('hello from import')\nsys.exit('boom at import')\n", encoding="utf-8")
    run = run_on_submission(COURSE, HW1, path, hidden_test_files(HW1))
    assert run.tree is not None and "sys.exit('boom at import')" in run.load_error
    assert "hello from import" in run.student_output and run.results == []


def test_a_statement_raising_at_top_level_is_a_note_and_the_tests_still_run(tmp_path):
    path = tmp_path / HW1.module
    path.write_text("print('hello from import')\nraise RuntimeError('boom at import')\n", encoding="utf-8")
    run = run_on_submission(COURSE, HW1, path, hidden_test_files(HW1))
    assert run.load_error is None and run.results
    assert run.load_notes == (
        "Top-level statements that failed when loading your file were skipped (they are not graded): "
        "line 2 (RuntimeError: boom at import).",
    )


# --- hostile input: reading and parsing cost a bounded time, whatever the student wrote ----------------

#: What reading one of these may take on a slow, shared 2-core machine; before the fix they took 20 s to 11 minutes.
READ_S = 10.0
STUBS = release_stubs(ASSIGNMENTS_DIR / HW1.id, HW1.module, HW1.notebook, HW1.functions)
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
GRADED = "graded"


def _notebook(*cells: str, outputs: tuple[dict, ...] = ()) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": cell, "outputs": list(outputs),
                                  "execution_count": None} for cell in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _chain(length: int) -> str:
    """softmax calling f0 calling f1 ... calling f<length>: a chain of helpers."""
    return "def softmax(x):\n    return f0(x)\n" + "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n" for i in range(length))


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _many_cells(count: int) -> str:
    """The solution's cell, then ``count`` code cells as small as a cell can be."""
    document = json.loads(_notebook(SOLUTION))
    document["cells"] += [{"cell_type": "code", "source": "x"}] * count
    return json.dumps(document)


def _output(size: int) -> dict:
    """A cell's stream output of about ``size`` bytes."""
    return {"output_type": "stream", "name": "stdout", "text": ["y" * 99 + "\n"] * (size // 100)}


#: Each attack: the file's name, how to make its bytes, and GRADED (the honest code beside it is read) or the load error.
ATTACKS = {
    "newline bomb cell": (HW1.notebook, lambda: _notebook(SOLUTION, "\n" * 240_000 + "("), GRADED),
    "nested parentheses": (HW1.module, lambda: "x = " + "(" * 120_000 + ")" * 120_000, "too many nested parentheses"),
    "nested brackets cell": (HW1.notebook, lambda: _notebook(SOLUTION, "x = " + "[" * 120_000 + "]" * 120_000), GRADED),
    "deep unary expression": (HW1.module, lambda: "x = " + "-" * 250_000 + "1\n", "could not be read"),
    "huge single line": (HW1.module, lambda: SOLUTION + "\nTEXT = '" + "a" * (MAX_CODE_BYTES - len(SOLUTION.encode()) - 100) + "'\n", GRADED),
    "huge single line cell": (HW1.notebook, lambda: _notebook(SOLUTION, "a." * 120_000 + "a?\n("), GRADED),
    "chain of 40,000 functions": (HW1.notebook, lambda: _notebook(_chain(40_000)), "too large to grade"),
    "chain of 7,000 functions": (HW1.notebook, lambda: _notebook(SOLUTION.replace("def softmax", "def _softmax"), _chain(7_000)),
                                 GRADED),
    "chain of 7,000 function cells": (HW1.notebook, lambda: _notebook(*_chain(7_000).replace("\ndef", "\n\0def").split("\0")),
                                      GRADED),
    "100,000 cells": (HW1.notebook, lambda: _many_cells(100_000), GRADED),
    "huge outputs": (HW1.notebook, lambda: _notebook(SOLUTION, outputs=(_output(MAX_FILE_BYTES * 9 // 10),)), GRADED),
    "deeply nested JSON": (HW1.notebook, lambda: '{"cells": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested too deeply"),
    "deeply nested metadata": (HW1.notebook, lambda: _notebook(SOLUTION).replace('"metadata": {}', '"metadata": ' + '{"a": ' * 100_000
                                                                                 + "1" + "}" * 100_000, 1), "nested too deeply"),
    "zip with a large member": ("sub.zip", lambda: _zip({HW1.notebook: _notebook(SOLUTION, outputs=(_output(MAX_FILE_BYTES * 9 // 10),))}),
                                GRADED),
    "zip with a member past the limit": ("sub.zip", lambda: _zip({HW1.notebook: _notebook(SOLUTION, outputs=(_output(MAX_FILE_BYTES),))}),
                                         "larger than"),
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_hostile_input_is_read_in_bounded_time_with_a_clear_result(tmp_path, attack):
    name, content, expected = ATTACKS[attack]
    path = tmp_path / name
    data = content()
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    started = time.monotonic()
    try:
        source, tree = read_and_parse(COURSE, HW1, path, STUBS)
        outcome = GRADED if "def softmax" in source.source and tree.body else source.source[:80]
    except LoadFailed as error:
        outcome = error.student_message
    assert time.monotonic() - started < READ_S
    assert expected in outcome


def test_a_reading_that_outlives_the_submission_budget_is_stopped_there_and_graded_zero(tmp_path, monkeypatch):
    budget = 1.0
    course = COURSE.model_copy(update={"defaults": COURSE.defaults.model_copy(update={"submission_timeout_s": budget})})
    monkeypatch.setattr(locate, "extract_cells", lambda cells, functions: time.sleep(600))  # a parser that never ends
    monkeypatch.setattr(bounded, "IN_PROCESS_BYTES", 0)  # this small file is read in the child all the same
    path = tmp_path / HW1.notebook
    path.write_text(_notebook(SOLUTION), encoding="utf-8")
    started = time.monotonic()
    run = run_on_submission(course, HW1, path, hidden_test_files(HW1), stubs=STUBS)
    assert time.monotonic() - started < budget + READ_S
    assert run.load_error == f"{HW1.notebook} is too large or too complex to grade: reading it took longer than {budget:g} s"
    assert run.tree is None and run.isolation == "not started"
