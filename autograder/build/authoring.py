"""Checks of an assignment's authoring that ``build --check-only`` adds: every question has a
reference function (exported in ``attn_reference.__all__``) and hidden tests marked with it.

Without them the grader cannot grade the question: a question with no hidden tests scores
0 for everyone, and one without a reference stops grading with an error.
"""

from __future__ import annotations

from pathlib import Path

from autograder.build.public_cases import example_problems
from autograder.build.release import _marked_questions
from autograder.config import Assignment
from autograder.layout import default_layout


def reference_functions() -> set[str]:
    """The names ``attn_reference`` exports (``__all__``) that are callable."""
    import attn_reference

    return {name for name in getattr(attn_reference, "__all__", ()) if callable(getattr(attn_reference, name, None))}


def hidden_tested_questions(assignment_id: str, tests_dir: Path | None = None) -> set[str]:
    """The functions the hidden tests of an assignment mark with ``@pytest.mark.question("<function>")``, in
    ``tests_dir`` (default: the default course's hidden suites)."""
    tests_dir = default_layout().hidden_tests if tests_dir is None else tests_dir
    marked: set[str] = set()
    for path in sorted((tests_dir / assignment_id).glob("test_*.py")):
        marked |= _marked_questions(path.read_text(encoding="utf-8"))
    return marked


def authoring_problems(assignment: Assignment, tests_dir: Path | None = None,
                       references: set[str] | None = None) -> list[str]:
    """One line per question without a reference function or without hidden tests (``tests_dir``: as for
    :func:`hidden_tested_questions`)."""
    tests_dir = default_layout().hidden_tests if tests_dir is None else tests_dir
    references = reference_functions() if references is None else references
    tested = hidden_tested_questions(assignment.id, tests_dir)
    problems = [f"question {q.function}: no reference function attn_reference.{q.function} (define it and list it in "
                "attn_reference/__init__.py's __all__)" for q in assignment.questions if q.function not in references]
    problems += [f"question {q.function}: no hidden test in {tests_dir.name}/{assignment.id}/ marked "
                 f"@pytest.mark.question(\"{q.function}\")" for q in assignment.questions if q.function not in tested]
    return problems + example_problems(tests_dir / assignment.id, assignment.functions)


def mistake_warnings(assignment: Assignment, mistakes_dir: Path) -> list[str]:
    """One line per question with no mistakes of its own in the course's ``mistakes_dir`` (only the generic ones),
    naming the file to add them to.

    Raises
    ------
    ConfigError
        When a module of the course's mistakes cannot be loaded (the message names its file).
    """
    from autograder.mutants.catalog import own_mutants

    return [f"question {q.function}: no mistakes of its own yet: list wrong versions of it in MUTANTS of "
            f"{mistakes_file(mistakes_dir, q.function)} (the test-power gate then checks that the hidden tests catch each)"
            for q in assignment.questions if not own_mutants(q.function, mistakes_dir)]


def mistakes_file(mistakes_dir: Path, function: str) -> Path:
    """The module of ``mistakes_dir`` where ``function``'s mistakes belong: the one that lists some already, else
    ``<function>.py`` (what ``attn-course new question`` writes)."""
    from autograder import mistakes

    for module, path in zip(mistakes.modules(mistakes_dir.resolve()), mistakes.module_files(mistakes_dir.resolve())):
        if any(getattr(m, "function", None) == function for m in getattr(module, "MUTANTS", ())):
            return path
    return mistakes_dir / f"{function}.py"
