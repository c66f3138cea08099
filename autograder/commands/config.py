"""``attn-course config``: validate course.yml and list every key with the value in effect."""

from __future__ import annotations

import click

from autograder.cli_common import CourseCommandError, common_options, course_file, load_ctx_course


@click.command()
@common_options
@click.pass_context
def config(ctx: click.Context) -> None:
    """Validate course.yml and list every key: the value in effect, its default and its meaning.

    Fails when an allowed import names a module that does not exist.
    """
    from autograder.course_check import describe_schema
    from autograder.course_check import effective_value, unknown_imports

    course = load_ctx_course(ctx)
    unknown = unknown_imports(course.defaults.allowed_imports)
    if unknown:
        raise CourseCommandError(f"{course_file(ctx)}: defaults.allowed_imports names modules that do not exist: "
                                 f"{', '.join(unknown)}")
    from autograder.bundle.version import version_text

    click.echo(f"{course_file(ctx)}: valid ({len(course.assignments)} assignments)\n{version_text(course_file(ctx))}\n")
    for key, default, description in describe_schema():
        click.echo(f"{key}\n    in effect: {effective_value(course, key)}\n    default: {default}\n    {description}")
