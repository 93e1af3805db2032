"""`nlibuild score report`: what a score run says, one table per section (see
nlibuild/score_report.py for the statistics and the papers behind them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import orjson
import typer

from nlibuild.cli.common import err, format_option, open_store, out, state_of, user_errors
from nlibuild.models import ScoreReport, ScoreReportConfig, SelectRule, TableFormat
from nlibuild.options import choice, default_text
from nlibuild.render import Cell, render_table

Section = tuple[str, list[str], list[tuple[Cell, ...]], int]
"""title, columns, rows, and how many leading columns say what a row is (the rest are
measures: the csv's tidy long form has one line per measure)."""

_RULES = ", ".join(rule.value for rule in SelectRule)


def report_sections(report: ScoreReport) -> list[Section]:
    rule = report.select.value
    return [
        (f"Test accuracy by checkpoint selection (mean over seeds; {report.ci:g} bootstrap "
         "interval over test rows)", ["group", "lang", "select", "accuracy", "low", "high",
         "seeds"], [(r.group, r.lang, r.select, r.accuracy, r.low, r.high, r.seeds)
                    for r in report.accuracy], 3),
        ("Selection gaps (Keung et al. Table 5): target dev, their oracle, and the "
         "test-selected ceiling, minus En dev", ["group", "lang", "en-dev", "target-dev",
         "oracle", "target-dev - en-dev", "oracle - en-dev"],
         [(r.group, r.lang, r.en_dev, r.target_dev, r.oracle, r.target_dev_gain, r.oracle_gain)
          for r in report.gaps], 2),
        ("Target test accuracy across seeds under En-dev selection (Keung et al. Table 2)",
         ["group", "lang", "seeds", "min", "max", "max - min"],
         [(r.group, r.lang, r.seeds, r.min, r.max, r.spread) for r in report.spread], 2),
        ("Directional agreement with target test (Keung et al. Table 3)",
         ["group", "lang", "checkpoint pairs", "sampled", "en dev", "target dev"],
         [(r.group, r.lang, r.pairs, r.sampled, r.en_dev, r.target_dev)
          for r in report.agreement], 2),
        (f"Cross-lingual transfer gap (XTREME), {rule} selection",
         ["group", "select", "train lang", "train accuracy", "others mean", "gap"],
         [(r.group, r.select, r.train_lang, r.train_accuracy, r.others_mean, r.gap)
          for r in report.transfer], 3),
        (f"Test accuracy per slice at the {rule} checkpoint (OCNLI Table 7 style)",
         ["group", "lang", "slice", "value", "accuracy", "rows"],
         [(r.group, r.lang, r.slice, r.value, r.accuracy, r.total) for r in report.slices], 4),
        ("Baselines (score baselines): the floor", ["baseline", "lang", "accuracy", "rows"],
         [(r.baseline, r.lang, r.accuracy, r.total) for r in report.baselines], 2),
    ]  # fmt: skip


def long_rows(sections: Sequence[Section]) -> list[tuple[Cell, ...]]:
    """Every section as tidy long rows: section, the row's key columns joined, measure, value."""
    rows: list[tuple[Cell, ...]] = []
    for number, (_, columns, section_rows, keys) in enumerate(sections, start=1):
        for row in section_rows:
            key = "/".join(str(cell) for cell in row[:keys])
            rows += [(number, key, columns[i], row[i]) for i in range(keys, len(columns))]
    return rows


def render_report(report: ScoreReport, fmt: TableFormat) -> None:
    if fmt is TableFormat.JSON:
        out.print(orjson.dumps(report.model_dump(mode="json")).decode(), markup=False)
        return
    sections = report_sections(report)
    if fmt is TableFormat.CSV:
        render_table(out, "", ["section", "row", "measure", "value"], long_rows(sections), fmt)
    else:
        for title, columns, rows, _ in sections:
            if not rows:
                continue
            if fmt is not TableFormat.TABLE:
                out.print(f"\n{title}\n", markup=False)
            render_table(out, title, columns, rows, fmt)
    notes = out if fmt is TableFormat.TABLE else err  # a machine format stays clean
    for note in report.notes:
        notes.print(note, markup=False)
    notes.print(f"score run {report.run_id}, {report.jobs} jobs", markup=False)


def register(app: typer.Typer) -> None:
    """Add `report` to the `score` group."""

    @app.command("report")
    def report(
        ctx: typer.Context,
        run: Annotated[
            int | None, typer.Option(help="The score run (default: the newest).")
        ] = None,
        select: Annotated[
            str | None,
            typer.Option(
                help=f"Checkpoint rule of the slice and transfer-gap tables: {_RULES} "
                f"(default {default_text(ScoreReportConfig, 'select')})."
            ),
        ] = None,
        ci: Annotated[
            float | None,
            typer.Option(
                help=f"Bootstrap interval level (default {default_text(ScoreReportConfig, 'ci')})."
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(
                help="Seed of the bootstrap and of the checkpoint-pair sample "
                f"(default {default_text(ScoreReportConfig, 'seed')})."
            ),
        ] = None,
        format: Annotated[str, format_option()] = TableFormat.TABLE.value,
    ) -> None:
        """Test accuracy by checkpoint selection, Keung et al.'s Tables 2, 3 and 5, the
        transfer gap, per-slice accuracy and the baselines of a score run.

        Examples:

        \b
          nlibuild --db corpus.db score baselines
          nlibuild --db corpus.db score report
        """
        from nlibuild.score_report import score_report

        with user_errors():
            fmt = choice(TableFormat, format, "--format")
            rule = choice(SelectRule, select, "--select") if select else None
            given = {"run": run, "ci": ci, "seed": seed, "select": rule}
            cfg = ScoreReportConfig(**{k: v for k, v in given.items() if v is not None})
            store = open_store(state_of(ctx))
            with store:
                result = score_report(store, cfg)
        render_report(result, fmt)
