"""`stats --table model-loop`: the model in the writers' loop, round by round (ANLI, Nie et
al. 2020; issue 29): per round, protocol and writer, the pairs, the shares that fooled the
model and that validators verified, the tries per verified pair, and the round's model's
accuracy on the earlier rounds' test pairs (`scores/rounds.py`)."""

from __future__ import annotations

from rich.console import Console

from nlibuild.models import ModelLoopConfig, ModelLoopResult, ModelLoopRow, TableFormat
from nlibuild.render import Cell, counted, render_table
from nlibuild.stats import StatsOptions, StatsTable
from nlibuild.store import Store

UNAVAILABLE = "n.a."

COLUMNS = ("round", "protocol", "writer", "pairs", "fooled", "fooled_share", "verified",
           "verified_share", "fooled_unvalidated", "tries", "tries_per_verified", "model",
           "earlier_test_accuracy", "earlier_test_pairs")  # fmt: skip

NO_ROUND = "-"


def model_loop_settings(options: StatsOptions, store: Store) -> ModelLoopConfig:
    given = {"round": options.round, "out": options.out}
    return ModelLoopConfig(**{key: value for key, value in given.items() if value is not None})


def compute_model_loop(store: Store, settings: ModelLoopConfig) -> ModelLoopResult:
    from nlibuild.core.outputs import refuse_outputs_onto_store
    from nlibuild.scores.rounds import model_loop

    refuse_outputs_onto_store(store.path, settings)
    return model_loop(store, settings)


def model_loop_cells(row: ModelLoopRow) -> list[Cell]:
    """A row as the table shows it: a round's accuracy `n.a.` where its note says why."""
    accuracy: Cell = row.earlier_test_accuracy
    if accuracy is None and row.model is not None:
        accuracy = UNAVAILABLE
    return [NO_ROUND if row.round is None else row.round, row.protocol, row.writer, row.pairs,
            row.fooled, row.fooled_share, row.verified, row.verified_share,
            row.fooled_unvalidated, row.tries, row.tries_per_verified, row.model, accuracy,
            row.earlier_test_pairs]  # fmt: skip


def notes(result: ModelLoopResult, settings: ModelLoopConfig) -> list[str]:
    """The lines under the table: why a round's accuracy is missing, the fooled pairs that
    wait for validators, and what `--out` wrote."""
    lines = [
        f"round {NO_ROUND if row.round is None else row.round}: {row.accuracy_note}"
        for row in result.rows
        if row.accuracy_note
    ]
    waiting = sum(row.fooled_unvalidated for row in result.rows if row.model is not None)
    if waiting:
        lines.append(
            f"{counted(waiting, 'fooled pair')} without a validator's vote: verified counts "
            "a pair once validated and aggregated (`--out FILE` lists those not yet sent, for "
            "`relabel create --pairs FILE`)"
        )
    if result.written is not None:
        lines.append(f"{counted(result.written, 'pair ID')} written to {settings.out}")
    return lines


def render_model_loop(
    result: ModelLoopResult, settings: ModelLoopConfig, fmt: TableFormat, out: Console
) -> None:
    render_table(
        out,
        "The model in the loop (ANLI, Nie et al. 2020): per round, its model and its accuracy "
        "on earlier rounds' test pairs, then per protocol and writer",
        COLUMNS,
        [model_loop_cells(row) for row in result.rows],
        fmt,
        decimals=3,
    )
    if fmt is TableFormat.TABLE:
        for line in notes(result, settings):
            out.print(line, markup=False)


def model_loop_note(settings: ModelLoopConfig) -> str:
    return (
        "fooled: the model's label is not the writer's; verified: fooled, and the gold "
        "(aggregate-labels' majority, of a pair a validator voted on) is the writer's label; "
        "shares of the pairs; tries: model checks before submitting, all of them per verified "
        "pair; a round's model is the identity its pairs carry (job@step), tested on the "
        "earlier rounds' test split through its score job's round slice"
    )


TABLE = StatsTable(
    name="model-loop",
    rank=95,
    help="The model in the writers' loop (ANLI, Nie et al. 2020), for stores whose pairs "
    "were written with `serve --model`: per round (elicit create --round), then per protocol "
    "and writer, the pairs, those that fooled the model (its label is not the writer's), "
    "those verified (fooled, and the validators' gold is the writer's label), fooled pairs "
    "not yet validated, and the tries per verified pair; on a round's row its model and that "
    "model's accuracy on the earlier rounds' test pairs (from its score job, after split "
    "--by-round; n.a. with the reason otherwise). --round N shows one round; --out FILE "
    "writes the fooled pairs no validator has seen, one ID a line, for `relabel create "
    "--pairs FILE`.",
    options=frozenset({"round", "out"}),
    settings=model_loop_settings,
    compute=compute_model_loop,
    render=render_model_loop,
    note=model_loop_note,
    rows=lambda result, settings: result.rows,
)
