"""`nlibuild score report`: what a score run says, one table per section (see
nlibuild/scores/score_report.py for the statistics and the papers behind them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
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
from nlibuild.errors import ConfigError
from nlibuild.models import (
    ConfigurationChoice,
    ReportLayout,
    ScoreReport,
    ScoreReportConfig,
    SelectRule,
    TableFormat,
)
from nlibuild.options import choice, default_text
from nlibuild.render import NamedTable, check_table_folder, render_tables, write_tables
from nlibuild.scores.score_tables import paper_tables, report_object, report_tables

_RULES = ", ".join(rule.value for rule in SelectRule)


def select_rule(given: str) -> SelectRule:
    """`--select`; `oracle`, the ceiling's old name, is refused with both rules it could
    mean, as Keung et al.'s "oracle" is target-dev selection."""
    if given.strip().lower() == "oracle":
        raise ConfigError(
            "--select oracle is ambiguous and no longer taken: give --select target-dev for "
            "Keung et al.'s oracle (the best target dev checkpoint) or --select test-ceiling "
            "for the best target test checkpoint (what `oracle` meant here before)"
        )
    return choice(SelectRule, given, "--select")


def layout_tables(report: ScoreReport, layout: ReportLayout) -> tuple[list[NamedTable], list[str]]:
    """The tables of `layout` and the notes: the report's and the layout's own."""
    if layout is ReportLayout.PAPER:
        tables, notes = paper_tables(report)
        return tables, [*report.notes, *notes]
    return report_tables(report), list(report.notes)


def render_report(
    report: ScoreReport, layout: ReportLayout, fmt: TableFormat, out_dir: Path | None
) -> None:
    tables, lines = layout_tables(report, layout)
    notes = out if fmt is TableFormat.TABLE else err  # a machine format stays clean
    if out_dir is not None:
        written = write_tables(out_dir, [t for t in tables if t.rows], fmt)
        notes = out
        notes.print(f"Wrote {', '.join(str(p) for p in written)}", markup=False)
    elif fmt is TableFormat.JSON:  # every section in one object, the notes in it
        text = orjson.dumps(report_object(report, tables, lines)).decode()
        out.print(text, markup=False, highlight=False, soft_wrap=True)
        lines = []
    else:
        render_tables(out, err, tables, fmt)
    for note in lines:
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
                help=f"Checkpoint rule of the slice and transfer-gap tables and of the paper "
                f"layout's accuracy table: {_RULES} "
                f"(default {default_text(ScoreReportConfig, 'select')}). target-dev is Keung "
                "et al.'s oracle; test-ceiling the best test checkpoint, a ceiling."
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
        per_seed: Annotated[
            bool,
            typer.Option(
                "--per-seed",
                help="Add a table of each seed's checkpoint and accuracies under every rule.",
            ),
        ] = False,
        per_checkpoint: Annotated[
            bool,
            typer.Option(
                "--per-checkpoint",
                help="Add a table of each seed's dev and test accuracy at every checkpoint "
                "(step and epoch): the numbers of the report page's accuracy-by-checkpoint "
                "chart.",
            ),
        ] = False,
        layout: Annotated[
            str,
            typer.Option(
                help="long: a row a group x language (x rule); paper: the papers' shape, "
                "models as rows, languages as columns plus their average (XTREME's avg), "
                "percentages, ready to paste (with --format md or latex)."
            ),
        ] = ReportLayout.LONG.value,
        configuration: Annotated[
            str,
            typer.Option(
                help="Of a sweep (score plan --lr 1e-5,2e-5): en-dev, the tables show per model "
                "and mode the configuration with the best mean En dev over its seeds (XTREME "
                "tunes on English dev); all, every configuration, each its own group. The "
                "configurations table says which was picked and the target-dev pick beside it."
            ),
        ] = ConfigurationChoice.EN_DEV.value,
        format: Annotated[str, format_option()] = TableFormat.TABLE.value,
        out_dir: Annotated[Path | None, table_folder_option()] = None,
    ) -> None:
        """Test accuracy by checkpoint selection, Keung et al.'s Tables 2, 3 and 5, the
        transfer gap, per-slice accuracy and the baselines of a score run.

        --layout paper shapes them as the papers do (languages as columns); --format json
        prints every section in one object. Of a sweep, the tables are the configuration's
        with the best mean En dev (--configuration all: every configuration's).

        Examples:

        \b
          nlibuild --db corpus.db score baselines
          nlibuild --db corpus.db score report --per-seed --configuration all
          nlibuild --db corpus.db score report --layout paper --format latex
        """
        from nlibuild.scores.score_report import score_report

        with user_errors():
            fmt = choice(TableFormat, format, "--format")
            if out_dir is not None:
                refuse_outputs(ctx, out=out_dir)
                check_table_folder(out_dir, fmt)
            rule = select_rule(select) if select else None
            shape = choice(ReportLayout, layout, "--layout")
            picking = choice(ConfigurationChoice, configuration, "--configuration")
            given = {"run": run, "ci": ci, "seed": seed, "select": rule, "configuration": picking,
                     "per_seed": per_seed or None, "per_checkpoint": per_checkpoint or None,
                     "intervals": False if shape is ReportLayout.PAPER else None}  # fmt: skip
            cfg = ScoreReportConfig(**{k: v for k, v in given.items() if v is not None})
            store = open_store(state_of(ctx))
            with store:
                result = score_report(store, cfg)
        render_report(result, shape, fmt, out_dir)
