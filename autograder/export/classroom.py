"""GitHub Classroom's grade column: the ``<ID>_RESULTS`` the grading reporter reads, from one graded submission.

``classroom-resources/autograding-grading-reporter@v1`` reads, for each id of its ``runners``
input, the environment variable ``<ID>_RESULTS``: base64 of a JSON object ``{version, status,
max_score, tests: [{name, status, score, message}]}``, and sums the tests' scores into the
Classroom grade. One test per question here: its points as score, ``pass`` only at full points.
Every text is the student-facing one in plain terminal-safe form (no control characters).
"""

from __future__ import annotations

import base64
import json

from autograder.escape import terminal_text
from autograder.report.text import question_feedback
from autograder.grade.result import GradeResult
from autograder.languages import SOURCE_LANGUAGE

#: The reporter's runner id the workflows use (``ATTN_RESULTS``), and its format's version.
RUNNER_ID = "attn"
FORMAT_VERSION = 1
#: Characters of one test's message kept (the reporter shows it in a notice).
MESSAGE_CHARS = 1000


def _status(score: float, points: float) -> str:
    return "pass" if score >= points else "fail"


def classroom_results(result: GradeResult, language: str = SOURCE_LANGUAGE) -> dict:
    """The reporter's JSON object for ``result``: one test per question (``error`` when it could not be loaded).

    Penalties (late days, imports) scale every question's score alike, so the tests' scores add up to the grade.
    """
    factor = result.score / result.raw_score if result.raw_score else 0.0
    tests = []
    for question in result.questions:
        message = " / ".join(question_feedback(question, language, terminal_text))
        tests.append({"name": terminal_text(f"Q{question.number} {question.function}"),
                      "status": _status(question.score, question.points), "score": round(question.score * factor, 4),
                      "message": message[-MESSAGE_CHARS:]})
    status = "error" if result.load_error else _status(result.score, result.max_score)
    return {"version": FORMAT_VERSION, "status": status, "max_score": result.max_score, "tests": tests}


def encoded_results(result: GradeResult, language: str = SOURCE_LANGUAGE) -> str:
    """:func:`classroom_results` as the reporter reads it: base64 of its JSON, one line."""
    text = json.dumps(classroom_results(result, language), ensure_ascii=True, sort_keys=True)
    return base64.b64encode(text.encode("ascii")).decode("ascii")
