"""``attn-course``: a thin command line over the autograder's API.

Subcommands import what they need when they run, so each starts fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import (  # noqa: F401 - CourseCommandError and _Commands are imported from here by callers
    LANG_OPTION,
    SANDBOX_OPTION,
    CommandGroup,
    CourseCommandError,
    common_options,
    run_and_exit,
    course_file,
    feedback_language,
    is_quiet,
    load_ctx_course,
)
from autograder.batch.command import grade_class as _grade_class, is_class_folder as _is_class_folder
from autograder.check.command import check as check_command
from autograder.scaffold.command import new as new_command
from autograder.build.command import _assignment_ids, build as build_command
from autograder.commands.config import config
from autograder.commands.trace import trace
from autograder.commands.variance import variance
from autograder.demo.command import demo
from autograder.export.command import export
from autograder.grade.formats import FORMATS
from autograder.kit.command import kit

#: The command group class (kept under its first name).
_Commands = CommandGroup


def _course(ctx: click.Context, sandbox: str | None = None):
    """course.yml, with the sandbox asked for by ``--sandbox`` (which must agree with ATTN_SANDBOX when both are set)."""
    return load_ctx_course(ctx, sandbox)


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@common_options
@click.version_option(package_name="attn-course", help="Show the version and exit.")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Autograded courseware for the attention mechanism."""
    ctx.ensure_object(dict)


def _prestart_worker(course) -> None:
    """Start the sandboxed worker now, so it warms up while the grader imports the rest."""
    from autograder.sandbox.spares import prestart

    prestart(course.defaults)


def _say(ctx: click.Context, line: str) -> None:
    """An informational line (left out with --quiet)."""
    if not is_quiet(ctx):
        click.echo(line)




DEFAULT_GRADEBOOK = Path("gradebook.sqlite3")
#: The report formats (name -> what it is), from the one registry of formats.
REPORT_FORMATS = {name: report_format.description for name, report_format in FORMATS.items()}


#: Options that apply to one submission only, with how each reads on the command line.
SINGLE_SUBMISSION_OPTIONS = {"output_format": "--format", "out": "--out", "submitted_at": "--submitted-at",
                             "metadata": "--metadata", "seed": "--seed", "lang": "--lang"}
#: Options that apply to a class folder only.
CLASS_FOLDER_OPTIONS = {"jobs": "--jobs", "gradebook_path": "--gradebook", "regrade": "--regrade", "shard": "--shard"}


def _given(ctx: click.Context, names: dict[str, str]) -> list[str]:
    """The options among ``names`` given on the command line (not left at their defaults)."""
    from click.core import ParameterSource

    return [flag for name, flag in names.items() if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)]


@main.command()
@click.argument("assignment_id")
@click.argument("submission", type=click.Path(path_type=Path, exists=True))
@click.option("--format", "output_format", type=click.Choice(REPORT_FORMATS), default="text", show_default=True,
              help="Report format for one submission: " + "; ".join(f"{n}, {d}" for n, d in REPORT_FORMATS.items()) + ".")
@click.option("--out", type=click.Path(path_type=Path), help="Write the report of one submission here instead of standard output.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Grading processes for a class folder.")
@click.option("--gradebook", "gradebook_path", type=click.Path(path_type=Path), default=DEFAULT_GRADEBOOK, show_default=True, help="SQLite gradebook for a class folder.")
@click.option("--regrade", is_flag=True, help="Grade again entries whose current gradebook row was graded from the same "
              "bytes and submission time, course.yml, hidden tests and grader version (otherwise they are skipped).")
@click.option("--shard", callback=lambda ctx, param, value: _shard(value), metavar="K/N",
              help="Grade only the K-th of N shares of the class folder (array jobs; merge with `gradebook merge`).")
@click.option("--batch/--single", "batch", default=None, help="Treat SUBMISSION as a class folder / one submission (default: guess).")
@click.option("--submitted-at", type=click.DateTime(formats=["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z"]),
              help="When one submission was handed in (with time zone), for the late policy. A class folder takes its "
              "times from a submitted_at.csv (student,submitted_at) in it.")
@click.option("--metadata", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Gradescope's submission_metadata.json: the submission time is its created_at.")
@click.option("--student", help="One submission: whose it is (their extension applies). A class folder: grade only this "
              "student's entry.")
@click.option("--file-times", is_flag=True,
              help="Take submission times from file times (which unzip restores from the student's archive: untrusted).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Replay a grading run exactly: the seed its JSON result records (one submission; default: a fresh seed).")
@LANG_OPTION
@SANDBOX_OPTION
@common_options
@click.pass_context
def grade(ctx, assignment_id, submission, output_format, out, jobs, gradebook_path, regrade, shard, batch, submitted_at,
          metadata, student, file_times, seed, lang, sandbox) -> None:
    """Grade SUBMISSION (.py, .ipynb, folder or .zip) against the hidden tests.

    Given a class folder (one file or folder per student, named after the student: a folder's
    name, or a file's without .py, .ipynb or .zip), grade every entry in parallel into the
    gradebook. Exits 0 whenever grading ran, whatever the scores.
    """
    course = _course(ctx, sandbox)
    assignment = course.assignment(_assignment_ids(course, (assignment_id,))[0])
    if sum(map(bool, (submitted_at, metadata, file_times))) > 1:
        raise click.UsageError("give one source of submission times: --submitted-at, --metadata or --file-times")
    if batch or (batch is None and _is_class_folder(submission, assignment)):
        misplaced = _given(ctx, SINGLE_SUBMISSION_OPTIONS)
        if misplaced:
            raise click.UsageError(
                f"{', '.join(misplaced)} apply to one submission, and {submission} is a class folder: its results go "
                "into the gradebook (--gradebook; export with `attn-course gradebook`), its submission times come "
                "from a submitted_at.csv (student,submitted_at) in it")
        from autograder.sandbox.headstart import discard

        discard()  # a class folder's workers come from its grading processes
        _grade_class(ctx, course, assignment, submission, jobs, gradebook_path, regrade, file_times, student, shard)
        return
    misplaced = _given(ctx, CLASS_FOLDER_OPTIONS)
    if misplaced:
        raise click.UsageError(f"{', '.join(misplaced)} apply to a class folder, and {submission} is one submission")
    _prestart_worker(course)
    from autograder.grade.api import grade_submission

    from autograder.gradebook.extensions import submission_course

    submitted = _submission_time(submission, submitted_at, metadata, file_times)
    course = submission_course(course, course_file(ctx), assignment.id, student, metadata)
    result = grade_submission(course, assignment.id, submission, submitted=submitted, seed=seed)
    text = FORMATS[output_format].render(result, feedback_language(course, lang))
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        click.echo(f"{result.score:g}/{result.max_score:g} -> {out}")
    else:
        click.echo(text, nl=False)


def _shard(value: str | None):
    from autograder.gradebook.shard import parse_shard

    try:
        return parse_shard(value) if value is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--shard'") from None


def _submission_time(submission: Path, submitted_at, metadata: Path | None, file_times: bool):
    """When one submission was handed in, from the one source given (none: no late penalty)."""
    from autograder.grade.submitted import SubmissionTime, TimeSource, file_time, gradescope_time

    if metadata is not None:
        return gradescope_time(metadata)
    if file_times:
        return SubmissionTime(file_time(submission), TimeSource.FILE_TIME)
    return SubmissionTime(submitted_at, TimeSource.OPTION) if submitted_at else SubmissionTime()


@main.group(invoke_without_command=True)
@click.option("--gradebook", "gradebook_path", type=click.Path(path_type=Path, dir_okay=False), default=DEFAULT_GRADEBOOK,
              show_default=True, help="The SQLite gradebook to read (what `attn-course grade` wrote).")
@click.option("--assignment", "assignment_id", help="Only this assignment (an id of course.yml).")
@click.option("--csv", "csv_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the class table (a column per assignment, totals) as CSV.")
@click.option("--feedback", "feedback_dir", type=click.Path(path_type=Path, file_okay=False),
              help="Write each student's feedback here: feedback.txt, feedback.html and results.json per assignment, "
              "and students.csv mapping students to their folders.")
@click.option("--html", "html_path", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the class report as one HTML page: the class table, a score histogram per question and "
              "the most frequent diagnoses.")
@click.option("--details", type=click.Path(path_type=Path, file_okay=False),
              help="Write one CSV per assignment here: a column per question, raw score, late days, penalty, max points.")
@click.option("--canvas", type=click.Path(path_type=Path, dir_okay=False), help="Write Canvas's gradebook import CSV.")
@click.option("--moodle", type=click.Path(path_type=Path, dir_okay=False), help="Write Moodle's grade import CSV.")
@click.option("--similarity", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="The class folder of --assignment: flag similar submissions in the class report (never a penalty).")
@LANG_OPTION
@common_options
@click.pass_context
def gradebook(ctx, gradebook_path: Path, assignment_id: str | None, csv_path: Path | None, feedback_dir: Path | None,
              html_path: Path | None, details: Path | None, canvas: Path | None, moodle: Path | None,
              similarity: Path | None, lang: str | None) -> None:
    """Print the gradebook and export it (overrides applied); its subcommands change it."""
    if ctx.invoked_subcommand:
        return
    from autograder.batch.progress import make_console, rows_table
    from autograder.gradebook.export import write_csv
    from autograder.gradebook.store import gradebook_problem

    course = _course(ctx)
    if not gradebook_path.exists():
        raise click.BadParameter(f"no gradebook at {gradebook_path}: grade a class folder first", param_hint="'--gradebook'")
    problem = gradebook_problem(gradebook_path)
    if problem:
        raise click.BadParameter(f"{gradebook_path} is not a gradebook: {problem}", param_hint="'--gradebook'")
    if assignment_id is not None and assignment_id not in {a.id for a in course.assignments}:
        known = ", ".join(a.id for a in course.assignments)
        raise click.BadParameter(f"no assignment {assignment_id!r} in {course_file(ctx)} (known: {known})",
                                 param_hint="'--assignment'")
    from autograder.gradebook.command import current_rows

    rows, roster = current_rows(gradebook_path, assignment_id)  # roster: every student's feedback folder, whatever the assignment
    console = make_console()
    if not is_quiet(ctx):
        console.print(rows_table(rows, f"gradebook {gradebook_path}"))
    ids = [a.id for a in course.assignments]
    if csv_path:
        from autograder.gradebook.roster import course_roster

        write_csv(rows, ids, csv_path, course_roster(course, course_file(ctx)))
        console.print(f"CSV -> {csv_path}", soft_wrap=True)
    from autograder.gradebook.command import write_lms_files

    for line in write_lms_files(course, course_file(ctx), rows, assignment_id, details=details, canvas=canvas, moodle=moodle):
        click.echo(line)
    if feedback_dir:
        from autograder.gradebook.release import write_feedback_by_release

        for line in write_feedback_by_release(course, course_file(ctx), rows, feedback_dir, feedback_language(course, lang), roster):
            click.echo(line)  # not rich's print: a folder name left by someone else is never markup
    from autograder.gradebook.command import report_rows_and_strangers, similarity_sections

    sections, flagged = similarity_sections(course, assignment_id, similarity)
    for line in flagged:
        click.echo(line)
    if html_path:
        from autograder.gradebook.class_report import write_class_report

        shown, strangers = report_rows_and_strangers(course, course_file(ctx), rows, assignment_id)
        write_class_report(course, shown, html_path, title=f"{course.course.name}: {assignment_id or 'all assignments'}",
                           sections=(strangers, *sections))
        console.print(f"class report -> {html_path}", soft_wrap=True)


@gradebook.command("override")
@click.argument("student")
@click.argument("assignment_id")
@click.option("--score", type=float, help="The assignment's score (penalties included).")
@click.option("--question", help="A question (its number or function) whose points --points sets.")
@click.option("--points", type=float, help="The question's points (the late and import penalties still apply).")
@click.option("--reason", required=True, help="Why: kept with who and when, and listed by every regrade.")
@click.option("--by", "who", help="Who sets it (default: the user running the command).")
@click.option("--gradebook", "gradebook_path", type=click.Path(path_type=Path, dir_okay=False), default=DEFAULT_GRADEBOOK,
              show_default=True, help="The SQLite gradebook.")
@common_options
@click.pass_context
def override(ctx, student, assignment_id, score, question, points, reason, who, gradebook_path) -> None:
    """Set STUDENT's score of ASSIGNMENT_ID (or one question's points) by hand; it survives regrades."""
    from autograder.gradebook.override import main as override_main

    click.echo(override_main(_course(ctx), gradebook_path, student, assignment_id, score=score, question=question,
                             points=points, reason=reason, who=who))


@gradebook.command("release")
@click.argument("assignment_id")
@click.option("--feedback", "feedback_dir", required=True, type=click.Path(path_type=Path, file_okay=False),
              help="The feedback folder to publish into (its held folder is FOLDER.held).")
@click.option("--gradebook", "gradebook_path", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              default=DEFAULT_GRADEBOOK, show_default=True, help="The SQLite gradebook.")
@click.option("--by", "who", help="Who publishes (default: the user running the command).")
@LANG_OPTION
@common_options
@click.pass_context
def release(ctx, assignment_id, feedback_dir, gradebook_path, who, lang) -> None:
    """Publish ASSIGNMENT_ID's feedback into the feedback folder, rendered from the gradebook now."""
    from autograder.gradebook.command import release_feedback

    course = _course(ctx)
    click.echo(release_feedback(course, course_file(ctx), gradebook_path, assignment_id, feedback_dir,
                                feedback_language(course, lang), who))


@gradebook.command("merge")
@click.argument("out", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@common_options
def merge(out: Path, shards: tuple[Path, ...]) -> None:
    """Merge the SHARDS' gradebooks into OUT (idempotent: a row merged twice is one row); exit 1 on a conflict."""
    from autograder.gradebook.merge import main as merge_main

    lines, conflicted = merge_main(out, list(shards))
    click.echo("\n".join(lines))
    if conflicted:
        raise SystemExit(1)


for _command in (trace, variance, config, build_command, kit, check_command, new_command, demo, export):
    main.add_command(_command)


def run() -> None:
    """The ``attn-course`` program (see :func:`~autograder.cli_common.run_and_exit`)."""
    run_and_exit(main)


if __name__ == "__main__":
    run()
