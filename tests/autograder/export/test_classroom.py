"""Classroom's ATTN_RESULTS: the tests' scores add up to the grade, penalties included, and every text is plain."""

from __future__ import annotations

import base64
import datetime as dt
import json

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.export.classroom import classroom_results, encoded_results
from autograder.grade.api import grade_submission
from autograder.layout import CourseDirectory

COURSE = load_course()
HW1 = COURSE.assignments[0]
#: A wrong softmax whose error message carries terminal escapes and a newline.
HOSTILE = '''
def softmax(x, axis=-1):
    raise ValueError("\\x1b[31mred\\x1b[0m\\nsecond line")
'''


def test_the_tests_add_up_to_the_late_penalised_grade_and_messages_are_plain(tmp_path):
    master = keep_solutions(CourseDirectory.of().master(HW1).read_text(encoding="utf-8"))
    path = tmp_path / HW1.module
    path.write_text(master + HOSTILE, encoding="utf-8")
    late = HW1.due + dt.timedelta(days=1, hours=1)
    result = grade_submission(COURSE, HW1.id, path, submitted_at=late)
    report = classroom_results(result)
    assert result.penalties and 0 < result.score < result.raw_score < HW1.max_points
    assert abs(sum(t["score"] for t in report["tests"]) - result.score) < 1e-3  # each test's score rounded to 4 places
    assert [t["status"] for t in report["tests"]].count("fail") == 1 and report["status"] == "fail"
    assert not any("\x1b" in t["message"] for t in report["tests"])
    assert json.loads(base64.b64decode(encoded_results(result))) == report
