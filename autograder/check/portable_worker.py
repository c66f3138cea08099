"""The portable worker: the sandbox's worker (:mod:`autograder.sandbox.worker`) without the sandbox, on any OS.

Started by :mod:`autograder.check.portable` as ``python -I -B -u -m autograder.check.portable_worker``
with three pipes. The protocol's frames travel on its stdin and stdout, which are moved to
other file descriptors before anything else runs; fds 1 and 2 then both write to the stderr
pipe, which the caller only captures, so the student's prints can never corrupt a frame.
Only the worker's request loop runs here: no resource limit, no namespace, no seccomp (public
checks run the student's own code on the student's own machine), and no ``os.fork``.
"""

from __future__ import annotations

import os
import sys


def protocol_fds() -> tuple[int, int]:
    """Move the protocol to new fds; stdin reads nothing, stdout writes where stderr does.

    Returns
    -------
    (int, int)
        The fds to read requests from and to write responses to (binary on every OS).
    """
    requests, responses = os.dup(0), os.dup(1)
    empty = os.open(os.devnull, os.O_RDONLY)
    os.dup2(empty, 0)
    os.close(empty)
    os.dup2(2, 1)
    if os.name == "nt":  # the C runtime would translate line ends of a text-mode fd
        import msvcrt

        for fd in (requests, responses):
            msvcrt.setmode(fd, os.O_BINARY)
    return requests, responses


def main() -> int:
    """Serve one caller until it closes the request pipe (or is gone)."""
    from autograder.check.call_child import die_with_parent

    die_with_parent()
    requests, responses = protocol_fds()
    from autograder.sandbox.worker import serve_one

    return serve_one(requests, responses)


if __name__ == "__main__":
    sys.exit(main())
