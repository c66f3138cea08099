"""``attn-course new``: scaffold a question (and every file it needs) into the course."""

from __future__ import annotations

import click

from autograder.cli_common import CourseCommandError, common_options, course_file, is_quiet


def _update_catalogs(languages: tuple[str, ...]) -> list:
    """Bring the message catalog of each translated language in step with the code (as ``python -m autograder.i18n
    update`` does): the scaffold's texts are in it already, only their references change."""
    from autograder.i18n.maintain import update_catalogs

    return [path for path, _ in update_catalogs(languages)]


def _scaffold(ctx: click.Context, make_edits, next_step: str) -> None:
    """Write what ``make_edits(course, course_text)`` returns, bring the catalogs in step, say what was written."""
    from autograder.config import load_course
    from autograder.scaffold.question import ScaffoldError, write_edits

    path = course_file(ctx)
    try:
        edits = make_edits(load_course(path), path.read_text(encoding="utf-8"))
        written = write_edits(edits)
    except ScaffoldError as error:
        raise CourseCommandError(str(error)) from None
    load_course.cache_clear()
    catalogs = _update_catalogs(load_course(path).languages)
    if not is_quiet(ctx):
        for edit, where in zip(edits, written):
            click.echo(f"{'created' if edit.new else 'added to'} {where}")
        for catalog in catalogs:
            click.echo(f"updated {catalog} (generated: the new hidden tests' references)")
        click.echo(f"Next: fill every TODO (grep -n TODO {' '.join(str(w) for w in written)}), then {next_step}.")


def _parameters(arguments: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in arguments.split(",") if p.strip())


@click.group(name="new")
@common_options
def new() -> None:
    """Add to the course: write every file a new question needs, each with TODOs to fill."""


@new.command(name="question")
@click.argument("assignment_id", metavar="ASSIGNMENT")
@click.argument("function", metavar="FUNCTION")
@click.option("--args", "arguments", default="x", show_default=True,
              help="The function's parameters, separated by commas (e.g. \"n, window\").")
@click.option("--points", type=click.FloatRange(min=0, min_open=True), default=1, show_default=True,
              help="Points of the question in course.yml.")
@common_options
@click.pass_context
def question(ctx: click.Context, assignment_id: str, function: str, arguments: str, points: float) -> None:
    """Scaffold question FUNCTION of ASSIGNMENT: its course.yml entry, reference, solution and stub docstring,
    notebook section, hidden tests with the standard property cases (their worked example is the public check),
    and translations to fill.

    Every place to fill says TODO (untranslated text: TODO(translate)); `attn-course build --check-only`
    names each one left, with its file.
    """
    from autograder.scaffold.question import question_edits

    _scaffold(ctx, lambda course, text: question_edits(course, text, assignment_id, function, _parameters(arguments),
                                                       points),
              f"run `attn-course build --check-only`, `attn-course build {assignment_id}` and `make test`")


@new.command(name="assignment")
@click.argument("assignment_id", metavar="ID")
@click.option("--module", required=True, help="The module students complete, e.g. attention_entropy.py.")
@click.option("--question", "function", required=True, help="The name of its first graded function.")
@click.option("--args", "arguments", default="x", show_default=True, help="That function's parameters, separated by commas.")
@click.option("--points", type=click.FloatRange(min=0, min_open=True), default=1, show_default=True,
              help="Points of the first question.")
@click.option("--title", default=None, help="The assignment's title (default: a TODO to fill in course.yml).")
@common_options
@click.pass_context
def assignment(ctx: click.Context, assignment_id: str, module: str, function: str, arguments: str, points: float,
               title: str | None) -> None:
    """Scaffold assignment ID with its first question: its course.yml entry (title and due date to set), module,
    notebook, public tests and cases, translations, and the question's files as `new question` writes them.
    Add more questions with `attn-course new question ID FUNCTION`.
    """
    from autograder.scaffold.assignment import assignment_edits

    _scaffold(ctx, lambda course, text: assignment_edits(course, text, assignment_id, module, function,
                                                         _parameters(arguments), points, title),
              f"set the title and due date in course.yml, run `attn-course build --check-only` and "
              f"`attn-course build {assignment_id}`")
