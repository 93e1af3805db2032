"""`aggregate-labels`: gold labels from the votes."""

from __future__ import annotations

from typing import Annotated

import typer

from nlibuild.cli.common import print_outcome, state_of, user_errors
from nlibuild.invoke import invoke_at
from nlibuild.models import AggregateConfig, AggregateMethod
from nlibuild.options import choice, default_text, min_agree_option


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
    more than any other, else '-'.

    Pairs with other numbers of votes than the preset's (5) get a warning saying what was
    applied. Extra labels count as votes but are never gold; a pair with only its author's vote
    keeps it (unvalidated). Ties give '-', whatever the vote order.

    Examples:

    \b
      nlibuild --db corpus.db aggregate-labels
      nlibuild --db corpus.db aggregate-labels --method dawid-skene
      nlibuild --db corpus.db aggregate-labels --min-agree 0.6
    """
    from nlibuild.stages.aggregate import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            min_agree=min_agree_option(min_agree),
            method=choice(AggregateMethod, method, "--method") if method else None,
        )
    print_outcome(outcome)
