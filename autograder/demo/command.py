"""``attn-course demo``: the main job end to end."""

from __future__ import annotations

from pathlib import Path

import click

from autograder.cli_common import common_options, course_file, is_quiet, load_ctx_course
from autograder.commands.trace import trace
from autograder.commands.variance import variance


@click.command()
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("demo-output"), show_default=True,
              help="Folder the demo writes into (the gradebook, its CSV, feedback pages and the class report).")
@common_options
@click.pass_context
def demo(ctx: click.Context, out: Path) -> None:
    """The main job end to end: worked example, releases, a sample class graded into a gradebook."""
    from autograder.batch.progress import make_console
    from autograder.demo.run import build_all, grade_sample_classes, show_gradebook

    course = load_ctx_course(ctx)
    console = make_console()
    ctx.invoke(trace, heatmap=out / "attention_heatmap.png")
    from attn_reference.variance import DEFAULT_D_KS, DEFAULT_SAMPLES, DEFAULT_SEED

    click.echo(f"\nThe d_k variance experiment ({DEFAULT_SAMPLES:,} samples per row, seed {DEFAULT_SEED}):")
    ctx.invoke(variance, d_ks=DEFAULT_D_KS, samples=DEFAULT_SAMPLES, seed=DEFAULT_SEED)
    console.rule("Student releases")
    build_all(course, console)
    from autograder.config import load_course
    from autograder.demo.classbook import demo_course, show_classbook

    console.rule("Grading the sample class (solution, stub, buggy and broken entries)")
    demo_file = demo_course(course_file(ctx), out)  # course.yml with a roster and extensions
    course = load_course(demo_file)
    gradebook_path = grade_sample_classes(demo_file, course, out, console, quiet=is_quiet(ctx))
    console.rule("Gradebook")
    show_gradebook(course, gradebook_path, out, console)
    console.rule("Class management: roster, extension, override, similarity, Canvas")
    show_classbook(course, demo_file, gradebook_path, out, console)
