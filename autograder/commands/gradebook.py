"""``attn-course gradebook``: print and export the gradebook; its subcommands change it (override, release, merge)."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import LANG_OPTION, common_options, course_file, feedback_language, is_quiet, load_ctx_course

DEFAULT_GRADEBOOK = Path("gradebook.sqlite3")


@click.group(invoke_without_command=True)
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

    course = load_ctx_course(ctx)
    if not gradebook_path.exists():
        raise click.BadParameter(f"no gradebook at {gradebook_path}: grade a class folder first", param_hint="'--gradebook'")
    problem = gradebook_problem(gradebook_path)
    if problem:
        raise click.BadParameter(f"{gradebook_path} is not a gradebook: {problem}", param_hint="'--gradebook'")
    if assignment_id is not None and assignment_id not in {a.id for a in course.assignments}:
        known = ", ".join(a.id for a in course.assignments)
        raise click.BadParameter(f"no assignment {assignment_id!r} in {course_file(ctx)} (known: {known})",
                                 param_hint="'--assignment'")
    from autograder.gradebook.actions import current_rows

    rows, roster = current_rows(gradebook_path, assignment_id, course)  # roster: every student's feedback folder, whatever the assignment
    console = make_console()
    if not is_quiet(ctx):
        console.print(rows_table(rows, f"gradebook {gradebook_path}"))
    ids = [a.id for a in course.assignments]
    if csv_path:
        from autograder.gradebook.roster import course_roster

        write_csv(rows, ids, csv_path, course_roster(course, course_file(ctx)))
        console.print(f"CSV -> {csv_path}", soft_wrap=True)
    from autograder.gradebook.actions import write_lms_files

    for line in write_lms_files(course, course_file(ctx), rows, assignment_id, details=details, canvas=canvas, moodle=moodle):
        click.echo(line)
    if feedback_dir:
        from autograder.gradebook.release import write_feedback_by_release

        for line in write_feedback_by_release(course, course_file(ctx), rows, feedback_dir, feedback_language(course, lang), roster):
            click.echo(line)  # not rich's print: a folder name left by someone else is never markup
    from autograder.gradebook.actions import report_rows_and_strangers, similarity_sections

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

    click.echo(override_main(load_ctx_course(ctx), gradebook_path, student, assignment_id, score=score, question=question,
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
    from autograder.gradebook.actions import release_feedback

    course = load_ctx_course(ctx)
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
