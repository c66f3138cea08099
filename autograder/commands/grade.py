"""``attn-course grade``: one submission, or a class folder into the gradebook."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.batch.command import grade_class as _grade_class, is_class_folder as _is_class_folder
from autograder.build.command import _assignment_ids
from autograder.cli_common import LANG_OPTION, SANDBOX_OPTION, common_options, course_file, feedback_language, load_ctx_course
from autograder.report.formats import FORMATS


def _prestart_worker(course) -> None:
    """Start the sandboxed worker now, so it warms up while the grader imports the rest."""
    from autograder.sandbox.spares import prestart

    prestart(course.defaults)


DEFAULT_GRADEBOOK = Path("gradebook.sqlite3")
#: The report formats (name -> what it is), from the one registry of formats.
REPORT_FORMATS = {name: report_format.description for name, report_format in FORMATS.items()}


#: Options that apply to one submission only, with how each reads on the command line.
#: The formats whose renderers take ``verbose`` (every failure message instead of the first few).
VERBOSE_FORMATS = ("text", "html")
SINGLE_SUBMISSION_OPTIONS = {"output_format": "--format", "out": "--out", "submitted_at": "--submitted-at",
                             "metadata": "--metadata", "seed": "--seed", "lang": "--lang", "verbose": "--verbose"}
#: Options that apply to a class folder only.
CLASS_FOLDER_OPTIONS = {"jobs": "--jobs", "gradebook_path": "--gradebook", "regrade": "--regrade", "shard": "--shard"}


def _given(ctx: click.Context, names: dict[str, str]) -> list[str]:
    """The options among ``names`` given on the command line (not left at their defaults)."""
    from click.core import ParameterSource

    return [flag for name, flag in names.items() if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)]


@click.command()
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
              help="Replay a grading run exactly: the seed its JSON result records (one submission; default: derived from "
              "the course's secret and the code, so the same code gets the same grade).")
@click.option("--verbose", is_flag=True,
              help="In the text and HTML reports, every failed test's message (default: the first three per question).")
@LANG_OPTION
@SANDBOX_OPTION
@common_options
@click.pass_context
def grade(ctx, assignment_id, submission, output_format, out, jobs, gradebook_path, regrade, shard, batch, submitted_at,
          metadata, student, file_times, seed, verbose, lang, sandbox) -> None:
    """Grade SUBMISSION (.py, .ipynb, folder or .zip) against the hidden tests.

    Given a class folder (one file or folder per student, named after the student: a folder's
    name, or a file's without .py, .ipynb or .zip), grade every entry in parallel into the
    gradebook. Exits 0 whenever grading ran, whatever the scores.
    """
    course = load_ctx_course(ctx, sandbox)
    assignment = course.assignment(_assignment_ids(course, (assignment_id,))[0])
    if seed is None:
        _keep_a_secret(course)
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
    extra = {"verbose": True} if verbose and output_format in VERBOSE_FORMATS else {}
    text = FORMATS[output_format].render(result, feedback_language(course, lang), **extra)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        click.echo(f"{result.score:g}/{result.max_score:g} -> {out}")
    else:
        click.echo(text, nl=False)


def _keep_a_secret(course) -> None:
    """Give the course its secret (once) so that every grade of the same code is the same
    (:mod:`autograder.seeding`); where its folder is read-only, seeds stay fresh and results say so."""
    from autograder.seeding import ensure_secret

    if course.layout.is_installed_bundle:  # its secret comes from ATTN_COURSE_SECRET: none made in site-packages
        return
    try:
        ensure_secret(course.layout.course_file)
    except OSError:
        pass


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
