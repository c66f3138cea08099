"""``attn-course`` as the student kit installs it: the ``check`` command, and nothing of the grader's."""

from __future__ import annotations

import click

from autograder import __version__
from autograder.check.command import check
from autograder.cli_common import CommandGroup, common_options, run_and_exit


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@common_options
@click.version_option(__version__, prog_name="attn-course (student kit)", help="Show the version and exit.")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Check your assignment: run `attn-course check <assignment id>` inside its folder."""
    ctx.ensure_object(dict)


main.add_command(check)


def run() -> None:
    """The kit's ``attn-course`` program (see :func:`~autograder.cli_common.run_and_exit`)."""
    run_and_exit(main)


if __name__ == "__main__":
    run()
