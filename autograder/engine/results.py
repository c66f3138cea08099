"""What one test of a suite concluded about a submission."""

from __future__ import annotations

from dataclasses import dataclass, field

PASSED = "passed"
FAILED = "failed"


@dataclass(frozen=True)
class Diagnosis:
    """A known bug the submission's output matches: a stable id and a sentence for the student."""

    id: str
    hint: str


@dataclass(frozen=True)
class TestResult:
    """One test's outcome.

    Attributes
    ----------
    name : str
        The test function's name.
    question : str
        The graded function it belongs to.
    weight : float
        Its share of the question's points, relative to the question's other tests.
    description : str
        First line of the test's docstring: what it checks, safe to show students.
    status : str
        ``"passed"`` or ``"failed"``.
    message : str
        For a failure, what went wrong (never the hidden inputs).
    kind : str
        ``"mismatch"``, ``"check"``, a :class:`~autograder.errors.SubmissionError` kind, or ``""``.
    diagnoses : tuple of Diagnosis
    carried_from : tuple of str
        For a test passed by error carried forward: the student's own (wrong) upstream
        functions its result follows from.
    figures : tuple
        What the test kept to draw (:mod:`autograder.grade.figures`): weights of the worked
        example or of a failing call, rows of the variance experiment.
    """

    __test__ = False  # not a pytest test class

    name: str
    question: str
    weight: float
    description: str
    status: str
    message: str = ""
    kind: str = ""
    diagnoses: tuple[Diagnosis, ...] = field(default_factory=tuple)
    carried_from: tuple[str, ...] = ()
    figures: tuple = ()

    @property
    def passed(self) -> bool:
        return self.status == PASSED
