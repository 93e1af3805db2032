"""`nlibuild translate export|import`: translation units out and back, as a typer group."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli_common import choice, open_store, out, state_of, user_errors
from nlibuild.models import (
    TranslateExportConfig,
    TranslateImportConfig,
    TranslationKind,
    UnitFormat,
)
from nlibuild.render import counted

translate_app = typer.Typer(
    help="Translation: premises and hypotheses out as separate units, translations back in.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_KIND_HELP = "human (translators) or mt (machine translation)."


@translate_app.command("export")
def export(
    ctx: typer.Context,
    lang: Annotated[str, typer.Option(help="The language to translate into.")],
    out_path: Annotated[Path, typer.Option("--out", help="The file to write.")],
    kind: Annotated[str, typer.Option(help=_KIND_HELP)] = TranslationKind.HUMAN.value,
    format: Annotated[
        str | None, typer.Option("--format", help="tsv, csv or jsonl (default: from --out).")
    ] = None,
    missing_only: Annotated[
        bool, typer.Option("--missing-only", help="Only units without a translation yet.")
    ] = False,
) -> None:
    """Write one unit per row: p:<premise id> (each premise once) and h:<pair id>, with the
    source text and an empty text column; labels never travel with them."""
    from nlibuild.formats.units import unit_format_of
    from nlibuild.stages.translate import export as run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            cfg = TranslateExportConfig(
                lang=lang,
                kind=choice(TranslationKind, kind, "--kind"),
                format=choice(UnitFormat, format, "--format")
                if format
                else unit_format_of(out_path),
                out=out_path,
                missing_only=missing_only,
            )
            result = run(store, cfg)
    out.print(
        f"Exported {counted(result.premises + result.hypotheses, 'unit')} to translate into "
        f"{cfg.lang} ({counted(result.premises, 'premise')}, {result.hypotheses} "
        f"{'hypothesis' if result.hypotheses == 1 else 'hypotheses'}) to {result.out} "
        f"(run {result.run_id}, {result.signature})",
        markup=False,
    )


@translate_app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The translated units.")],
    lang: Annotated[str, typer.Option(help="The language of the translations.")],
    kind: Annotated[str, typer.Option(help=_KIND_HELP)] = TranslationKind.HUMAN.value,
    format: Annotated[
        str | None, typer.Option("--format", help="tsv, csv or jsonl (default: from the suffix).")
    ] = None,
    translator: Annotated[
        str | None, typer.Option(help="Who translated (an annotator ID).")
    ] = None,
    partial: Annotated[
        bool,
        typer.Option("--partial", help="Import what matches although units are missing or extra."),
    ] = False,
) -> None:
    """Read translations by unit ID, check coverage (missing and extra units are an error
    unless --partial) and each translation (empty, untranslated, Latin letters in a
    non-Latin script, length ratio, a hypothesis translated like its premise, one
    translation for different sources); store them with what the checks found."""
    from nlibuild.formats.units import unit_format_of
    from nlibuild.stages.translate import import_ as run

    with user_errors():
        store = open_store(state_of(ctx))
        with store:
            cfg = TranslateImportConfig(
                path=file,
                lang=lang,
                kind=choice(TranslationKind, kind, "--kind"),
                format=choice(UnitFormat, format, "--format") if format else unit_format_of(file),
                translator=translator,
                partial=partial,
            )
            result = run(store, cfg)
    checks = ", ".join(f"{name} {n}" for name, n in result.checks.items()) or "none"
    out.print(
        f"Imported {counted(result.rows, 'row')} of {cfg.lang} ({cfg.kind.value}): "
        f"{result.added} added, {result.unchanged} already there, {result.empty} empty; "
        f"{result.missing} units still untranslated, {result.extra} rows for unknown units; "
        f"checks: {checks} (run {result.run_id}, {result.signature})",
        markup=False,
    )
