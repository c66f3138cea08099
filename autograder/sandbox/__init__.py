"""Run student code out of the grader's process, in a confined worker.

:mod:`~autograder.sandbox.protocol`
    The wire format (JSON header + ``.npy`` arrays, bounded, never pickled).
:mod:`~autograder.sandbox.worker`
    The program that runs inside the sandbox and imports the submission.
:mod:`~autograder.sandbox.launcher`
    Isolation levels, the worker's command line, limits, and killing it.
:mod:`~autograder.sandbox.client`
    :class:`SandboxedSubmission`, the grader-side handle tests call into.
"""

from autograder.sandbox.client import SandboxedSubmission
from autograder.sandbox.launcher import ISOLATION_LEVELS, detect_isolation

__all__ = ["ISOLATION_LEVELS", "SandboxedSubmission", "detect_isolation"]
