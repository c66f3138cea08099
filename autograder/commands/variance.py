"""``attn-course variance``: the d_k variance experiment."""

from __future__ import annotations

import click

from autograder.cli_common import IntList, common_options


@click.command()
@click.option("--d-k", "d_ks", multiple=True, type=IntList(minimum=1),
              help="The d_k of the table's rows, comma-separated (--d-k 1,4,16) or the option repeated "
              "[default: 1,4,16,64,256,1024].")
@click.option("--samples", type=click.IntRange(min=2), default=10_000, show_default=True, help="(q, k) pairs per row.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the one generator every row draws from.")
@common_options
def variance(d_ks: tuple, samples: int, seed: int) -> None:
    """Run the d_k variance experiment: Var(q.k) grows like d_k; scaling brings it back to 1."""
    from attn_reference.variance import DEFAULT_D_KS, format_variance_table, variance_table

    flat = tuple(d for group in d_ks for d in (group if isinstance(group, tuple) else (group,)))
    click.echo(format_variance_table(variance_table(flat or DEFAULT_D_KS, samples, seed)))
