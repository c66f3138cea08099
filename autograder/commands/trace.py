"""``attn-course trace``: the chapter's 3-token worked example, step by step."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import common_options


@click.command()
@click.option("--heatmap", type=click.Path(path_type=Path), help="Also write the three-panel heatmap PNG here.")
@common_options
def trace(heatmap: Path | None) -> None:
    """Print the chapter's 3-token worked example step by step."""
    from attn_reference import trace as worked

    example = worked.worked_example()
    click.echo(worked.format_trace(example))
    if heatmap:
        heatmap.parent.mkdir(parents=True, exist_ok=True)
        worked.write_heatmap(example, heatmap)
        click.echo(f"\nheatmap written to {heatmap}")
