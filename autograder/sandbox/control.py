"""The fork server's control messages: what the grader asks it, and how big a message may be.

Kept apart from :mod:`autograder.sandbox.protocol` (which needs numpy for the arrays), so
the grader can start sandboxes before numpy is imported.
"""

from __future__ import annotations

from enum import StrEnum


class ZygoteOp(StrEnum):
    """Requests to the fork server (:mod:`~autograder.sandbox.forkserver`) on its control socket.

    Each request is a JSON object ``{"id": n, "op": ..., ...}`` and its answer carries the
    same ``id``: ``fork`` (with the new worker's three pipe fds attached) answers
    ``{"pid": ...}``; ``status`` and ``finish`` (of ``"pid"``) answer ``{"returncode": ...}``, and
    ``finish`` adds ``"leftovers": n`` when processes of the sandbox uid outlived the clean-up.
    """

    FORK = "fork"
    STATUS = "status"
    FINISH = "finish"


#: Largest control message of the fork server, either way.
ZYGOTE_MESSAGE_BYTES = 4096
#: The pipe fds a ``fork`` request carries: request read end, response write end, output write end.
ZYGOTE_FDS = 3
