"""``attn-course kit``: build the student kit wheel."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import common_options, is_quiet


@click.command()
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("dist"), show_default=True,
              help="Folder to write the kit wheel into.")
@common_options
@click.pass_context
def kit(ctx: click.Context, out: Path) -> None:
    """Build the student kit: a wheel holding `attn-course check` only (no reference, no hidden tests).

    Hand it out with the releases; students install it with pip (see a release's README).
    """
    from autograder.kit.wheel import write_kit

    path = write_kit(out)
    click.echo(path if is_quiet(ctx) else f"student kit -> {path}")
