"""`nlibuild translate export|import`: translation units out, translations back, checked.

XNLI (section 3.2) had premises and hypotheses translated separately, so that no context
leaks into a hypothesis, and copied the labels from the source. Units are therefore a
premise `p:<premise id>` (each once) or a hypothesis `h:<pair id>`; labels never travel.
Translated corpora have lost IDs and rows on the way (KorNLI, AmericasNLI), so an import
checks coverage: units of the store left without a translation and rows for units the
store does not hold are listed, and are an error unless `--partial`. A file aligned by row
is refused unless `--force` when its rows' evidence says they do not line up with the
reference's (row_alignment.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import polars as pl

from nlibuild.core.gc_pause import paused_gc
from nlibuild.core.progress import step
from nlibuild.core.registry import TRANSLATE_EXPORT, TRANSLATE_IMPORT
from nlibuild.core.stage import Defaults, Stage, StoreFacts
from nlibuild.errors import ConfigError, ConflictError, InputError
from nlibuild.formats.input_files import NUL_IN_TEXT, require_regular_file
from nlibuild.formats.units import (
    RowSelection,
    SentencePairRow,
    read_reference,
    read_row_aligned,
    read_unit_table,
    unit_format_of,
    write_units,
)
from nlibuild.labelling.labels import LabelNormaliser, UnknownLabel
from nlibuild.models import (
    DEFAULT_LABEL_ORDER,
    TranslateExportConfig,
    TranslateExportResult,
    TranslateImportConfig,
    TranslateImportResult,
    TranslationUnit,
)
from nlibuild.queries.pairs import pairs_by_text
from nlibuild.queries.translations import hypothesis_premises, translations_in
from nlibuild.render import NamedTable, counted, run_note
from nlibuild.store import Store
from nlibuild.text.lang import primary_language
from nlibuild.text.language_id import identify_language
from nlibuild.text.writing_systems import expected_scripts
from nlibuild.translation.row_alignment import (
    LABEL,
    RowDisagreement,
    disagreement_counts,
    disagreements,
)
from nlibuild.translation.translation_checks import (
    CORPUS_CHECKS,
    Check,
    corpus_checks_of,
    unit_checks_of,
)

_LISTED = 5
"""How many missing or extra units an error names."""
_FIRST_MISALIGNED = 3
"""How many disagreeing rows the refusal of a row-aligned file names."""


def export(store: Store, cfg: TranslateExportConfig) -> TranslateExportResult:
    with step(f"translate export {cfg.out.name}", "file written"):
        return _export(store, cfg)


def source_texts(store: Store, lang: str, source_lang: str | None) -> list[tuple[str, str, str]]:
    """(unit ID, source language, source text) of the units to translate into `lang`: the
    pairs' own texts (`Store.source_units`), or with `source_lang` the units' human
    translations into it, in the same order (translate-test translates "each test set into
    English", XNLI section 5.1: the German of an English pair, not its English)."""
    if source_lang is None:
        return store.source_units()
    if primary_language(source_lang) == primary_language(lang):
        raise ConfigError(
            f"--source-lang {source_lang} is --lang {lang}: a translation is into another language"
        )
    texts = translations_in(store, source_lang, "human")
    if not texts:
        raise ConfigError(
            f"--source-lang {source_lang}: the store has no human translation into "
            f"{source_lang} to be the source; import one with `nlibuild translate import FILE "
            f"--lang {source_lang}`"
        )
    return [(unit, source_lang, texts[unit]) for unit, _, _ in store.source_units()
            if unit in texts]  # fmt: skip


def _export(store: Store, cfg: TranslateExportConfig) -> TranslateExportResult:
    with store.recorded_run(TRANSLATE_EXPORT, cfg) as run:
        run_id = run.id
        source = cfg.source_lang or ""
        done = translations_in(store, cfg.lang, cfg.kind.value, source) if cfg.missing_only else {}
        units = [
            TranslationUnit(unit_id=unit_id, source_lang=lang, source=text, lang=cfg.lang)
            for unit_id, lang, text in source_texts(store, cfg.lang, cfg.source_lang)
            if unit_id not in done and primary_language(lang) != primary_language(cfg.lang)
        ]
        if not units:
            raise ConfigError(
                f"nothing to translate into {cfg.lang}: the store has no pairs in another "
                "language" + (" without a translation" if cfg.missing_only else "")
            )
        write_units(cfg.out, cfg.format, units)
        premises = sum(1 for u in units if u.unit_id.startswith("p:"))
        run.finish({"premises": premises, "hypotheses": len(units) - premises})
    return TranslateExportResult(
        run_id=run_id, signature=run.signature, premises=premises,
        hypotheses=len(units) - premises, out=cfg.out,
    )  # fmt: skip


def _listed(ids: list[str]) -> str:
    shown = ", ".join(ids[:_LISTED])
    return shown + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")


def _rows_by_id(cfg: TranslateImportConfig) -> pl.DataFrame:
    """The rows of a file of units: line, unit, text (as written); with --lang-column only
    the rows of --lang."""
    columns = cfg.columns | ({"lang": cfg.lang_column} if cfg.lang_column else {})
    frame = read_unit_table(cfg.path, cfg.format, columns)
    target = primary_language(cfg.lang)
    if cfg.lang_column is not None:
        frame = _rows_of_language(cfg, frame, cfg.lang_column)
    marked = frame["lang"].drop_nulls().unique().to_list()
    wrong = {lang for lang in marked if primary_language(lang) != target}
    if wrong:
        line, unit, lang = (
            frame.filter(pl.col("lang").is_in(wrong)).select("line", "unit", "lang").row(0)
        )
        raise InputError(
            cfg.path, f"{unit} is marked lang {lang}, not {cfg.lang}; check --lang", line
        )
    with_nul = frame.filter(pl.col("text").str.contains("\x00", literal=True))
    if with_nul.height:
        line, unit = with_nul.select("line", "unit").row(0)
        raise InputError(cfg.path, f"the translation of {unit} {NUL_IN_TEXT}", line)
    again = frame.filter(pl.col("unit").is_duplicated())
    if again.height:
        firsts = again.group_by("unit", maintain_order=True).agg(pl.col("line").sort())
        # The first row that repeats an earlier one, and where that one stands.
        repeats = firsts.with_columns(
            first=pl.col("line").list.get(0), second=pl.col("line").list.get(1)
        ).sort("second")
        unit, first, second = repeats.select("unit", "first", "second").row(0)
        raise InputError(
            cfg.path, f"{unit} again (first at line {first}); keep one of the rows", second
        )
    return frame.drop("lang")


def _rows_of_language(cfg: TranslateImportConfig, frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """The rows of a file holding several languages whose `column` names --lang's."""
    unnamed = frame.filter(pl.col("lang").is_null())
    if unnamed.height:
        raise InputError(
            cfg.path,
            f"column {column!r} names no language; fill it or remove the row",
            unnamed["line"][0],
        )
    langs = frame["lang"].unique().sort().to_list()
    target = primary_language(cfg.lang)
    kept = [lang for lang in langs if primary_language(lang) == target]
    if not kept:
        raise InputError(
            cfg.path,
            f"no row of {cfg.lang} in column {column!r} (it holds {', '.join(langs)}); "
            "check --lang",
        )
    return frame.filter(pl.col("lang").is_in(kept))


def _plain(text: str) -> str:
    return " ".join(text.split())


@cache
def _source_label(raw: str) -> str:
    """A label as the gold rule names it, or as written when it is no label nlibuild knows."""
    try:
        return LabelNormaliser(label_order=DEFAULT_LABEL_ORDER).vote(raw) or raw
    except UnknownLabel:
        return raw


def _reference_pairs(store: Store, reference: Path, rows: Sequence[SentencePairRow]
                     ) -> list[tuple[str, str]]:  # fmt: skip
    """(pair ID, premise ID) of the store pair each reference row names by its texts, in
    the store's pair order."""
    by_text: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
    for (premise, hypothesis), found in pairs_by_text(store).items():
        by_text.setdefault((_plain(premise), _plain(hypothesis)), []).extend(found)
    pairs: list[tuple[str, str]] = []
    last_pk = 0
    for row in rows:
        candidates = by_text.get((_plain(row.premise), _plain(row.hypothesis)))
        if not candidates:
            raise InputError(
                reference,
                "no pair of the store has this premise and hypothesis; import the source "
                "corpus first, or give the reference the rows follow",
                row.line,
            )
        after = [c for c in candidates if c[0] > last_pk]
        if not after:
            raise InputError(
                reference,
                "this row comes before the previous one in the store's pair order: the "
                "reference is not in the order the pairs were imported in",
                row.line,
            )
        last_pk, pair_id, premise_id = after[0]
        pairs.append((pair_id, premise_id))
    return pairs


def _refuse_misaligned(cfg: TranslateImportConfig, found: list[RowDisagreement],
                       rows: int) -> None:  # fmt: skip
    """The rows do not line up with the reference: one error naming the first rows that
    disagree and what they say (see row_alignment.py for the rule)."""
    assert cfg.reference is not None
    counts = ", ".join(f"{kind} {n}" for kind, n in disagreement_counts(found).items())
    first = "; ".join(
        f"line {row.line} (pair {row.pair_id}, reference line {row.reference_line}): "
        + ", ".join(row.found)
        for row in found[:_FIRST_MISALIGNED]
    )
    raise InputError(
        cfg.path,
        f"the rows do not line up with the reference {cfg.reference}: "
        f"{len(found)} of {counted(rows, 'row')} disagree with their source row ({counts}); "
        f"first {first}; put the rows in the reference's order, or pass --force to import "
        "them as they stand",
        found[0].line,
    )


def _rows_by_position(
    store: Store, cfg: TranslateImportConfig
) -> tuple[dict[str, tuple[int, str]], list[Check], dict[str, int]]:
    """unit ID -> (line, text) of a file whose rows follow the reference's, one per pair
    (myXNLI, KorNLI), and how many rows disagree with their source row on each kind of
    evidence. Each reference row names a pair of the store by its texts, in the store's
    pair order. Rows whose evidence (labels, IDs, a copy of the source texts, premise
    repetition) says they do not line up are refused unless --force; a label column that
    disagrees is reported (labels are never taken from a translation)."""
    assert cfg.reference is not None
    selection = RowSelection(cfg.lang_column, cfg.lang, cfg.label_values or None)
    translated = read_row_aligned(cfg.path, cfg.lang, cfg.columns, selection)
    for row in translated:
        if "\x00" in row.premise or "\x00" in row.hypothesis:
            raise InputError(cfg.path, f"this row {NUL_IN_TEXT}", row.line)
    reference = read_reference(cfg.reference, cfg.lang)
    if len(translated) != len(reference):
        shift = next(
            (t.line for t, r in zip(translated, reference, strict=False)
             if t.label is not None and r.label is not None
             and _source_label(t.label) != _source_label(r.label)),
            None,
        )  # fmt: skip
        where = f"; its labels first disagree with the reference at line {shift}" if shift else ""
        raise InputError(
            cfg.path,
            f"{counted(len(translated), 'row')} where the reference {cfg.reference} has "
            f"{len(reference)}: a row was dropped or added{where}; rows cannot be aligned",
        )
    pairs = _reference_pairs(store, cfg.reference, reference)
    found = disagreements(translated, reference, [p for p, _ in pairs], _source_label)
    if found and not cfg.force:
        _refuse_misaligned(cfg, found, len(translated))
    rows: dict[str, tuple[int, str]] = {}
    premise_rows: dict[str, list[tuple[int, str]]] = {}
    for row, (pair_id, premise_id) in zip(translated, pairs, strict=True):
        premise_rows.setdefault(f"p:{premise_id}", []).append((row.line, row.premise))
        rows[f"h:{pair_id}"] = (row.line, row.hypothesis)
    for unit_id, texts in premise_rows.items():
        rows[unit_id] = _premise_translation(texts)
    return rows, _misaligned_checks(found), disagreement_counts(found)


def _premise_translation(rows: list[tuple[int, str]]) -> tuple[int, str]:
    """The (line, text) a premise's rows give it: the text most of them agree on, the first
    row's on a tie; so one misplaced row imported with --force does not take the premise of
    the rows around it along."""
    most = Counter(text for _, text in rows).most_common(1)[0][0]
    return next(row for row in rows if row[1] == most)


def _misaligned_checks(found: list[RowDisagreement]) -> list[Check]:
    """What --force imported against the evidence, kept with the hypothesis of each row:
    `label_mismatch` for a label column that disagrees (the source's label is kept), and
    `misaligned` for any other evidence that does."""
    checks: list[Check] = []
    for row in found:
        unit_id = f"h:{row.pair_id}"
        others = [w for k, w in zip(row.kinds, row.found, strict=True) if k != LABEL]
        labels = [w for k, w in zip(row.kinds, row.found, strict=True) if k == LABEL]
        if labels:
            detail = f"line {row.line} has {labels[0]}; the source's is kept"
            checks.append(Check(unit_id, "label_mismatch", detail))
        if others:
            detail = f"line {row.line} (reference line {row.reference_line}): " + ", ".join(others)
            checks.append(Check(unit_id, "misaligned", detail))
    return checks


def _column_frame(rows: Sequence[tuple[str, ...]], names: tuple[str, ...]) -> pl.DataFrame:
    """A frame of string columns from rows read out of the store."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return pl.DataFrame(
        {
            name: pl.Series(list(column), dtype=pl.String)
            for name, column in zip(names, columns, strict=True)
        }
    )


def _plain_expr(column: str) -> pl.Expr:
    """White space runs as one space, none at the ends (as " ".join(text.split()))."""
    return pl.col(column).str.replace_all(r"\s+", " ").str.strip_chars()


def _refuse_another_language(cfg: TranslateImportConfig, rows: pl.DataFrame) -> list[str]:
    """Identify the language of a sample of the file's rows: a clear majority in another
    language than --lang is refused unless --force. Returns the report's notes (what was
    identified; checks not made, and why)."""
    verdict = identify_language(rows.select("unit", "text").iter_rows(), cfg.lang)
    refusal = verdict.refusal()
    if refusal and not cfg.force:
        raise InputError(cfg.path, refusal)
    notes = [verdict.note() + (" (imported: --force)" if refusal else "")]
    if expected_scripts(cfg.lang) is None:
        notes.append(f"script not checked: nlibuild does not know the script of {cfg.lang}")
    return notes


def import_(store: Store, cfg: TranslateImportConfig) -> TranslateImportResult:
    with step(f"translate import {cfg.path.name}", "file read, checked and stored"):
        return _import(store, cfg)


def _import(store: Store, cfg: TranslateImportConfig) -> TranslateImportResult:
    """Read the translations of one language and kind, by unit ID or by row, check their
    coverage and each unit, and store them (in one transaction). Everything that concerns
    all units (coverage, conflicts, the checks) is computed column-wise: an XNLI-size
    language is half a million units."""
    if cfg.align == "rows" and cfg.reference is None:
        raise ConfigError("--align rows needs --reference: the source file the rows follow")
    for path in (cfg.path, cfg.reference):
        if path is not None:
            require_regular_file(path)
    rows = _rows_by_id(cfg) if cfg.align == "id" else None
    lang, kind, source = cfg.lang, cfg.kind.value, cfg.source_lang or ""
    with paused_gc(), store.recorded_run(TRANSLATE_IMPORT, cfg) as run:
        run_id = run.id
        target = primary_language(lang)
        aligned: list[Check] = []
        disagreeing: dict[str, int] = {}
        if rows is None:
            by_position, aligned, disagreeing = _rows_by_position(store, cfg)
            rows = pl.DataFrame(
                {
                    "line": pl.Series([v[0] for v in by_position.values()], dtype=pl.Int64),
                    "unit": pl.Series(list(by_position), dtype=pl.String),
                    "text": pl.Series([v[1] for v in by_position.values()], dtype=pl.String),
                }
            )
        notes = _refuse_another_language(cfg, rows)
        sources = _column_frame(
            source_texts(store, lang, cfg.source_lang), ("unit", "source_lang", "source")
        )
        other = [
            x for x in sources["source_lang"].unique().to_list() if primary_language(x) != target
        ]
        sources = sources.filter(pl.col("source_lang").is_in(other))
        # The checks across units compare every stored translation of the language (an
        # earlier partial file's too) with its source: they need the sources of all units,
        # not only of the rows this file covers.
        all_sources = sources.select("unit", "source")
        if cfg.align == "rows":
            sources = sources.join(
                rows.select("unit"), on="unit", how="semi", maintain_order="left"
            )
        stored = _column_frame(
            list(translations_in(store, lang, kind, source).items()), ("unit", "stored")
        )
        extra = rows.join(sources, on="unit", how="anti", maintain_order="left")["unit"].to_list()
        missing = (
            sources.join(rows, on="unit", how="anti", maintain_order="left")
            .join(stored, on="unit", how="anti", maintain_order="left")["unit"]
            .to_list()
        )
        if (extra or missing) and not cfg.partial:
            problems = []
            if missing:
                problems.append(
                    f"{counted(len(missing), 'unit')} without a translation ({_listed(missing)})"
                )
            if extra:
                problems.append(
                    f"{counted(len(extra), 'row')} for units the store does not hold "
                    f"({_listed(extra)})"
                )
            raise InputError(
                cfg.path, "; ".join(problems) + "; fix the file, or pass --partial to import "
                "what matches"
            )  # fmt: skip
        translator_pk = store.ensure_annotators([cfg.translator])[cfg.translator] if (
            cfg.translator) else None  # fmt: skip
        # Texts are stored exactly as the file gives them (a release is compared with its
        # files byte for byte); white space is normalised only where a check measures.
        matched = rows.join(sources, on="unit", how="inner", maintain_order="left").join(
            stored, on="unit", how="left", maintain_order="left"
        )
        conflicts = matched.filter(
            pl.col("stored").is_not_null() & (pl.col("stored") != pl.col("text"))
        )
        if conflicts.height:
            line, unit_id, before = conflicts.sort("line").select("line", "unit", "stored").row(0)
            raise ConflictError(
                f"{cfg.path}, line {line}: {unit_id} already has another {kind} "
                f"translation into {lang}{_from(cfg)} ({before[:60]!r}); nlibuild keeps the "
                "first: remove the row, or import it as another --kind"
            )
        unchanged = matched.filter(pl.col("stored").is_not_null()).height
        adding = matched.filter(pl.col("stored").is_null())
        checks: list[Check] = list(aligned)
        checks += unit_checks_of(adding, lang)
        # In key order: appended to the language's range of the table, page after page.
        # A row of white space alone is an empty row (its `empty` check says so), not a text.
        new = adding.filter(_plain_expr("text") != "").select("unit", "text").sort("unit")
        empty = adding.height - new.height
        store.insert(
            "translations",
            [(unit, lang, kind, text, translator_pk, source) for unit, text in new.iter_rows()],
            run_id,
        )
        everything = pl.concat([stored.rename({"stored": "text"}), new])
        checks += corpus_checks_of(
            everything,
            all_sources,
            _column_frame(hypothesis_premises(store), ("unit", "premise")),
        )
        # A unit translated now sheds what was found on it before (an empty row); the
        # checks across units are computed again over all translations.
        store.clear_translation_checks(lang, kind, new["unit"].to_list(), CORPUS_CHECKS, source)
        store.add_translation_checks(
            [(c.unit_id, lang, kind, c.check, c.detail) for c in checks], run_id, source
        )
        counts = Counter(c.check for c in checks)
        left = sources.join(everything, on="unit", how="anti").height
        result = TranslateImportResult(
            run_id=run_id, signature=run.signature, rows=rows.height, added=new.height,
            unchanged=unchanged, empty=empty, missing=left, extra=len(extra),
            checks=dict(sorted(counts.items())),
            label_mismatches=sum(c.check == "label_mismatch" for c in aligned),
            disagreements=disagreeing, notes=notes,
        )  # fmt: skip
        run.finish({"rows": rows.height, "added": new.height,
                                  "unchanged": unchanged, "missing": left,
                                  "extra": len(extra)})  # fmt: skip
    return result


def _from(cfg: TranslateExportConfig | TranslateImportConfig) -> str:
    """` from de` for translations of the German translations, else nothing."""
    return f" from {cfg.source_lang}" if cfg.source_lang else ""


def export_summary(cfg: TranslateExportConfig, result: TranslateExportResult) -> str:
    hypotheses = "hypothesis" if result.hypotheses == 1 else "hypotheses"
    return (
        f"Exported {counted(result.premises + result.hypotheses, 'unit')} to translate into "
        f"{cfg.lang}{_from(cfg)} ({counted(result.premises, 'premise')}, {result.hypotheses} "
        f"{hypotheses}) "
        f"to {result.out} {run_note(result)}"
    )


def import_summary(cfg: TranslateImportConfig, result: TranslateImportResult) -> str:
    checks = ", ".join(f"{name} {n}" for name, n in result.checks.items()) or "none"
    mismatches = (
        f"; {result.label_mismatches} label columns disagree with the source (kept the source's)"
        if result.label_mismatches
        else ""
    )
    disagreeing = (
        "; rows that disagree with their source row, imported with --force: "
        + ", ".join(f"{kind} {n}" for kind, n in result.disagreements.items())
        if result.disagreements
        else ""
    )
    return (
        f"Imported {counted(result.rows, 'unit')} of {cfg.lang} ({cfg.kind.value}{_from(cfg)}): "
        f"{result.added} added, {result.unchanged} already there, {result.empty} empty; "
        f"{result.missing} units still untranslated, {result.extra} rows for unknown units; "
        f"checks: {checks}{mismatches}{disagreeing} {run_note(result)}"
    )


def import_tables(_cfg: TranslateImportConfig, result: TranslateImportResult) -> list[NamedTable]:
    """The import's notes, one a row: the language identified in a sample of the file, and
    the checks that could not be made (a script nlibuild does not know)."""
    return [NamedTable("translate-notes", "Notes", ["note"], [(note,) for note in result.notes])]


def _format_by_suffix(field: str, reading: bool) -> Defaults:
    """Defaults that take a units file's format from the suffix of its path (`field`) when
    none is given, as the commands always have: `.csv`, `.jsonl`, `.json`, `.parquet`, else
    tsv (`formats/units.unit_format_of`)."""

    def defaults(_store: StoreFacts, fields: Mapping[str, Any]) -> dict[str, Any]:
        path = fields.get(field)
        if fields.get("format") is not None or path is None:
            return dict(fields)
        return dict(fields) | {"format": unit_format_of(Path(path), reading=reading)}

    return defaults


EXPORT_STAGE = Stage(
    TRANSLATE_EXPORT,
    settings=TranslateExportConfig,
    run=export,
    summary=export_summary,
    defaults=_format_by_suffix("out", reading=False),
)
IMPORT_STAGE = Stage(
    TRANSLATE_IMPORT,
    settings=TranslateImportConfig,
    run=import_,
    summary=import_summary,
    tables=import_tables,
    defaults=_format_by_suffix("path", reading=True),
)
