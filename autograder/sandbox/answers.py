"""The grader's side of a call with stand-ins: each request answered by a trusted function.

During a re-check (error carried forward, :mod:`autograder.sandbox.standin`), the student's
function calls stand-ins for its upstream functions; each such call arrives here as a
``reference`` request from the worker. The grader decodes its arguments as untrusted data
(the same bounds as any reply), runs the trusted function the re-check named for it (the
reference, in this process; nothing of the student's runs here), and sends the result back.
A request for a name the re-check did not name, or one request too many, is refused: the
student's code sees an exception, the grader's state is untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from autograder.sandbox import protocol, wire_values

#: Most stand-in requests one call may make (a loop over heads or batch elements needs a few dozen).
MAX_REQUESTS_PER_CALL = 1000
#: Longest reason sent back to the worker for a refused request.
MAX_REASON_CHARS = 300


class Answers:
    """The trusted functions that answer one call's stand-in requests, and how many were asked.

    Parameters
    ----------
    functions : mapping of str to callable
        For each upstream name bound to a stand-in, the trusted function that answers it
        (it receives the decoded arguments and returns arrays, numbers or tuples of them).
    """

    def __init__(self, functions: Mapping[str, Callable]):
        self.functions = dict(functions)
        self.requests = 0

    @property
    def names(self) -> list[str]:
        """The names bound to stand-ins, sorted (sent with the call)."""
        return sorted(self.functions)

    def reply(self, message: protocol.Message) -> bytes:
        """The encoded answer to one ``reference`` request (a refusal when it cannot be answered)."""
        self.requests += 1
        name = message.header.get("function")
        if self.requests > MAX_REQUESTS_PER_CALL:
            return _refusal(f"more than {MAX_REQUESTS_PER_CALL} calls of stand-ins in one call")
        if not isinstance(name, str) or name not in self.functions:
            return _refusal("no such stand-in")
        try:
            args = wire_values.decode_value(message.header.get("args"), message.arrays)
            kwargs = message.header.get("kwargs")
            if not isinstance(args, tuple) or not isinstance(kwargs, dict):
                return _refusal("malformed arguments")
            kwargs = {str(key): wire_values.decode_value(value, message.arrays) for key, value in kwargs.items()}
        except protocol.ProtocolError as error:
            return _refusal(str(error))
        return self._answer(name, args, kwargs)

    def _answer(self, name: str, args: tuple, kwargs: dict) -> bytes:
        try:
            with np.errstate(all="ignore"):
                value = self.functions[name](*args, **kwargs)
            arrays: list[np.ndarray] = []
            header = {"ok": True, "result": wire_values.encode_value(value, arrays)}
            return protocol.encode_message(header, arrays)
        except Exception as error:  # noqa: BLE001 - the reference rejecting the student's arguments is an answer
            return _refusal(f"{type(error).__name__}: {error}")


def _refusal(reason: str) -> bytes:
    return protocol.encode_message({"ok": False, "message": reason[:MAX_REASON_CHARS]})
