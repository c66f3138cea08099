"""A fixed corpus of notebooks to prove the exports agree: solution, stub, buggy students and an attack.

Every notebook is rendered from the masters in nbgrader's student format
(:func:`~autograder.export.notebooks.graded_notebook` without hidden tests), which otter and
``attn-course grade`` read as they are. Each buggy student is the solution with one edit
(the course's sample class, ``solutions/sample_class.yml``: its students and its ``agreement`` ones). The
attack is the stub plus a cell that makes every hidden test pass when the grader runs in the
notebook's process: on nbgrader and otter it gets full marks, in ``attn-course grade`` the
cell never runs (only definitions are taken from a notebook, and they run in the sandbox).
"""

from __future__ import annotations

from dataclasses import dataclass

import nbformat

from autograder.build import build_release
from autograder.build.markers import keep_solutions
from autograder.config import Course
from autograder.demo.sample_class import BuggyStudent, buggy_source, sample_class
from autograder.export.notebooks import GRADING_HEADING, graded_notebook
from autograder.export.spec import GradingSpec

SOLUTION, STUB, BUGGY, ATTACK = "solution", "stub", "buggy", "attack"
#: The attack's cell: on a platform that grades in the notebook's process, every hidden test passes.
ATTACK_CELL = """\
# A "helper" cell: in-process graders read test results from objects this notebook can reach.
import autograder.engine.results
autograder.engine.results.TestResult.passed = property(lambda self: True)
"""


@dataclass(frozen=True)
class CorpusEntry:
    """One notebook of the corpus: its name, kind, what is wrong with it, and the ``.ipynb`` text."""

    name: str
    kind: str
    what: str
    notebook: str


def buggy_students(course: Course, assignment_id: str) -> tuple[BuggyStudent, ...]:
    """The buggy students of an assignment: the demo's and the agreement corpus's of the course's sample class."""
    known = sample_class(course.layout)
    return known.students.get(assignment_id, ()) + known.agreement.get(assignment_id, ())


def with_attack(notebook: str) -> str:
    """``notebook`` with :data:`ATTACK_CELL` just before its grading heading."""
    document = nbformat.reads(notebook, as_version=4)
    where = next(i for i, cell in enumerate(document.cells) if cell.source == GRADING_HEADING)
    cell = nbformat.v4.new_code_cell(ATTACK_CELL)
    cell.id = "cell-attack"
    document.cells.insert(where, cell)
    return nbformat.writes(document, version=4) + "\n"


def corpus(course: Course, assignment_id: str, spec: GradingSpec, *, buggy: int | None = None,
           attack: bool = True) -> list[CorpusEntry]:
    """The corpus of an assignment: solution, stub, the first ``buggy`` buggy students (all by default), the attack."""
    assignment = course.assignment(assignment_id)
    solution = keep_solutions(course.layout.master(assignment).read_text(encoding="utf-8"))
    stub = build_release(course, assignment_id)[assignment.module]

    def notebook(module: str) -> str:
        return graded_notebook(assignment, module, spec, hidden=False)

    entries = [CorpusEntry(SOLUTION, SOLUTION, "the solution", notebook(solution)),
               CorpusEntry(STUB, STUB, "the untouched stub", notebook(stub))]
    for student in buggy_students(course, assignment_id)[:buggy]:
        entries.append(CorpusEntry(student.name, BUGGY, student.bug, notebook(buggy_source(solution, student))))
    if attack:
        entries.append(CorpusEntry("mallory", ATTACK, "the stub, and a cell that passes every test in-process",
                                   with_attack(notebook(stub))))
    return entries
