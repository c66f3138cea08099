"""The course bundle: what the wheel holds and never holds, its versions, and the installed bundle grading on its own."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import time
import zipfile
from pathlib import Path

import pytest

from autograder import __version__
from autograder.build.markers import keep_solutions
from autograder.bundle.wheel import bundle_files, bundle_wheel_name, write_bundle
from autograder.config import ConfigError, load_course, parse_course
from autograder.diagnose.registry import ENGINE_BUGS, bugs
from autograder.layout import CourseDirectory
from autograder.seeding import SECRET_FILE, ensure_secret
from tests.autograder.bundle.outside import assert_outside, fresh_venv, install, outside_env, run

COURSE = load_course()
LAYOUT = CourseDirectory.of()
HW1 = COURSE.assignments[0]
CONTENT = "attn_course_content"
#: The most a bundle may take to build (the brief's figure).
BUILD_S = 5.0


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return bundle_files(COURSE)


def test_the_bundle_holds_the_engine_the_course_its_hidden_suites_reference_and_catalogs(files):
    suites = {f"{CONTENT}/hidden_tests/{p.relative_to(LAYOUT.hidden_tests).as_posix()}" for p in LAYOUT.hidden_tests.rglob("test_*.py")}
    reference = {f"attn_reference/{p.name}" for p in LAYOUT.reference.glob("*.py")}
    assert suites and suites <= set(files) and reference <= set(files)
    assert files[f"{CONTENT}/course.yml"] == LAYOUT.course_file.read_bytes()
    assert {"autograder/i18n/zh.po", "autograder/engine/pytest.ini", "autograder/grade/run.py"} <= set(files)
    for assignment in COURSE.assignments:
        assert f"{CONTENT}/assignments/{assignment.id}/{assignment.module}" in files


def test_the_bundle_holds_the_course_mistakes_the_grader_replays(files):
    mistakes = {f"{CONTENT}/mistakes/{p.name}" for p in LAYOUT.mistakes.glob("*.py")}
    assert mistakes and mistakes <= set(files)
    assert not [n for n in files if n.startswith("autograder/mutants/") and n.endswith("_mutants.py")]


def test_the_bundle_never_holds_the_masters_or_the_secret(files):
    secret = ensure_secret(LAYOUT.course_file)
    assert not [n for n in files if "solutions/" in n or SECRET_FILE in n or "__pycache__" in n]
    assert not [n for n, data in files.items() if secret in data]
    master = keep_solutions((LAYOUT.master(HW1)).read_text(encoding="utf-8"))
    assert master.encode("utf-8") not in b"".join(files.values())


def test_the_bundle_is_versioned_by_the_course_and_the_grader_and_every_record_line_matches(files):
    version = f"{__version__}+{COURSE.version}" if COURSE.version else __version__
    info = f"attn_course-{version}.dist-info"
    metadata = files[f"{info}/METADATA"].decode()
    assert f"Version: {version}\n" in metadata and f"grader {__version__}" in metadata
    assert json.loads(files[f"{CONTENT}/bundle.json"])["course_version"] == COURSE.version
    assert files[f"{info}/entry_points.txt"].decode() == "[console_scripts]\nattn-course = autograder.entry:run\n"
    for line in files[f"{info}/RECORD"].decode().splitlines()[:-1]:
        name, digest, size = line.split(",")
        data = files[name]
        assert (digest, int(size)) == ("sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), len(data))
    assert bundle_wheel_name(COURSE) == f"attn_course-{version}-py3-none-any.whl"


def test_course_yml_version_is_optional_and_validated():
    text = LAYOUT.course_file.read_text(encoding="utf-8").replace("\nversion:", "\n# version:")
    assert parse_course(text).version is None
    for bad in ('"1 2"', '"a-b"', '"1..2"'):
        with pytest.raises(ConfigError, match="version"):
            parse_course(text + f"\nversion: {bad}\n")
    assert parse_course(text + '\nversion: "2027.1b"\n').version == "2027.1b"


def test_a_bundle_builds_fast_and_the_same_course_gives_the_same_bytes(tmp_path):
    started = time.perf_counter()
    path = write_bundle(COURSE, tmp_path)
    took = time.perf_counter() - started
    print(f"[bundle] built in {took:.2f} s ({path.stat().st_size // 1024} KiB)")
    assert took < BUILD_S
    assert path.read_bytes() == write_bundle(COURSE, tmp_path / "again").read_bytes()
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
        assert archive.testzip() is None


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv outside the checkout with the bundle installed by pip (its requirements from the index)."""
    root = tmp_path_factory.mktemp("bundle_outside")
    wheel = write_bundle(COURSE, root / "dist")
    bin_dir = fresh_venv(root / "venv")
    install(bin_dir, wheel, cwd=root)
    return bin_dir


@pytest.mark.slow
def test_the_installed_bundle_is_outside_the_checkout_and_says_both_versions(installed, tmp_path):
    assert_outside(installed, tmp_path)
    shown = run([installed / "attn-course", "--version"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert f"attn-course {__version__}" in shown.stdout and f"version {COURSE.version}" in shown.stdout
    assert "installed course bundle" in shown.stdout


@pytest.mark.slow
def test_the_installed_bundle_grades_its_own_course_and_reruns_agree_with_the_secret(installed, tmp_path):
    (tmp_path / HW1.module).write_text(keep_solutions(LAYOUT.master(HW1).read_text(encoding="utf-8")), encoding="utf-8")
    buggy = (tmp_path / "buggy")
    buggy.mkdir()
    (buggy / HW1.module).write_text((tmp_path / HW1.module).read_text().replace("math.sqrt(d_k)", "(d_k / 2)"), encoding="utf-8")
    records = []
    for index, path in enumerate([tmp_path / HW1.module, buggy / HW1.module, buggy / HW1.module]):
        out = tmp_path / f"r{index}.json"
        done = run([installed / "attn-course", "grade", HW1.id, path, "--format", "json", "--out", out], tmp_path,
                   outside_env(ATTN_COURSE_SECRET="a secret of the instructor's"))
        assert done.returncode == 0, done.stderr
        records.append(json.loads(out.read_text(encoding="utf-8")))
    assert records[0]["score"] == HW1.max_points and records[1]["score"] < HW1.max_points
    assert records[1]["seed"] == records[2]["seed"] and records[1]["seed_source"] == "derived"
    assert not list(installed.parent.rglob(SECRET_FILE))  # no secret made inside site-packages
    named = {d for q in records[1]["questions"] for t in q["tests"] for d in t["diagnoses"]}
    assert named & {b.id for b in bugs(LAYOUT.mistakes)[len(ENGINE_BUGS):]}  # the bundle's mistakes name the bug


def test_a_course_given_by_path_bundles_its_own_folders_and_no_stray_secret(tmp_path):
    import shutil

    root = tmp_path / "other course"
    for name in ("solutions", "hidden_tests"):
        shutil.copytree(getattr(LAYOUT, name), root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(LAYOUT.course_file, root / "course.yml")
    (root / SECRET_FILE).write_text("course secret\n", encoding="utf-8")
    (root / "mistakes").mkdir()
    (root / "mistakes" / "softmax.yml").write_text("a: 1\n", encoding="utf-8")
    (root / "mistakes" / SECRET_FILE).write_text("stray secret\n", encoding="utf-8")
    (root / "hidden_tests" / HW1.id / "solutions.py").write_text("answers\n", encoding="utf-8")
    names = set(bundle_files(load_course(root / "course.yml")))
    assert f"{CONTENT}/mistakes/softmax.yml" in names
    assert f"{CONTENT}/hidden_tests/{HW1.id}/test_softmax.py" in names
    assert not [n for n in names if SECRET_FILE in n or "solutions" in n]
