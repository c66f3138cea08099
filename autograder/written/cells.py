"""The written questions of a release: answer cells in each notebook, and ``answers.md`` beside the module.

Each question becomes two markdown cells at the end of the notebook: its prompt (number, points),
then the answer cell the student writes in, tagged ``written`` and the question's id (the
grader reads the answer from that cell; the nbgrader export marks it for manual grading). A
student who hands in the module alone answers in ``answers.md`` (``answers.zh.md`` in Chinese),
between the lines ``<!-- answer: ID -->`` and ``<!-- end answer: ID -->``.
"""

from __future__ import annotations

import nbformat

from autograder.i18n import msg, render

#: The first tag of an answer cell; the second is the question's id.
WRITTEN_TAG = "written"
#: The file a module-only submission answers in (named per language like the README).
ANSWERS_FILE = "answers.md"
#: What an answer cell holds until the student writes in it (an answer that still says it is unanswered).
PLACEHOLDER = msg("Write your answer here, replacing this line.")
HEADING = msg("Written questions")
INTRO = msg("Answer each question in the cell below it, in your own words. These answers are graded by "
            "people (the points are not part of the automatic checks).")
FILE_INTRO = msg("Write each answer between its two marker lines and keep the marker lines as they are. Hand this "
                 "file in beside your module.")


def start_marker(question_id: str) -> str:
    """The line that opens the answer to ``question_id`` in ``answers.md``."""
    return f"<!-- answer: {question_id} -->"


def end_marker(question_id: str) -> str:
    """The line that closes the answer to ``question_id`` in ``answers.md``."""
    return f"<!-- end answer: {question_id} -->"


def question_title(number: int, question, language: str) -> str:
    """``Written question 1 (3 points)`` in ``language``."""
    return render(msg("Written question {number} ({points} points)", number=number, points=f"{question.points:g}"), language)


def placeholder_texts(languages) -> set[str]:
    """The placeholder in each of ``languages``: an answer that still reads so is unanswered."""
    return {render(PLACEHOLDER, language) for language in languages}


def answer_cell(question, language: str):
    """The markdown cell the student answers ``question`` in (id ``written-<id>``)."""
    cell = nbformat.v4.new_markdown_cell(render(PLACEHOLDER, language),
                                         metadata={"tags": [WRITTEN_TAG, question.id]})
    cell.id = f"written-{question.id}"
    return cell


def with_written_cells(notebook_json: str, assignment, language: str) -> str:
    """The notebook with a prompt cell and an answer cell per written question of ``assignment``, at the end.

    Parameters
    ----------
    notebook_json : str
        The release notebook (``.ipynb`` text).
    assignment : autograder.config.Assignment
        Its ``written`` questions are added, in order; without any the notebook is returned unchanged.
    language : str
        The language of the prompts.

    Returns
    -------
    str
        The ``.ipynb`` text.
    """
    if not assignment.written:
        return notebook_json
    notebook = nbformat.reads(notebook_json, as_version=4)
    heading = nbformat.v4.new_markdown_cell(f"## {render(HEADING, language)}\n\n{render(INTRO, language)}")
    heading.id = "written-heading"
    notebook.cells.append(heading)
    for number, question in enumerate(assignment.written, start=1):
        prompt = nbformat.v4.new_markdown_cell(f"### {question_title(number, question, language)}\n\n"
                                               f"{question.prompt_in(language)}")
        prompt.id = f"written-prompt-{question.id}"
        notebook.cells += [prompt, answer_cell(question, language)]
    return nbformat.writes(notebook, version=4) + "\n"


def answers_markdown(assignment, language: str, short_id: str) -> str:
    """The ``answers.md`` of ``assignment`` in ``language``: each prompt, then its marker lines around the placeholder."""
    lines = [f"# {short_id}: {render(HEADING, language)}", "", render(FILE_INTRO, language), ""]
    for number, question in enumerate(assignment.written, start=1):
        lines += [f"## {question_title(number, question, language)}", "", question.prompt_in(language), "",
                  start_marker(question.id), render(PLACEHOLDER, language), end_marker(question.id), ""]
    return "\n".join(lines)
