"""The GitHub Actions workflow that runs the kit's tests on Linux, macOS and Windows (.github/workflows/kit.yml)."""

from __future__ import annotations

import shlex

import yaml

from autograder.paths import PROJECT_ROOT

WORKFLOW = PROJECT_ROOT / ".github" / "workflows" / "kit.yml"
#: The runner families students' systems map to.
SYSTEMS = ("ubuntu", "macos", "windows")


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _job() -> dict:
    (job,) = _workflow()["jobs"].values()
    return job


def test_the_workflow_runs_on_every_push_and_pull_request():
    workflow = _workflow()
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)


def test_the_matrix_holds_a_linux_a_macos_and_a_windows_runner_and_the_kits_pythons():
    job = _job()
    matrix = job["strategy"]["matrix"]
    assert job["runs-on"] == "${{ matrix.os }}" and job["strategy"]["fail-fast"] is False
    assert sorted(next(s for s in SYSTEMS if runner.startswith(s)) for runner in matrix["os"]) == sorted(SYSTEMS)
    versions = [tuple(int(part) for part in str(v).split(".")) for v in matrix["python"]]
    assert all(isinstance(v, str) for v in matrix["python"])  # 3.10 written bare would be read as 3.1
    assert min(versions) == (3, 11)  # the kit's Requires-Python
    step = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python"))
    assert step["with"]["python-version"] == "${{ matrix.python }}"


def test_the_tests_it_runs_exist_and_include_the_kits():
    runs = [shlex.split(step["run"]) for step in _job()["steps"] if "run" in step]
    (pytest_words,) = [words for words in runs if words[:3] == ["python", "-m", "pytest"]]
    paths = [word.split("::")[0] for word in pytest_words[3:] if not word.startswith("-") and word != "no:cacheprovider"]
    assert "tests/autograder/kit" in paths and "tests/autograder/check/test_portable.py" in paths
    assert all((PROJECT_ROOT / path).exists() for path in paths)
    installs = [words for words in runs if words[:4] == ["python", "-m", "pip", "install"]]
    assert installs and not any("bubblewrap" in word for words in installs for word in words)
