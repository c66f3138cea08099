"""A grading process of a batch: entries graded one after another with forked workers.

The attack here: an entry whose cleanup outlasts the fork server's answer timeout. The late
answer must not be read as the answer to the next request (which made every later honest
entry a grader error): every entry, the attacker's included, must get its own result.
"""

from __future__ import annotations

import json
import os

import pytest

from autograder.batch.worker import grade_line, keep_to_cpu
from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.paths import SOLUTIONS_DIR
from autograder.sandbox import spares, zygote

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="batches fork workers from a fork server only for a root grader"),
]

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
SOLUTION = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
#: A short answer timeout, so that a slow cleanup outlasts it within the test's time.
ANSWER_TIMEOUT_S = 1.0
#: How long the attacker spends filling /tmp at import (inside the call timeout).
FILLING_S = 2.5
FILLER = f'''
import os, time
deadline, made = time.monotonic() + {FILLING_S}, 0
try:
    while time.monotonic() < deadline:
        os.mkdir("/tmp/%d" % made)
        made += 1
except OSError:
    pass
print("made", made)
'''
HONEST = 3


@pytest.fixture
def batch_mode(monkeypatch):
    monkeypatch.setattr(zygote, "ZYGOTE_ANSWER_TIMEOUT_S", ANSWER_TIMEOUT_S)
    spares.keep_spares(True)
    yield
    spares.keep_spares(False)


def _line(path, key: str) -> str:
    return json.dumps({"key": key, "path": str(path), "submitted_at": None})


def test_a_cleanup_that_outlasts_the_answer_timeout_costs_no_other_entry(tmp_path, batch_mode):
    attacker = tmp_path / "attacker.py"
    attacker.write_text(SOLUTION + FILLER, encoding="utf-8")
    honest = tmp_path / "honest.py"
    honest.write_text(SOLUTION, encoding="utf-8")
    answers = [grade_line(COURSE, HW1.id, _line(attacker, "attacker"))]
    answers += [grade_line(COURSE, HW1.id, _line(honest, f"honest-{n}")) for n in range(HONEST)]
    errors = {a["key"]: a.get("error") for a in answers if "error" in a}
    assert errors == {}, errors
    assert [a["result"]["score"] for a in answers[1:]] == [HW1.max_points] * HONEST


def test_a_cpu_the_process_may_not_use_leaves_it_unpinned_not_dead():
    allowed = os.sched_getaffinity(0)
    try:
        assert not keep_to_cpu(max(allowed) + 4096)
        assert os.sched_getaffinity(0) == allowed
        assert keep_to_cpu(min(allowed))
        assert os.sched_getaffinity(0) == {min(allowed)}
    finally:
        os.sched_setaffinity(0, allowed)
