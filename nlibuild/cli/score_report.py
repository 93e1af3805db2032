"""`nlibuild score report`: what a score run says, one table per section (see
nlibuild/scores/score_report.py for the statistics and the papers behind them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    err,
    format_option,
    open_store,
    out,
    refuse_outputs,
    state_of,
    table_folder_option,
    user_errors,
)
from nlibuild.models import ScoreReport, ScoreReportConfig, SelectRule, TableFormat
from nlibuild.options import choice, default_text
from nlibuild.render import NamedTable, check_table_folder, render_tables, write_tables

_RULES = ", ".join(rule.value for rule in SelectRule)


def report_tables(report: ScoreReport) -> list[NamedTable]:
    """One table a section, accuracy by checkpoint selection first (the main one); the
    columns are snake_case keys, which `render.HEADERS` shows as the papers' headers."""
    rule = report.select.value
    return [
        NamedTable("score-accuracy", f"Test accuracy by checkpoint selection (mean over seeds; "
         f"{report.ci:g} bootstrap interval over test rows)", ["group", "lang", "select",
         "accuracy", "low", "high", "seeds"], [(r.group, r.lang, r.select, r.accuracy, r.low,
         r.high, r.seeds) for r in report.accuracy]),
        NamedTable("score-gaps", "Selection gaps (Keung et al. Table 5): target dev, their "
         "oracle, and the test-selected ceiling, minus En dev", ["group", "lang", "en_dev",
         "target_dev", "oracle", "target_dev_gain", "oracle_gain"],
         [(r.group, r.lang, r.en_dev, r.target_dev, r.oracle, r.target_dev_gain, r.oracle_gain)
          for r in report.gaps]),
        NamedTable("score-spread", "Target test accuracy across seeds under En-dev selection "
         "(Keung et al. Table 2)", ["group", "lang", "seeds", "min", "max", "spread"],
         [(r.group, r.lang, r.seeds, r.min, r.max, r.spread) for r in report.spread]),
        NamedTable("score-agreement", "Directional agreement with target test (Keung et al. "
         "Table 3)", ["group", "lang", "checkpoint_pairs", "sampled", "en_dev_agrees",
         "target_dev_agrees"], [(r.group, r.lang, r.pairs, r.sampled, r.en_dev, r.target_dev)
          for r in report.agreement]),
        NamedTable("score-transfer", f"Cross-lingual transfer gap (XTREME), {rule} selection",
         ["group", "select", "train_lang", "train_accuracy", "others_mean", "gap"],
         [(r.group, r.select, r.train_lang, r.train_accuracy, r.others_mean, r.gap)
          for r in report.transfer]),
        NamedTable("score-slices", f"Test accuracy per slice at the {rule} checkpoint (OCNLI "
         "Table 7 style)", ["group", "lang", "slice", "value", "accuracy", "rows"],
         [(r.group, r.lang, r.slice, r.value, r.accuracy, r.total) for r in report.slices]),
        NamedTable("score-baselines", "Baselines (score baselines): the floor",
         ["baseline", "lang", "accuracy", "rows"],
         [(r.baseline, r.lang, r.accuracy, r.total) for r in report.baselines]),
    ]  # fmt: skip


def render_report(report: ScoreReport, fmt: TableFormat, out_dir: Path | None) -> None:
    tables = report_tables(report)
    notes = out if fmt is TableFormat.TABLE else err  # a machine format stays clean
    if out_dir is not None:
        written = write_tables(out_dir, [t for t in tables if t.rows], fmt)
        notes = out
        notes.print(f"Wrote {', '.join(str(p) for p in written)}", markup=False)
    else:
        render_tables(out, err, tables, fmt)
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
        out_dir: Annotated[Path | None, table_folder_option()] = None,
    ) -> None:
        """Test accuracy by checkpoint selection, Keung et al.'s Tables 2, 3 and 5, the
        transfer gap, per-slice accuracy and the baselines of a score run.

        Examples:

        \b
          nlibuild --db corpus.db score baselines
          nlibuild --db corpus.db score report
        """
        from nlibuild.scores.score_report import score_report

        with user_errors():
            fmt = choice(TableFormat, format, "--format")
            if out_dir is not None:
                refuse_outputs(ctx, out=out_dir)
                check_table_folder(out_dir, fmt)
            rule = choice(SelectRule, select, "--select") if select else None
            given = {"run": run, "ci": ci, "seed": seed, "select": rule}
            cfg = ScoreReportConfig(**{k: v for k, v in given.items() if v is not None})
            store = open_store(state_of(ctx))
            with store:
                result = score_report(store, cfg)
        render_report(result, fmt, out_dir)
