"""`aggregate-labels`: gold labels from the votes."""

from __future__ import annotations

from typing import Annotated

import typer

from nlibuild.cli.common import err, open_store, out, state_of, user_errors
from nlibuild.models import AggregateConfig, AggregateMethod
from nlibuild.options import choice, default_text, min_agree_option, store_settings
from nlibuild.render import counted


def aggregate_labels(
    ctx: typer.Context,
    min_agree: Annotated[
        str | None,
        typer.Option(
            help="Votes an NLI label needs to be gold: a count (3) or a share of each pair's "
            "votes, rounded up (0.6: 3 of 5, 9 of 15) "
            f"(default {default_text(AggregateConfig, 'min_agree')} of "
            f"{default_text(AggregateConfig, 'votes_per_pair')})."
        ),
    ] = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="majority, or dawid-skene as well (stored beside it; majority stays gold) "
            f"(default {default_text(AggregateConfig, 'method')})."
        ),
    ] = None,
) -> None:
    """Gold labels from the votes: the NLI label with at least --min-agree of the votes and
    more than any other, else '-'. Pairs with other numbers of votes than the preset's (5)
    get a warning saying what was applied. Extra labels count as votes but are never gold;
    a pair with only its author's vote keeps it (unvalidated). Ties give '-', whatever the
    vote order.

    Examples:

    \b
      nlibuild --db corpus.db aggregate-labels
      nlibuild --db corpus.db aggregate-labels --method dawid-skene
      nlibuild --db corpus.db aggregate-labels --min-agree 0.6
    """
    from nlibuild.stages.aggregate import run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            cfg = store_settings(
                store,
                AggregateConfig,
                "aggregate",
                min_agree=min_agree_option(min_agree),
                method=choice(AggregateMethod, method, "--method") if method else None,
            )
            result = run(store, cfg)
    for warning in result.warnings:
        err.print(f"Warning: {warning}", markup=False)
    labels = ", ".join(f"{label} {n}" for label, n in result.by_label.items())
    extra = ""
    if result.released_disagreements is not None:
        extra += f"; {result.released_disagreements} differ from the released gold"
    if result.dawid_skene_disagreements is not None:
        extra += (
            f"; Dawid-Skene ({result.iterations} iterations) disagrees with the majority on "
            f"{counted(result.dawid_skene_disagreements, 'pair')}"
        )
    out.print(
        f"Aggregated {counted(result.pairs, 'pair')} by majority (at least {cfg.min_agree}): "
        f"{labels}; {result.validated} validated, {result.unvalidated} unvalidated (author "
        f"only){extra} (run {result.run_id}, {result.signature})",
        markup=False,
    )
