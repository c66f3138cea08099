"""The generated nbgrader_config.py: course.yml's late policy as nbgrader's plugin, the exchange root set once."""

import datetime as dt

import pytest

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to
from autograder.grade.late import late_fraction

pytest.importorskip("nbgrader")

COURSE = load_course()
ASSIGNMENT = COURSE.assignments[0]


def _config(tmp_path, *options) -> dict:
    from traitlets.config import Config

    from autograder.export.target import context_values

    given = dict(options)
    context = ExportContext(COURSE, DEFAULT_COURSE_FILE, (ASSIGNMENT.id,), **context_values((ASSIGNMENT.id,), given))
    export_to(TARGETS["nbgrader"], context, tmp_path / "course")
    config = Config()
    namespace = {"get_config": lambda: config}
    exec(compile((tmp_path / "course" / "nbgrader_config.py").read_text(encoding="utf-8"), "nbgrader_config.py", "exec"),
         namespace)
    return config


def test_the_late_plugin_takes_course_yml_s_penalty_for_every_lateness(tmp_path):
    from nbgrader.plugins import LateSubmissionPlugin

    config = _config(tmp_path)
    plugin_class = config.AssignLatePenalties.plugin_class
    assert issubclass(plugin_class, LateSubmissionPlugin)
    plugin = plugin_class()
    policy = COURSE.late_policy
    grace = policy.grace_period_minutes * 60
    checked = set()
    for seconds in (0, grace, grace + 1, grace + 86_400, grace + 86_401, grace + policy.max_days_late * 86_400,
                    grace + policy.max_days_late * 86_400 + 1):
        _, fraction = late_fraction(ASSIGNMENT.due, ASSIGNMENT.due + dt.timedelta(seconds=seconds), policy)
        assert plugin.late_submission_penalty("s", 9.0, seconds) == pytest.approx(9.0 * fraction, abs=1e-4)
        checked.add(fraction)
    assert 0.0 in checked and 1.0 in checked and len(checked) >= 3


def test_the_exchange_root_is_set_once_in_the_config(tmp_path):
    assert _config(tmp_path, ("exchange_root", "/srv/course-exchange")).Exchange.root == "/srv/course-exchange"
    readme = (tmp_path / "course" / "README.md").read_text(encoding="utf-8")
    assert f"nbgrader db assignment add {ASSIGNMENT.id} --duedate=" in readme
