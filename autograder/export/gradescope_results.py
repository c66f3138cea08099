"""Gradescope's results.json: its documented fields, a check of them, and the course's visibility.

``python -m autograder.export.gradescope_results RESULTS [--course COURSE]`` is the last step
of the exported ``run_autograder``: it gives every test the visibility course.yml chooses
(``gradescope.hidden_test_visibility``) and refuses a file Gradescope would not read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.escape import json_document

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
OUTPUT_FORMATS = ("text", "html", "simple_format", "md", "ansi")
STATUSES = ("passed", "failed")
NUMBER = (int, float)
#: Documented top-level fields and their types.
TOP_LEVEL = {
    "score": NUMBER, "execution_time": NUMBER, "output": str, "output_format": str, "visibility": str,
    "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list,
}
#: Documented fields of a test and their types.
TEST_FIELDS = {
    "score": NUMBER, "max_score": NUMBER, "status": str, "name": str, "number": str, "output": str,
    "output_format": str, "tags": list, "visibility": str, "extra_data": dict, "name_format": str,
}
#: Fields whose value is one of a documented set.
CHOICES = {"visibility": VISIBILITIES, "stdout_visibility": VISIBILITIES, "output_format": OUTPUT_FORMATS,
           "status": STATUSES, "name_format": OUTPUT_FORMATS}


def _field_problems(data: dict, fields: dict, where: str) -> list[str]:
    problems = [f"{where}: unknown field {key!r}" for key in data if key not in fields]
    for key, kind in fields.items():
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            problems.append(f"{where}.{key}: {type(value).__name__} is not the documented type")
        elif key in CHOICES and value not in CHOICES[key]:
            problems.append(f"{where}.{key}: {value!r} is not one of {CHOICES[key]}")
    return problems


def results_problems(data) -> list[str]:
    """What makes ``data`` other than a results.json Gradescope documents (empty when it is one)."""
    if not isinstance(data, dict):
        return ["results.json is not an object"]
    problems = _field_problems(data, TOP_LEVEL, "results")
    tests = data.get("tests", [])
    if "score" not in data and not all(isinstance(t, dict) and "score" in t for t in tests):
        problems.append("results: no score, and not every test has one")
    for number, test in enumerate(tests if isinstance(tests, list) else []):
        if not isinstance(test, dict):
            problems.append(f"tests[{number}] is not an object")
            continue
        problems += _field_problems(test, TEST_FIELDS, f"tests[{number}]")
        if "max_score" in test and "score" in test and test["score"] > test["max_score"] + 1e-9:
            problems.append(f"tests[{number}]: score above max_score")
    return problems


def with_visibility(data: dict, visibility: str) -> dict:
    """``data`` whose every test has ``visibility`` (the top level, the total's, is left as it is)."""
    return {**data, "tests": [{**test, "visibility": visibility} for test in data.get("tests", [])]}


def main(argv: list[str] | None = None) -> int:
    """Apply course.yml's visibility to a results.json and check it; exit 1 when Gradescope would not read it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--course", type=Path, default=None, help="course.yml (default: the installed course bundle's)")
    options = parser.parse_args(argv)
    visibility = load_course(options.course or DEFAULT_COURSE_FILE).gradescope.hidden_test_visibility
    data = with_visibility(json.loads(options.results.read_text(encoding="utf-8")), visibility)
    problems = results_problems(data)
    if problems:
        print("results.json does not match Gradescope's format:\n" + "\n".join(problems), file=sys.stderr)
        return 1
    options.results.write_text(json_document(data), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
