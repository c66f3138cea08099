"""What every ``attn-course`` command shares: the options accepted before or after the
subcommand, the error boundary, and option types.

The command group (:class:`CommandGroup`) is the one place where a grader error becomes
a message for the user (on stderr, exit 1), and where Ctrl-C becomes exit status 130 with
a line saying what was kept. Usage errors (a path that does not exist, an option that does
not apply) are click's, exit 2.
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import click

from autograder.config import DEFAULT_COURSE_FILE
from autograder.errors import GraderError
from autograder.languages import KNOWN_LANGUAGES

#: Exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED_EXIT = 130
#: Keys of the context object the common options fill.
COURSE_FILE_KEY = "course_file"
COURSE_GIVEN_KEY = "course_given"
QUIET_KEY = "quiet"


class CourseCommandError(click.ClickException):
    """A user-facing error: printed on stderr without a traceback, exit code 1."""


class Interrupted(click.ClickException):
    """Ctrl-C: the message says what was kept; exit code 130."""

    exit_code = INTERRUPTED_EXIT

    def format_message(self) -> str:
        return self.message

    def show(self, file=None) -> None:
        click.echo(f"\ninterrupted: {self.format_message()}", err=True)


#: What a command stopped by Ctrl-C leaves behind, by command (others write nothing). ``grade`` on a class folder
#: says how many entries it kept itself.
KEPT_WHEN_INTERRUPTED = {
    "build": "the release files written so far were kept; run `attn-course build` again to finish",
    "gradebook": "the export files written so far were kept; run the command again to finish them",
    "demo": "what the demo wrote so far is in its output folder; run it again to start over",
    "kit": "the kit wheel may be incomplete; run `attn-course kit` again",
    "bundle": "the bundle wheel may be incomplete; run `attn-course bundle` again",
}
NOTHING_KEPT = "nothing was written by this command"


class CommandGroup(click.Group):
    """The command group: grader errors become messages, Ctrl-C becomes exit 130 saying what was kept."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except GraderError as error:  # ConfigError too: its message names the key and the line
            raise CourseCommandError(str(error)) from None
        except KeyboardInterrupt:
            raise Interrupted(KEPT_WHEN_INTERRUPTED.get(ctx.invoked_subcommand, NOTHING_KEPT)) from None


def run_and_exit(command: click.Command) -> None:
    """Run ``command`` as the program, then exit without tearing the interpreter down.

    Python's own shutdown (finalizing numpy, pydantic and a few hundred modules) takes
    longer than some whole commands' work. Once the command has finished, its output is
    flushed and the ``atexit`` handlers (killing spare workers, removing private folders)
    run as usual; only the teardown of modules is skipped. An uncaught exception still
    ends the program the ordinary way, with its traceback.
    """
    try:
        command.main()
    except SystemExit as end:
        code = end.code
    else:
        code = 0
    if not isinstance(code, int):
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    atexit._run_exitfuncs()  # noqa: SLF001 - the handlers os._exit would otherwise skip
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be written anyway
            pass
    os._exit(code)


class RegistryChoice(click.Choice):
    """A choice among the names of a registry that is loaded only when the choices are needed.

    ``load_registry`` returns the registry (name -> entry); ``--help`` and parsing call it,
    so merely starting the command line imports none of the registry's modules.
    """

    def __init__(self, load_registry: Callable[[], Mapping[str, object]]):
        self._load_registry = load_registry
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self._load_registry())


class LazyHelpCommand(click.Command):
    """A command whose help may be a function, called only when the help is shown (it may list a registry)."""

    @property
    def help(self) -> str | None:
        return self._help() if callable(self._help) else self._help

    @help.setter
    def help(self, value) -> None:
        self._help = value


def _set_course(ctx: click.Context, _param, value: Path | None) -> None:
    ctx.ensure_object(dict)
    if value is not None:
        ctx.obj[COURSE_FILE_KEY] = value
        ctx.obj[COURSE_GIVEN_KEY] = True
    else:
        ctx.obj.setdefault(COURSE_FILE_KEY, default_course_file())
        ctx.obj.setdefault(COURSE_GIVEN_KEY, False)


def default_course_file() -> Path:
    """The course file a command reads without ``--course``: ``course.yml`` in the current folder, else the project's."""
    here = Path.cwd() / DEFAULT_COURSE_FILE.name
    return here if here.is_file() else DEFAULT_COURSE_FILE


def _set_quiet(ctx: click.Context, _param, value: bool) -> None:
    ctx.ensure_object(dict)
    ctx.obj[QUIET_KEY] = ctx.obj.get(QUIET_KEY, False) or value


COURSE_HELP = f"The course configuration file (default: {DEFAULT_COURSE_FILE.name} in the current folder, else " \
              "the project's); accepted before or after the subcommand."
QUIET_HELP = "Print only results and errors: no progress bars, tables or notes."


def course_option(command):
    """``--course FILE``, accepted after the subcommand as well as before it."""
    return click.option("--course", type=click.Path(path_type=Path, dir_okay=False), default=None, expose_value=False,
                        is_eager=True, callback=_set_course, help=COURSE_HELP)(command)


def quiet_option(command):
    """``-q/--quiet``, accepted after the subcommand as well as before it."""
    return click.option("-q", "--quiet", is_flag=True, expose_value=False, is_eager=True, callback=_set_quiet,
                        help=QUIET_HELP)(command)


def common_options(command):
    """The options every subcommand accepts: ``--course`` and ``-q/--quiet``."""
    return course_option(quiet_option(command))


def course_file(ctx: click.Context) -> Path:
    """The course file in effect (given, or the default)."""
    return Path(ctx.find_root().obj.get(COURSE_FILE_KEY) or default_course_file())


def course_given(ctx: click.Context) -> Path | None:
    """The course file given on the command line, or None."""
    obj = ctx.find_root().obj
    return Path(obj[COURSE_FILE_KEY]) if obj.get(COURSE_GIVEN_KEY) else None


def is_quiet(ctx: click.Context) -> bool:
    return bool(ctx.find_root().obj.get(QUIET_KEY))


def load_ctx_course(ctx: click.Context, sandbox: str | None = None):
    """The course file's settings, with the sandbox asked for by ``--sandbox`` (which must agree with ATTN_SANDBOX)."""
    from autograder.config import load_course

    return with_sandbox(load_course(course_file(ctx)), sandbox)


def with_sandbox(course, sandbox: str | None):
    """``course`` with ``defaults.sandbox`` set to ``sandbox`` (None: unchanged).

    Raises
    ------
    CourseCommandError
        When ``sandbox`` contradicts the ATTN_SANDBOX environment variable.
    """
    if sandbox is None:
        return course
    from autograder.sandbox.isolation import ISOLATION_ENV

    if os.environ.get(ISOLATION_ENV, sandbox) != sandbox:
        raise CourseCommandError(f"--sandbox {sandbox} contradicts {ISOLATION_ENV}={os.environ[ISOLATION_ENV]}")
    return course.model_copy(update={"defaults": course.defaults.model_copy(update={"sandbox": sandbox})})


class IntList(click.ParamType):
    """Integers separated by commas (``1,4,16``); the option may also be repeated."""

    name = "N[,N...]"

    def __init__(self, minimum: int = 1):
        self.minimum = minimum

    def convert(self, value, param, ctx) -> tuple[int, ...]:
        if isinstance(value, tuple):
            return value
        try:
            numbers = tuple(int(part) for part in str(value).split(",") if part.strip())
        except ValueError:
            self.fail(f"{value!r} is not a comma-separated list of integers", param, ctx)
        if not numbers or min(numbers) < self.minimum:
            self.fail(f"{value!r}: give integers of at least {self.minimum}", param, ctx)
        return numbers


SANDBOX_OPTION = click.option(
    "--sandbox", type=click.Choice(["bwrap", "none"]), default=None,
    help="Isolation of student code (default: course.yml, bwrap): 'none' runs it without the sandbox, which is "
    "unsafe for untrusted code; use it only in a container that holds one submission (such as Gradescope's).",
)

#: ``--lang``: the language of what students read (feedback, check lines); course.yml's feedback_language by default.
LANG_OPTION = click.option(
    "--lang", type=click.Choice(list(KNOWN_LANGUAGES)), default=None,
    help="Language of the feedback students read: one of course.yml's languages (default: its feedback_language). "
    "Ids, numbers and the JSON record are the same in every language.",
)


def feedback_language(course, lang: str | None) -> str:
    """The language feedback is written in: ``--lang`` when given (one of the course's languages), else course.yml's.

    Raises
    ------
    click.BadParameter
        When ``lang`` is not one of the course's languages (a usage error).
    """
    try:
        return course.feedback_language_for(lang)
    except GraderError as error:
        raise click.BadParameter(str(error), param_hint="'--lang'") from None

