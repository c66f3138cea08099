"""``attn-course export TARGET``: the course for a platform (each target in :mod:`autograder.export`)."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.build.command import _assignment_ids
from autograder.cli_common import LANG_OPTION, LazyHelpCommand, RegistryChoice, common_options, feedback_language, load_ctx_course


def _export_targets() -> dict:
    from autograder.export import TARGETS

    return TARGETS


def _export_help() -> str:
    return "Export the course to TARGET (all assignments by default): " + "; ".join(
        f"{name}, {target.description}" for name, target in _export_targets().items()) + ". Exports are generated, never edited."


@click.command(name="export", cls=LazyHelpCommand, help=_export_help)
@click.argument("target", type=RegistryChoice(_export_targets))
@click.argument("assignment_ids", nargs=-1)
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), required=True, help="The folder to write the export into.")
@click.option("--force", is_flag=True, help="Replace the contents of a non-empty --out folder.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="The seed the hidden tests draw from on nbgrader and otter (default: a hash of the course name and "
              "the assignment id); `attn-course grade --seed` with it gives the same scores.")
@click.option("--package", default=None, help="The pip requirement CI installs the grader from (GitHub; default: this version).")
@LANG_OPTION
@common_options
@click.pass_context
def export(ctx, target: str, assignment_ids: tuple[str, ...], out: Path, force: bool, seed: int | None, package: str | None,
           lang: str | None) -> None:
    from autograder.export import ExportContext, export_to
    from autograder.export.target import DEFAULT_PACKAGE

    course = load_ctx_course(ctx)
    ids = tuple(_assignment_ids(course, assignment_ids))
    context = ExportContext(course, Path(ctx.obj["course_file"]), ids, {i: seed for i in ids} if seed is not None else {},
                            package or DEFAULT_PACKAGE, feedback_language(course, lang))
    written = export_to(_export_targets()[target], context, out, force=force)
    for assignment_id in ids:
        click.echo(f"{assignment_id}: seed {context.spec(assignment_id).seed}")
    click.echo(f"{target}: {len(written)} files in {out}")
