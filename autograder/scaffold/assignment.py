"""``attn-course new assignment ID --module M --question F``: a new assignment with its first question.

Like :mod:`autograder.scaffold.question`, pure: :func:`assignment_edits` returns the text of every
file to write (course.yml's new entry, the masters' skeletons, the first question's files).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from autograder.config import Course, parse_course
from autograder.languages import SOURCE_LANGUAGE
from autograder.scaffold import texts
from autograder.scaffold.question import Edit, ScaffoldError, check_name, question_file_edits

#: How far after today a new assignment is due until its author says otherwise.
DEFAULT_WEEKS = 4


def _due(weeks: int = DEFAULT_WEEKS) -> str:
    today = dt.datetime.now(dt.timezone.utc).replace(hour=23, minute=59, second=0, microsecond=0)
    return (today + dt.timedelta(weeks=weeks)).isoformat()


def assignment_entry(course: Course, assignment_id: str, module: str, function: str, points: float,
                     title: str | None = None) -> str:
    """course.yml's entry of the new assignment (its title a TODO unless given; due in four weeks until set)."""
    title = title or f"TODO the title of {assignment_id}"
    if '"' in title or "\\" in title or "\n" in title:
        raise ScaffoldError("--title: no quotes, backslashes or line breaks")
    translated = {language: f"{texts.UNTRANSLATED} {title}" for language in course.languages if language != SOURCE_LANGUAGE}
    titles = "    titles: {" + ", ".join(f'{k}: "{v}"' for k, v in translated.items()) + "}\n" if translated else ""
    return texts.ASSIGNMENT_ENTRY.format(assignment=assignment_id, title=title, titles=titles, module=module,
                                         notebook=module.replace(".py", ".ipynb"), due=_due(), function=function,
                                         points=points)


def skeleton(course: Course, assignment_id: str, module: str, title: str) -> dict[Path, str]:
    """The masters of a new assignment before its first question: module, notebook, public tests and cases, docstrings."""
    masters = course.layout.solutions / assignment_id
    others = [language for language in course.languages if language != SOURCE_LANGUAGE]
    header = "".join(texts.NOTEBOOK_HEADER_TRANSLATION.format(language=lang, title=title, untranslated=texts.UNTRANSLATED)
                     for lang in others)
    closing = "".join(texts.NOTEBOOK_CLOSING_TRANSLATION.format(language=lang, assignment=assignment_id,
                                                               untranslated=texts.UNTRANSLATED) for lang in others)
    files = {
        masters / module: texts.MODULE.format(title=title),
        masters / "notebook.py": texts.NOTEBOOK.format(title=title, assignment=assignment_id, header_translations=header,
                                                      closing_translations=closing),
        masters / "public_tests.py": texts.PUBLIC_TESTS.format(assignment=assignment_id),
        masters / "public_cases.py": texts.PUBLIC_CASES.format(assignment=assignment_id),
    }
    for language in others:
        files[masters / f"docstrings.{language}.yml"] = texts.DOCSTRINGS.format(module=module, untranslated=texts.UNTRANSLATED)
    return files


def assignment_edits(course: Course, course_text: str, assignment_id: str, module: str, function: str,
                     parameters: tuple[str, ...], points: float = 1, title: str | None = None) -> list[Edit]:
    """Every file to write for a new assignment and its first question.

    Raises
    ------
    ScaffoldError
        When a name is bad, the assignment or the question exists, or its folder does.
    """
    check_name(function, parameters)
    if not re.fullmatch(r"[a-z][a-z0-9_]*\.py", module) or not module[:-3].isidentifier():
        raise ScaffoldError(f"--module {module!r}: a Python module file name such as attention_entropy.py")
    if assignment_id in {a.id for a in course.assignments} or any(function in a.functions for a in course.assignments):
        raise ScaffoldError(f"{assignment_id} or {function} is in the course already")
    if (course.layout.solutions / assignment_id).exists():
        raise ScaffoldError(f"{course.layout.solutions / assignment_id} exists already")
    new_text = course_text.rstrip("\n") + "\n" + assignment_entry(course, assignment_id, module, function, points, title)
    try:
        new_course = parse_course(new_text)
    except Exception as error:
        raise ScaffoldError(f"the new entry makes course.yml invalid: {error}") from None
    new_course._file = course.layout.course_file
    title = new_course.assignment(assignment_id).title
    pending = skeleton(new_course, assignment_id, module, title)
    read = lambda path: pending[path] if path in pending else path.read_text(encoding="utf-8")  # noqa: E731
    question = question_file_edits(new_course, assignment_id, module, function, parameters, read)
    final = {**{path: Edit(path, text, True) for path, text in pending.items()},
             **{e.path: Edit(e.path, e.text, e.new or e.path in pending) for e in question}}
    return [Edit(course.layout.course_file, new_text, False), *final.values()]
