"""What an exported grading cell or test file needs to grade in-process: the grading spec.

An export embeds one :class:`GradingSpec` per assignment as a JSON string literal: the
assignment, its questions and points from course.yml, the fixed seed the hidden tests draw
their inputs from, the tolerances and the time limits. The grading environment needs the
installed ``attn-course`` package and nothing else (no course.yml, no project checkout), and
what the export fixed at export time cannot drift at grading time.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from autograder.config import Course
from autograder.errors import GraderError
from autograder.languages import SOURCE_LANGUAGE

#: Bits of an export's seed (as many as a grading run's).
SEED_BITS = 32


def export_seed(course_name: str, assignment_id: str) -> int:
    """The seed an export fixes for an assignment: a hash of the course's name and the assignment's id.

    Deterministic, so exporting twice gives the same files; different per assignment and per course.
    """
    digest = hashlib.sha256(f"{course_name}\0{assignment_id}".encode("utf-8")).digest()
    return int.from_bytes(digest[: SEED_BITS // 8], "big")


@dataclass(frozen=True)
class GradingSpec:
    """One assignment's grading, fixed at export time.

    Attributes
    ----------
    assignment : str
        The assignment id.
    questions : tuple of (str, float)
        ``(function, points)`` in course.yml order.
    seed : int
        The seed the hidden tests draw their inputs from (``attn-course grade --seed`` replays it).
    rtol, atol : float
        The course's tolerances.
    call_timeout_s, submission_timeout_s : float
        The course's time limits for one call and for the whole suite.
    language : str
        The language of the messages the hidden tests' failures show (otter's test cases).
    """

    assignment: str
    questions: tuple[tuple[str, float], ...]
    seed: int
    rtol: float
    atol: float
    call_timeout_s: float
    submission_timeout_s: float
    language: str = SOURCE_LANGUAGE

    @classmethod
    def of(cls, course: Course, assignment_id: str, seed: int | None = None, language: str | None = None) -> "GradingSpec":
        """The spec of an assignment of ``course`` (seed: :func:`export_seed` unless given; language: course.yml's)."""
        assignment = course.assignment(assignment_id)
        defaults = course.defaults
        return cls(
            assignment=assignment.id,
            questions=tuple((q.function, float(q.points)) for q in assignment.questions),
            seed=export_seed(course.course.name, assignment.id) if seed is None else int(seed),
            rtol=defaults.rtol, atol=defaults.atol,
            call_timeout_s=defaults.call_timeout_s, submission_timeout_s=defaults.submission_timeout_s,
            language=language or course.feedback_language,
        )

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(function for function, _ in self.questions)

    def points(self, function: str) -> float:
        """The points of question ``function``.

        Raises
        ------
        GraderError
            When ``function`` is no question of the assignment.
        """
        for name, points in self.questions:
            if name == function:
                return points
        raise GraderError(f"{function!r} is not a question of {self.assignment}")

    def to_json(self) -> str:
        """The spec as one line of JSON (what an export embeds)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "GradingSpec":
        """Read a spec an export embedded.

        Raises
        ------
        GraderError
            When the text is not a spec.
        """
        try:
            data = json.loads(text)
            data["questions"] = tuple((str(f), float(p)) for f, p in data["questions"])
            return cls(**data)
        except (ValueError, KeyError, TypeError) as error:
            raise GraderError(f"not a grading spec ({error}): {text[:80]!r}") from None
