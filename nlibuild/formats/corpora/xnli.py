"""XNLI-style tab-separated files: read them, write XNLI tsv.

Read: a header row, then one pair per row, no quoting (XNLI's files contain raw `"`).
Recognised columns: `language`, `gold_label` or `label`, `sentence1`/`premise`,
`sentence2`/`hypothesis`/`hypo` (XNLI-MT), `promptID`/`prem_id`, `pairID`/`hypothesis_id`,
`genre`, `label1`..`label5`, and myXNLI's per-language `sentence1_<lang>`/`sentence2_<lang>`.
Other columns (parses, tokenisations, `match`) are kept.

In a multilingual file one language holds the pairs (`--lang`, else English when present)
and the rows or columns of the other languages become human translations of those pairs,
keyed as XNLI does by (language, pairID).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from nlibuild.errors import InputError
from nlibuild.formats.corpora.base import (
    CorpusFormat,
    PairLanguageTally,
    ReadSettings,
    WriteSettings,
    Written,
)
from nlibuild.formats.tabular import (
    ProgressCallback,
    SourcePair,
    SourceTranslation,
    guess_format,
    iter_lines,
    row_language,
    runs_as_formula,
    write_atomically,
)
from nlibuild.models import NO_GOLD
from nlibuild.store import ExportRow

_ALIASES = {
    "premise": "sentence1",
    "hypothesis": "sentence2",
    "hypo": "sentence2",
    "prem_id": "promptID",
    "hypothesis_id": "pairID",
}
VOTE_COLUMNS = ("label1", "label2", "label3", "label4", "label5")
_CORE = frozenset(
    {"language", "gold_label", "label", "sentence1", "sentence2", "promptID", "pairID", "genre",
     *VOTE_COLUMNS}
)  # fmt: skip
_LANG_COLUMN = re.compile(r"^sentence([12])_([A-Za-z]{2,3}(?:-[A-Za-z]+)?)$")

HEADER = (
    "language", "gold_label", "sentence1", "sentence2", "promptID", "pairID", "genre",
    *VOTE_COLUMNS,
)  # fmt: skip


def _show_columns(columns: list[str]) -> str:
    if len(columns) < 2:
        return "no tab-separated columns"
    shown = [c if len(c) <= 30 else c[:27] + "..." for c in columns[:8]]
    return ", ".join(shown) + (", ..." if len(columns) > 8 else "")


def _header(path: Path, text: str) -> list[str]:
    columns = [_ALIASES.get(name.strip(), name.strip()) for name in text.split("\t")]
    if "gold_label" not in columns and "label" in columns:
        columns[columns.index("label")] = "gold_label"
    has_text = "sentence1" in columns or any(_LANG_COLUMN.match(c) for c in columns)
    if not has_text or "gold_label" not in columns:
        raise InputError(
            path,
            "header has no sentence1/premise or no gold_label/label column "
            f"(found: {_show_columns(columns)}); {guess_format(text)}",
            1,
        )
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    if duplicated:
        raise InputError(path, f"header repeats column(s) {', '.join(duplicated)}", 1)
    _require_twins(path, columns)
    return columns


def _require_twins(path: Path, columns: list[str]) -> None:
    """Every premise column has its hypothesis column and the other way round
    (sentence1/sentence2, sentence1_<lang>/sentence2_<lang>): rows are read by both."""
    by_lang = any(_LANG_COLUMN.match(c) for c in columns)
    texts = [c for c in columns if _LANG_COLUMN.match(c)] if by_lang else ["sentence1"]
    for column in texts:
        twin = column.replace("sentence1", "sentence2", 1)
        if column.startswith("sentence2"):
            twin = column.replace("sentence2", "sentence1", 1)
        if twin not in columns:
            raise InputError(
                path,
                f"the header has {column} but no {twin} column; add it (premise and "
                "hypothesis come in pairs of columns)",
                1,
            )


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair | SourceTranslation]:
    """Pairs in `settings.lang` (default: English if present, else the only language)."""
    columns, rows = _rows(path, settings.progress)
    column_langs = sorted(
        {m.group(2) for c in columns if (m := _LANG_COLUMN.match(c))},
        key=lambda lang: (lang != "en", columns.index(f"sentence1_{lang}")),
    )
    row_langs = sorted({row["language"] for _, row in rows}) if "language" in columns else []
    pair_lang = _pair_lang(path, settings.lang, row_langs or column_langs)
    for line, row in rows:
        row_lang = row.get("language") or pair_lang
        if column_langs:
            premise = row.get(f"sentence1_{pair_lang}", "")
            hypothesis = row.get(f"sentence2_{pair_lang}", "")
        else:
            premise, hypothesis = row["sentence1"], row["sentence2"]
        if row_lang != pair_lang:
            if not row.get("pairID"):
                raise InputError(
                    path, "a translation row needs a pairID to say what it translates", line
                )
            yield SourceTranslation(line, str(row_lang), row["pairID"], premise, hypothesis)
            continue
        for name, text in (("sentence1", premise), ("sentence2", hypothesis)):
            if not text.strip():
                raise InputError(
                    path, f"field {name!r} is empty; give it text or remove the row", line
                )
        translations = {
            lang: (row[f"sentence1_{lang}"], row[f"sentence2_{lang}"])
            for lang in column_langs
            if lang != pair_lang
        }
        yield _pair(line, row, pair_lang, (premise, hypothesis), translations)


def _rows(
    path: Path, progress: ProgressCallback | None
) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The columns (aliases resolved) and the (line, row) of every row. All rows are read
    before the first pair is given, as the pair language depends on every row's."""
    lines = iter_lines(path, progress)
    first = next(lines, None)
    if first is None:
        raise InputError(path, "the file is empty; expected a header row and pairs", 1)
    columns = _header(path, first[1])
    rows: list[tuple[int, dict[str, str]]] = []
    for line, text in lines:
        fields = text.split("\t")
        if len(fields) != len(columns):
            raise InputError(
                path,
                f"expected {len(columns)} tab-separated fields, found {len(fields)}; "
                "fields cannot contain tabs (this format has no quoting)",
                line,
            )
        row = dict(zip(columns, fields, strict=True))
        if row.get("language"):
            row_language(path, line, row["language"], "column 'language'")
        rows.append((line, row))
    return columns, rows


def _pair_lang(path: Path, asked: str | None, langs: list[str]) -> str | None:
    """The language that holds the pairs: `asked` (--lang), else English when the file
    has it, else its only language; None for a file that names no language."""
    if asked is None:
        pair_lang = "en" if "en" in langs else (langs[0] if len(langs) == 1 else None)
        if pair_lang is None and langs:
            raise InputError(
                path,
                f"the file holds languages {', '.join(langs)}; "
                "choose the pair language with --lang",
            )
        return pair_lang
    if langs and asked not in langs:
        raise InputError(path, f"--lang {asked} is not in the file (languages: {', '.join(langs)})")
    return asked


def _pair(
    line: int,
    row: dict[str, str],
    pair_lang: str | None,
    texts: tuple[str, str],
    translations: dict[str, tuple[str, str]],
) -> SourcePair:
    """The pair of a row in the pair language; columns nlibuild has no place for are kept,
    on the premise when their name starts with `sentence1`."""
    extra = {
        key: value for key, value in row.items() if key not in _CORE and not _LANG_COLUMN.match(key)
    }
    premise_extra = {k: extra.pop(k) for k in list(extra) if k.startswith("sentence1")}
    return SourcePair(
        line=line,
        premise=texts[0],
        hypothesis=texts[1],
        premise_key=row.get("promptID") or None,
        pair_key=row.get("pairID") or None,
        genre=row.get("genre") or None,
        lang=pair_lang,
        labels=[row[c] for c in VOTE_COLUMNS if row.get(c)],
        gold=row["gold_label"],
        premise_extra=premise_extra or None,
        extra=extra or None,
        translations=translations or None,
    )


def clean_field(text: str) -> str:
    """XNLI tsv has no quoting: tabs and line breaks inside a field become spaces."""
    return " ".join(text.replace("\t", " ").splitlines())


def wanted_languages(
    rows: list[ExportRow], translations: dict[tuple[str, str], str], langs: tuple[str, ...]
) -> list[str]:
    """The languages a multilingual export writes, sorted: those of the pairs and of their
    human translations, or of them only those in `langs` when it is given."""
    found = {row.lang for row in rows} | {lang for (_, lang) in translations}
    return [lang for lang in sorted(found) if not langs or lang in langs]


def texts_in_language(
    row: ExportRow, lang: str, translations: dict[tuple[str, str], str]
) -> tuple[str, str] | None:
    """A pair's premise and hypothesis in `lang`: its own, or both human translations
    (XNLI's rows: translated texts with the source's labels); None when one is missing."""
    if row.lang == lang:
        return row.premise, row.hypothesis
    premise = translations.get((f"p:{row.premise_id}", lang), "")
    hypothesis = translations.get((f"h:{row.id}", lang), "")
    if not premise or not hypothesis:
        return None
    return premise, hypothesis


def multilingual_rows(
    rows: Iterator[ExportRow],
    translations: dict[tuple[str, str], str],
    langs: tuple[str, ...],
) -> tuple[list[str], Iterator[dict[str, str]]]:
    """XNLI's rows keyed by (language, pairID): the pairs' own rows, then one row per
    translated language and pair, as dicts of HEADER and the extra columns (returned first).

    `translations` maps (unit ID, language) to text; a pair gets a row in a language only
    when both its premise and hypothesis are translated there. Labels are the source's.
    """
    extra_columns: list[str] = []
    buffered: list[ExportRow] = []
    for row in rows:
        buffered.append(row)
        for source in (row.premise_extra_json, row.extra_json):
            for key in orjson.loads(source) if source else {}:
                if key not in extra_columns and key not in HEADER:
                    extra_columns.append(key)
    wanted = wanted_languages(buffered, translations, langs)

    def generate() -> Iterator[dict[str, str]]:
        for lang in wanted:
            for row in buffered:
                texts = texts_in_language(row, lang, translations)
                if texts is None:
                    continue
                premise, hypothesis = texts
                extras: dict[str, Any] = {}
                for source in (row.premise_extra_json, row.extra_json):
                    if source:
                        extras.update(orjson.loads(source))
                votes = [*row.labels[:5], *[""] * (5 - min(5, len(row.labels)))]
                fields = [
                    lang, row.gold or NO_GOLD, premise, hypothesis, row.premise_id, row.id,
                    row.genre or "", *votes, *(str(extras.get(c, "")) for c in extra_columns),
                ]  # fmt: skip
                yield dict(zip((*HEADER, *extra_columns), fields, strict=True))

    return extra_columns, generate()


def write_tsv(
    handle: IO[bytes],
    rows: Iterator[ExportRow],
    translations: dict[tuple[str, str], str],
    langs: tuple[str, ...],
    tally: PairLanguageTally | None = None,
    formulas: list[int] | None = None,
) -> int:
    """Write XNLI tsv (see `multilingual_rows`). Returns the row count; `formulas[0]`, if
    given, counts the cells a spreadsheet would run as formulas."""
    extra_columns, records = multilingual_rows(rows, translations, langs)
    if tally is not None:
        records = tally.count(records)
    columns = (*HEADER, *extra_columns)
    handle.write(("\t".join(columns) + "\n").encode())
    written = 0
    for record in records:
        cells = [clean_field(record[c]) for c in columns]
        if formulas is not None:
            formulas[0] += sum(1 for cell in cells if runs_as_formula(cell))
        handle.write(("\t".join(cells) + "\n").encode())
        written += 1
    return written


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    """XNLI tsv of the pairs and their human translations (see `multilingual_rows`). Its
    cells are written as stored, formulas to a spreadsheet included: a release is read by
    programs, byte-exact; the export counts them, and warns."""
    translations = settings.human_translations()
    tally = PairLanguageTally("pairID", "language")
    formulas = [0]

    def write_to(handle: IO[bytes]) -> int:
        return write_tsv(handle, rows, translations, settings.langs, tally, formulas)

    return tally.written(write_atomically(out, write_to), formula_cells=formulas[0])


FORMAT = CorpusFormat("xnli", reader=read, writer=write, multilingual=True)
