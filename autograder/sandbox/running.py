"""Which of the student's functions a call is running, told to the grader before the call limit kills it.

A call the grader stops at its limit says only which function the grader called; the loop
that never ends may be in a helper it calls (``general_score`` calling ``dot_score``).
Shortly before the limit (``report_after_s`` of the call's request) an interval timer
(``setitimer``, ``SIGALRM``) interrupts the call between two bytecodes; its handler finds the
innermost frame of the student's file on the stack it interrupted and sends one ``running``
frame: that function and its line. The grader keeps it only for the call it belongs to (same
``id``) and names it when the call times out. No thread is started (the process and memory
limits stay the student's), and a frame being written when the timer fires is not cut: the
report is then skipped. Where there is no ``setitimer`` (Windows), or
the call is inside one long C routine, no report is sent and the message names the call.
Runs inside the sandbox, with the worker: standard library only.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from contextlib import contextmanager

#: The frame's operation (``protocol.Op.RUNNING``).
RUNNING = "running"


def innermost_student_frame(frame, filename: str) -> tuple[str, int] | None:
    """(function, line) of the innermost frame of ``filename`` on the stack from ``frame`` outward, or None."""
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return frame.f_code.co_name, frame.f_lineno
        frame = frame.f_back
    return None


class RunningReport:
    """Reports where a call is, once, when its timer fires.

    Parameters
    ----------
    send : callable
        Sends one frame header to the grader.
    busy : callable
        Whether a frame is being written right now (the report must not cut into it).
    """

    def __init__(self, send: Callable[[dict], None], busy: Callable[[], bool]):
        self._send = send
        self._busy = busy
        self._call: tuple[dict, str] | None = None
        self.available = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
        if self.available:
            signal.signal(signal.SIGALRM, self._fired)

    def _fired(self, signum, frame) -> None:
        call, self._call = self._call, None
        if call is None or self._busy():
            return
        try:
            found = innermost_student_frame(frame, call[1])
            if found is not None:
                self._send({"op": RUNNING, "id": call[0].get("id"), "function": found[0], "line": found[1]})
        except BaseException:  # noqa: BLE001 - a report that cannot be made is not made; the call goes on
            pass

    @contextmanager
    def watching(self, request: dict, filename: str):
        """Within the block (one call), a report after the request's ``report_after_s`` (absent: none)."""
        after = request.get("report_after_s")
        if not self.available or isinstance(after, bool) or not isinstance(after, (int, float)) or after <= 0:
            yield
            return
        self._call = (request, filename)
        signal.setitimer(signal.ITIMER_REAL, float(after))
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._call = None
