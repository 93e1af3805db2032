"""`nlibuild export`: write the store's pairs in the formats people load.

The gold label written is the published gold (`labels.GOLD`): nlibuild's own majority vote
when `aggregate-labels` has run, else the label released with an imported corpus, else `-`;
never the author's label alone. Files are written through a
partial file renamed into place, so a failed export leaves no half-written output; the
partial file is named for the process writing it (`tabular.partial_path`), and the next
export to the same target removes one an export killed outright (kill -9) left.

`--lang L` in a format that holds one language writes the pairs in L: those stored in L
and those whose premise and hypothesis have human translations into L (XNLI's way: the
source's IDs and labels, the translated texts); the multilingual formats (xnli-tsv,
xnli-jsonl) take `--lang` as the languages to write.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import orjson

from nlibuild.core.progress import Advance, progress
from nlibuild.core.registry import EXPORT
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError
from nlibuild.formats.corpora import corpus_format_for
from nlibuild.formats.corpora.base import WriteSettings
from nlibuild.labelling.labels import GOLD
from nlibuild.models import (
    NO_GOLD,
    UNKNOWN_LICENSE,
    ExportConfig,
    ExportFormat,
    ExportResult,
    NoGoldPolicy,
    format_label_order,
)
from nlibuild.queries.annotators import anonymous_annotators
from nlibuild.queries.pairs import export_rows
from nlibuild.queries.splits import pair_keys_in_split, split_of_pairs
from nlibuild.queries.translations import translations_in
from nlibuild.render import counted, run_note
from nlibuild.store import ExportRow, Store

PROGRESS_CHUNK = 10_000
"""Pairs between two advances of the progress bar (a bar redrawn per row would cost more
than the row)."""


class _LanguageTally:
    """How the pairs of a one-language export came to be in its language."""

    def __init__(self) -> None:
        self.translated = 0
        self.untranslated = 0


def _pairs_in_language(
    rows: Iterator[ExportRow], lang: str, translations: dict[str, str], tally: _LanguageTally
) -> Iterator[ExportRow]:
    """The pairs in `lang`: those stored in it, and those of other languages whose premise
    and hypothesis both have a human translation into it (`translations`: unit ID -> text).

    A translated pair keeps its IDs, genre and labels (XNLI copied the source's labels to
    every language) and takes the translated texts; what the source's own sentences carried
    (`sentence1_parse`, `sentence2_binary_parse`, ...) is left out, as it describes English
    text the row no longer holds. A pair without both translations is left out, counted."""
    for row in rows:
        if row.lang == lang:
            yield row
            continue
        premise = translations.get(f"p:{row.premise_id}")
        hypothesis = translations.get(f"h:{row.id}")
        if premise is None or hypothesis is None:
            tally.untranslated += 1
            continue
        tally.translated += 1
        yield row._replace(
            premise=premise,
            hypothesis=hypothesis,
            lang=lang,
            premise_extra_json=_without_sentence_fields(row.premise_extra_json),
            extra_json=_without_sentence_fields(row.extra_json),
        )


def _without_sentence_fields(extra_json: str | None) -> str | None:
    """Extra fields less those about the source's sentences (their names start with
    `sentence`: parses, tokenisations)."""
    if not extra_json:
        return extra_json
    kept = {k: v for k, v in orjson.loads(extra_json).items() if not k.startswith("sentence")}
    return orjson.dumps(kept).decode() if kept else None


def _human_translations(store: Store) -> dict[tuple[str, str], str]:
    return {(unit, lang): text for unit, lang, text in store.translated_units("human")}


def _write_settings(store: Store, cfg: ExportConfig) -> WriteSettings:
    return WriteSettings(
        label_order=cfg.label_order,
        no_gold=cfg.no_gold,
        langs=cfg.langs,
        anonymous_annotators=partial(anonymous_annotators, store),
        human_translations=partial(_human_translations, store),
        splits=partial(split_of_pairs, store),
        runs=store.runs,
        license=cfg.license,
    )


def run(store: Store, cfg: ExportConfig) -> ExportResult:
    """Write every pair of `store` to `cfg.out` in `cfg.format`; a store without pairs is
    refused before anything is written (issue 28: an empty dataset that exits 0 reads as a
    release when it is a store nobody imported into)."""
    corpus_format = corpus_format_for(cfg.format)
    if store.count("pairs") == 0:
        raise ConfigError(
            f"the store {store.path} has no pairs, so there is nothing to export to {cfg.out}; "
            "add pairs with `nlibuild import FILE --format ...` (or `elicit import`) first"
        )
    with store.recorded_run(EXPORT, cfg) as run:
        run_id = run.id
        rows: Iterator[ExportRow] = export_rows(store, GOLD)
        one_language = cfg.langs and not corpus_format.multilingual
        if one_language and len(cfg.langs) > 1:
            # A pair translated into two of them would be written twice under one ID.
            raise ConfigError(
                f"--lang {','.join(cfg.langs)}: {cfg.format.value} holds one language; give "
                "one --lang per file, or export xnli-tsv or xnli-jsonl, which hold several"
            )
        if cfg.split is not None:
            members = pair_keys_in_split(store, cfg.split)
            if not members:
                raise ConfigError(
                    f"--split {cfg.split}: the store has no such split; make the splits with "
                    "`nlibuild split --dev N --test N`"
                )
            rows = (row for row in rows if row.pk in members)
        tally = _LanguageTally()
        if one_language:
            (lang,) = cfg.langs
            rows = _pairs_in_language(rows, lang, translations_in(store, lang, "human"), tally)
        no_gold_rows = 0

        def tallied(source: Iterator[ExportRow], advance: Advance) -> Iterator[ExportRow]:
            nonlocal no_gold_rows
            done = 0
            for done, row in enumerate(source, 1):
                if row.gold in (None, NO_GOLD):
                    no_gold_rows += 1
                if not done % PROGRESS_CHUNK:
                    advance(PROGRESS_CHUNK)
                yield row
            advance(done % PROGRESS_CHUNK)

        with progress(f"export {cfg.out.name}", unit="pairs read") as advance:
            written = corpus_format.write(
                tallied(rows, advance), cfg.out, _write_settings(store, cfg)
            )
        count, sidecar = written.rows, written.sidecar
        counts = {"rows": count, "no_gold_rows": no_gold_rows}
        if written.pairs is not None:
            counts["pairs"] = written.pairs
            counts["languages"] = len(written.languages)
        counts |= {f"{split}_rows": rows for split, rows in written.split_rows}
        if written.unsplit_pairs:
            counts["unsplit_pairs"] = written.unsplit_pairs
        if one_language:
            counts["translated_rows"] = tally.translated
            counts["untranslated_pairs"] = tally.untranslated
        run.finish(counts)
    integer_labels = corpus_format.integer_labels
    return ExportResult(
        run_id=run_id,
        signature=run.signature,
        out=cfg.out,
        rows=count,
        no_gold_rows=no_gold_rows,
        no_gold_policy=cfg.no_gold if integer_labels else None,
        label_order=format_label_order(cfg.label_order) if integer_labels else None,
        sidecar=sidecar,
        lang=cfg.langs[0] if one_language else None,
        translated_rows=tally.translated,
        untranslated_pairs=tally.untranslated,
        pairs=count if written.pairs is None else written.pairs,
        languages=written.languages,
        split_rows=dict(written.split_rows),
        unsplit_pairs=written.unsplit_pairs,
        formula_cells=written.formula_cells,
        license=cfg.license,
    )


def summary(cfg: ExportConfig, result: ExportResult) -> str:
    line = f"Exported {_what_was_written(result)} to {result.out} as {cfg.format.value}"
    if result.split_rows:
        line += ": " + ", ".join(f"{split} {rows}" for split, rows in result.split_rows.items())
    if result.unsplit_pairs:
        line += f" ({counted(result.unsplit_pairs, 'pair')} in no split left out)"
    if result.lang is not None:
        line += (
            f" ({counted(result.translated_rows, 'pair')} from their human translation into "
            f"{result.lang}; {counted(result.untranslated_pairs, 'pair')} without one left out)"
        )
    if result.label_order is not None:
        fate = "dropped" if result.no_gold_policy is NoGoldPolicy.DROP else "written with label -1"
        line += (
            f"; labels {result.label_order} = 0,1,2 (written to "
            f"{result.sidecar or result.out / 'README.md'}); "
            f"{counted(result.no_gold_rows, 'pair')} without gold {fate}"
        )
    else:
        line += f"; {counted(result.no_gold_rows, 'pair')} without gold written as '-'"
    if cfg.format is ExportFormat.HF and result.license is None:
        line += f"; license {UNKNOWN_LICENSE!r} in the card (give --license)"
    return f"{line} {run_note(result)}"


def _what_was_written(result: ExportResult) -> str:
    """'48 pairs', or for rows that are pairs in several languages '9000 rows (3000 pairs
    in 3 languages: de, en, fr)'."""
    if len(result.languages) <= 1 and result.rows == result.pairs:
        return counted(result.rows, "pair")
    languages = ", ".join(result.languages)
    return (
        f"{counted(result.rows, 'row')} ({counted(result.pairs, 'pair')} in "
        f"{counted(len(result.languages), 'language')}: {languages})"
    )


def formula_warnings(result: ExportResult) -> list[str]:
    """A table of the corpus holds cells a spreadsheet would run: said, not changed. The
    file is a release programs read (README: corpus exports are byte-exact); a person who
    opens it in a spreadsheet must open it as text."""
    if not result.formula_cells:
        return []
    return [
        f"{result.out}: {counted(result.formula_cells, 'cell')} start with =, +, -, @, a tab or "
        "a carriage return, which a spreadsheet would run as a formula; they are written as "
        "stored, for programs. To read the file in a spreadsheet, import it with every column "
        "as text (not by opening it), or export --format jsonl for a person to read"
    ]


STAGE = Stage(EXPORT, settings=ExportConfig, run=run, summary=summary, warnings=formula_warnings)
