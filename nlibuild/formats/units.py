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

from nlibuild.errors import InputError
from nlibuild.formats.column_mapping import resolve_columns
from nlibuild.formats.input_files import require_regular_file
from nlibuild.formats.tabular import csv_rows, iter_json_objects, write_atomically, write_json_lines
from nlibuild.models import ROW_COLUMN_KEYS, UNIT_COLUMN_KEYS, TranslationUnit, UnitFormat

if TYPE_CHECKING:
    import polars as pl

COLUMNS = tuple(TranslationUnit.model_fields)


def unit_format_of(path: Path) -> UnitFormat:
    """The format a file's suffix names (.tsv, .csv, .jsonl/.json), else tsv."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix in ("jsonl", "json"):
        return UnitFormat.JSONL
    return UnitFormat.CSV if suffix == "csv" else UnitFormat.TSV


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write_units(path: Path, fmt: UnitFormat, units: Sequence[TranslationUnit]) -> int:
    """Write the units; returns how many."""
    if fmt is UnitFormat.JSONL:
        return write_json_lines(path, (u.model_dump() for u in units))

    def write(handle: IO[bytes]) -> int:
        text = io.StringIO(newline="")
        if fmt is UnitFormat.TSV:
            text.write("\t".join(COLUMNS) + "\n")
            for unit in units:
                text.write("\t".join(_one_line(getattr(unit, c)) for c in COLUMNS) + "\n")
        else:
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(COLUMNS)
            writer.writerows([getattr(unit, c) for c in COLUMNS] for unit in units)
        handle.write(text.getvalue().encode("utf-8"))
        return len(units)

    return write_atomically(path, write)


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
    from the columns `columns` names (`UnitColumns.of`)."""
    require_regular_file(path)
    names = UnitColumns.of(columns)
    if fmt is UnitFormat.JSONL:
        for line, record in iter_json_objects(path, "jsonl"):
            unit_id, text = record.get(names.unit_id), record.get(names.text)
            if not isinstance(unit_id, str) or not unit_id:
                raise InputError(
                    path, f"each line needs a {names.unit_id} (p:<premise> or h:<pair>)", line
                )
            if not isinstance(text, str):
                raise InputError(path, f"{unit_id}: field {names.text!r} must be a string", line)
            lang = record.get(names.lang)
            yield line, unit_id, text, lang if isinstance(lang, str) else None
        return
    header, rows = csv_rows(path, "\t" if fmt is UnitFormat.TSV else ",")
    if columns:
        resolve_columns(
            path, header, 1, {key: (name,) for key, name in columns.items()},
            {key: (key,) for key in UNIT_COLUMN_KEYS}, required=("unit_id", "text"),
        )  # fmt: skip
    missing = [c for c in (names.unit_id, names.text) if c not in header]
    if missing:
        raise InputError(
            path,
            f"no {' and no '.join(missing)} column: give the file `nlibuild translate export` "
            "wrote, with the text column filled",
            1,
        )
    for line, row in rows:
        unit_id = row[names.unit_id].strip()
        if not unit_id:
            raise InputError(
                path, f"a row without {names.unit_id}; fill it or remove the row", line
            )
        yield line, unit_id, row[names.text], (row.get(names.lang) or "").strip() or None


def read_unit_table(
    path: Path, fmt: UnitFormat, columns: Mapping[str, str] | None = None
) -> pl.DataFrame:
    """`read_units` as a frame (line, unit, text, lang): a well-formed tsv is read by
    polars directly (an XNLI-size language is half a million rows); anything else, or a
    tsv with a fault, by the careful reader, which names the line of every problem."""
    import polars as pl

    if fmt is UnitFormat.TSV and path.is_file():
        quick = _quick_tsv_frame(path, columns or {})
        if quick is not None:
            return quick
    read = list(read_units(path, fmt, columns))
    return pl.DataFrame(
        {
            "line": pl.Series([r[0] for r in read], dtype=pl.Int64),
            "unit": pl.Series([r[1] for r in read], dtype=pl.String),
            "text": pl.Series([r[2] for r in read], dtype=pl.String),
            "lang": pl.Series([r[3] for r in read], dtype=pl.String),
        }
    )


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


def _sentence_pairs(
    path: Path,
    premise_columns: Callable[[list[str]], list[str]],
    missing: str,
    copy_of: Callable[[list[str], str], str | None] = lambda header, premise: None,
    columns: Mapping[str, str] | None = None,
) -> list[SentencePairRow]:
    """Every row of a tsv (csv by suffix) of sentence pairs: the premise from the first of
    `premise_columns(header)` present, the hypothesis from its `sentence2` twin (or
    `hypothesis`), the label from `gold_label` or `label` when there is one, and the
    `copy_of(header, premise column)` premise column and its twin when there is one; a
    key of `columns` (`ROW_COLUMN_KEYS`) names its column instead."""
    if not path.exists():
        raise InputError(path, missing)  # anything else there is refused by csv_rows
    header, rows = csv_rows(path, "," if path.suffix.lower() == ".csv" else "\t")
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
    return [
        SentencePairRow(
            line, row[premise], row[hypothesis], row[label] if label else None,
            {key: row[c].strip() for key, c in ids if row[c].strip()},
            (row[copy], row[copy_twin]) if copy and copy_twin else None,
            f"{copy}/{copy_twin}" if copy and copy_twin else None,
        )
        for line, row in rows
    ]  # fmt: skip


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
    path: Path, lang: str, columns: Mapping[str, str] | None = None
) -> list[SentencePairRow]:
    """The rows of a tsv translation that follows its source row by row (myXNLI:
    `sentence1_<lang>`, KorNLI: `sentence1`, or the columns `--columns` names); see
    `_sentence_pairs`."""
    return _sentence_pairs(
        path,
        lambda _: [f"sentence1_{lang}", "sentence1", "premise"],
        "no such file; check the path",
        _other_language_copy(lang),
        columns,
    )


def read_reference(path: Path, lang: str) -> list[SentencePairRow]:
    """The source rows a row-aligned translation follows: columns `sentence1_en`, another
    `sentence1_<source>` (not the target's), `sentence1` or `premise`."""

    def sources(header: list[str]) -> list[str]:
        others = [c for c in header if c.startswith("sentence1_") and c != f"sentence1_{lang}"]
        return ["sentence1_en", *others, "sentence1", "premise"]

    return _sentence_pairs(path, sources, "no such reference file; check --reference")
