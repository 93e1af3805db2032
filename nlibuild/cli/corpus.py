"""The store's own commands: `init`, `import`, `export`, `info`, `runs` and `schemas`,
with the renderers of `info` and `runs`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.cells import cell_len

from nlibuild.cli.common import (
    TableLabelsOption,
    err,
    format_option,
    open_store,
    out,
    print_outcome,
    refuse_outputs,
    state_of,
    user_errors,
)
from nlibuild.core.runs import FAILED, INTERRUPTED
from nlibuild.invoke import invoke, invoke_at
from nlibuild.models import (
    TABLE_COLUMN_KEYS,
    UNKNOWN_LICENSE,
    ExportConfig,
    ExportFormat,
    ImportFormat,
    InitConfig,
    NoGoldPolicy,
    RunRecord,
    SplitName,
    StoreSummary,
    TableFormat,
)
from nlibuild.options import (
    choice,
    default_text,
    label_order_option,
    split_list,
    table_mapping_options,
)
from nlibuild.render import Cell, counted, human_header, render_table


def init(
    ctx: typer.Context,
    lang: Annotated[
        str | None,
        typer.Option(
            help="Corpus language (ISO 639-1); default from preset, "
            f"else {default_text(InitConfig, 'lang')}."
        ),
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option(help="Pipeline preset: ocnli, xnli, mnli, or a .toml path; sets defaults."),
    ] = None,
    extra_labels: Annotated[
        list[str] | None,
        typer.Option(
            "--extra-labels",
            help="Label values kept as votes but never gold (comma-separated), e.g. unrelated.",
        ),
    ] = None,
) -> None:
    """Create a new, empty store.

    Examples:

    \b
      nlibuild --db zh.db init --preset ocnli --extra-labels unrelated
      nlibuild --db table.db init --lang en
      nlibuild --db crowd.db init --lang en
    """
    from nlibuild.stages.init import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            lang=lang,
            preset=preset,
            extra_labels=split_list(extra_labels) or None,
        )
    print_outcome(outcome)


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The corpus file to load.")],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="mnli, snli, ocnli, xnli, jsonl, or table (any csv, tsv, jsonl, JSON array or "
            "parquet file, read by --columns and --labels); default: the preset's.",
        ),
    ] = None,
    genre: Annotated[
        str | None, typer.Option(help="Genre for pairs whose file gives none.")
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(
            help="Language of the pairs (default: the store's); for XNLI files, "
            "which language holds the pairs (the others become translations)."
        ),
    ] = None,
    corpus: Annotated[
        str | None, typer.Option(help="Name used in anonymous annotator IDs (default: file stem).")
    ] = None,
    label_order: Annotated[
        str | None,
        typer.Option(help="Meaning of integer labels, e.g. e,n,c (GLUE/XNLI) or n,e,c (CLUE)."),
    ] = None,
    extra_labels: Annotated[
        list[str] | None,
        typer.Option("--extra-labels", help="Extra label values to accept as votes."),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="train, dev or test: the released split this file is (its new pairs go there).",
        ),
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            help="--format table: which column holds what, e.g. premise=sentence1,"
            "hypothesis=sentence2,label=gold,votes=v1,v2,v3 (keys: "
            f"{', '.join(TABLE_COLUMN_KEYS)}; a key not given takes the column of its name, "
            "but author, vote and annotator), or @NAME for the preset's "
            "[import.tables.NAME]. The first vote is "
            "stored as the author's (SNLI/MNLI's annotator_labels[0]); author=COLUMN reads "
            "the author's label from its own column, author=- says there is none "
            "(ChaosNLI): then every vote is a validator's. vote=COLUMN reads one vote a row "
            "(LiveNLI), the rows of one id being one pair, annotator=COLUMN whose it is.",
        ),
    ] = None,
    labels: TableLabelsOption = None,
    lang_column: Annotated[
        str | None,
        typer.Option(
            "--lang-column",
            help="--format table: the column holding each row's language "
            "(the same as --columns lang=COLUMN).",
        ),
    ] = None,
) -> None:
    """Load an existing NLI corpus: premises, pairs, every label as a vote, the released gold.

    Examples:

    \b
      nlibuild --db corpus.db import data/sample_mnli.jsonl --format mnli
      nlibuild --db table.db import data/sample_mnli.jsonl --format table --columns \\
          id=pairID,premise_id=promptID,premise=sentence1,hypothesis=sentence2,votes=annotator_labels
      nlibuild --db crowd.db import data/crowd_votes.csv --format table --columns author=-
    """
    from nlibuild.stages.import_corpus import STAGE

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            # `--columns @NAME` names a table of the store's preset.
            table_columns, label_values = table_mapping_options(store, columns, labels, lang_column)
            outcome = invoke(
                STAGE,
                store,
                path=file,
                format=choice(ImportFormat, format, "--format") if format else None,
                genre=genre,
                lang=lang,
                corpus=corpus,
                label_order=label_order_option(label_order, "--label-order"),
                extra_labels=split_list(extra_labels),
                split=choice(SplitName, split, "--split") if split else None,
                columns=table_columns,
                label_values=label_values,
            )
    print_outcome(outcome)


def export(
    ctx: typer.Context,
    out_path: Annotated[
        Path,
        typer.Option(
            "--out", help="The file to write; with --format hf, the folder (a package of files)."
        ),
    ],
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="mnli-jsonl, ocnli-json, xnli-tsv, xnli-jsonl, hf-jsonl, hf (a folder) or jsonl "
            "(default: the preset's).",
        ),
    ] = None,
    label_order: Annotated[
        str | None,
        typer.Option(
            help="hf-jsonl integer order "
            f"(default {default_text(ExportConfig, 'label_order')}; CLUE's OCNLI uses n,e,c)."
        ),
    ] = None,
    no_gold: Annotated[
        str | None,
        typer.Option(
            help="hf-jsonl: pairs with gold '-' get label -1 (minus-one) or are dropped (drop) "
            f"(default {default_text(ExportConfig, 'no_gold')})."
        ),
    ] = None,
    lang: Annotated[
        list[str] | None,
        typer.Option(
            "--lang",
            help="xnli-tsv/xnli-jsonl: only these languages, translations included. Other "
            "formats hold one language: the pairs in it, stored in it or translated into it "
            "(human translations of premise and hypothesis, the source's IDs and labels).",
        ),
    ] = None,
    split: Annotated[
        str | None, typer.Option(help="Only this split: train, dev or test (`nlibuild split`).")
    ] = None,
    license: Annotated[
        str | None,
        typer.Option(
            "--license",
            help="hf: the dataset card's license, as the Hub names it, e.g. cc-by-sa-4.0 "
            f"(default: the preset's, else {UNKNOWN_LICENSE!r}).",
        ),
    ] = None,
) -> None:
    """Write the corpus in a released format.

    hf writes a folder (--out DIR) that `datasets.load_dataset(DIR)` reads: data/ per split (dev
    as validation) and a dataset card README.md with the label names, languages, license and the
    store's runs. xnli-tsv, xnli-jsonl and hf are multilingual: rows keyed by (language,
    pairID), each translated language's premise and hypothesis with the source's labels, written
    only where both are translated.

    Examples:

    \b
      nlibuild --db corpus.db export --format mnli-jsonl --out corpus.mnli.jsonl
      nlibuild --db corpus.db export --format hf --out corpus-hf
    """
    from nlibuild.stages.export import STAGE

    with user_errors():
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            format=choice(ExportFormat, format, "--format") if format else None,
            out=out_path,
            label_order=label_order_option(label_order, "--label-order"),
            no_gold=choice(NoGoldPolicy, no_gold, "--no-gold") if no_gold else None,
            langs=split_list(lang),
            split=choice(SplitName, split, "--split") if split else None,
            license=license,
        )
    print_outcome(outcome)


def info(
    ctx: typer.Context,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """Counts of the store: pairs by genre, language, label and protocol; validated pairs; runs.

    Examples:

    \b
      nlibuild --db corpus.db info
    """
    from nlibuild.stages.info import summarise

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        store = open_store(state_of(ctx))
        with store:
            summary = summarise(store)
    _render_summary(summary, fmt)


def _render_summary(summary: StoreSummary, fmt: TableFormat) -> None:
    if fmt is TableFormat.JSON:
        out.print(summary.model_dump_json(), markup=False)
        return
    totals: list[tuple[str, str | int]] = [
        ("store", str(summary.path)),
        ("schema version", summary.schema_version),
        ("language", summary.lang),
        ("preset", summary.preset or "none"),
        ("extra labels", ",".join(summary.extra_labels) or "none"),
        ("premises", summary.premises),
        ("pairs", summary.pairs),
        ("validated pairs", summary.validated_pairs),
        ("votes", summary.votes),
        ("translations", summary.translations),
        ("batches", summary.batches),
        ("open batch items", summary.open_assignments),
        ("violations", summary.violations),
        ("runs", summary.runs),
    ]
    groups = [
        ("genre", summary.by_genre),
        ("language", summary.by_lang),
        (f"gold label ({summary.gold_method})", summary.by_gold_label),
        ("author label", summary.by_author_label),
        ("protocol", summary.by_protocol),
        ("level", summary.by_level),
    ]
    if fmt is not TableFormat.TABLE:
        # Machines get one table: section, item, value.
        rows: list[tuple[str, str, str | int]] = [("store", k, v) for k, v in totals]
        rows += [(f"pairs by {name}", r.key, r.count) for name, group in groups for r in group]
        render_table(out, "Store", ["section", "item", "value"], rows, fmt)
        return
    render_table(out, "Store", ["item", "value"], totals, fmt)
    for name, group in groups:
        render_table(
            out, f"Pairs by {name}", [name, "pairs"], [(r.key, r.count) for r in group], fmt
        )


def runs(
    ctx: typer.Context,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="Every column: also each run's settings, signature, error, command, host and "
            "pid (csv and json hold them always).",
        ),
    ] = False,
) -> None:
    """The provenance log: every stage run with its status (running, ok, failed,
    interrupted), when it started, how long it took and what it counted; with --verbose its
    settings, signature, error if it failed, the command that started it (`serve: lead ID`
    for a button of the workbench's lead page), host and pid.

    Examples:

    \b
      nlibuild --db corpus.db runs
      nlibuild --db corpus.db runs --verbose --format csv
    """
    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        store = open_store(state_of(ctx))
        with store:
            records = store.runs()
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in records) + "]", markup=False)
        return
    if verbose or fmt is TableFormat.CSV:  # a file keeps every column: scripts key on them
        render_table(out, "Runs", RUN_COLUMNS, [_run_row(r) for r in records], fmt)
        return
    rows = [_run_row(r)[: len(SHORT_RUN_COLUMNS)] for r in records]
    if fmt is TableFormat.TABLE:
        rows = _counts_fitted(rows, out.width)
    render_table(out, "Runs", SHORT_RUN_COLUMNS, rows, fmt)
    stopped = sum(r.status in (FAILED, INTERRUPTED) for r in records)
    if stopped:
        err.print(f"Note: {counted(stopped, 'run')} failed or stopped; `runs --verbose` shows "
                  "why", markup=False)  # fmt: skip


SHORT_RUN_COLUMNS = ["run", "stage", "status", "started_utc", "seconds", "counts"]
"""What `runs` shows by default: one line a run in a terminal of 120 columns (issue 28)."""
RUN_COLUMNS = [*SHORT_RUN_COLUMNS, "settings", "signature", "error", "command", "host", "pid"]


def _run_row(r: RunRecord) -> tuple[Cell, ...]:
    return (
        r.id,
        r.stage,
        r.status,
        r.started_at.strftime("%Y-%m-%d %H:%M:%S"),
        f"{(r.finished_at - r.started_at).total_seconds():.2f}" if r.finished_at else "",
        ", ".join(f"{k.replace('_added', '')} {v}" for k, v in r.counts.items() if v),
        json.dumps(r.config, ensure_ascii=False, sort_keys=True),
        r.signature,
        # Why a run failed or stopped; an `ok` run's error is always empty.
        (r.error or "") if r.status in (FAILED, INTERRUPTED) else "",
        # Who asked: the command line, or `serve: lead ID` for a lead page's button.
        r.command or "",
        r.host or "",
        r.pid,
    )


_CUT = " …"


def _counts_fitted(rows: list[tuple[Cell, ...]], width: int) -> list[tuple[Cell, ...]]:
    """The rows with their counts (the last cell) cut, at a count, to the room the other
    columns leave in a terminal `width` wide, so that a run stays one line; `--verbose`'s
    csv and json hold them whole. Too narrow a terminal for any counts: left whole, to fold."""
    headers = [human_header(column) for column in SHORT_RUN_COLUMNS]
    others = sum(
        max(cell_len(str(cell if cell is not None else "")) for cell in [header, *column]) + 3
        for header, column in zip(headers, zip(*rows, strict=True), strict=False)
        if header != headers[-1]
    )
    room = width - 1 - others - 3
    if not rows or room < len(headers[-1]) + len(_CUT):
        return rows
    return [(*row[:-1], _cut_at_a_count(str(row[-1]), room)) for row in rows]


def _cut_at_a_count(counts: str, room: int) -> str:
    if cell_len(counts) <= room:
        return counts
    kept = counts.split(", ")
    while kept and cell_len(", ".join(kept) + _CUT) > room:
        kept.pop()
    return ", ".join(kept) + _CUT


def schemas(
    ctx: typer.Context,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the schemas to.")] = Path(
        "schemas"
    ),
) -> None:
    """Write the JSON Schema of every interchange file (generated from the models).

    Examples:

    \b
      nlibuild schemas --out schemas
    """
    from nlibuild.models.schemas import write_schemas

    with user_errors():
        # No store is opened, but the one `--db` names (or ./nlibuild.db) is still not a
        # place for the schemas.
        refuse_outputs(ctx, out=out_dir)
        written = write_schemas(out_dir)
    out.print(f"Wrote {len(written)} schemas to {out_dir}", markup=False)
