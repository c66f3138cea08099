"""``attn-course new question ASSIGNMENT FUNCTION``: every file a new question needs, each with its TODOs.

:func:`question_edits` is pure: given the course's files as they are, it returns the new text of
each file to write (new files, and the files a question is added to: course.yml, the reference
package's ``__init__``, the solution module, the notebook source, the translated docstrings).
The question's public check case is its hidden test's worked example (``EXAMPLE``), so the
public cases need no edit (:func:`autograder.build.public_cases.example_cases`). :func:`write_edits` writes them, refusing to overwrite a new file.
Its mistakes get a placeholder module in the course's ``mistakes/`` (``MUTANTS`` and ``BUGS`` empty, to fill): until
it lists some, the function has the catalog's generic mistakes only (:func:`autograder.mutants.catalog.generic_mutants`)
and ``build --check-only`` reminds you to add your own, naming that file.
"""

from __future__ import annotations

import keyword
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from autograder.config import Course, parse_course
from autograder.errors import ConfigError
from autograder.languages import SOURCE_LANGUAGE
from autograder.scaffold import texts


class ScaffoldError(ConfigError):
    """The question cannot be added (a bad name, an existing question, a file not in the expected form)."""


@dataclass(frozen=True)
class Edit:
    """The new text of one file; ``new`` when the file does not exist yet."""

    path: Path
    text: str
    new: bool


def check_name(function: str, parameters: tuple[str, ...]) -> None:
    """Refuse a function or parameter name that is no Python identifier (or a keyword)."""
    for name in (function, *parameters):
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ScaffoldError(f"{name!r} is no valid Python name")
    if len(set(parameters)) != len(parameters):
        raise ScaffoldError(f"parameters repeat: {', '.join(parameters)}")


def docstring(function: str, parameters: tuple[str, ...]) -> str:
    """The TODO docstring shared by the reference and the solution (numpydoc sections)."""
    lines = "".join(texts.PARAMETER.format(name=name) for name in parameters) or "    TODO none\n"
    return texts.DOCSTRING.format(function=function, parameter_lines=lines)


def course_with_question(text: str, assignment_id: str, function: str, points: float) -> str:
    """course.yml's text with ``{function: F, points: P}`` after the assignment's last question (comments kept).

    Raises
    ------
    ScaffoldError
        When the assignment's questions are not written one ``- {function: ..., points: ...}`` per line.
    """
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.fullmatch(rf"\s*-\s+id:\s*{re.escape(assignment_id)}\s*", line.rstrip("\n"))), None)
    if start is None:
        raise ScaffoldError(f"no assignment {assignment_id} in course.yml")
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"\s*-\s+id:", lines[i])), len(lines))
    items = [i for i in range(start, end) if re.match(r"\s*-\s+\{\s*function:", lines[i])]
    if not items:
        raise ScaffoldError(f"course.yml: write the questions of {assignment_id} as `- {{function: ..., points: ...}}` lines")
    last = lines[items[-1]]
    indent = last[: len(last) - len(last.lstrip())]
    lines.insert(items[-1] + 1, f"{indent}- {{function: {function}, points: {points:g}}}\n")
    return "".join(lines)


def reference_init_with(text: str, function: str) -> str:
    """The reference package's ``__init__`` importing ``function`` from its own module and listing it in ``__all__``."""
    if "__all__ = [" not in text:
        raise ScaffoldError("attn_reference/__init__.py has no `__all__ = [` list")
    head, tail = text.split("__all__ = [", 1)
    head = head.rstrip("\n") + f"\nfrom attn_reference.{function} import {function}\n\n"
    names = re.findall(r'"([^"]+)"', tail.split("]", 1)[0]) + [function]
    listed = "".join(f'    "{name}",\n' for name in sorted(set(names)))
    return head + "__all__ = [\n" + listed + "]" + tail.split("]", 1)[1]


def notebook_with_section(text: str, function: str, title: str, languages: tuple[str, ...]) -> str:
    """The notebook source with the question's section after the last question's (before the next English markdown
    cell), else before its closing section (its last English markdown cell)."""
    translations = "".join(texts.NOTEBOOK_TRANSLATION.format(language=language, title=title, function=function,
                                                            untranslated=texts.UNTRANSLATED)
                           for language in languages if language != SOURCE_LANGUAGE)
    section = texts.NOTEBOOK_SECTION.format(title=title, function=function, translations=translations)
    starts = [m.start() for m in re.finditer(r"^# %% \[markdown\][ \t]*$", text, flags=re.M)]
    graded = [m.start() for m in re.finditer(r'^# %% graded="', text, flags=re.M)]
    after_last_question = [start for start in starts if graded and start > graded[-1]]
    if after_last_question:  # right after the last question's section (its graded cell and demos)
        return text[: after_last_question[0]] + section + text[after_last_question[0]:]
    if not starts:
        return text.rstrip("\n") + "\n\n" + section
    return text[: starts[-1]] + section + text[starts[-1]:]


def docstrings_with(text: str, function: str, english: str) -> str:
    """A translated-docstrings file with an entry for ``function``: the English, marked untranslated."""
    plain = textwrap.dedent(english.strip("\n")).strip().strip('"').strip()
    body = "\n".join(f"    {line}" if line.strip() else "" for line in plain.splitlines())
    return text.rstrip("\n") + f"\n  {function}: |\n    {texts.UNTRANSLATED} {body.lstrip()}\n"


def question_edits(course: Course, course_text: str, assignment_id: str, function: str,
                   parameters: tuple[str, ...], points: float = 1) -> list[Edit]:
    """Every file to write for question ``function`` of ``assignment_id``.

    Raises
    ------
    ScaffoldError
        When the name is bad, the question exists, or a file to add to is not in the expected form.
    """
    check_name(function, parameters)
    if any(function in a.functions for a in course.assignments):
        raise ScaffoldError(f"{function} is a question of the course already")
    new_course = course_with_question(course_text, assignment_id, function, points)
    parse_course(new_course)  # what it writes must be a valid course
    return [Edit(course.layout.course_file, new_course, False),
            *question_file_edits(course, assignment_id, course.assignment(assignment_id).module, function, parameters, _read)]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScaffoldError(f"cannot read {path} ({error.strerror}): the scaffold adds the question to it") from None


def question_file_edits(course: Course, assignment_id: str, module: str, function: str, parameters: tuple[str, ...],
                        read: Callable[[Path], str]) -> list[Edit]:
    """The files of one question beside course.yml (the assignment's ``module`` among them): ``read`` gives each
    file's current text."""
    layout = course.layout
    if not layout.reference.resolve().is_relative_to(layout.root.resolve()):
        raise ScaffoldError(f"the reference of {layout.course_file} is the installed engine's ({layout.reference}): "
                            "add questions in a checkout of the project, where attn_reference/ sits beside course.yml")
    reference_file = layout.reference / f"{function}.py"
    suite_file = layout.hidden_suite(assignment_id) / f"test_{function}.py"
    mistakes_file = layout.mistakes / f"{function}.py"
    for path in (reference_file, suite_file, mistakes_file):
        if path.exists():
            raise ScaffoldError(f"{path} exists already")
    signature, doc = ", ".join(parameters), docstring(function, parameters)
    masters = layout.solutions / assignment_id
    notebook = masters / "notebook.py"
    edits = [
        Edit(reference_file, texts.REFERENCE.format(function=function, parameters=signature, docstring=doc), True),
        Edit(layout.reference / "__init__.py", reference_init_with(read(layout.reference / "__init__.py"), function), False),
        Edit(masters / module, read(masters / module).rstrip("\n") + "\n" +
             texts.SOLUTION.format(function=function, parameters=signature, docstring=doc), False),
        Edit(notebook, notebook_with_section(read(notebook), function, function.replace("_", " ").capitalize(),
                                             course.languages), False),
        Edit(suite_file, texts.HIDDEN_TESTS.format(
            function=function, assignment=assignment_id, parameters=signature, worked_example=texts.WORKED_EXAMPLE,
            random_inputs=texts.RANDOM_INPUTS, batch_axes=texts.BATCH_AXES, float32_kept=texts.FLOAT32_KEPT), True),
        Edit(mistakes_file, texts.MISTAKES.format(function=function, parameters=signature), True),
    ]
    for language in course.languages:
        if language != SOURCE_LANGUAGE:
            path = masters / f"docstrings.{language}.yml"
            edits.append(Edit(path, docstrings_with(read(path), function, doc), False))
    return edits


def write_edits(edits: list[Edit]) -> list[Path]:
    """Write every edit; a new file is never written over an existing one.

    Raises
    ------
    ScaffoldError
        When a file to create exists (nothing is written then).
    """
    clashes = [str(e.path) for e in edits if e.new and e.path.exists()]
    if clashes:
        raise ScaffoldError(f"exist already: {', '.join(clashes)}")
    for edit in edits:
        edit.path.parent.mkdir(parents=True, exist_ok=True)
        edit.path.write_text(edit.text, encoding="utf-8")
    return [e.path for e in edits]
