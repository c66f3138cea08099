"""The canonical result record: a :class:`GradeResult` as plain JSON data, and back.

Every report is rendered from a GradeResult; the gradebook stores this record alone, so
any report (the student's feedback, a later format) can be rendered again from it.
:func:`from_record` also reads the records of earlier versions (stored next to rendered
reports, without the diagnoses' hints).

Messages are stored as their stable English text, where they always were; the ``i18n``
entries beside them keep the catalog id and facts of each (:func:`autograder.i18n.to_wire`),
so feedback rendered later from the record can be in any language with the same facts.
"""

from __future__ import annotations

from autograder.engine.results import Diagnosis, TestResult
from autograder.grade.figures import figure_from_record, figure_record
from autograder.grade.result import GradeResult, Penalty
from autograder.i18n import Message, from_wire, to_wire
from autograder.scoring import QuestionScore

#: Decimals of execution times in the record.
TIME_DECIMALS = 3


def _wired(**texts) -> dict:
    """``{"i18n": {name: wire}}`` for the texts that are catalog messages (nothing when none is)."""
    wired = {name: to_wire(text) for name, text in texts.items() if isinstance(text, Message)}
    return {"i18n": wired} if wired else {}


def _unwired(record: dict, name: str, english):
    """The message stored for ``name`` in the record's ``i18n`` entry, else the English text as it is."""
    data = (record.get("i18n") or {}).get(name)
    try:
        return from_wire(data) if isinstance(data, dict) else english
    except (KeyError, TypeError, ValueError, IndexError):
        return english


def _test_record(test: TestResult) -> dict:
    hints = {d.id: to_wire(d.hint) for d in test.diagnoses if isinstance(d.hint, Message)}
    return {
        "name": test.name,
        "description": test.description,
        "status": test.status,
        "weight": test.weight,
        "message": test.message,
        "kind": test.kind,
        "diagnoses": [d.id for d in test.diagnoses],
        "hints": {d.id: d.hint for d in test.diagnoses},
        "carried_from": list(test.carried_from),
        **({"figures": [figure_record(f) for f in test.figures]} if test.figures else {}),
        **_wired(message=test.message),
        **({"i18n_hints": hints} if hints else {}),
    }


def _question_record(question: QuestionScore) -> dict:
    return {
        "function": question.function,
        "number": question.number,
        "score": question.score,
        "max_score": question.points,
        "tests": [_test_record(t) for t in question.tests],
    }


def to_record(result: GradeResult) -> dict:
    """Every field of the result as plain JSON data (the seed included: this is the instructor's record)."""
    return {
        "assignment": result.assignment_id,
        "origin": result.origin,
        "score": result.score,
        "raw_score": result.raw_score,
        "max_score": result.max_score,
        "penalties": [{"reason": p.reason, "fraction": p.fraction, **_wired(reason=p.reason)} for p in result.penalties],
        "load_error": result.load_error,
        "import_violations": list(result.import_violations),
        "days_late": result.days_late,
        "submitted_at": result.submitted_at,
        "submitted_at_source": result.submitted_at_source,
        "diagnoses": result.diagnoses,
        "isolation": result.isolation,
        "execution_time": round(result.execution_time, TIME_DECIMALS),
        "grader_version": result.grader_version,
        "seed": result.seed,
        "seed_source": result.seed_source,
        "questions": [_question_record(q) for q in result.questions],
        "student_output": result.student_output,
        "load_notes": list(result.load_notes),
        **_wired(load_error=result.load_error),
        **({"i18n_load_notes": [to_wire(note) for note in result.load_notes]}
           if any(isinstance(note, Message) for note in result.load_notes) else {}),
    }


def _hint(record: dict, bug_id: str):
    english = (record.get("hints") or {}).get(bug_id, "")
    return _unwired({"i18n": record.get("i18n_hints")}, bug_id, english)


def _test(record: dict, question: str) -> TestResult:
    return TestResult(
        record["name"], question, float(record["weight"]), record["description"], record["status"],
        _unwired(record, "message", record.get("message", "")), record.get("kind", ""),
        tuple(Diagnosis(i, _hint(record, i)) for i in record.get("diagnoses", ())),
        tuple(record.get("carried_from", ())),
        tuple(f for f in map(figure_from_record, record.get("figures", ())) if f is not None),
    )


def _question(record: dict) -> QuestionScore:
    tests = tuple(_test(t, record["function"]) for t in record["tests"])
    return QuestionScore(record["function"], record["number"], record["max_score"], record["score"], tests)


def from_record(record: dict) -> GradeResult:
    """The GradeResult a record was made from (hints empty in records of earlier versions).

    Raises
    ------
    KeyError
        When the record lacks a required field.
    """
    return GradeResult(
        assignment_id=record["assignment"],
        origin=record["origin"],
        questions=tuple(_question(q) for q in record["questions"]),
        max_score=record["max_score"],
        raw_score=record["raw_score"],
        score=record["score"],
        penalties=tuple(Penalty(_unwired(p, "reason", p["reason"]), p["fraction"]) for p in record.get("penalties", ())),
        load_error=_unwired(record, "load_error", record.get("load_error")),
        import_violations=tuple(record.get("import_violations", ())),
        isolation=record.get("isolation", "not started"),
        student_output=record.get("student_output", ""),
        execution_time=record.get("execution_time", 0.0),
        grader_version=record.get("grader_version", ""),
        days_late=record.get("days_late", 0),
        seed=record.get("seed"),
        seed_source=record.get("seed_source"),
        submitted_at=record.get("submitted_at"),
        submitted_at_source=record.get("submitted_at_source", "none"),
        load_notes=_load_notes(record),
    )


def _load_notes(record: dict) -> tuple:
    english = tuple(record.get("load_notes", ()))
    wired = record.get("i18n_load_notes")
    if not isinstance(wired, list) or len(wired) != len(english):
        return english
    return tuple(_unwired({"i18n": {"note": data}}, "note", text) for data, text in zip(wired, english))
