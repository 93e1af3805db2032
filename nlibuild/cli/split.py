"""`split`: dev and test from relabelled pairs with a gold label, the rest train."""

from __future__ import annotations

from typing import Annotated

import typer

from nlibuild.cli.common import print_outcome, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.invoke import invoke_at
from nlibuild.models import SplitConfig
from nlibuild.options import choice, default_text, split_list


def split(
    ctx: typer.Context,
    dev: Annotated[int, typer.Option(help="Pairs in dev.")],
    test: Annotated[int, typer.Option(help="Pairs in test.")],
    protocol: Annotated[
        list[str] | None,
        typer.Option("--protocol", help="Draw dev/test only from pairs of these protocols."),
    ] = None,
    balance: Annotated[
        str | None, typer.Option(help="level: as many easy, medium and hard pairs in dev/test.")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help=f"Random seed (default {default_text(SplitConfig, 'seed')})."),
    ] = None,
    draw_from: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="validated: dev/test from relabelled pairs with a gold label (OCNLI); "
            "labelled: from any pair with a gold label "
            f"(default {default_text(SplitConfig, 'draw_from')}).",
        ),
    ] = None,
    group_by: Annotated[
        str | None,
        typer.Option(
            "--group-by",
            help="premise: all pairs of a premise in one split; pair: each pair on its own "
            "(premises may then leak across splits, and the closing line says so) "
            f"(default {default_text(SplitConfig, 'group_by')}).",
        ),
    ] = None,
    by_round: Annotated[
        bool,
        typer.Option(
            "--by-round",
            help="Each adversarial round (elicit create --round) gets its own dev and test "
            "of --dev and --test pairs, as ANLI's R1, R2, R3; pairs of no round are train.",
        ),
    ] = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Replace the splits the store already has (an earlier split, or a corpus "
            "imported with --split); without it such a store is refused.",
        ),
    ] = False,
) -> None:
    """Dev and test from relabelled pairs with a gold label (OCNLI 3.4), the rest train.

    All pairs of a premise stay in one split, and the closing line says whether any
    premise is shared across splits.

    Examples:

    \b
      nlibuild --db corpus.db split --dev 10 --test 10 --from labelled --group-by pair
    """
    from nlibuild.models import Protocol, SplitGrouping, SplitSource
    from nlibuild.stages.split import STAGE

    with user_errors():
        if balance not in (None, "level"):
            raise ConfigError(f"--balance {balance!r}: only 'level' is supported")
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            dev=dev,
            test=test,
            protocols=tuple(choice(Protocol, p.upper(), "--protocol") for p in split_list(protocol))
            if protocol is not None
            else None,
            balance_level=True if balance == "level" else None,
            seed=seed,
            draw_from=choice(SplitSource, draw_from, "--from") if draw_from is not None else None,
            group_by=choice(SplitGrouping, group_by, "--group-by")
            if group_by is not None
            else None,
            by_round=by_round,
            replace=replace,
        )
    print_outcome(outcome)
