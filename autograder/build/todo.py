"""What an author left to do: scaffolded TODOs not filled in, text not translated yet.

``attn-course new question`` writes its placeholders so that they are found here
(:mod:`autograder.scaffold.texts`): code that still raises ``NotImplementedError("TODO ...")``
and text that starts with :data:`~autograder.scaffold.texts.UNTRANSLATED`. A release build
refuses both; ``build --draft`` lets untranslated text through with a warning (the English
stands in), never unfilled code.
"""

from __future__ import annotations

import re
from pathlib import Path

from autograder.scaffold.texts import UNTRANSLATED

#: A scaffolded placeholder that is still code to write: a TODO raise, or a worked example's or public case's TODO
#: arguments.
UNFILLED = re.compile(r"""NotImplementedError\(\s*["']TODO\b|^\s*(PublicCase\(|EXAMPLE\s*=).*\bTODO\b""")


def _lines_with(path: Path, pattern, root: Path) -> list[str]:
    """``file:line`` of every line of ``path`` matching ``pattern`` (a string or a compiled expression)."""
    if not path.is_file():
        return []
    try:
        where = path.relative_to(root)
    except ValueError:
        where = path
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if (pattern in line) if isinstance(pattern, str) else pattern.search(line):
            found.append(f"{where}:{number}")
    return found


def untranslated(layout, assignment) -> list[str]:
    """Every ``file:line`` of an assignment's masters that still holds untranslated text."""
    masters = layout.masters(assignment.id)
    files = [layout.notebook_source(assignment.id), *sorted(masters.glob("docstrings.*.yml"))]
    return [where for path in files for where in _lines_with(path, UNTRANSLATED, layout.root)]


def unfilled(layout, assignment) -> list[str]:
    """Every ``file:line`` where a scaffolded placeholder of an assignment's questions is still to be written."""
    files = [layout.master(assignment), layout.masters(assignment.id) / "public_cases.py",
             *sorted(layout.hidden_suite(assignment.id).glob("test_*.py")),
             *(layout.reference / f"{function}.py" for function in assignment.functions)]
    return [where for path in files for where in _lines_with(path, UNFILLED, layout.root)]


def title_problems(layout, assignment) -> tuple[list[str], list[str]]:
    """``(unfilled, untranslated)``: a scaffolded title still to write, or one of its translations still to make."""
    where = layout.course_file.name
    unfilled_title = [f"{where}: the title of {assignment.id} is a TODO"] if "TODO" in assignment.title else []
    untranslated_titles = [f"{where}: the {language} title of {assignment.id}" for language, title in assignment.titles.items()
                           if UNTRANSLATED in title]
    return unfilled_title, untranslated_titles


def todo_problems(layout, assignment, *, draft: bool = False) -> tuple[list[str], list[str]]:
    """``(errors, warnings)``: unfilled placeholders are errors; untranslated text is an error, or a warning in a draft."""
    titles, untranslated_titles = title_problems(layout, assignment)
    errors = titles + [f"{where}: a TODO to fill (the scaffold's placeholder)" for where in unfilled(layout, assignment)]
    text = [f"{where}: untranslated ({UNTRANSLATED}): translate it, or build with --draft"
            for where in [*untranslated_titles, *untranslated(layout, assignment)]]
    return (errors, text) if draft else (errors + text, [])
