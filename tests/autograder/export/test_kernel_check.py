"""The in-kernel checker nbgrader's and otter's exports carry: the engine's verdicts from data, no reference needed.

Every hidden test of every assignment, replayed from the data recorded at export time, passes or
fails as the engine's own run on the same namespace and seed does (the course's suite through
:mod:`autograder.export.runtime`), except passes the engine carries forward from a wrong upstream
function, which the kernel cannot give. The grade cell's code scores in an interpreter where
``attn_reference`` and ``autograder`` cannot be imported. The import policy is the grader's.
"""

import ast
import json
import subprocess
import sys

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.export import kernel_check, runtime
from autograder.export.corpus import buggy_students
from autograder.demo.sample_class import buggy_source
from autograder.export.kernel_code import checker_source, packed_questions, policy_sources
from autograder.export.notebooks import grade_cell_source
from autograder.export.spec import GradingSpec
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]
PENALTY = COURSE.defaults.disallowed_import_penalty


def _solution(assignment_id: str) -> str:
    assignment = COURSE.assignment(assignment_id)
    return keep_solutions((SOLUTIONS_DIR / assignment_id / assignment.module).read_text(encoding="utf-8"))


def _namespace(source: str) -> dict:
    namespace = {"__name__": "__main__"}
    exec(compile(source, "<cell>", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def packed():
    return {i: packed_questions(COURSE, GradingSpec.of(COURSE, i), COURSE.layout.hidden_tests) for i in IDS}


def _kernel_verdicts(namespace: dict, data: dict, history: list[str]) -> dict:
    verdicts = {}
    for function, text in data.items():
        problems, _, _ = kernel_check.results(namespace, text, 0, history)
        verdicts.update({(function, name): problem is None for name, problem in problems.items()})
    return verdicts


@pytest.mark.parametrize("assignment_id", IDS)
def test_every_test_passes_or_fails_as_in_the_engine(assignment_id, packed):
    """The solution and every buggy student of the corpus, test by test (carried passes count as failures)."""
    spec = GradingSpec.of(COURSE, assignment_id)
    sources = [_solution(assignment_id)] + [buggy_source(_solution(assignment_id), s) for s in buggy_students(COURSE, assignment_id)]
    failing = 0
    for source in sources:
        engine = runtime.hidden_results(_namespace(source), spec)
        expected = {(r.question, r.name): r.passed and not r.carried_from for r in engine}
        assert _kernel_verdicts(_namespace(source), packed[assignment_id], ["", source]) == expected
        failing += not all(expected.values())
    assert failing == len(sources) - 1  # every buggy student fails a test somewhere: the comparison can fail


def test_the_checker_needs_numpy_and_the_standard_library_only():
    for name, source in {"kernel_check": checker_source(), **policy_sources()}.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                modules = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                for module in modules:
                    top = module.split(".")[0]
                    assert top in sys.stdlib_module_names or top in ("numpy", "_attn_kernel_reach"), (name, module)


FAKE_IPYTHON = """
import sys, types
_shell = types.SimpleNamespace(history_manager=types.SimpleNamespace(input_hist_raw=['', NOTEBOOK, 'grade cell']))
sys.modules['IPython'] = types.SimpleNamespace(get_ipython=lambda: _shell)
"""


def _run_cell(notebook: str, cell: str, cwd) -> float:
    """What the grade cell ends with, run after ``notebook`` by ``python -I`` where attn_reference and autograder fail to import."""
    hidden = cell.split("### BEGIN HIDDEN TESTS\n", 1)[1].split("\n### END HIDDEN TESTS")[0]
    *setup, last = hidden.split("\n")
    script = "\n".join(["import sys", "sys.modules['attn_reference'] = None; sys.modules['autograder'] = None",
                        f"NOTEBOOK = {notebook!r}", FAKE_IPYTHON, "exec(compile(NOTEBOOK, '<notebook>', 'exec'))",
                        *setup, f"print({last})"])
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return float(done.stdout.strip().splitlines()[-1])


def test_a_grade_cell_scores_where_neither_the_reference_nor_the_grader_imports(packed, tmp_path):
    """The real cell's code on the solution, and on the solution with a wrong first function (the control)."""
    assignment = COURSE.assignments[0]
    question = assignment.questions[0]
    cell = grade_cell_source(question.function, 1, question.points, packed[assignment.id][question.function])
    solution = _solution(assignment.id)
    assert _run_cell(solution, cell, tmp_path) == question.points
    wrong = solution + f"\n\ndef {question.function}(*args, **kwargs):\n    return args[0]\n"
    assert _run_cell(wrong, cell, tmp_path) < question.points


def _cheat(assignment_id: str, function: str) -> str:
    """The solution with ``function``'s definition replaced by one import line from the reference."""
    source = _solution(assignment_id)
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    lines = source.splitlines()
    start = node.lineno - 1 - len(node.decorator_list)
    return "\n".join(lines[:start] + [f"from attn_reference import {function}"] + lines[node.end_lineno:])


def test_the_reference_import_scores_what_the_grader_gives_it(packed, tmp_path):
    """The one-line cheat: its function missing, the policy's penalty on the rest, as ``attn-course grade`` scores it."""
    from autograder.grade.api import grade_submission

    assignment = COURSE.assignments[0]
    spec = GradingSpec.of(COURSE, assignment.id)
    honest, cheat = _solution(assignment.id), _cheat(assignment.id, assignment.functions[0])
    path = tmp_path / assignment.module
    path.write_text(cheat, encoding="utf-8")
    ours = grade_submission(COURSE, assignment.id, path, seed=spec.seed)
    kernel = sum(kernel_check.question_score(_namespace(cheat), text, 0, ["", cheat]) for text in packed[assignment.id].values())
    honestly = sum(kernel_check.question_score(_namespace(honest), text, 0, ["", honest]) for text in packed[assignment.id].values())
    assert ours.penalties and ours.score < assignment.max_points
    assert kernel == pytest.approx(ours.score, abs=1e-4) and honestly == assignment.max_points


def test_otter_policy_share_is_lost_by_the_cheat_only(packed):
    assignment = COURSE.assignments[0]
    text = packed[assignment.id][assignment.functions[1]]
    name = json.loads(__import__("zlib").decompress(__import__("base64").b64decode(text)))["tests"][0]["name"]
    kernel_check._CACHE.clear()
    for source, lost in ((_solution(assignment.id), False), (_cheat(assignment.id, assignment.functions[0]), True)):
        namespace = _namespace(source)
        key = (id(namespace), text)
        kernel_check._CACHE[key] = (namespace, kernel_check.results(namespace, text, 0, ["", source]))
        assert kernel_check.test_problem(namespace, text, name) is None
        assert (kernel_check.test_problem(namespace, text, name, policy_share=True) is not None) == lost


def test_attack_a_cheat_dressed_as_otters_own_cell_is_still_read(packed):
    """Attack: the reference import appended to a copy of otter's init cell; honest control: otter's cell alone."""
    otter_cell = ('from otter import Notebook as notebook_ab\nnotebook_ab.init_grading_mode("tests")\n'
                  "# set up Otter's logging\nimport logging\nfrom otter import logging\nlogging.set_level(logging.DEBUG)\n"
                  'logging.send_logs("localhost", 1)\n')
    assignment = COURSE.assignments[0]
    solution = _solution(assignment.id)
    text = packed[assignment.id][assignment.functions[0]]
    honest = kernel_check.results(_namespace(solution), text, 1, ["", otter_cell, solution, "export cell"])
    attack = kernel_check.results(_namespace(solution), text, 1,
                                  ["", otter_cell + "from attn_reference import softmax\n", solution, "export cell"])
    assert honest[1] == 0 and attack[1] == PENALTY


def test_attack_a_notebook_that_defines_the_checker_first_gains_nothing(packed):
    """Attack: a cell binding ``_attn_kernel`` to a checker that passes everything; the grade cell loads its own."""
    assignment = COURSE.assignments[0]
    question = assignment.questions[0]
    stub = f"def {question.function}(*args, **kwargs):\n    raise NotImplementedError\n"
    cell = grade_cell_source(question.function, 1, question.points, packed[assignment.id][question.function])
    hidden = cell.split("### BEGIN HIDDEN TESTS\n", 1)[1].split("\n### END HIDDEN TESTS")[0]
    *setup, last = hidden.split("\n")
    for attack, points in (("", 0.0), (f"_attn_kernel = {{'question_score': lambda *a: {question.points}}}\n", 0.0)):
        namespace = _namespace(stub + attack)
        exec("\n".join(setup), namespace)
        assert eval(last, namespace) == points
