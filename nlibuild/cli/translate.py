"""`nlibuild translate export|import`: translation units out and back, as a typer group."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli.common import (
    err,
    open_store,
    out,
    print_outcome,
    refuse_outputs,
    state_of,
    user_errors,
)
from nlibuild.invoke import invoke, invoke_at
from nlibuild.models import (
    ROW_COLUMN_KEYS,
    UNIT_COLUMN_KEYS,
    QaMetric,
    TableFormat,
    TranslateExportConfig,
    TranslateQaConfig,
    TranslationKind,
    UnitFormat,
)
from nlibuild.options import choice, default_text, split_list, translate_mapping_options
from nlibuild.render import (
    check_table_folder,
    render_tables,
    write_tables,
)

translate_app = typer.Typer(
    help="Translation: premises and hypotheses out as separate units, translations back in."
    "\n\nExamples:\n\n\b\n"
    "  nlibuild --db corpus.db translate export --lang de --out units.de.tsv\n"
    "  nlibuild --db corpus.db translate import data/translations/sample_mnli.de.tsv --lang de\n"
    "  nlibuild --db corpus.db export --format xnli-tsv --lang en,de --out corpus.en-de.tsv\n",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_KIND_HELP = (
    "human (translators) or mt (machine translation) "
    f"(default {default_text(TranslateExportConfig, 'kind')})."
)


_SOURCE_LANG_HELP = (
    "With --kind mt: translate the units' human translations into this language, not the "
    "pairs' own texts (translate-test: each language's test machine-translated into the "
    "training language, e.g. --lang en --source-lang de for an English corpus with German "
    "translations)."
)


def _kind(kind: str | None) -> TranslationKind | None:
    return choice(TranslationKind, kind, "--kind") if kind is not None else None


@translate_app.command("export")
def export(
    ctx: typer.Context,
    lang: Annotated[str, typer.Option(help="The language to translate into.")],
    out_path: Annotated[Path, typer.Option("--out", help="The file to write.")],
    kind: Annotated[str | None, typer.Option(help=_KIND_HELP)] = None,
    format: Annotated[
        str | None,
        typer.Option("--format", help="tsv, csv, jsonl, json or parquet (default: from --out)."),
    ] = None,
    missing_only: Annotated[
        bool, typer.Option("--missing-only", help="Only units without a translation yet.")
    ] = False,
    source_lang: Annotated[str | None, typer.Option(help=_SOURCE_LANG_HELP)] = None,
) -> None:
    """Write one unit per row: p:<premise id> (each premise once) and h:<pair id>, with the
    source text and an empty text column.

    Labels never travel with them.

    Examples:

    \b
      nlibuild --db corpus.db translate export --lang de --out units.de.tsv
      nlibuild --db corpus.db translate export --lang en --kind mt --source-lang de \\
          --out units.de-en.tsv
    """
    from nlibuild.stages.translate import EXPORT_STAGE

    with user_errors():
        outcome = invoke_at(
            EXPORT_STAGE,
            state_of(ctx).db,
            lang=lang,
            kind=_kind(kind),
            format=choice(UnitFormat, format, "--format") if format else None,
            out=out_path,
            missing_only=missing_only,
            source_lang=source_lang,
        )
    print_outcome(outcome)


@translate_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The translated units.")],
    lang: Annotated[str, typer.Option(help="The language of the translations.")],
    kind: Annotated[str | None, typer.Option(help=_KIND_HELP)] = None,
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="tsv, csv, jsonl, json (one JSON array) or parquet (default: from the suffix).",
        ),
    ] = None,
    translator: Annotated[
        str | None, typer.Option(help="Who translated (an annotator ID).")
    ] = None,
    partial: Annotated[
        bool,
        typer.Option("--partial", help="Import what matches although units are missing or extra."),
    ] = False,
    align: Annotated[
        str,
        typer.Option(
            help="id: rows name their unit; rows: a tsv of one pair a row (myXNLI, KorNLI) "
            "in the order of --reference."
        ),
    ] = "id",
    reference: Annotated[
        Path | None,
        typer.Option(help="--align rows: the source file the rows follow (its texts, labels)."),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Import although a sample of the file is identified as another language, "
            "or (--align rows) the rows' labels, IDs, source texts or premise repetition "
            "disagree with the reference's rows.",
        ),
    ] = False,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            help="The file's columns when they have other names: unit_id=ID,text=TEXT[,lang=L] "
            "(--align id), premise=P,hypothesis=H[,label=L,pair_id=ID] (--align rows, e.g. "
            "premise=sentence1_tgt,hypothesis=sentence2_tgt); a key left out takes its usual "
            "column; or @NAME for the preset's [import.tables.NAME].",
        ),
    ] = None,
    labels: Annotated[
        str | None,
        typer.Option(
            "--labels",
            help="--align rows: what the file's label values mean, e.g. "
            "0=entailment,1=neutral,2=contradiction (- for no label); the labels are "
            "compared with the reference's.",
        ),
    ] = None,
    lang_column: Annotated[
        str | None,
        typer.Option(
            "--lang-column",
            help="A file holding several languages (AmericasNLI): the column naming each "
            "row's language; only the rows of --lang are read.",
        ),
    ] = None,
    source_lang: Annotated[str | None, typer.Option(help=_SOURCE_LANG_HELP)] = None,
) -> None:
    """Read translations by unit ID, check coverage and each translation, store them.

    Missing and extra units are an error unless --partial. Each translation is checked (empty,
    untranslated, Roman letters in a non-Latin script, letters outside the language's script,
    length ratio, a hypothesis translated like its premise, one translation for different
    sources) and stored with what the checks found. A sample of the rows is identified
    (py3langid, offline): a file mostly in another language than --lang is refused unless
    --force. With --align rows, rows whose evidence says they do not line up with the reference
    are an error unless --force.

    Examples:

    \b
      nlibuild --db corpus.db translate import data/translations/sample_mnli.de.tsv --lang de \\
          --translator de01
    """
    from nlibuild.stages.translate import IMPORT_STAGE

    with user_errors(), open_store(state_of(ctx)) as store:
        # `--columns @NAME` names a table of the store's preset: read before the run.
        unit_columns, label_values, lang_column = translate_mapping_options(
            store, columns, labels, lang_column,
            UNIT_COLUMN_KEYS if align == "id" else ROW_COLUMN_KEYS, f"with --align {align}",
        )  # fmt: skip
        outcome = invoke(
            IMPORT_STAGE,
            store,
            path=file,
            lang=lang,
            kind=_kind(kind),
            format=choice(UnitFormat, format, "--format") if format else None,
            translator=translator,
            partial=partial,
            align=align,
            reference=reference,
            force=force,
            columns=unit_columns,
            label_values=label_values or {},
            lang_column=lang_column,
            source_lang=source_lang,
        )
    print_outcome(outcome)


def qa_metrics(names: tuple[str, ...]) -> dict[str, tuple[QaMetric, ...]]:
    """`--metrics`, as the settings take it: nothing when not given (the model's default)."""
    if not names:
        return {}
    chosen = (choice(QaMetric, name.lower(), "--metrics") for name in names)
    return {"metrics": tuple(dict.fromkeys(chosen))}


@translate_app.command("qa")
def qa(
    ctx: typer.Context,
    lang: Annotated[str, typer.Option(help="The language of the translations.")],
    hyp: Annotated[
        str | None,
        typer.Option(help=f"The kind scored (default {default_text(TranslateQaConfig, 'hyp')})."),
    ] = None,
    ref: Annotated[
        str | None,
        typer.Option(
            help="The kind it is scored against "
            f"(default {default_text(TranslateQaConfig, 'ref')})."
        ),
    ] = None,
    worst: Annotated[
        int | None,
        typer.Option(
            help="Show this many segments of lowest chrF "
            f"(default {default_text(TranslateQaConfig, 'worst')})."
        ),
    ] = None,
    metrics: Annotated[
        list[str] | None,
        typer.Option(
            help="Corpus scores to compute, comma-separated: bleu, chrf, ter (default "
            f"{default_text(TranslateQaConfig, 'metrics')}; TER is the slow one)."
        ),
    ] = None,
    format: Annotated[str, typer.Option("--format", help="table, csv, json, md or latex.")] = (
        "table"
    ),
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="A folder to write one file a table to (qa-corpus.csv, qa-units.csv; "
            "with --format csv, json, md or latex).",
        ),
    ] = None,
) -> None:
    """Corpus BLEU and chrF (and TER) of one kind of translation against another
    (sacrebleu).

    TER with --metrics bleu,chrf,ter. sacrebleu's signatures are shown; BLEU's tokenizer
    per language: zh for Chinese, characters for ja/ko/th/my, 13a otherwise. Then the
    segments of lowest sentence chrF.

    csv and json hold one table a file: with --out DIR both tables are written there; on
    stdout only the corpus scores, and stderr says what was left out.

    Examples:

    \b
      nlibuild --db corpus.db translate import data/translations/sample_mnli.de.tsv --lang de \\
          --kind mt
      nlibuild --db corpus.db translate qa --lang de --worst 3
    """
    from nlibuild.stages.translate_qa import STAGE

    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        if out_dir is not None:
            refuse_outputs(ctx, out=out_dir)
            check_table_folder(out_dir, fmt)
        outcome = invoke_at(
            STAGE,
            state_of(ctx).db,
            lang=lang,
            hyp=choice(TranslationKind, hyp, "--hyp") if hyp is not None else None,
            ref=choice(TranslationKind, ref, "--ref") if ref is not None else None,
            worst=worst,
            **qa_metrics(split_list(metrics)),
        )
        if out_dir is not None:
            written = write_tables(out_dir, outcome.tables, fmt)
            wrote = ", ".join(str(p) for p in written)
            out.print(f"{outcome.summary}; wrote {wrote}", markup=False)
            return
    if fmt is TableFormat.TABLE:
        print_outcome(outcome)
        return
    render_tables(out, err, outcome.tables, fmt)
    # Beside a machine format, the summary goes on stderr, so stdout stays parseable.
    err.print(outcome.summary, markup=False)
