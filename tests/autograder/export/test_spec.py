"""The grading spec an export embeds: a deterministic seed per assignment, a JSON round trip."""

import pytest

from autograder.config import load_course
from autograder.errors import GraderError
from autograder.export.spec import GradingSpec, export_seed

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]


def test_the_seed_is_deterministic_and_differs_per_assignment_and_course():
    seeds = [export_seed(COURSE.course.name, i) for i in IDS]
    assert seeds == [export_seed(COURSE.course.name, i) for i in IDS]
    assert len(set(seeds)) == len(IDS)
    assert export_seed("another course", IDS[0]) != seeds[0]
    assert all(0 <= s < 2**32 for s in seeds)


@pytest.mark.parametrize("assignment_id", IDS)
def test_the_spec_holds_course_yml_and_survives_json(assignment_id):
    spec = GradingSpec.of(COURSE, assignment_id)
    assignment = COURSE.assignment(assignment_id)
    assert spec.functions == assignment.functions
    assert [spec.points(q.function) for q in assignment.questions] == [q.points for q in assignment.questions]
    assert (spec.rtol, spec.atol) == (COURSE.defaults.rtol, COURSE.defaults.atol)
    assert GradingSpec.from_json(spec.to_json()) == spec
    assert GradingSpec.of(COURSE, assignment_id, seed=7).seed == 7


def test_a_bad_spec_and_an_unknown_question_are_grader_errors():
    with pytest.raises(GraderError, match="not a grading spec"):
        GradingSpec.from_json('{"assignment": "x"}')
    with pytest.raises(GraderError, match="not a question"):
        GradingSpec.of(COURSE, IDS[0]).points("nope")
