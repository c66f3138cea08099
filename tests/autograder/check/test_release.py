"""Which release check runs: the assignment folder the student works in (its release.json), or the course's."""

from __future__ import annotations

import json
import shutil

import pytest

from autograder.build.markers import keep_solutions
from autograder.build.notebook import render_notebook
from autograder.check.api import check_submission, format_check
from autograder.check.release import MANIFEST, find_release, read_manifest
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.errors import ConfigError, GraderError
from autograder.paths import ASSIGNMENTS_DIR, NOTEBOOK_SOURCE, SOLUTIONS_DIR
from autograder.submission.locate import stub_digest

COURSE = load_course()
HW1, HW2 = COURSE.assignments[0], COURSE.assignments[1]


@pytest.fixture
def release_copy(tmp_path):
    """The hw1 release as a student has it: the folder alone, anywhere."""
    folder = tmp_path / "anywhere" / "my hw1"
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return folder


def test_every_release_manifest_holds_its_assignment_and_the_digest_of_its_stub():
    for assignment in COURSE.assignments:
        release = read_manifest(ASSIGNMENTS_DIR / assignment.id)
        assert release.assignment_id == assignment.id
        assert release.course.assignment(assignment.id) == assignment
        assert [a.id for a in release.course.assignments] == [assignment.id]
        stub = (ASSIGNMENTS_DIR / assignment.id / assignment.module).read_text(encoding="utf-8")
        assert release.stubs.module_digest == stub_digest(stub)


def test_the_release_is_found_from_the_submissions_folder_or_the_current_one(release_copy, tmp_path):
    for path, cwd in ((release_copy, tmp_path), (release_copy / HW1.module, tmp_path), (tmp_path / "x.py", release_copy)):
        release = find_release(HW1.id, path, None, ASSIGNMENTS_DIR, cwd=cwd)
        assert release.folder == release_copy.resolve() and release.course.assignment(HW1.id) == HW1


def test_another_assignments_folder_is_refused_naming_it(release_copy):
    with pytest.raises(GraderError, match=f"holds {HW1.id}, not {HW2.id}: run `attn-course check {HW1.id}` there"):
        find_release(HW2.id, release_copy, None, ASSIGNMENTS_DIR, cwd=release_copy)


def test_a_broken_manifest_says_to_download_the_folder_again(release_copy):
    (release_copy / MANIFEST).write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a release manifest .* download the assignment folder again"):
        find_release(HW1.id, release_copy, None, ASSIGNMENTS_DIR, cwd=release_copy)


def test_without_a_manifest_the_course_file_and_its_releases_are_used(tmp_path):
    release = find_release(HW1.id, tmp_path, None, ASSIGNMENTS_DIR, cwd=tmp_path)
    assert release.folder == ASSIGNMENTS_DIR / HW1.id
    given = find_release(HW1.id, tmp_path, DEFAULT_COURSE_FILE, ASSIGNMENTS_DIR, cwd=tmp_path)
    assert given.course == load_course(DEFAULT_COURSE_FILE)


def _solved_notebook() -> str:
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    source = (SOLUTIONS_DIR / HW1.id / NOTEBOOK_SOURCE).read_text(encoding="utf-8")
    return render_notebook(source, solution, questions=HW1.questions)


@pytest.mark.slow
def test_in_the_release_folder_itself_the_notebook_the_student_completed_is_what_gets_checked(release_copy):
    (release_copy / HW1.notebook).write_text(_solved_notebook(), encoding="utf-8")
    release = find_release(HW1.id, release_copy, None, ASSIGNMENTS_DIR, cwd=release_copy)
    report = check_submission(release.course, HW1.id, release_copy, release=release)
    assert report.path == str(release_copy.resolve() / HW1.notebook)
    assert report.passed, format_check(report)


@pytest.mark.slow
def test_in_the_release_folder_the_untouched_stub_is_checked_and_fails(release_copy):
    release = find_release(HW1.id, release_copy, None, ASSIGNMENTS_DIR, cwd=release_copy)
    report = check_submission(release.course, HW1.id, release_copy, release=release)
    assert report.path == str(release_copy.resolve() / HW1.module) and not report.passed
    assert json.loads((release_copy / MANIFEST).read_text(encoding="utf-8"))["assignment"] == HW1.id
