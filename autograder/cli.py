"""``attn-course``: a thin command line over the autograder's API.

Subcommands import what they need when they run, so each starts fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from autograder.config import DEFAULT_COURSE_FILE, ConfigError


class CourseCommandError(click.ClickException):
    """A user-facing error: printed without a traceback, exit code 1."""


def _course(ctx: click.Context):
    from autograder.config import load_course

    try:
        return load_course(ctx.obj["course_file"])
    except ConfigError as error:
        raise CourseCommandError(str(error)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--d-k", "d_ks", multiple=True, type=click.IntRange(min=1), default=(4, 16, 64, 256, 1024), show_default=True)
@click.option("--samples", type=click.IntRange(min=2), default=10_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
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


@main.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("demo-output"), show_default=True)
@click.pass_context
def demo(ctx: click.Context, out: Path) -> None:
    """The main job on the bundled example: trace, variance table, heatmap."""
    _course(ctx)
    ctx.invoke(trace, heatmap=out / "attention_heatmap.png")
    click.echo("\nThe d_k variance experiment (10,000 samples per row, seed 0):")
    ctx.invoke(variance, d_ks=(4, 16, 64, 256, 1024), samples=10_000, seed=0)


if __name__ == "__main__":
    sys.exit(main())
