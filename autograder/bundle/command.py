"""``attn-course bundle``: write the course bundle, the wheel every export installs."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import common_options, course_file, is_quiet, load_ctx_course


def _show_version(ctx: click.Context, _param, value: bool) -> None:
    """``--version``: the grader's version and the course's (an installed bundle's own course without --course)."""
    if not value or ctx.resilient_parsing:
        return
    from autograder.bundle.version import version_text

    ctx.ensure_object(dict)
    click.echo(version_text(course_file(ctx)))
    ctx.exit()


def version_option(command):
    """``--version`` of the command group: the grader's version and the course's, then exit."""
    return click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
                        help="Show the grader's version and the course's, and exit.")(command)


@click.command()
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("dist"), show_default=True,
              help="Folder to write the bundle wheel into.")
@common_options
@click.pass_context
def bundle(ctx: click.Context, out: Path) -> None:
    """Build the course bundle: one wheel of the grader and this course (course.yml, hidden tests, reference,
    catalogs), never its solutions or secret.

    `pip install` it where grading runs (Gradescope, GitHub Actions; see docs/platforms.md); the installed
    `attn-course` grades this course without --course.
    """
    from autograder.bundle.wheel import write_bundle

    path = write_bundle(load_ctx_course(ctx), out)
    click.echo(path if is_quiet(ctx) else f"course bundle -> {path}")
