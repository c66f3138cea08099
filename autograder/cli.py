"""``attn-course``: a thin command line over the autograder's API.

Subcommands import what they need when they run, so each starts fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from autograder.config import DEFAULT_COURSE_FILE
from autograder.languages import file_names_in_every_language
from autograder.errors import GraderError
from autograder.grade.report import FORMATS


class CourseCommandError(click.ClickException):
    """A user-facing error: printed without a traceback, exit code 1."""


class _Commands(click.Group):
    """The command group; the one place where a grader error becomes a message for the user."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except GraderError as error:  # ConfigError too: its message names the key and the line
            raise CourseCommandError(str(error)) from None


def _course(ctx: click.Context, sandbox: str | None = None):
    """course.yml, with the sandbox asked for by ``--sandbox`` (which must agree with ATTN_SANDBOX when both are set)."""
    from autograder.config import load_course

    course = load_course(ctx.obj["course_file"])
    if sandbox is None:
        return course
    from autograder.sandbox.isolation import ISOLATION_ENV

    if os.environ.get(ISOLATION_ENV, sandbox) != sandbox:
        raise CourseCommandError(f"--sandbox {sandbox} contradicts {ISOLATION_ENV}={os.environ[ISOLATION_ENV]}")
    return course.model_copy(update={"defaults": course.defaults.model_copy(update={"sandbox": sandbox})})


SANDBOX_OPTION = click.option(
    "--sandbox", type=click.Choice(["bwrap", "none"]), default=None,
    help="Isolation of student code (default: course.yml, bwrap): 'none' runs it without the sandbox, which is "
    "unsafe for untrusted code; use it only in a container that holds one submission (such as Gradescope's).",
)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--course",
    "course_file",
    type=click.Path(path_type=Path),
    default=DEFAULT_COURSE_FILE,
    show_default=True,
    help="The course configuration file.",
)
@click.version_option(package_name="attn-course")
@click.pass_context
def main(ctx: click.Context, course_file: Path) -> None:
    """Autograded courseware for the attention mechanism."""
    ctx.ensure_object(dict)
    ctx.obj["course_file"] = course_file


@main.command()
@click.option("--heatmap", type=click.Path(path_type=Path), help="Also write the three-panel heatmap PNG here.")
def trace(heatmap: Path | None) -> None:
    """Print the chapter's 3-token worked example step by step."""
    from attn_reference import trace as worked

    example = worked.worked_example()
    click.echo(worked.format_trace(example))
    if heatmap:
        heatmap.parent.mkdir(parents=True, exist_ok=True)
        worked.write_heatmap(example, heatmap)
        click.echo(f"\nheatmap written to {heatmap}")


@main.command()
@click.option("--d-k", "d_ks", multiple=True, type=click.IntRange(min=1), default=(1, 4, 16, 64, 256, 1024), show_default=True,
              help="A d_k of the table (repeat the option for several).")
@click.option("--samples", type=click.IntRange(min=2), default=10_000, show_default=True, help="(q, k) pairs per row.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the one generator every row draws from.")
def variance(d_ks: tuple[int, ...], samples: int, seed: int) -> None:
    """Run the d_k variance experiment: Var(q.k) grows like d_k; scaling brings it back to 1."""
    from attn_reference.variance import format_variance_table, variance_table

    click.echo(format_variance_table(variance_table(d_ks, samples, seed)))


@main.command()
@click.pass_context
def config(ctx: click.Context) -> None:
    """Validate course.yml and list every key with its default and description."""
    from autograder.config import describe_schema

    course = _course(ctx)
    click.echo(f"{ctx.obj['course_file']}: valid ({len(course.assignments)} assignments)\n")
    for key, default, description in describe_schema():
        click.echo(f"{key}\n    default: {default}\n    {description}")


def _prestart_worker(course) -> None:
    """Start the sandboxed worker now, so it warms up while the grader imports the rest."""
    from autograder.sandbox.spares import prestart

    prestart(course.defaults)


def _assignment_ids(course, ids: tuple[str, ...]) -> list[str]:
    return [course.assignment(i).id for i in ids] if ids else [a.id for a in course.assignments]


@main.command()
@click.argument("assignment_ids", nargs=-1)
@click.option("--check-only", is_flag=True, help="Do not write; fail if assignments/ differs from a fresh build or leaks.")
@click.pass_context
def build(ctx: click.Context, assignment_ids: tuple[str, ...], check_only: bool) -> None:
    """Generate the student releases in assignments/ from solutions/ (all assignments by default)."""
    from autograder.build import build_release, release_drift, write_release
    from autograder.build.leaks import course_forbidden_lines, find_leaks
    from autograder.paths import ASSIGNMENTS_DIR

    course = _course(ctx)
    forbidden = course_forbidden_lines(course) if check_only else {}
    drifted = []
    for assignment_id in _assignment_ids(course, assignment_ids):
        files = build_release(course, assignment_id)
        out = ASSIGNMENTS_DIR / assignment_id
        if check_only:
            drift = release_drift(files, out)
            drift += [f"leak of {leak.source}: {leak.release_file}:{leak.line_number}" for leak in find_leaks(files, forbidden)]
            drifted += [f"{assignment_id}: {line}" for line in drift]
            click.echo(f"{assignment_id}: {'up to date' if not drift else f'{len(drift)} difference(s)'}")
        else:
            written = write_release(files, out)
            click.echo(f"{assignment_id}: {len(written)} files in {out}")
    if drifted:
        raise CourseCommandError("assignments/ differs from a fresh build, or leaks:\n" + "\n".join(drifted))


@main.command()
@click.argument("assignment_id")
@click.argument("path", type=click.Path(path_type=Path), default=Path("."))
@SANDBOX_OPTION
@click.pass_context
def check(ctx: click.Context, assignment_id: str, path: Path, sandbox: str | None) -> None:
    """Run the public checks of ASSIGNMENT_ID on your module, notebook or folder (default: here)."""
    course = _course(ctx, sandbox)
    _prestart_worker(course)
    from autograder.check.api import check_submission, format_check

    report = check_submission(course, _assignment_ids(course, (assignment_id,))[0], path)
    click.echo(format_check(report))


DEFAULT_GRADEBOOK = Path("gradebook.sqlite3")
#: The report formats (name -> what it is), from the one registry of formats.
REPORT_FORMATS = {name: report_format.description for name, report_format in FORMATS.items()}


SUBMISSION_SUFFIXES = (".py", ".ipynb", ".zip")
NOT_SUBMISSIONS = ("__pycache__",)


def _looks_like_a_submission(path: Path) -> bool:
    if path.is_dir():
        return any(p.suffix in (".py", ".ipynb") for p in path.rglob("*"))
    return path.suffix in SUBMISSION_SUFFIXES


def _is_class_folder(path: Path, assignment) -> bool:
    """A folder of several students' entries, rather than one student's folder.

    One student's folder holds the assignment's module or notebook, or a single
    submission-like entry; ``__pycache__`` and hidden entries are not submissions.
    """
    own_files = (assignment.module, *file_names_in_every_language(assignment.notebook))
    if not path.is_dir() or any((path / name).exists() for name in own_files):
        return False
    entries = [
        p for p in path.iterdir()
        if not p.name.startswith(".") and p.name not in NOT_SUBMISSIONS and _looks_like_a_submission(p)
    ]
    return len(entries) > 1 or any(p.is_dir() or p.suffix == ".zip" for p in entries)


@main.command()
@click.argument("assignment_id")
@click.argument("submission", type=click.Path(path_type=Path))
@click.option("--format", "output_format", type=click.Choice(REPORT_FORMATS), default="text", show_default=True,
              help="Report format for one submission: " + "; ".join(f"{n}, {d}" for n, d in REPORT_FORMATS.items()) + ".")
@click.option("--out", type=click.Path(path_type=Path), help="Write the report here instead of standard output.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Grading processes for a class folder.")
@click.option("--gradebook", "gradebook_path", type=click.Path(path_type=Path), default=DEFAULT_GRADEBOOK, show_default=True, help="SQLite gradebook for a class folder.")
@click.option("--regrade", is_flag=True, help="Grade again entries already graded with the same bytes and grader version.")
@click.option("--batch/--single", "batch", default=None, help="Treat SUBMISSION as a class folder / one submission (default: guess).")
@click.option("--submitted-at", type=click.DateTime(formats=["%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z"]),
              help="When one submission was handed in (with time zone), for the late policy. A class folder takes its "
              "times from a submitted_at.csv (student,submitted_at) in it.")
@click.option("--metadata", type=click.Path(path_type=Path, dir_okay=False),
              help="Gradescope's submission_metadata.json: the submission time is its created_at.")
@click.option("--file-times", is_flag=True,
              help="Take submission times from file times (which unzip restores from the student's archive: untrusted).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Replay a grading run exactly: the seed its JSON result records (one submission; default: a fresh seed).")
@SANDBOX_OPTION
@click.pass_context
def grade(ctx, assignment_id, submission, output_format, out, jobs, gradebook_path, regrade, batch, submitted_at,
          metadata, file_times, seed, sandbox) -> None:
    """Grade SUBMISSION (.py, .ipynb, folder or .zip) against the hidden tests.

    Given a class folder (one file or folder per student, named after the student), grade
    every entry in parallel into the gradebook. Exits 0 whenever grading ran, whatever the scores.
    """
    course = _course(ctx, sandbox)
    assignment = course.assignment(_assignment_ids(course, (assignment_id,))[0])
    if sum(map(bool, (submitted_at, metadata, file_times))) > 1:
        raise CourseCommandError("give one source of submission times: --submitted-at, --metadata or --file-times")
    if batch or (batch is None and _is_class_folder(submission, assignment)):
        if submitted_at or metadata:
            raise CourseCommandError("a class folder takes its submission times from a submitted_at.csv in it "
                                     "(student,submitted_at), not from --submitted-at or --metadata")
        _grade_class(ctx, course, assignment, submission, jobs, gradebook_path, regrade, file_times)
        return
    _prestart_worker(course)
    from autograder.grade.api import grade_submission

    submitted = _submission_time(submission, submitted_at, metadata, file_times)
    result = grade_submission(course, assignment.id, submission, submitted=submitted, seed=seed)
    text = FORMATS[output_format].render(result)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        click.echo(f"{result.score:g}/{result.max_score:g} -> {out}")
    else:
        click.echo(text, nl=False)


def _submission_time(submission: Path, submitted_at, metadata: Path | None, file_times: bool):
    """When one submission was handed in, from the one source given (none: no late penalty)."""
    from autograder.grade.submitted import SubmissionTime, TimeSource, file_time, gradescope_time

    if metadata is not None:
        return gradescope_time(metadata)
    if file_times:
        return SubmissionTime(file_time(submission), TimeSource.FILE_TIME)
    return SubmissionTime(submitted_at, TimeSource.OPTION) if submitted_at else SubmissionTime()


def _grade_class(ctx, course, assignment, folder: Path, jobs: int, gradebook_path: Path, regrade: bool, file_times: bool) -> None:
    from autograder.batch.entries import list_entries
    from autograder.batch.progress import make_console, progress_bar, rows_table
    from autograder.batch.runner import grade_batch
    from autograder.grade.submitted import TIMES_CSV

    if not folder.is_dir():
        raise CourseCommandError(f"{folder} is not a folder")
    console = make_console()
    total = len(list_entries(folder))
    with progress_bar(console, total, f"grading {assignment.id}") as advance:
        summary = grade_batch(
            ctx.obj["course_file"], course, assignment.id, folder, gradebook_path,
            jobs=jobs, regrade=regrade, file_times=file_times, on_progress=advance,
        )
    console.print(rows_table(sorted(summary.rows, key=lambda r: r.student), f"{assignment.id}: this batch"))
    if not file_times and not (folder / TIMES_CSV).is_file():
        console.print(f"no {TIMES_CSV} in the class folder: no late penalty was applied (--file-times takes file times)")
    console.print(
        f"{summary.graded} graded, {summary.skipped} already graded (skipped), {summary.errors} grader errors "
        f"-> {gradebook_path}"
    )
    if summary.errors:
        raise CourseCommandError(
            f"the grader failed on {summary.errors} entries (rows with status 'error'); fix the cause and run again: "
            "only those entries are graded again"
        )


@main.command()
@click.option("--db", "gradebook_path", type=click.Path(path_type=Path), default=DEFAULT_GRADEBOOK, show_default=True)
@click.option("--assignment", "assignment_id", help="Only this assignment.")
@click.option("--csv", "csv_path", type=click.Path(path_type=Path), help="Write the class table (a column per assignment, totals) as CSV.")
@click.option("--feedback", "feedback_dir", type=click.Path(path_type=Path), help="Write results.json and feedback.txt per student here.")
@click.pass_context
def gradebook(ctx, gradebook_path: Path, assignment_id: str | None, csv_path: Path | None, feedback_dir: Path | None) -> None:
    """Print the gradebook and export it."""
    
    from autograder.batch.progress import make_console, rows_table
    from autograder.gradebook import Gradebook
    from autograder.gradebook.export import write_csv, write_feedback

    course = _course(ctx)
    if not gradebook_path.exists():
        raise CourseCommandError(f"no gradebook at {gradebook_path}: grade a class folder first")
    with Gradebook(gradebook_path) as book:
        rows = book.rows(assignment_id)
    console = make_console()
    console.print(rows_table(rows, f"gradebook {gradebook_path}"))
    if csv_path:
        write_csv(rows, [a.id for a in course.assignments], csv_path)
        console.print(f"CSV -> {csv_path}")
    if feedback_dir:
        folders = write_feedback(rows, feedback_dir)
        console.print(f"{len(folders)} feedback folders -> {feedback_dir}")


@main.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("demo-output"), show_default=True)
@click.pass_context
def demo(ctx: click.Context, out: Path) -> None:
    """The main job end to end: worked example, releases, a sample class graded into a gradebook."""
    
    from autograder.batch.progress import make_console
    from autograder.demo.run import build_all, grade_sample_classes, show_gradebook

    course = _course(ctx)
    console = make_console()
    ctx.invoke(trace, heatmap=out / "attention_heatmap.png")
    from attn_reference.variance import DEFAULT_D_KS, DEFAULT_SAMPLES, DEFAULT_SEED

    click.echo(f"\nThe d_k variance experiment ({DEFAULT_SAMPLES:,} samples per row, seed {DEFAULT_SEED}):")
    ctx.invoke(variance, d_ks=DEFAULT_D_KS, samples=DEFAULT_SAMPLES, seed=DEFAULT_SEED)
    console.rule("Student releases")
    build_all(course, console)
    console.rule("Grading the sample class (solution, stub, buggy and broken entries)")
    gradebook_path = grade_sample_classes(ctx.obj["course_file"], course, out, console)
    console.rule("Gradebook")
    show_gradebook(course, gradebook_path, out, console)


def _export_targets() -> dict:
    from autograder.export import TARGETS

    return TARGETS


@main.command(name="export", help="Export the course to TARGET (all assignments by default): " + "; ".join(
    f"{name}, {target.description}" for name, target in _export_targets().items()) + ". Exports are generated, never edited.")
@click.argument("target", type=click.Choice(list(_export_targets())))
@click.argument("assignment_ids", nargs=-1)
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True, help="The folder to write the export into.")
@click.option("--force", is_flag=True, help="Replace the contents of a non-empty --out folder.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="The seed the hidden tests draw from on nbgrader and otter (default: a hash of the course name and "
              "the assignment id); `attn-course grade --seed` with it gives the same scores.")
@click.option("--package", default=None, help="The pip requirement CI installs the grader from (GitHub; default: this version).")
@click.pass_context
def export(ctx, target: str, assignment_ids: tuple[str, ...], out: Path, force: bool, seed: int | None, package: str | None) -> None:
    from autograder.export import ExportContext, export_to
    from autograder.export.target import DEFAULT_PACKAGE

    course = _course(ctx)
    ids = tuple(_assignment_ids(course, assignment_ids))
    context = ExportContext(course, Path(ctx.obj["course_file"]), ids, {i: seed for i in ids} if seed is not None else {},
                            package or DEFAULT_PACKAGE)
    written = export_to(_export_targets()[target], context, out, force=force)
    for assignment_id in ids:
        click.echo(f"{assignment_id}: seed {context.spec(assignment_id).seed}")
    click.echo(f"{target}: {len(written)} files in {out}")

if __name__ == "__main__":
    sys.exit(main())
