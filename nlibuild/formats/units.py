"""Files of translation units (`models.TranslationUnit`): tsv, csv or JSON lines.

Columns `unit_id, source_lang, source, lang, text`; translators fill `text`. The tsv is not
quoted (as NLI tsv files are), so tabs and line breaks inside a text become spaces on the
way out. Reading needs only `unit_id` and `text`, or the columns `--columns` names for them
(`models.UNIT_COLUMN_KEYS`); a file aligned by row names its premise, hypothesis, label and
pair ID columns the same way (`models.ROW_COLUMN_KEYS`), checked by `column_mapping.py` as
`import --format table` checks its mapping.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

import orjson

from nlibuild.errors import InputError
from nlibuild.formats.column_mapping import resolve_columns, shown_columns
from nlibuild.formats.table_rows import (
    TABLE_KINDS,
    Row,
    TableRows,
    cell_text,
    label_by_value,
    read_table_rows,
)
from nlibuild.formats.tabular import (
    FORMULA_GUARD,
    guard_formula,
    row_language,
    unguard_formula,
    write_atomically,
    write_json_lines,
)
from nlibuild.models import (
    ROW_COLUMN_KEYS,
    UNIT_COLUMN_KEYS,
    TranslationUnit,
    UnitFormat,
    lang_code_problem,
)
from nlibuild.text.lang import primary_language

if TYPE_CHECKING:
    import polars as pl

COLUMNS = tuple(TranslationUnit.model_fields)


def unit_format_of(path: Path, reading: bool = True) -> UnitFormat:
    """The format a file's suffix names (.tsv, .csv, .jsonl, .json, .parquet), else tsv. A
    `.json` file read is one JSON array when it starts with `[`, else JSON lines (as
    nlibuild read every `.json` file of units before it read arrays)."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix == "json" and reading:
        return UnitFormat.JSON if _starts_an_array(path) else UnitFormat.JSONL
    return UnitFormat(suffix) if suffix in UnitFormat.__members__.values() else UnitFormat.TSV


def _starts_an_array(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            start = handle.read(4096)
    except OSError:
        return True  # the reader says what is wrong with the path
    return start.removeprefix(codecs.BOM_UTF8).lstrip().startswith(b"[")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write_units(path: Path, fmt: UnitFormat, units: Sequence[TranslationUnit]) -> int:
    """Write the units; returns how many."""
    if fmt is UnitFormat.JSONL:
        return write_json_lines(path, (u.model_dump() for u in units))
    if fmt is UnitFormat.JSON:
        text = orjson.dumps([u.model_dump() for u in units], option=orjson.OPT_INDENT_2)
        return write_atomically(path, lambda handle: handle.write(text) and len(units))
    if fmt is UnitFormat.PARQUET:
        return write_atomically(path, lambda handle: _write_parquet(handle, units))

    # Csv and tsv go to translators, who open them in a spreadsheet: a cell that would run
    # as a formula gets the guard quote, which `translate import` takes off again.
    def write(handle: IO[bytes]) -> int:
        text = io.StringIO(newline="")
        if fmt is UnitFormat.TSV:
            text.write("\t".join(COLUMNS) + "\n")
            for unit in units:
                cells = (guard_formula(_one_line(getattr(unit, c))) for c in COLUMNS)
                text.write("\t".join(cells) + "\n")
        else:
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(COLUMNS)
            writer.writerows([guard_formula(getattr(unit, c)) for c in COLUMNS] for unit in units)
        handle.write(text.getvalue().encode("utf-8"))
        return len(units)

    return write_atomically(path, write)


def _write_parquet(handle: IO[bytes], units: Sequence[TranslationUnit]) -> int:
    import polars as pl

    frame = pl.DataFrame(
        {c: pl.Series([getattr(u, c) for u in units], dtype=pl.String) for c in COLUMNS}
    )
    frame.write_parquet(handle)
    return len(units)


class UnitColumns(NamedTuple):
    """The columns a file of units holds its unit IDs, texts and languages in."""

    unit_id: str
    text: str
    lang: str

    @classmethod
    def of(cls, columns: Mapping[str, str] | None) -> UnitColumns:
        """As `--columns` names them, else the columns `translate export` writes."""
        return cls(*((columns or {}).get(key, key) for key in UNIT_COLUMN_KEYS))


def read_units(
    path: Path, fmt: UnitFormat, columns: Mapping[str, str] | None = None
) -> Iterator[tuple[int, str, str, str | None]]:
    """(line, unit ID, translated text, the row's `lang` if it has one) of every row, read
    from the columns `columns` names (`UnitColumns.of`), whatever kind of table file."""
    names = UnitColumns.of(columns)
    table = read_table_rows(path, fmt.value, from_spreadsheet=True)
    if not table.header:
        return
    asked = {key: (name,) for key, name in (columns or {}).items()}
    resolve_columns(
        path, table.header, table.header_line, asked,
        {key: (key,) for key in UNIT_COLUMN_KEYS}, required=("unit_id", "text"),
    )  # fmt: skip
    for line, row in table.rows:
        unit_id, text = row.get(names.unit_id), row.get(names.text)
        if unit_id is None or not cell_text(unit_id).strip():
            raise InputError(
                path, f"a row without {names.unit_id} (p:<premise> or h:<pair>); fill it or "
                "remove the row", line,
            )  # fmt: skip
        if text is not None and not isinstance(text, str):
            raise InputError(
                path, f"{cell_text(unit_id).strip()}: column {names.text!r} must hold text, "
                f"found {text!r}", line,
            )  # fmt: skip
        lang = cell_text(row.get(names.lang)).strip() or None
        yield line, cell_text(unit_id).strip(), text or "", lang


def read_unit_table(
    path: Path, fmt: UnitFormat, columns: Mapping[str, str] | None = None
) -> pl.DataFrame:
    """`read_units` as a frame (line, unit, text, lang): a well-formed tsv is read by
    polars directly (an XNLI-size language is half a million rows); anything else, or a
    tsv with a fault, by the careful reader, which names the line of every problem."""
    import polars as pl

    quick = fmt is UnitFormat.TSV and path.is_file()
    frame = _quick_tsv_frame(path, columns or {}) if quick else None
    if frame is None:
        read = list(read_units(path, fmt, columns))
        frame = pl.DataFrame(
            {
                "line": pl.Series([r[0] for r in read], dtype=pl.Int64),
                "unit": pl.Series([r[1] for r in read], dtype=pl.String),
                "text": pl.Series([r[2] for r in read], dtype=pl.String),
                "lang": pl.Series([r[3] for r in read], dtype=pl.String),
            }
        )
    _check_languages(path, frame, UnitColumns.of(columns).lang)
    return frame


def _check_languages(path: Path, frame: pl.DataFrame, column: str) -> None:
    """Refuse the first row whose `lang` is no language code (a file of half a million
    units holds a handful of distinct languages, so each is checked once)."""
    import polars as pl

    langs = frame["lang"].drop_nulls().unique().to_list()
    wrong = [lang for lang in langs if lang_code_problem(lang) is not None]
    if wrong:
        line, lang = frame.filter(pl.col("lang").is_in(wrong)).select("line", "lang").row(0)
        row_language(path, line, lang, f"column {column!r}")


def _quick_tsv_frame(path: Path, columns: Mapping[str, str]) -> pl.DataFrame | None:
    """The rows of a well-formed unit tsv, or None when the file needs the careful reader:
    a blank, ragged or unnamed row, a missing column, bytes that are not UTF-8, line ends
    other than \\n."""
    import polars as pl

    names = UnitColumns.of(columns)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    raw = raw.removeprefix(codecs.BOM_UTF8)
    if b"\r" in raw or b"\n\n" in raw:
        return None
    try:
        frame = pl.read_csv(raw, separator="\t", quote_char=None, infer_schema=False)
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        return None
    if names.unit_id not in frame.columns or names.text not in frame.columns:
        return None
    asked = list(columns.values())
    if len(set(names)) < len(names) or any(name not in frame.columns for name in asked):
        return None  # the careful reader names the column missing or given twice
    lang = pl.col(names.lang).str.strip_chars() if names.lang in frame.columns else pl.lit(None)
    frame = frame.select(
        # line 1 is the header, and no blank line stands between rows
        pl.int_range(2, frame.height + 2, dtype=pl.Int64).alias("line"),
        pl.col(names.unit_id).str.strip_chars().alias("unit"),
        pl.col(names.text).alias("text"),
        pl.when(lang != "").then(lang).otherwise(None).cast(pl.String).alias("lang"),
    )
    if frame["unit"].null_count() or frame["text"].null_count():
        return None  # a short row
    if (frame["unit"] == "").any():
        return None  # a blank row (skipped) or a row without unit_id (an error)
    return _unguarded(frame, ("unit", "text", "lang"))


def _unguarded(frame: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    """The cells `write_units` guarded against spreadsheets (`guard_formula`) as they were;
    a column none of whose cells starts with the quote (the common case) is not looked at."""
    import polars as pl

    for column in columns:
        guarded = frame[column].str.starts_with(FORMULA_GUARD)
        if guarded.any():
            cells = [
                unguard_formula(cell) if is_guarded else cell
                for cell, is_guarded in zip(frame[column], guarded, strict=True)
            ]
            frame = frame.with_columns(pl.Series(column, cells, dtype=pl.String))
    return frame


def _column(header: list[str], candidates: list[str], path: Path, what: str) -> str:
    for name in candidates:
        if name in header:
            return name
    raise InputError(path, f"no {what} column (looked for {', '.join(candidates)})", 1)


ALIGNMENT_COLUMNS = ("pairID", "promptID", "genre")
"""Columns that say which source row a row is (XNLI's tsv carries all three); compared
where the translation and its reference both have them."""


class SentencePairRow(NamedTuple):
    """One row of a tsv of sentence pairs, with what it says about its source row."""

    line: int
    premise: str
    hypothesis: str
    label: str | None
    ids: dict[str, str]
    """The row's `ALIGNMENT_COLUMNS` that are present and not blank."""
    copy: tuple[str, str] | None
    """A translation's texts in another language (myXNLI's `sentence1_en`, `sentence2_en`)."""
    copy_columns: str | None
    """The columns `copy` comes from, e.g. sentence1_en/sentence2_en."""


class RowSelection(NamedTuple):
    """How a row-aligned file is read beyond its columns: the rows of one language of a
    file holding several (AmericasNLI: a language column), and what its label values mean."""

    lang_column: str | None = None
    lang: str | None = None
    label_values: Mapping[str, str] | None = None


ALL_ROWS = RowSelection()
"""Every row, labels as written."""


def _sentence_pairs(
    path: Path,
    premise_columns: Callable[[list[str]], list[str]],
    missing: str,
    copy_of: Callable[[list[str], str], str | None] = lambda header, premise: None,
    columns: Mapping[str, str] | None = None,
    selection: RowSelection = ALL_ROWS,
) -> list[SentencePairRow]:
    """Every row of a table file of sentence pairs (any kind `table_rows.py` reads; tsv
    when the suffix names none): the premise from the first of `premise_columns(header)`
    present, the hypothesis from its `sentence2` twin (or `hypothesis`), the label from
    `gold_label` or `label` when there is one, and the `copy_of(header, premise column)`
    premise column and its twin when there is one; a key of `columns` (`ROW_COLUMN_KEYS`)
    names its column instead. `selection` keeps one language's rows and maps labels."""
    if not path.exists():
        raise InputError(path, missing)  # anything else there is refused by the reader
    table = read_table_rows(path, TABLE_KINDS.get(path.suffix.lower(), "tsv"))
    header = table.header
    if not header:
        return []
    if columns:
        premise, hypothesis, label, pair_id = _mapped_pair_columns(
            path, header, premise_columns(header), columns
        )
    else:
        premise = _column(header, premise_columns(header), path, "premise")
        twins = list(dict.fromkeys((_twin(premise), "sentence2", "hypothesis")))
        hypothesis = _column(header, twins, path, "hypothesis")
        label = next((c for c in ("gold_label", "label") if c in header), None)
        pair_id = None
    copy = copy_of(header, premise)
    copy_twin = _twin(copy) if copy else None
    ids = [(c, c) for c in ALIGNMENT_COLUMNS if c in header and not (pair_id and c == "pairID")]
    ids += [("pairID", pair_id)] if pair_id else []
    rows = _selected_rows(table, selection)
    return [
        SentencePairRow(
            line, cell_text(row.get(premise)), cell_text(row.get(hypothesis)),
            _row_label(path, line, row, label, selection.label_values),
            {key: cell_text(row.get(c)).strip() for key, c in ids if cell_text(row.get(c)).strip()},
            (cell_text(row.get(copy)), cell_text(row.get(copy_twin)))
            if copy and copy_twin else None,
            f"{copy}/{copy_twin}" if copy and copy_twin else None,
        )
        for line, row in rows
    ]  # fmt: skip


def _selected_rows(table: TableRows, selection: RowSelection) -> list[tuple[int, Row]]:
    """The rows of `selection.lang` in `selection.lang_column` (every row without one):
    a row naming no language is an error, as is a file with no row of the language."""
    column, lang = selection.lang_column, selection.lang
    if column is None or lang is None:
        return list(table.rows)
    if column not in table.header:
        raise InputError(
            table.path,
            f"--lang-column {column}: the file has no column {column!r} "
            f"(columns: {shown_columns(table.header)}); name one of those",
            table.header_line,
        )
    kept, seen = [], set()
    for line, row in table.rows:
        row_lang = cell_text(row.get(column)).strip()
        if not row_lang:
            raise InputError(
                table.path, f"column {column!r} names no language; fill it or remove the row", line
            )
        seen.add(row_language(table.path, line, row_lang, f"column {column!r}"))
        if primary_language(row_lang) == primary_language(lang):
            kept.append((line, row))
    if not kept:
        raise InputError(
            table.path,
            f"no row of {lang} in column {column!r} (it holds {', '.join(sorted(seen))}); "
            "check --lang",
        )
    return kept


def _row_label(
    path: Path, line: int, row: Row, column: str | None, label_values: Mapping[str, str] | None
) -> str | None:
    """A row's label as written, or as `--labels` maps it (`-` for none)."""
    if column is None:
        return None
    raw = cell_text(row.get(column)).strip()
    if not label_values or not raw:
        return raw if column in row else None
    return label_by_value(path, line, column, raw, label_values)


def _mapped_pair_columns(
    path: Path, header: list[str], premise_candidates: list[str], columns: Mapping[str, str]
) -> tuple[str, str, str | None, str | None]:
    """The premise, hypothesis, label and pair ID columns of a row-aligned file read with
    `--columns`: a key given names its column; one not given takes its usual column."""
    premise = columns.get("premise") or next(
        (name for name in premise_candidates if name in header), "premise"
    )
    defaults: dict[str, Sequence[str]] = {
        "premise": (premise,),
        "hypothesis": tuple(dict.fromkeys((_twin(premise), "sentence2", "hypothesis"))),
        "label": ("gold_label", "label"),
        "pair_id": ("pairID",),
    }
    assert tuple(defaults) == ROW_COLUMN_KEYS
    found = resolve_columns(
        path, header, 1, {key: (name,) for key, name in columns.items()}, defaults,
        required=("premise", "hypothesis"),
    )  # fmt: skip
    label, pair_id = found.get("label", (None,))[0], found.get("pair_id", (None,))[0]
    return found["premise"][0], found["hypothesis"][0], label, pair_id


def _twin(premise_column: str) -> str:
    """The hypothesis column beside a premise column: sentence1_xx -> sentence2_xx."""
    if premise_column.startswith("sentence1"):
        return premise_column.replace("sentence1", "sentence2", 1)
    return "sentence2"


def _other_language_copy(lang: str) -> Callable[[list[str], str], str | None]:
    """The first `sentence1_<xx>` column of another language than `lang` that has its
    `sentence2_<xx>` twin: a translation's copy of its source texts."""

    def copy(header: list[str], premise: str) -> str | None:
        return next(
            (c for c in header
             if c.startswith("sentence1_") and c not in (premise, f"sentence1_{lang}")
             and _twin(c) in header),
            None,
        )  # fmt: skip

    return copy


def read_row_aligned(
    path: Path,
    lang: str,
    columns: Mapping[str, str] | None = None,
    selection: RowSelection = ALL_ROWS,
) -> list[SentencePairRow]:
    """The rows of a translation that follows its source row by row (myXNLI:
    `sentence1_<lang>`, KorNLI: `sentence1`, or the columns `--columns` names); see
    `_sentence_pairs`."""
    return _sentence_pairs(
        path,
        lambda _: [f"sentence1_{lang}", "sentence1", "premise"],
        "no such file; check the path",
        _other_language_copy(lang),
        columns,
        selection,
    )


def read_reference(path: Path, lang: str) -> list[SentencePairRow]:
    """The source rows a row-aligned translation follows: columns `sentence1_en`, another
    `sentence1_<source>` (not the target's), `sentence1` or `premise`."""

    def sources(header: list[str]) -> list[str]:
        others = [c for c in header if c.startswith("sentence1_") and c != f"sentence1_{lang}"]
        return ["sentence1_en", *others, "sentence1", "premise"]

    return _sentence_pairs(path, sources, "no such reference file; check --reference")
