"""``attn-course check``: the one command the instructor's CLI and the student kit share."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import signal
import time
from pathlib import Path

import click

from autograder.cli_common import (
    CourseCommandError,
    LANG_OPTION,
    SANDBOX_OPTION,
    common_options,
    course_given,
    feedback_language,
    is_quiet,
    with_sandbox,
)
from autograder.errors import GraderError
from autograder.i18n import Message, msg, render

#: What ``check --watch`` says after its first run.
WATCHING = msg("Watching for saves; Ctrl-C stops.")

#: Exit statuses of ``check``: every public check passed; one failed (or the code does not load), like pytest's;
#: ``check`` could not run (usage or set-up: no release here, a file to name, an unknown assignment), like click's.
CHECKS_PASSED_EXIT = 0
CHECKS_FAILED_EXIT = 1
SET_UP_PROBLEM_EXIT = 2


class CheckCannotRun(click.ClickException):
    """A usage or set-up problem of ``check`` (not a failed check): printed on stderr, exit status 2."""

    exit_code = SET_UP_PROBLEM_EXIT


class CheckFormat(enum.StrEnum):
    """How ``check`` prints its report."""

    TEXT = "text"
    JSON = "json"


@click.command()
@click.argument("assignment_id")
@click.argument("path", type=click.Path(path_type=Path, exists=True), default=Path("."))
@click.option("--format", "output_format", type=click.Choice([f.value for f in CheckFormat]), default=CheckFormat.TEXT.value,
              show_default=True, help="text: one line per question; json: the same as JSON.")
@click.option("--watch", is_flag=True,
              help="Check again each time you save the file (Ctrl-C stops); with --format json, one JSON line per run.")
@LANG_OPTION
@SANDBOX_OPTION
@common_options
@click.pass_context
def check(ctx: click.Context, assignment_id: str, path: Path, output_format: str, watch: bool, lang: str | None,
          sandbox: str | None) -> None:
    """Run the public checks of ASSIGNMENT_ID on your module, notebook or folder (default: here).

    Exits 0 when every public check passes, 1 when one fails (with --watch: as the last run did),
    and 2 when the checks cannot run (no assignment folder here, a file to name, a wrong option).
    """
    from autograder.check.release import CannotCheck

    try:
        _check(ctx, assignment_id, path, output_format, watch, lang, sandbox)
    except CannotCheck as error:  # no release here, a file missing from it: said in the student's language when asked
        _cannot_run(assignment_id, output_format, render(error.student_message, lang or "en"))
    except (GraderError, CourseCommandError) as error:  # the course file, the submission's files: nothing was checked
        _cannot_run(assignment_id, output_format,
                    error.format_message() if isinstance(error, click.ClickException) else render(_said(error), lang or "en"))


def _said(error: Exception) -> str:
    """What an error says: its catalog message when it carries one (so it can be shown in the student's language)."""
    return error.args[0] if error.args and isinstance(error.args[0], Message) else str(error)


def _cannot_run(assignment_id: str, output_format: str, message: str) -> None:
    """Stop with exit status 2 and ``message`` on stderr; with ``--format json``, a JSON record of it on stdout too
    (an editor reading stdout always gets JSON)."""
    if output_format == CheckFormat.JSON:
        click.echo(json.dumps({"assignment": assignment_id, "passed": False, "error": message,
                               "exit_code": SET_UP_PROBLEM_EXIT}, ensure_ascii=False))
    raise CheckCannotRun(message)


def _check(ctx: click.Context, assignment_id: str, path: Path, output_format: str, watch: bool, lang: str | None,
           sandbox: str | None) -> None:
    """What :func:`check` does (its set-up problems raise :class:`~autograder.errors.GraderError`)."""
    from autograder.check.api import check_submission
    from autograder.check.release import find_release
    from autograder.check.runner import check_runner
    from autograder.paths import releases_dir_for

    given = course_given(ctx)
    release = find_release(assignment_id, path, given, releases_dir_for(given))
    course = with_sandbox(release.course, sandbox)
    release = dataclasses.replace(release, course=course)
    runner = check_runner(course.defaults)  # the sandbox if it works here, else a portable child
    runner.prestart(course.defaults)  # the worker warms up while the rest is imported
    shown = _Shown(CheckFormat(output_format), feedback_language(course, lang), is_quiet(ctx), watch)
    run_once = functools.partial(check_submission, course, release.assignment_id, path, release=release, runner=runner)
    report = _watch(run_once, shown, path, runner, release.assignment_id) if watch else run_once()
    if not watch:
        shown(report, 1)
    if not report.passed:
        ctx.exit(CHECKS_FAILED_EXIT)


@dataclasses.dataclass(frozen=True)
class _Shown:
    """How each report is printed: format, language, quiet, and whether runs follow one another."""

    output_format: CheckFormat
    language: str
    quiet: bool
    watching: bool

    def __call__(self, report, number: int) -> None:
        from autograder.check.api import check_dict, format_check, format_check_json, short_summary

        if self.output_format == CheckFormat.JSON:
            text = json.dumps(check_dict(report, self.language), ensure_ascii=False) if self.watching else \
                format_check_json(report, self.language).rstrip("\n")
        elif self.quiet:
            text = short_summary(report, self.language)
        else:
            text = format_check(report, self.language)
        if self.watching and number > 1 and self.output_format == CheckFormat.TEXT:
            click.echo(render(msg("{time}: saved, checking again", time=time.strftime("%H:%M:%S")), self.language))
        click.echo(text)
        if self.watching and number == 1 and self.output_format == CheckFormat.TEXT:
            click.echo(render(WATCHING, self.language))


def _unchecked(path: Path, problem: str, assignment_id: str):
    """A report of a run that could not check the files (what is wrong in place of the load error)."""
    from autograder.check.api import CheckReport

    return CheckReport(assignment_id, str(path), (), problem, 0.0, str(Path(path).resolve()))


def _watch(run_once, shown: _Shown, path: Path, runner, assignment_id: str):
    """The checks, again on every save, until Ctrl-C; the last report."""
    from autograder.check.release import CannotCheck
    from autograder.check.watch import Clock, Stop, watch, watched_files

    runner.keep_spares()  # the next run's worker starts while the student edits
    stop, last = Stop(), []
    signal.signal(signal.SIGINT, stop)

    def run_and_keep():
        try:
            last.append(run_once())
        except CannotCheck:  # the release itself is missing: nothing to watch for
            raise
        except GraderError as error:  # the files as saved cannot be checked yet: said, and watched on
            last.append(_unchecked(path, _said(error), assignment_id))
        return last[-1]

    try:
        folder = (Path(path).resolve(),) if Path(path).is_dir() else ()  # a file added or removed at its top changes it
        watch(run_and_keep, shown, lambda report: watched_files(path, report.path if report else "") + folder,
              Clock(stopped=lambda: stop.requested))
    except KeyboardInterrupt:
        if shown.output_format == CheckFormat.TEXT:
            click.echo(render(msg("Stopped watching."), shown.language))
    if not last:
        raise KeyboardInterrupt  # stopped before the first run finished: the usual Ctrl-C
    return last[-1]
