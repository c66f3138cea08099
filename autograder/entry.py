"""The ``attn-course`` programs' entry points (the grader's and the student kit's): a head start, then the command line.

Kept apart from the command lines so that the worker of a ``grade`` or ``check`` starts
before the command line imports click, pydantic and numpy (see :mod:`autograder.sandbox.headstart`).
"""

from __future__ import annotations

import os
import sys

#: pydantic looks for plugins in every installed distribution's entry points (about 30 ms with
#: Jupyter, nbgrader and otter installed) unless this says not to; the course's configuration uses none.
PYDANTIC_PLUGINS_ENV = "PYDANTIC_DISABLE_PLUGINS"


def _head_start() -> None:
    """What runs before the command line is imported: pydantic's plugin scan off, the worker's head start."""
    from autograder.sandbox.headstart import start_early

    os.environ.setdefault(PYDANTIC_PLUGINS_ENV, "__all__")
    start_early(sys.argv[1:])


def run() -> None:
    """Run ``attn-course`` with the arguments of this process."""
    _head_start()
    from autograder.cli import run as run_command_line

    run_command_line()


def run_kit() -> None:
    """Run the student kit's ``attn-course`` (``check`` only) with the arguments of this process."""
    _head_start()
    from autograder.kit.cli import run as run_kit_command_line

    run_kit_command_line()
