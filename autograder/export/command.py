"""``attn-course export TARGET``: the course for a platform, one subcommand per registered target.

Each target (:data:`autograder.export.TARGETS`) declares the options only it takes
(:attr:`~autograder.export.target.ExportTarget.options`), as pytest's plugins own theirs; the
options every export shares are declared here once. Targets are loaded only when an export
subcommand is named or listed, so starting the command line imports none of them.
"""

from __future__ import annotations

from pathlib import Path

import click

from autograder.build.command import _assignment_ids
from autograder.cli_common import LANG_OPTION, common_options, feedback_language, load_ctx_course


def _export_targets() -> dict:
    from autograder.export import TARGETS

    return TARGETS


def _run(ctx: click.Context, target, assignment_ids: tuple[str, ...], out: Path, force: bool, lang: str | None,
         own: dict) -> None:
    from autograder.export import ExportContext, export_to
    from autograder.export.target import context_values

    course = load_ctx_course(ctx)
    ids = tuple(_assignment_ids(course, assignment_ids))
    context = ExportContext(course, Path(ctx.find_root().obj["course_file"]), ids,
                            language=feedback_language(course, lang), **context_values(ids, own))
    written = export_to(target, context, out, force=force)
    for assignment_id in ids:
        click.echo(f"{assignment_id}: seed {context.spec(assignment_id).seed}")
    click.echo(f"{target.name}: {len(written)} files in {out}")


def target_command(target) -> click.Command:
    """The ``export NAME`` subcommand of one target: the shared options, then the target's own."""

    @click.pass_context
    def export_target(ctx, assignment_ids, out, force, lang, **own):
        _run(ctx, target, assignment_ids, out, force, lang, own)

    command = click.Command(
        target.name, callback=export_target,
        help=f"Export the course to {target.name}, {target.description} (all assignments by default). "
        "Exports are generated, never edited.",
        short_help=target.description,
        params=[click.Argument(["assignment_ids"], nargs=-1),
                click.Option(["--out"], type=click.Path(path_type=Path, file_okay=False), required=True,
                             help="The folder to write the export into."),
                click.Option(["--force"], is_flag=True, help="Replace the contents of a non-empty --out folder."),
                *target.options])
    return common_options(LANG_OPTION(command))


class ExportCommands(click.Group):
    """The export subcommands, one per registered target, made when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_export_targets())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = _export_targets().get(name)
        return None if target is None else target_command(target)


@click.group(name="export", cls=ExportCommands, subcommand_metavar="TARGET [ASSIGNMENT_ID]... --out DIR")
@common_options
def export() -> None:
    """Export the course to a platform: TARGET is one of the commands below. Exports are generated, never edited."""
