"""Run student code out of the grader's process, in a confined worker.

:mod:`~autograder.sandbox.protocol`
    The wire format (JSON header + ``.npy`` arrays, bounded, never pickled).
:mod:`~autograder.sandbox.worker`
    The program that runs inside the sandbox and imports the submission.
:mod:`~autograder.sandbox.launcher`
    Isolation levels, the worker's command line, limits, and killing it.
:mod:`~autograder.sandbox.client`
    :class:`SandboxedSubmission`, the grader-side handle tests call into.

The names below are loaded on first use, so that starting a worker early (see
:func:`autograder.sandbox.spares.prestart`) does not wait for numpy to import.
"""

__all__ = ["ISOLATION_LEVELS", "SandboxedSubmission", "detect_isolation"]


def __getattr__(name: str):
    if name == "SandboxedSubmission":
        from autograder.sandbox.client import SandboxedSubmission

        return SandboxedSubmission
    if name in ("ISOLATION_LEVELS", "detect_isolation"):
        from autograder.sandbox import launcher

        return getattr(launcher, name)
    raise AttributeError(name)
