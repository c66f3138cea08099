"""The in-notebook check: check("softmax") tests the function as the live kernel defines it, bounded by the call limit."""

from __future__ import annotations

import json
import linecache
import shutil
import time

import pytest

from autograder.build.markers import keep_solutions
from autograder.check import live
from autograder.check.kernel_source import kernel_source
from autograder.check.live import check_here, html_table
from autograder.check.portable import discard_processes
from autograder.config import load_course
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
#: What stopping an endless function may cost beyond the call limit on a slow machine.
SLACK_S = 15.0


def _cell(namespace: dict, source: str, number: int) -> None:
    """Run ``source`` as a notebook cell does: its source kept where inspect finds it."""
    name = f"<ipython-input-{number}-cell>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    """A kernel's namespace, working in a copy of the assignment folder whose saved module is the untouched stub."""
    folder = tmp_path / "my homework" / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    monkeypatch.chdir(folder)
    monkeypatch.setattr(live, "_session", [])
    yield {"__name__": "__main__"}
    discard_processes()  # the child the checks kept


def test_the_rebuilt_module_holds_what_the_graded_function_uses_and_nothing_else():
    namespace = {"__name__": "__main__"}
    _cell(namespace, "import numpy as np\nfrom math import sqrt as root\nSCALE = 2.0\nbig = object()\n", 1)
    _cell(namespace, "def helper(x):\n    return np.asarray(x) * SCALE\n\ndef unused():\n    return big\n", 2)
    _cell(namespace, "def softmax(x, axis=-1):\n    return helper(x) / root(4)\n", 3)
    source = kernel_source(namespace, ("softmax", "causal_mask"))
    assert "import numpy as np" in source and "from math import sqrt as root" in source and "SCALE = 2.0" in source
    assert "def helper(x):" in source and "def softmax(x, axis=-1):" in source
    assert "unused" not in source and "big" not in source
    rebuilt: dict = {}
    exec(compile(source, "rebuilt.py", "exec"), rebuilt)
    assert rebuilt["softmax"]([1.0, 2.0]).tolist() == [1.0, 2.0]


@pytest.mark.slow
def test_the_check_tests_the_kernels_definition_not_the_saved_file(kernel):
    _cell(kernel, SOLUTION, 1)
    passed = check_here("softmax", kernel)
    assert [q.function for q in passed.questions] == ["softmax"] and passed.score == HW1.questions[0].points
    _cell(kernel, "def softmax(x, axis=-1):\n    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)\n", 2)
    without_the_shift = check_here("softmax", kernel)
    assert without_the_shift.score < HW1.questions[0].points  # the kernel's new definition is what ran
    everything = check_here(None, kernel)
    assert [q.function for q in everything.questions] == list(HW1.functions)


@pytest.mark.slow
def test_an_endless_function_in_the_kernel_is_stopped_after_the_call_limit_naming_it(kernel):
    _cell(kernel, SOLUTION, 1)
    endless = HW1.questions[-1].function
    _cell(kernel, f"def {endless}(*args, **kwargs):\n    while True:\n        pass\n", 2)
    began = time.monotonic()
    report = check_here(endless, kernel)
    assert time.monotonic() - began < COURSE.defaults.call_timeout_s + SLACK_S
    messages = [t.message for q in report.questions for t in q.failed_tests]
    assert any(f"{endless}() did not finish within {COURSE.defaults.call_timeout_s:g} s" in str(m) for m in messages)
    assert check_here(HW1.questions[0].function, kernel).score == HW1.questions[0].points  # the next check still runs


@pytest.mark.slow
def test_the_html_table_escapes_what_the_student_wrote(kernel):
    _cell(kernel, SOLUTION, 1)
    _cell(kernel, "def softmax(x, axis=-1):\n    raise ValueError('<script>alert(1)</script>')\n", 2)
    table = html_table(check_here("softmax", kernel))
    assert "<script>" not in table and "&lt;script&gt;" in table


@pytest.mark.slow
def test_in_a_real_kernel_one_import_cell_then_check_after_the_function(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    folder = tmp_path / "my homework" / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    cells = [nbformat.v4.new_code_cell("from autograder.check.live import check"), nbformat.v4.new_code_cell(SOLUTION),
             nbformat.v4.new_code_cell('check("softmax")'),
             nbformat.v4.new_code_cell("def causal_mask(n):\n    while True:\n        pass"),
             nbformat.v4.new_code_cell('check("causal_mask")')]
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    shown = [json.dumps(output.get("data", {})) for cell in notebook.cells[2::2] for output in cell.outputs]
    assert "softmax" in shown[0] and "pass" in shown[0] and "FAIL" not in shown[0]
    assert "causal_mask() did not finish within" in shown[1]


def test_check_in_a_notebook_opened_outside_its_folder_says_where_to_run_it_and_raises_nothing(tmp_path, monkeypatch, capsys):
    from autograder.check import live

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(live, "_session", [])
    live.check("softmax")
    assert "release.json" in capsys.readouterr().out


def _release_notebook_run(tmp_path, assignment, use_module: bool):
    """The released notebook, untouched but for its switch, run in a real kernel with the solution saved in the module."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    folder = tmp_path / assignment.id
    shutil.copytree(ASSIGNMENTS_DIR / assignment.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    solution = keep_solutions((SOLUTIONS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8"))
    (folder / assignment.module).write_text(solution, encoding="utf-8")
    notebook = nbformat.read(folder / assignment.notebook, as_version=4)
    switch = [cell for cell in notebook.cells if cell.get("id") == "check-switch"]
    assert len(switch) == 1 and "USE_MODULE = False" in switch[0].source
    switch[0].source = switch[0].source.replace("USE_MODULE = False", f"USE_MODULE = {use_module}")
    client = nbclient.NotebookClient(notebook, timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(folder)}})
    return notebook, client


@pytest.mark.slow
def test_with_the_switch_on_the_notebooks_demos_and_gradient_checks_run_the_saved_module(tmp_path):
    assignment = COURSE.assignments[-1]  # hw4: its gradient checks call the graded functions
    notebook, client = _release_notebook_run(tmp_path, assignment, use_module=True)
    client.execute()  # every demo and gradient check ran on the module: no NotImplementedError stopped it
    checks = {cell.id: json.dumps([o.get("data", o.get("text", "")) for o in cell.outputs]) for cell in notebook.cells
              if cell.get("id", "").startswith("check-") and cell.id not in ("check-import", "check-switch")}
    assert set(checks) == {f"check-{f}" for f in assignment.functions}
    assert all("USE_MODULE is True: checked" in shown and "FAIL" not in shown for shown in checks.values()), checks


@pytest.mark.slow
def test_with_the_switch_off_the_notebook_runs_its_own_stubs(tmp_path):
    """The control: the same notebook and module, the switch as handed out, stops at the notebook's first stub."""
    nbclient = pytest.importorskip("nbclient")
    _, client = _release_notebook_run(tmp_path, COURSE.assignments[-1], use_module=False)
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="NotImplementedError"):
        client.execute()


def test_with_the_switch_on_a_module_that_does_not_load_is_said_and_nothing_raises(kernel, capsys):
    import sys

    (kernel_folder := __import__("pathlib").Path.cwd()).joinpath(HW1.module).write_text("def softmax(:\n", encoding="utf-8")
    main = sys.modules["__main__"]
    previous = getattr(main, "USE_MODULE", None)
    main.USE_MODULE = True
    try:
        live.check("softmax")
    finally:
        main.USE_MODULE = previous
    out = capsys.readouterr().out
    assert f"USE_MODULE is True but {HW1.module} does not load: SyntaxError" in out, out
