"""What config checks beyond the schema: allowed imports that exist, and the values in effect."""

from __future__ import annotations

from autograder.config import load_course
from autograder.course_check import effective_value, module_exists, unknown_imports


def test_the_standard_library_and_installed_modules_exist_and_typos_do_not():
    assert module_exists("math") and module_exists("__future__") and module_exists("numpy")
    assert not module_exists("nunpy") and not module_exists("numpy_")
    assert unknown_imports(("numpy", "nunpy", "math", "mathh")) == ["nunpy", "mathh"]


def test_the_course_files_allowed_imports_all_exist():
    assert unknown_imports(load_course().defaults.allowed_imports) == []


def test_values_in_effect_of_plain_keys_and_of_list_items():
    course = load_course()
    assert effective_value(course, "late_policy.max_days_late") == str(course.late_policy.max_days_late)
    points = [str(float(q.points)) for a in course.assignments for q in a.questions]
    assert effective_value(course, "assignments[].questions[].points") == ", ".join(points)
    assert effective_value(course, "defaults") == "(see keys below)"
