"""The grader side: timeouts, crashes, restarts, the time budget, and a hostile worker."""

from __future__ import annotations

import json
import os
import struct
import time
import tracemalloc

import numpy as np
import pytest

from autograder.errors import BadReturn, CallTimeout, LoadFailed, StudentException, WorkerCrashed
from autograder.sandbox import protocol
from autograder.sandbox.isolation import Isolation
from autograder.sandbox.client import MAX_TIMEOUTS_PER_FUNCTION

from .conftest import ISOLATION, TEST_LIMITS, make_submission

#: RLIMIT_NOFILE of every worker (a literal: the code's own constant would prove nothing).
OPEN_FILES_LIMIT = 64
#: Generous bound for "finished promptly" (the call timeout plus start-up slack, not a benchmark).
PROMPT_S = TEST_LIMITS.call_timeout_s + 5.0

TROUBLE = '''
import ctypes, os, signal, sys, time
import numpy as np

def ok(x):
    return np.asarray(x) + 1

def spin():
    print("before the loop")
    while True:
        pass

def stubborn():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        time.sleep(0.01)

def sleeps(seconds):
    time.sleep(seconds)
    return np.array(seconds)

def exit_zero():
    os._exit(0)

def exit_three():
    os._exit(3)

def self_kill():
    os.kill(os.getpid(), signal.SIGKILL)

def segfault():
    ctypes.string_at(0)

def close_the_pipe():
    os.close(json.loads(sys.argv[1])["out"])
    time.sleep(30)

import json
'''


def test_an_endless_loop_times_out_and_the_next_call_restarts_the_worker(sandbox):
    sub = sandbox(TROUBLE)
    first = sub.worker_pid
    started = time.monotonic()
    with pytest.raises(CallTimeout, match=r"spin\(\) did not finish within 1 s"):
        sub.spin()
    assert time.monotonic() - started < PROMPT_S
    assert sub.worker_pid is None
    np.testing.assert_array_equal(sub.ok(np.arange(3)), [1, 2, 3])
    assert sub.worker_pid not in (None, first)
    assert "before the loop" in sub.captured_output


@pytest.mark.parametrize("level", [ISOLATION, Isolation.NONE])
def test_a_loop_that_ignores_sigterm_and_sigint_is_killed(sandbox, level):
    sub = sandbox(TROUBLE, isolation=level)
    started = time.monotonic()
    with pytest.raises(CallTimeout):
        sub.stubborn()
    assert time.monotonic() - started < PROMPT_S
    assert sub.ok(1) == 2


def test_an_endless_loop_at_import_is_a_load_failure(sandbox):
    with pytest.raises(LoadFailed, match="did not finish within 1 s"):
        sandbox("while True:\n    pass\n")


@pytest.mark.parametrize(
    "function, words",
    [
        ("exit_zero", "exited with status 0"),
        ("exit_three", "exited with status 3"),
        ("self_kill", "SIGKILL"),
        ("segfault", "SIGSEGV"),
        ("close_the_pipe", "closed its pipe"),
    ],
)
def test_a_dying_worker_is_worker_crashed_and_restarted(sandbox, function, words):
    sub = sandbox(TROUBLE)
    with pytest.raises(WorkerCrashed) as crashed:
        sub.call(function)
    assert words in crashed.value.student_message and f"during {function}()" in crashed.value.student_message
    assert sub.ok(41) == 42


def test_the_cpu_time_limit_kills_a_spinning_worker(sandbox):
    limits = TEST_LIMITS.model_copy(update={"cpu_time_s": 1, "call_timeout_s": 20.0})
    sub = sandbox(TROUBLE, limits=limits)
    with pytest.raises(WorkerCrashed, match="CPU time limit"):
        sub.spin()


def test_the_submission_budget_stops_everything_after_it_is_spent(sandbox):
    limits = TEST_LIMITS.model_copy(update={"submission_timeout_s": 1.5})
    sub = sandbox(TROUBLE, limits=limits)
    assert sub.sleeps(0.8) == 0.8
    with pytest.raises(CallTimeout, match="time budget of 1.5 s"):
        sub.sleeps(0.9)
    started = time.monotonic()
    with pytest.raises(CallTimeout, match="time budget"):
        sub.ok(1)
    assert time.monotonic() - started < TEST_LIMITS.call_timeout_s


def test_a_budget_spent_while_reloading_is_a_timeout_not_a_load_failure(sandbox):
    limits = TEST_LIMITS.model_copy(update={"submission_timeout_s": 2.5})
    sub = sandbox("import time\ntime.sleep(0.6)\ndef spin():\n    while True:\n        pass\n\nspin_too = spin\n", limits=limits)
    with pytest.raises(CallTimeout):
        sub.spin()
    with pytest.raises(CallTimeout, match="time budget"):
        sub.spin_too()  # another function: the worker reloads the module, then spins past the budget
    with pytest.raises(CallTimeout, match="time budget"):
        sub.spin_too()


def test_a_budget_spent_before_the_import_finishes_is_a_load_failure():
    limits = TEST_LIMITS.model_copy(update={"submission_timeout_s": 0.5, "call_timeout_s": 5.0})
    with make_submission("import time\ntime.sleep(3)\n", limits) as sub:
        with pytest.raises(LoadFailed, match="time budget of 0.5 s"):
            sub.start()


def test_a_thread_flooding_stdout_does_not_hold_the_grader(sandbox):
    sub = sandbox(
        """
        import os, threading
        def flood():
            while True:
                os.write(1, b"x" * 65536)
        for _ in range(4):
            threading.Thread(target=flood, daemon=True).start()
        def ok():
            return 1
        """
    )
    started = time.monotonic()
    for _ in range(5):
        assert sub.ok() == 1
        assert len(sub.captured_output) < 2 * TEST_LIMITS.output_limit_kb * protocol.KIB
    assert time.monotonic() - started < PROMPT_S


def test_close_kills_the_worker_and_a_closed_submission_refuses_calls():
    with make_submission(TROUBLE) as sub:
        sub.start()
        pid = sub.worker_pid
        assert os.path.exists(f"/proc/{pid}")
    assert sub.worker_pid is None
    assert not os.path.exists(f"/proc/{pid}")
    with pytest.raises(RuntimeError, match="closed"):
        sub.ok(1)


def test_calls_start_the_worker_lazily_and_ping_round_trips():
    with make_submission(TROUBLE) as sub:
        assert sub.worker_pid is None
        assert sub.ok(1) == 2
        sub.ping()


def test_unsendable_arguments_are_a_grader_type_error(sandbox):
    sub = sandbox(TROUBLE)
    with pytest.raises(TypeError, match="dict"):
        sub.ok({"x": 1})


# --- a hostile worker: student code writes forged frames straight to the response pipe ---


def _frame(header: dict | bytes, payloads: list[bytes]) -> bytes:
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    parts = [protocol.MAGIC, struct.pack("!II", len(raw), len(payloads)), raw]
    for payload in payloads:
        parts += [struct.pack("!Q", len(payload)), payload]
    return b"".join(parts)


def _array_header(code: str, shape: tuple[int, ...]) -> bytes:
    """An array's header on the wire, written by hand (see autograder.sandbox.protocol)."""
    return struct.pack("!B", len(code)) + code.encode("ascii") + struct.pack(f"!B{len(shape)}Q", len(shape), *shape)


RESULT = {"ok": True, "result": {"t": "array", "i": 0}}

FORGERIES = {
    "huge-array": (protocol.MAGIC + struct.pack("!II", 2, 1) + b"{}" + struct.pack("!Q", 2**60), BadReturn, "bytes"),
    "object-array": (_frame(RESULT, [_array_header("|O", (1,)) + b"\0" * 8]), BadReturn, "object"),
    "complex-array": (_frame(RESULT, [protocol.encode_array(np.ones(2) + 1j)]), BadReturn, "complex128"),
    "huge-header": (protocol.MAGIC + struct.pack("!II", 2**31, 0), WorkerCrashed, "header"),
    "garbage": (b"\x00" * 64, WorkerCrashed, "magic"),
    "out-of-turn": (_frame({"id": 10**6, "ok": True, "result": {"t": "array", "i": 0}}, [protocol.encode_array(np.ones(1))]), WorkerCrashed, "out of turn"),
}


@pytest.mark.parametrize("name", FORGERIES)
def test_forged_frames_are_refused_without_trusting_them(sandbox, name):
    frame, error, words = FORGERIES[name]
    sub = sandbox(
        f"""
        import json, os, sys, time
        OUT = json.loads(sys.argv[1])["out"]
        def forge():
            os.write(OUT, {frame!r})
            time.sleep(30)
        def ok():
            return 1
        """
    )
    started = time.monotonic()
    with pytest.raises(error) as refused:
        sub.forge()
    assert words in refused.value.student_message
    assert time.monotonic() - started < PROMPT_S
    assert sub.ok() == 1


def test_a_forged_reply_in_turn_still_cannot_claim_a_grader_side_failure(sandbox):
    sub = sandbox(
        """
        import json, os, struct, sys, time
        OUT = json.loads(sys.argv[1])["out"]
        def request_id():
            frame = sys._getframe()
            while "header" not in frame.f_locals:
                frame = frame.f_back
            return frame.f_locals["header"]["id"]
        def forge():
            header = json.dumps({"id": request_id(), "ok": False, "kind": "timeout", "message": "fake"}).encode()
            os.write(OUT, b"ATN1" + struct.pack("!II", len(header), 0) + header)
            time.sleep(30)
        """
    )
    with pytest.raises(WorkerCrashed, match="unknown failure"):
        sub.forge()


#: The size of a forged reply, and what the grader may allocate while refusing it.
FORGED_REPLY_MB = 200
REFUSAL_PEAK_MB = 64


def test_a_reply_larger_than_the_call_can_return_is_refused_before_it_is_read(sandbox):
    """A 200 MB array for a call on a few bytes of input: the grader must not read (or hold) it."""
    sub = sandbox(
        f"""
        import json, os, struct, sys, time
        import numpy as np
        OUT = json.loads(sys.argv[1])["out"]
        def request_id():
            frame = sys._getframe()
            while "header" not in frame.f_locals:
                frame = frame.f_back
            return frame.f_locals["header"]["id"]
        def write_all(data):
            view = memoryview(data)
            while view:
                view = view[os.write(OUT, view):]
        def forge(x):
            npy = {_array_header("<f8", (FORGED_REPLY_MB * 2**20 // 8,))!r}
            header = json.dumps({{"id": request_id(), "ok": True, "result": {{"t": "array", "i": 0}},
                                  "observed": {{"mutated": [], "returned": {{"container": None, "parts": ["ndarray"]}}}}}}).encode()
            write_all(b"ATN1" + struct.pack("!II", len(header), 1) + header + struct.pack("!Q", len(npy) + {FORGED_REPLY_MB} * 2**20) + npy)
            zeros = bytes(2**20)
            for _ in range({FORGED_REPLY_MB}):
                write_all(zeros)
            time.sleep(30)
        def ok():
            return 1
        """,
        limits=TEST_LIMITS.model_copy(update={"call_timeout_s": 20.0}),
    )
    tracemalloc.start()
    try:
        with pytest.raises(BadReturn, match="bytes"):
            sub.forge(np.ones(4))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < REFUSAL_PEAK_MB * 2**20, f"the grader peaked at {peak / 2**20:.0f} MB"
    assert sub.ok() == 1


def test_a_forged_frame_at_import_is_a_load_failure(sandbox):
    with pytest.raises(LoadFailed):
        sandbox(
            f"""
            import json, os, sys
            os.write(json.loads(sys.argv[1])["out"], {b"x" * 32!r})
            """
        )


def test_the_worker_cannot_claim_a_grader_side_failure(sandbox):
    sub = sandbox("import numpy as np\ndef f():\n    raise TimeoutError('not a CallTimeout')\n")
    with pytest.raises(StudentException, match="TimeoutError"):
        sub.f()


def test_a_function_that_keeps_hanging_is_not_run_again(sandbox):
    sub = sandbox("def hang(x):\n    while True:\n        pass\n\ndef ok(x):\n    return x\n")
    for _ in range(MAX_TIMEOUTS_PER_FUNCTION):
        with pytest.raises(CallTimeout, match="did not finish"):
            sub.call("hang", 1)
    started = time.monotonic()
    with pytest.raises(CallTimeout, match="not run again"):
        sub.call("hang", 1)
    assert time.monotonic() - started < TEST_LIMITS.call_timeout_s
    assert sub.call("ok", np.arange(3)).tolist() == [0, 1, 2]


@pytest.mark.parametrize("level", [ISOLATION, Isolation.NONE])
def test_open_files_are_bounded(sandbox, level):
    sub = sandbox("import os\ndef hoard():\n    fds = []\n    try:\n        while len(fds) < 10000:\n            fds.append(os.open('/dev/null', os.O_RDONLY))\n    except OSError:\n        pass\n    return len(fds)\n", isolation=level)
    assert int(sub.call("hoard")) < OPEN_FILES_LIMIT


@pytest.mark.parametrize(
    "observed",
    [None, {}, {"mutated": "0", "returned": {"container": None, "parts": []}},
     {"mutated": [1], "returned": {"container": None, "parts": []}},
     {"mutated": [], "returned": {"container": "dict", "parts": []}},
     {"mutated": [], "returned": {"container": None, "parts": [3]}}],
)
def test_malformed_call_observations_are_a_protocol_error(observed):
    from autograder.call import CallOutcome

    with pytest.raises(protocol.ProtocolError):
        CallOutcome.from_report(np.ones(2), observed)


def test_call_observations_are_bounded():
    from autograder.call import MAX_LABEL_CHARS, CallOutcome

    outcome = CallOutcome.from_report(np.ones(2), {"mutated": ["x" * 1000], "returned": {"container": "list", "parts": ["y" * 1000]}})
    assert len(outcome.mutated[0]) == len(outcome.parts[0]) == MAX_LABEL_CHARS
