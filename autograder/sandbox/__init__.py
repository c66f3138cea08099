"""Run student code out of the grader's process, in a confined worker.

:mod:`~autograder.sandbox.protocol`
    The wire format (JSON header + ``.npy`` arrays, bounded, never pickled).
:mod:`~autograder.sandbox.worker`, :mod:`~autograder.sandbox.confine`
    The program that runs inside the sandbox, and how it confines itself before it
    imports the submission (:mod:`~autograder.sandbox.landlock` for its files,
    :mod:`~autograder.sandbox.seccomp` against sockets).
:mod:`~autograder.sandbox.forkserver`, :mod:`~autograder.sandbox.sweep`
    Inside the sandbox too: the fork server of batches, and the removal of what a
    finished worker left.
:mod:`~autograder.sandbox.isolation`
    The isolation levels, which one works here, which one a run uses.
:mod:`~autograder.sandbox.host`, :mod:`~autograder.sandbox.bwrap`, :mod:`~autograder.sandbox.launcher`
    What the worker needs from the host, the bubblewrap command line, the worker's
    command and limits.
:mod:`~autograder.sandbox.process`, :mod:`~autograder.sandbox.zygote`, :mod:`~autograder.sandbox.spares`
    A started worker, the grader's side of the fork server, and workers ready ahead of need.
:mod:`~autograder.sandbox.client`
    :class:`SandboxedSubmission`, the grader-side handle tests call into.

The names below are loaded on first use, so that starting a worker early (see
:func:`autograder.sandbox.spares.prestart`) does not wait for numpy to import.
"""

__all__ = ["Isolation", "SandboxedSubmission", "choose_isolation"]


def __getattr__(name: str):
    if name == "SandboxedSubmission":
        from autograder.sandbox.client import SandboxedSubmission

        return SandboxedSubmission
    if name in ("Isolation", "choose_isolation"):
        from autograder.sandbox import isolation

        return getattr(isolation, name)
    raise AttributeError(name)
