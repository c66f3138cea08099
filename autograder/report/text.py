"""Render a :class:`GradeResult` as text, JSON, Gradescope ``results.json`` or JUnit XML.

The formats are held as data in :data:`autograder.report.formats.FORMATS`, the one registry
the command line, the gradebook's feedback files and the exports derive from; each renders
a pure function of the result and a language. What students read (labels, messages, hints,
descriptions) comes from the message catalog in that language (:mod:`autograder.i18n`); ids,
numbers, function names and the JSON record stay the same in every language. Every text
reaches its format through that format's function of :mod:`autograder.escape`.
"""

from __future__ import annotations

from xml.etree import ElementTree

from autograder.escape import json_document, terminal_text, xml_text
from autograder.grade.record import TIME_DECIMALS, to_record
from autograder.grade.result import GradeResult
from autograder.report.cases import TRACEBACK, Cases, failing_cases, same_failure  # noqa: F401 - TRACEBACK: re-exported
from autograder.report.chosen import chosen_diagnoses, is_observed
from autograder.i18n import Message, entry, joined, msg, msg_n, render
from autograder.languages import SOURCE_LANGUAGE
from autograder.scoring import QuestionScore, rounded_numbers

#: Gradescope shows a test as visible to the student immediately.
VISIBLE = "visible"
#: Characters of a failure message kept in a JUnit ``message`` attribute (the element text has all).
JUNIT_MESSAGE_CHARS = 200
#: Indent of feedback under its question in the text report (every line of it).
FEEDBACK_INDENT = "       "
#: How Gradescope shows an output or a name: as plain text, never as HTML or Markdown.
GRADESCOPE_TEXT = "text"


def _points(value: float) -> str:
    return f"{value:g}"


def question_diagnoses(question: QuestionScore) -> dict[str, str]:
    """The question's diagnosis (id -> hint): one named bug chosen by evidence, else what was observed."""
    return chosen_diagnoses(question.failed_tests)


def diagnosis_line(bug: str, hint: str) -> Message:
    """``Likely bug [id]: hint``, or ``Observed: hint`` for an observation (no bug named)."""
    return msg("Observed: {hint}", hint=hint) if is_observed(bug) else msg("Likely bug [{id}]: {hint}", id=bug, hint=hint)


def carried_note(question: QuestionScore, language: str = SOURCE_LANGUAGE, escape=None) -> list[str]:
    """One line saying which tests kept their points because they follow from the student's own upstream functions."""
    carried = [t for t in question.tests if t.passed and t.carried_from]
    if not carried:
        return []
    upstream = ", ".join(f"`{name}`" for name in dict.fromkeys(f for t in carried for f in t.carried_from))
    note = msg_n("{n} test passes because its result follows from your {upstream} (error carried forward: "
                 "{function} is right given what {upstream} returned)",
                 "{n} tests pass because their results follow from your {upstream} (error carried forward: "
                 "{function} is right given what {upstream} returned)",
                 len(carried), upstream=upstream, function=question.function)
    return [render(note, language, *_escaping(escape))]


def _escaping(escape) -> tuple:
    return (escape,) if escape is not None else ()


def description(text: str, language: str = SOURCE_LANGUAGE) -> str:
    """A test's description (its docstring's first line) in ``language``, without its final full stop."""
    return render(entry(text), language).rstrip(".。")


def question_feedback(question: QuestionScore, language: str = SOURCE_LANGUAGE, escape=None, verbose: bool = False,
                      tolerance: bool = True) -> list[str]:
    """Lines explaining a question: its diagnosis first, then a few failing cases, how many more fail, and carried results.

    Parameters
    ----------
    question : QuestionScore
        The question.
    language : str, optional
        The language of the lines.
    escape : callable, optional
        A function of :mod:`autograder.escape` applied to every text and fact (the lines of
        a Markdown or HTML output); None gives plain text.
    verbose : bool, optional
        Every failing case; by default at most :data:`~autograder.report.chosen.SHOWN_CASES`
        that differ, and how many more tests fail (the same way, or otherwise).
    tolerance : bool, optional
        Say the tolerance the cases shown share on a line of its own (False: the report says it once).

    Returns
    -------
    list of str
        The diagnosis, then one line per case shown (``- ...``), the further failures, the tolerance and the
        carried note.
    """
    say = _escaping(escape)
    lines = [render(diagnosis_line(bug, hint), language, *say) for bug, hint in question_diagnoses(question).items()]
    cases = failing_cases(question.failed_tests, verbose)
    for case in cases.shown:
        if len(case.tests) == 1:
            line = msg("{description}: {message}", description=description(case.tests[0].description, language),
                       message=case.message)
        else:
            line = msg_n("{n} test: {message}", "{n} tests: {message}", len(case.tests), message=case.message)
        lines.append(f"- {render(line, language, *say)}")
    further = more_failures(cases)
    lines += [f"- {render(further, language, *say)}"] if further else []
    lines += [render(tolerance_line(cases.tolerances), language, *say)] if tolerance and cases.tolerances else []
    return lines + [f"- {line}" for line in carried_note(question, language, escape)]


def more_failures(cases: Cases) -> Message | None:
    """``N more tests fail the same way`` and/or ``N more tests fail differently``; None when every failure is shown."""
    same = msg_n("{n} more test fails the same way", "{n} more tests fail the same way", cases.same) if cases.same else None
    other = msg_n("{n} more test fails differently", "{n} more tests fail differently", cases.other) if cases.other else None
    parts = [part for part in (same, other) if part is not None]
    return joined(parts) if len(parts) > 1 else (parts[0] if parts else None)


def tolerance_line(tolerances) -> Message:
    """The tolerance of the comparisons, said once: ``Tolerance of the comparisons: rtol=1e-05, atol=1e-08.``"""
    (rtol, atol), = tolerances
    return msg("Tolerance of the comparisons: rtol={rtol}, atol={atol}.", rtol=rtol, atol=atol)


def shared_tolerances(questions, verbose: bool = False) -> tuple:
    """The one tolerance every question's shown cases share, when they share one (else empty: each says its own)."""
    found = {failing_cases(q.failed_tests, verbose).tolerances for q in questions if q.failed_tests}
    found.discard(())
    return next(iter(found)) if len(found) == 1 else ()


def by_message(tests) -> dict[str, list]:
    """Failed tests grouped by identical message, or identical traceback (an unimplemented stub fails every test
    alike; ``check`` groups alike): a group of one keeps its whole message, a larger one is keyed by what they share."""
    groups: dict[str, list] = {}
    for test in tests:
        groups.setdefault(same_failure(test.message), []).append(test)
    return {(group[0].message if len(group) == 1 else same): group for same, group in groups.items()}


def _indented(text: str, indent: str) -> str:
    """``text`` whose every line after the first is indented: no message line can pass for a report line."""
    return text.replace("\n", "\n" + indent)


def _summary_lines(result: GradeResult, language: str = SOURCE_LANGUAGE) -> list[str]:
    lines = [render(msg("Score: {score} / {max_score}", score=_points(result.score), max_score=_points(result.max_score)),
                    language)]
    if result.load_error:
        lines.append(_indented(render(msg("The submission could not be graded: {error}", error=result.load_error), language),
                               FEEDBACK_INDENT))
    lines += [render(msg("Penalty: -{percent} for {reason}", percent=f"{p.fraction:.0%}", reason=p.reason), language)
              for p in result.penalties]
    lines += [_indented(render(note, language), FEEDBACK_INDENT) for note in result.load_notes]
    return lines


def _question_line(q: QuestionScore, language: str) -> str:
    """``ok   Q1 softmax      2 / 2    (5/5 tests)``: the mark, the question, its points and its tests."""
    passed, failed = render(msg("ok"), language), render(msg("FAIL"), language)
    mark = (passed if q.score == q.points else failed).ljust(max(len(passed), len(failed)))
    counts = render(msg("{passed}/{total} tests", passed=str(q.passed), total=str(len(q.tests))) if q.tests
                    else msg("not run"), language)
    return f"{mark} Q{q.number} {terminal_text(q.function):<30} {_points(q.score):>6} / {_points(q.points):<4} ({counts})"


def to_text(result: GradeResult, language: str = SOURCE_LANGUAGE, verbose: bool = False) -> str:
    """A readable report, one block per question (``verbose``: every failing case, not only a few that differ);
    a tolerance every question's cases share is said once, at the end."""
    lines = [f"{terminal_text(result.assignment_id)}: {render(result.origin, language)}", *_summary_lines(result, language), ""]
    shared = shared_tolerances(result.questions, verbose)
    for q in result.questions:
        lines.append(_question_line(q, language))
        lines += [FEEDBACK_INDENT + _indented(line, FEEDBACK_INDENT)
                  for line in question_feedback(q, language, verbose=verbose, tolerance=not shared)]
    graded = msg("Graded in {seconds} s (grader {version}).", seconds=f"{result.execution_time:.2f}", version=result.grader_version)
    lines += ["", *([render(tolerance_line(shared), language)] if shared else []), render(graded, language)]
    return "\n".join(lines) + "\n"


def to_dict(result: GradeResult, language: str = SOURCE_LANGUAGE) -> dict:
    """Every field of the result as plain JSON data: the canonical record (:mod:`autograder.grade.record`)."""
    return to_record(result)


def to_json(result: GradeResult, language: str = SOURCE_LANGUAGE) -> str:
    """The instructor's record as JSON: stable English and ids, whatever ``language`` is asked."""
    return json_document(rounded_numbers(to_dict(result)))


def to_gradescope_dict(result: GradeResult, language: str = SOURCE_LANGUAGE) -> dict:
    """Gradescope's results.json: one test per question, diagnoses in ``extra_data``; what students read in ``language``."""
    tests = []
    for q in result.questions:
        feedback = question_feedback(q, language) or [render(msg("All tests passed."), language)]
        if result.load_error:
            feedback = [render(msg("Not graded: {error}", error=result.load_error), language)]
        tests.append(
            {
                "name": f"Q{q.number} {q.function}",
                "name_format": GRADESCOPE_TEXT,
                "number": str(q.number),
                "score": q.score,
                "max_score": q.points,
                "status": "passed" if q.score == q.points else "failed",
                "output": "\n".join(feedback),
                "output_format": GRADESCOPE_TEXT,
                "visibility": VISIBLE,
                "extra_data": {
                    "diagnoses": list(question_diagnoses(q)),
                    "tests_passed": q.passed,
                    "tests_run": len(q.tests),
                },
            }
        )
    return {
        "score": result.score,
        "execution_time": round(result.execution_time, TIME_DECIMALS),
        "output": "\n".join(_summary_lines(result, language)),
        "output_format": GRADESCOPE_TEXT,
        "visibility": VISIBLE,
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "diagnoses": result.diagnoses,
            "isolation": result.isolation,
            "grader_version": result.grader_version,
            "penalties": [{"reason": p.reason, "fraction": p.fraction} for p in result.penalties],
        },
    }


def to_gradescope(result: GradeResult, language: str = SOURCE_LANGUAGE) -> str:
    """Gradescope's results.json as a JSON document (every text cleaned of display steering)."""
    return json_document(rounded_numbers(to_gradescope_dict(result, language)))


def _count_attributes(element: ElementTree.Element) -> None:
    """``tests``, ``failures``, ``errors`` and ``skipped`` of a suite (or of all suites) from the testcases it holds."""
    cases = element.findall(".//testcase")
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    element.set("errors", str(sum(c.find("error") is not None for c in cases)))
    element.set("skipped", "0")


def to_junit(result: GradeResult, language: str = SOURCE_LANGUAGE) -> str:
    """JUnit XML: one testsuite per question, one testcase per test (always well-formed).

    Every count (``tests``, ``failures``, ``errors``) is the number of elements it counts; a
    submission that could not be loaded is one ``error`` testcase per question.
    """
    root = ElementTree.Element("testsuites", name=xml_text(result.assignment_id), time=f"{result.execution_time:.3f}")
    for q in result.questions:
        function = xml_text(q.function)
        suite = ElementTree.SubElement(root, "testsuite", name=f"Q{q.number} {function}")
        for t in q.tests:
            case = ElementTree.SubElement(suite, "testcase", classname=function, name=xml_text(t.name))
            if not t.passed:
                message = xml_text(render(t.message, language))
                failure = ElementTree.SubElement(case, "failure", message=message[:JUNIT_MESSAGE_CHARS],
                                                 type=xml_text(t.kind or "failed"))
                failure.text = "\n".join([message, *[xml_text(f"[{d.id}] {render(d.hint, language)}") for d in t.diagnoses]])
        if result.load_error:
            case = ElementTree.SubElement(suite, "testcase", classname=function, name="load")
            error = xml_text(render(result.load_error, language))
            ElementTree.SubElement(case, "error", message=error[:JUNIT_MESSAGE_CHARS]).text = error
        _count_attributes(suite)
    _count_attributes(root)
    return ElementTree.tostring(root, encoding="unicode") + "\n"
