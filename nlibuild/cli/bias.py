"""`nlibuild bias hypothesis-only`: the annotation-artifact baseline, as a typer group, and
its renderer. (The artifact tables pmi and cues are `stats` tables.)"""

from __future__ import annotations

from typing import Annotated

import typer

from nlibuild.cli.common import format_option, out, print_outcome, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.invoke import invoke_at
from nlibuild.models import (
    ArtifactGroup,
    HypothesisOnlyConfig,
    HypothesisOnlyResult,
    TableFormat,
)
from nlibuild.options import choice, default_text, split_list
from nlibuild.render import render_table

bias_app = typer.Typer(
    help="Annotation-artifact baselines: what a model learns from one sentence alone."
    "\n\nExamples:\n\n\b\n"
    "  nlibuild --db corpus.db bias hypothesis-only --resamples 200\n",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@bias_app.command("hypothesis-only")
def hypothesis_only(
    ctx: typer.Context,
    train: Annotated[
        str | None, typer.Option(help="The split to train on (default train).")
    ] = None,
    eval: Annotated[
        list[str] | None, typer.Option("--eval", help="Splits to score (default dev,test).")
    ] = None,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Also per protocol, level, genre and/or author: a list (--by genre,protocol "
            "or --by genre --by protocol), one section per grouping.",
        ),
    ] = None,
    premise_only: Annotated[
        bool, typer.Option("--premise-only", help="Train on the premise instead (a sanity check).")
    ] = False,
    cross_validate: Annotated[
        int | None,
        typer.Option(
            "--cross-validate",
            help="K folds over every labelled pair (a premise's pairs in one fold) instead "
            "of --train/--eval: for a corpus without splits.",
        ),
    ] = None,
    lang: Annotated[
        str | None, typer.Option(help="Read the human translations into this language.")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the model, the folds and the bootstrap "
            f"(default {default_text(HypothesisOnlyConfig, 'seed')})."
        ),
    ] = None,
    ci: Annotated[
        float | None,
        typer.Option(
            help=f"Bootstrap interval level (default {default_text(HypothesisOnlyConfig, 'ci')})."
        ),
    ] = None,
    resamples: Annotated[
        int | None,
        typer.Option(
            help=f"Bootstrap resamples (default {default_text(HypothesisOnlyConfig, 'resamples')})."
        ),
    ] = None,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """Train a classifier on the hypotheses alone and report its accuracy beside the
    majority class.

    The classifier: TF-IDF over word 1-2-grams and character 2-4-grams, logistic regression
    (scikit-learn). Its accuracy is given per evaluation split and group beside the training
    data's majority class, with a bootstrap interval. Far above the majority means the
    hypotheses give the label away (OCNLI Table 7: about 65% on OCNLI, 62% on MNLI, against
    38%).

    Examples:

    \b
      nlibuild --db corpus.db bias hypothesis-only --resamples 200
      nlibuild --db corpus.db bias hypothesis-only --cross-validate 5 --resamples 200
    """
    from nlibuild.stages.artifacts import HYPOTHESIS_ONLY_STAGE

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        # The ranges of --ci and --cross-validate are the settings model's. This check is
        # on what was typed: --train and --eval have defaults, which folds ignore.
        if cross_validate is not None and (train is not None or eval):
            raise ConfigError(
                f"--cross-validate {cross_validate} scores folds of every labelled pair: "
                "leave out --train and --eval (or leave out --cross-validate)"
            )
        outcome = invoke_at(
            HYPOTHESIS_ONLY_STAGE,
            state_of(ctx).db,
            train=train,
            eval=split_list(eval) or None,
            by=tuple(choice(ArtifactGroup, b, "--by") for b in split_list(by))
            if by is not None
            else None,
            premise_only=premise_only,
            cross_validate=cross_validate,
            seed=seed,
            ci=ci,
            resamples=resamples,
            lang=lang,
        )
    _render_hypothesis_only(outcome.result, fmt, outcome.settings.ci)
    if fmt is TableFormat.TABLE:  # a machine format is the rows alone
        print_outcome(outcome)


def _render_hypothesis_only(result: HypothesisOnlyResult, fmt: TableFormat, ci: float) -> None:
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in result.rows) + "]", markup=False)
        return
    columns = list(result.rows[0].model_dump()) if result.rows else ["eval"]
    if fmt is TableFormat.CSV:
        render_table(out, "", columns,
                     [tuple(r.model_dump().values()) for r in result.rows], fmt)  # fmt: skip
        return
    render_table(
        out,
        f"{result.side.capitalize()}-only accuracy ({ci:.0%} bootstrap interval) beside the "
        "majority class",
        ["eval", "group", "pairs", "accuracy", "interval", "majority", "majority accuracy"],
        [(r.eval, r.group if r.group_by == "all" else f"{r.group_by} {r.group}", r.pairs,
          f"{r.accuracy:.1%}", f"{r.low:.1%}-{r.high:.1%}", r.majority_label,
          f"{r.majority_accuracy:.1%}") for r in result.rows],
        fmt,
    )  # fmt: skip
