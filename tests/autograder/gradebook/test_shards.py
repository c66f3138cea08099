"""Shards: every student in exactly one; shard gradebooks merged idempotently into what one batch gives; the docs' workflow."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from autograder.build.markers import keep_solutions
from autograder.cli import main
from autograder.config import load_course
from autograder.gradebook.merge import merge_gradebooks
from autograder.gradebook.shard import in_shard, parse_shard, shard_of
from autograder.gradebook.store import Gradebook
from autograder.paths import ASSIGNMENTS_DIR, PROJECT_ROOT, SOLUTIONS_DIR

from .test_store import make_row
from tests.autograder.support import course_beside

COURSE = load_course()
HW1 = COURSE.assignments[0]
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent
DOCS = PROJECT_ROOT / "docs" / "shards.md"
#: What two gradebooks must agree on for each student (not when or how fast they were graded).
SAME = ("student", "assignment", "content_hash", "grader_version", "status", "score", "raw_score", "diagnoses", "days_late")


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "x", "1-4", ""])
def test_a_shard_is_k_of_n(text):
    with pytest.raises(ValueError, match="K/N"):
        parse_shard(text)
    assert parse_shard(" 2 / 8 ") == (2, 8)


def test_the_shards_share_the_class_each_student_once():
    students = [f"s{n:03d}" for n in range(200)] + ["zoë", "zoe\u0308"]
    for n in (1, 3, 8):
        owners = [[k for k in range(1, n + 1) if in_shard(s, (k, n))] for s in students]
        assert all(len(found) == 1 for found in owners)
        assert len({found[0] for found in owners}) == n  # every shard gets some of 200
    assert shard_of("zoë", 8) == shard_of("zoe\u0308", 8)  # one student, however the file system spells the name


def _rows(path: Path) -> dict:
    with Gradebook(path) as book:
        return {(r.student, r.assignment): tuple(getattr(r, c) for c in SAME) for r in book.rows()}


def test_merging_twice_adds_nothing_and_a_student_graded_twice_differently_is_a_conflict(tmp_path):
    one, two, out = tmp_path / "1.sqlite3", tmp_path / "2.sqlite3", tmp_path / "out.sqlite3"
    with Gradebook(one) as book:
        book.record(make_row(student="ada", graded_at="2027-03-09T10:00:00+00:00"))
        book.record(make_row(student="ben", graded_at="2027-03-09T10:00:01+00:00"))
    with Gradebook(two) as book:
        book.record(make_row(student="chen", graded_at="2027-03-09T10:00:02+00:00"))
    first = merge_gradebooks(out, [one, two])
    assert (first.added, first.already, first.conflicts) == (3, 0, [])
    again = merge_gradebooks(out, [one, two, out])
    assert (again.added, again.conflicts) == (0, []) and set(_rows(out)) == {(s, HW1.id) for s in ("ada", "ben", "chen")}
    with Gradebook(two) as book:  # ben graded on a second machine, differently
        book.record(make_row(student="ben", content_hash="cd" * 32, score=1.0, graded_at="2027-03-09T11:00:00+00:00"))
    done = CliRunner().invoke(main, ["gradebook", "merge", str(out), str(one), str(two)])
    assert done.exit_code == 1 and "conflict: ben" in done.output


def test_an_identical_key_with_other_content_is_a_conflict_and_the_first_row_stays(tmp_path):
    one, two, out = tmp_path / "1.sqlite3", tmp_path / "2.sqlite3", tmp_path / "out.sqlite3"
    row = make_row(student="ada")
    with Gradebook(one) as book:
        book.record(row)
    with Gradebook(two) as book:
        book.record(replace(row, score=0.5))
    report = merge_gradebooks(out, [one, two])
    assert report.added == 1 and any("ada" in line for line in report.conflicts)
    assert _rows(out)[("ada", HW1.id)][SAME.index("score")] == row.score


def _class(folder: Path) -> None:
    """Five entries whose grades do not depend on the run's seed (a buggy one's partial score does, until seeds are
    derived from the code: autograder/seeding.py)."""
    stub = (ASSIGNMENTS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")
    sources = {"ada": SOLUTION, "ben": SOLUTION, "stub": stub, "broken": "def softmax(:\n", "empty": ""}
    for student, source in sources.items():
        (folder / student).mkdir(parents=True)
        (folder / student / HW1.module).write_text(source, encoding="utf-8")


def _workflow_steps() -> tuple[dict, list[dict], list[dict]]:
    block = re.search(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)[1]
    jobs = yaml.safe_load(block)["jobs"]
    runs = [lambda job: [s for s in jobs[job]["steps"] if "run" in s and not s["name"].startswith("Install")]]
    return jobs["shard"]["strategy"]["matrix"], runs[0]("shard"), runs[0]("merge")


def _run(script: str, repo: Path, **values) -> None:
    for name, value in values.items():
        script = script.replace("${{ matrix.%s }}" % name, str(value))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="a class folder is graded in the bwrap sandbox, as root here")
def test_the_docs_github_matrix_run_locally_merges_into_what_one_batch_gives(tmp_path):
    repo = tmp_path / "repo"
    _class(repo / "class")
    course_beside(repo / "course")  # a course folder: course.yml beside its masters, hidden tests and releases
    matrix, shard_steps, merge_steps = _workflow_steps()
    for shard in matrix["shard"]:
        for step in shard_steps:
            _run(step["run"], repo, shard=shard)
    for step in merge_steps:
        _run(step["run"], repo)
    _run(f"attn-course --course course/course.yml grade {HW1.id} class/ --gradebook one.sqlite3", repo)
    merged, one = _rows(repo / "gradebook.sqlite3"), _rows(repo / "one.sqlite3")
    assert merged == one and len(one) == 5
    assert (repo / "canvas.csv").is_file()
    shards = sorted((repo / "gradebooks").glob("shard-*.sqlite3"))
    assert len(shards) == len(matrix["shard"]) and sum(len(_rows(s)) for s in shards) == len(one)  # each student once
    again = merge_gradebooks(repo / "gradebook.sqlite3", shards)
    assert again.added == 0 and _rows(repo / "gradebook.sqlite3") == one


def test_a_row_merged_after_a_newer_one_does_not_become_current(tmp_path):
    """Merging the newer shard first, then an older grade of the same student, keeps the newer grade current."""
    from autograder.gradebook.merge import merge_gradebooks
    from autograder.gradebook.store import Gradebook
    from tests.autograder.gradebook.test_store import make_row

    newer, older = tmp_path / "newer.sqlite3", tmp_path / "older.sqlite3"
    with Gradebook(newer) as book:
        book.record(make_row(student="ada", score=9.0, graded_at="2027-03-10T10:00:00+00:00", content_hash="b" * 64))
    with Gradebook(older) as book:
        book.record(make_row(student="ada", score=3.0, graded_at="2027-03-10T09:00:00+00:00", content_hash="a" * 64))
    out = tmp_path / "out.sqlite3"
    merge_gradebooks(out, [newer])
    merge_gradebooks(out, [older])
    with Gradebook(out) as book:
        assert book.current_row("ada", make_row().assignment).score == 9.0
