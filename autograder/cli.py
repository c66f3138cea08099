"""``attn-course``: the command line. Each verb is a command module of its own; this module only registers them.

Subcommands import what they need when they run, so each starts fast.
"""

from __future__ import annotations

import click

from autograder.build.command import build
from autograder.bundle.command import bundle, version_option
from autograder.check.command import check
from autograder.cli_common import (  # noqa: F401 - CourseCommandError and _Commands are imported from here by callers
    CommandGroup,
    CourseCommandError,
    common_options,
    run_and_exit,
)
from autograder.commands.config import config
from autograder.commands.trace import trace
from autograder.commands.variance import variance
from autograder.demo.command import demo
from autograder.export.command import export
from autograder.commands.grade import grade
from autograder.commands.gradebook import gradebook
from autograder.commands.nbgrader import nbgrader_grade
from autograder.commands.review import review
from autograder.kit.command import kit
from autograder.scaffold.command import new

#: The command group class (kept under its first name).
_Commands = CommandGroup
#: Every verb of ``attn-course``, each declared in its own command module.
COMMANDS = (trace, variance, config, new, build, kit, bundle, check, grade, gradebook, nbgrader_grade, review, demo,
            export)


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@common_options
@version_option
@click.pass_context
def main(ctx: click.Context) -> None:
    """Autograded courseware for the attention mechanism."""
    ctx.ensure_object(dict)


for _command in COMMANDS:
    main.add_command(_command)


def run() -> None:
    """The ``attn-course`` program (see :func:`~autograder.cli_common.run_and_exit`)."""
    run_and_exit(main)


if __name__ == "__main__":
    run()
