"""Plain pytest in a release folder is bounded: the student's functions run in a child with the call limit."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from autograder.build.markers import keep_solutions
from autograder.check.call_child import CallChild, CallFailed
from autograder.config import load_course
from autograder.paths import ASSIGNMENTS_DIR, SOLUTIONS_DIR

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
LIMIT_S = 1.0
#: What starting a child and stopping an endless call may cost beyond the limit on a slow machine.
SLACK_S = 15.0


@pytest.fixture
def module(tmp_path):
    """``module(source)``: a CallChild on ``source`` written to a file under a path with a space and a backslash."""
    made = []

    def make(source: str) -> CallChild:
        folder = tmp_path / "my code" / "back\\slash"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "student.py").write_text(source, encoding="utf-8")
        child = CallChild(str(folder / "student.py"), "student.py", ("f",), LIMIT_S)
        made.append(child)
        return child

    yield make
    for child in made:
        child.close()


def test_arguments_and_results_cross_whole(module):
    child = module("import numpy as np\n"
                   "def f(x, n, seq, rng, flag=None, scale=1.0):\n"
                   "    return x * n * scale, np.array([len(seq), rng.integers(1 << 30), flag is None])\n")
    generator = np.random.default_rng(7)
    expected_draw = np.random.default_rng(7).integers(1 << 30)
    scaled, facts = child.call("f", (np.arange(3.0), 2, (np.zeros(2), [1, 2]), generator), {"scale": np.float32(0.5)})
    assert np.array_equal(scaled, [0.0, 1.0, 2.0]) and scaled.dtype == np.float64
    assert facts.tolist() == [2, expected_draw, 1]


def test_what_the_function_does_wrong_is_said(module):
    child = module("import numpy as np\n"
                   "def f(kind):\n"
                   "    if kind == 'todo': raise NotImplementedError('f: not implemented yet')\n"
                   "    if kind == 'raise': return 1 / 0\n"
                   "    return {'a': 1} if kind == 'dict' else [np.zeros(2), np.zeros(3)]\n")
    with pytest.raises(NotImplementedError, match="f: not implemented yet"):
        child.call("f", ("todo",), {})
    with pytest.raises(CallFailed, match=r"(?s)line 4, in f.*ZeroDivisionError: division by zero"):
        child.call("f", ("raise",), {})
    with pytest.raises(CallFailed, match="f\\(\\) returned a dict, which is not a numeric array"):
        child.call("f", ("dict",), {})
    with pytest.raises(CallFailed, match="student.py defines no function 'g'"):
        child.call("g", (), {})


def test_an_endless_call_is_stopped_at_the_limit_and_not_run_again(module):
    child = module("def f(x):\n    while True:\n        pass\n\ndef g(x):\n    return x\n")
    began = time.monotonic()
    with pytest.raises(CallFailed, match=r"f\(\) did not finish within 1 s \(an endless loop\?\); it was stopped"):
        child.call("f", (1,), {})
    assert LIMIT_S <= time.monotonic() - began < LIMIT_S + SLACK_S
    began = time.monotonic()
    with pytest.raises(CallFailed, match="not run again: it ran out of time on an earlier test"):
        child.call("f", (1,), {})
    assert time.monotonic() - began < LIMIT_S
    assert int(child.call("g", (3,), {})) == 3  # a new child answers the other functions


def test_a_module_that_never_finishes_importing_or_does_not_parse_fails_once_with_the_reason(module):
    endless = module("while True:\n    pass\n")
    with pytest.raises(CallFailed, match=r"importing student.py did not finish within 1 s"):
        endless.call("f", (), {})
    began = time.monotonic()
    with pytest.raises(CallFailed, match="importing student.py did not finish"):
        endless.call("f", (), {})
    assert time.monotonic() - began < LIMIT_S
    broken = module("def f(:\n")
    with pytest.raises(CallFailed, match="(?s)student.py could not be loaded:.*line 1.*SyntaxError"):
        broken.call("f", (), {})


def _release_workers(folder: Path) -> list[str]:
    """Live child processes running this release's _call_child.py (Linux /proc)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = b" ".join(entry.read_bytes().split(b"\0")).decode(errors="replace")
        except OSError:
            continue
        if str(folder / "_call_child.py") in line:
            found.append(line)
    return found


@pytest.mark.slow
def test_plain_pytest_in_the_release_fails_an_endless_function_after_the_call_limit(tmp_path):
    release = tmp_path / "my homework" / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, release, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    endless = HW1.questions[-1].function
    (release / HW1.module).write_text(solution + f"\n\ndef {endless}(*args, **kwargs):\n    while True:\n        pass\n",
                                      encoding="utf-8")
    limit = COURSE.defaults.call_timeout_s
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=release, capture_output=True,
                          text=True, timeout=limit * 4 + 120)
    assert done.returncode == 1, done.stdout[-3000:]
    assert f"{endless}() did not finish within {limit:g} s (an endless loop?); it was stopped" in done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert failed and all(f"{endless}" in line or "variance" in line for line in failed), done.stdout[-3000:]
    assert " passed" in done.stdout
    if sys.platform.startswith("linux"):
        assert _release_workers(release) == []


def test_arguments_changed_in_place_are_reported_and_an_honest_call_reports_none(module):
    child = module("import numpy as np\n"
                   "def f(x, pair, mask=None, inplace=False):\n"
                   "    if inplace:\n"
                   "        x -= x.max()\n"
                   "        pair[1][0] = np.nan\n"
                   "        mask[:] = False\n"
                   "    return x + 0.0\n")
    args = (np.arange(3.0), (np.zeros(2), np.ones(2)))
    _, honest = child.call_observed("f", args, {"mask": np.ones(2, dtype=bool)})
    assert honest == ()
    result, changed = child.call_observed("f", args, {"mask": np.ones(2, dtype=bool), "inplace": True})
    assert set(changed) == {"0", "1.1", "mask"}
    assert np.array_equal(result, [-2.0, -1.0, 0.0])


def test_plain_pytest_in_the_release_fails_a_function_that_changes_its_input(tmp_path):
    release = tmp_path / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, release, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    inplace = ("\n\ndef softmax(x, axis=-1):\n    x = np.asarray(x, dtype=float) if np.asarray(x).dtype.kind != 'f' else x\n"
               "    x -= np.max(x, axis=axis, keepdims=True)\n    np.exp(x, out=x)\n"
               "    x /= np.sum(x, axis=axis, keepdims=True)\n    return x\n")
    (release / HW1.module).write_text(solution + inplace, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "random_public_case"],
                          cwd=release, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "the call changed its argument x in place" in done.stdout
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED")]
    assert failed and all("softmax" in line or "attention" in line for line in failed), done.stdout[-3000:]
