"""``attn-course check``: the one command the instructor's CLI and the student kit share."""

from __future__ import annotations

import dataclasses
import enum
from pathlib import Path

import click

from autograder.cli_common import (
    LANG_OPTION,
    SANDBOX_OPTION,
    common_options,
    course_given,
    feedback_language,
    is_quiet,
    with_sandbox,
)

#: Exit status of ``check`` when a public check fails (or the code does not load), like pytest's.
CHECKS_FAILED_EXIT = 1


class CheckFormat(enum.StrEnum):
    """How ``check`` prints its report."""

    TEXT = "text"
    JSON = "json"


@click.command()
@click.argument("assignment_id")
@click.argument("path", type=click.Path(path_type=Path, exists=True), default=Path("."))
@click.option("--format", "output_format", type=click.Choice([f.value for f in CheckFormat]), default=CheckFormat.TEXT.value,
              show_default=True, help="text: one line per question; json: the same as JSON.")
@LANG_OPTION
@SANDBOX_OPTION
@common_options
@click.pass_context
def check(ctx: click.Context, assignment_id: str, path: Path, output_format: str, lang: str | None, sandbox: str | None) -> None:
    """Run the public checks of ASSIGNMENT_ID on your module, notebook or folder (default: here).

    Exits 0 when every public check passes and 1 when one fails.
    """
    from autograder.check.api import check_submission, format_check, format_check_json, short_summary
    from autograder.check.release import find_release
    from autograder.paths import releases_dir_for
    from autograder.sandbox.spares import prestart

    given = course_given(ctx)
    release = find_release(assignment_id, path, given, releases_dir_for(given))
    course = with_sandbox(release.course, sandbox)
    release = dataclasses.replace(release, course=course)
    prestart(course.defaults)  # the sandboxed worker warms up while the rest is imported
    language = feedback_language(course, lang)
    report = check_submission(course, release.assignment_id, path, release=release)
    if output_format == CheckFormat.JSON:
        click.echo(format_check_json(report, language), nl=False)
    elif is_quiet(ctx):
        click.echo(short_summary(report, language))
    else:
        click.echo(format_check(report, language))
    if not report.passed:
        ctx.exit(CHECKS_FAILED_EXIT)
