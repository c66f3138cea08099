"""``attn-course nbgrader-grade``: grade nbgrader's ``submitted/`` in our sandbox, scores and feedback into nbgrader."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import LANG_OPTION, common_options, feedback_language, load_ctx_course


@click.command("nbgrader-grade")
@click.argument("assignment_id")
@click.option("--nbgrader-dir", type=click.Path(path_type=Path, file_okay=False, exists=True), default=Path("."),
              show_default=True, help="The nbgrader course directory (what `attn-course export nbgrader` wrote, released "
              "with `nbgrader generate_assignment`).")
@LANG_OPTION
@common_options
@click.pass_context
def nbgrader_grade(ctx: click.Context, assignment_id: str, nbgrader_dir: Path, lang: str | None) -> None:
    """Grade every submitted/<student>/<assignment>/ notebook with the sandboxed engine (diagnoses, error carried
    forward, import and late policies) and write the scores and feedback into nbgrader's gradebook.db and feedback/."""
    from autograder.export.nbgrader_grade import grade_submitted

    course = load_ctx_course(ctx)
    if assignment_id not in {a.id for a in course.assignments}:
        raise click.BadParameter(f"no assignment {assignment_id!r} in course.yml", param_hint="'ASSIGNMENT_ID'")
    graded = grade_submitted(course, nbgrader_dir, assignment_id, feedback_language(course, lang))
    for entry, result in graded:
        click.echo(f"{entry.student} {entry.assignment}: {result.score:g} / {result.max_score:g}")
    click.echo(f"{len(graded)} submission(s) written to {nbgrader_dir / 'gradebook.db'} and {nbgrader_dir / 'feedback'}")
