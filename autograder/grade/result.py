"""The result of grading one submission."""

from __future__ import annotations

from dataclasses import dataclass

from autograder.scoring import QuestionScore


@dataclass(frozen=True)
class Penalty:
    """A fraction of the score removed, and why."""

    reason: str
    fraction: float


@dataclass(frozen=True)
class GradeResult:
    """Everything reports and the gradebook need about one graded submission."""

    assignment_id: str
    origin: str
    questions: tuple[QuestionScore, ...]
    max_score: float
    raw_score: float
    score: float
    penalties: tuple[Penalty, ...] = ()
    load_error: str | None = None
    import_violations: tuple[str, ...] = ()
    isolation: str = "not started"
    student_output: str = ""
    execution_time: float = 0.0
    grader_version: str = ""
    days_late: int = 0
    seed: int | None = None  # the run's seed: for the instructor's replay, never shown to students
    seed_source: str | None = None  # how it was chosen: "given" (--seed), "derived" (course secret and code) or "fresh"
    submitted_at: str | None = None  # ISO 8601, when known
    submitted_at_source: str = "none"  # where that time came from (autograder.grade.submitted.TimeSource)
    load_notes: tuple[str, ...] = ()  # how the file was loaded: a graded cell that does not parse, statements skipped

    @property
    def diagnoses(self) -> list[str]:
        """Distinct diagnosis ids over all tests, in order of first appearance."""
        seen: dict[str, None] = {}
        for question in self.questions:
            for test in question.tests:
                for diagnosis in test.diagnoses:
                    seen.setdefault(diagnosis.id, None)
        return list(seen)
