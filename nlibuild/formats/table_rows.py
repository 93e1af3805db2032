"""The rows of any table file: csv, tsv, JSON lines, one JSON array of objects, parquet.

Every import told its columns (`import --format table`, `translate import`, `elicit import
--format table`, `relabel import --format table`) reads its file here, so the five kinds
are read alike everywhere and a broken file is refused with the same words whichever
command was given it. What a row means (which column holds what) is the caller's:
`column_mapping.py` checks a mapping against `TableRows.header`.

The kind comes from the suffix (`.csv`, `.tsv`, `.jsonl`, `.json`, `.parquet`), or is
given. A tsv is not quoted (XNLI's files are not: a `"` is text there). Lines are the
file's own: a record of a JSON array is found at the line it starts on; a parquet file has
no lines, so there "line N" is its Nth row.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from nlibuild.errors import InputError
from nlibuild.formats.input_files import read_utf8_text, require_regular_file
from nlibuild.formats.tabular import ProgressCallback, ShortRows, csv_rows, iter_json_objects
from nlibuild.models import NO_GOLD

Row = dict[str, Any]
"""One row by column name: strings from csv and tsv, JSON's values from JSON and parquet."""

TABLE_KINDS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
}
"""The suffix of each kind of table file."""

_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass(slots=True)
class TableRows:
    """A table file as read: its columns, the line naming them, and its rows."""

    path: Path
    header: list[str]
    """The columns: a csv's header, the first record's keys, a parquet's schema; empty
    when the file holds no rows."""
    header_line: int | None
    """Where the columns are named (a JSON file's first record), for errors; None for parquet."""
    rows: Iterator[tuple[int, Row]]
    """(line, row) of every row, blank lines skipped."""


def table_kind(path: Path, what: str) -> str:
    """The kind of table file `path`'s suffix names; `what` is the option that reads it,
    for the error (`--format table`)."""
    kind = TABLE_KINDS.get(path.suffix.lower())
    if kind is None:
        raise InputError(
            path,
            f"{what} reads .csv, .tsv, .jsonl, .json (one JSON array) and .parquet files; "
            "give the file the suffix of its kind",
        )
    return kind


def read_table_rows(
    path: Path,
    kind: str,
    progress: ProgressCallback | None = None,
    *,
    from_spreadsheet: bool = False,
    short_rows: ShortRows | None = None,
) -> TableRows:
    """The rows of a table file of `kind` (a value of `TABLE_KINDS`). With
    `from_spreadsheet` a csv's guard quotes (`tabular.guard_formula`) are taken off; with
    `short_rows` a csv or tsv row ending before the header is read when the cells it lacks
    are in `short_rows.unread` (`tabular.ShortRows`), which the caller fills in from the
    header before it reads the rows."""
    require_regular_file(path)
    if kind in ("csv", "tsv"):
        if path.stat().st_size == 0:
            raise InputError(path, "the file is empty; expected a header row and rows", 1)
        delimiter = "\t" if kind == "tsv" else ","
        header, text_rows = csv_rows(
            path, delimiter, from_spreadsheet=from_spreadsheet, short_rows=short_rows
        )
        _require_distinct(path, header)
        return TableRows(path, header, 1, text_rows)
    if kind == "parquet":
        return _parquet_rows(path)
    records = iter_json_objects(path, "table", progress) if kind == "jsonl" else _json_array(path)
    first = next(records, None)
    if first is None:
        return TableRows(path, [], None, iter(()))
    return TableRows(path, list(first[1]), first[0], _chain_first(first, records))


def cell_text(value: Any) -> str:
    """A cell as text, for readers that take strings whatever the file's kind: None is
    empty, numbers are written as JSON writes them, lists and objects as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


def list_cell(path: Path, line: int, column: str, value: Any) -> list[Any] | None:
    """A cell holding a list, as a list: JSON's and parquet's own, or one written in a csv
    cell as JSON (`["neutral", "entailment"]`) or as Python writes a list
    (`['neutral', 'entailment']`: pandas' `to_csv` of a list column, LiveNLI's
    `mnli_labels`); None for a cell that is not a list (a single label). A cell opening
    with `[` that is neither is an error, not a label guessed."""
    if isinstance(value, list):
        return value
    if not (isinstance(value, str) and value.lstrip().startswith("[")):
        return None
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        parsed = _python_list(value)
    if not isinstance(parsed, list):
        raise InputError(
            path,
            f"column {column!r} holds {value[:60]!r}, neither a JSON list nor a Python one; "
            'write it as ["entailment", "neutral"]',
            line,
        )
    return parsed


def _python_list(text: str) -> Any:
    """A list of literals in Python's syntax (`['a', 'b']`), None for anything else.
    `ast.literal_eval` builds literals only (it runs no code); a cell nested deeply enough
    to exhaust the parser is not a list of labels either."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def label_by_value(
    path: Path, line: int, column: str, raw: str, label_values: Mapping[str, str]
) -> str | None:
    """The label `--labels` maps a cell's value `raw` (in `column`, at `line`) to, None for
    `-` (no label). `--labels` adds to the default reading rather than replacing it
    (issue 28: `--labels maybe=-` drops one stray value without the four usual labels
    written out), so a value it does not name is handed on as written, for the caller's
    normaliser to read as it reads a file without `--labels` (and refuse, if it is none)."""
    if raw not in label_values:
        return raw
    label = label_values[raw]
    return None if label == NO_GOLD else label


def _chain_first(
    first: tuple[int, Row], rest: Iterator[tuple[int, Row]]
) -> Iterator[tuple[int, Row]]:
    yield first
    yield from rest


def _require_distinct(path: Path, header: list[str]) -> None:
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InputError(
            path, f"the header repeats column(s) {', '.join(repeated)}; rename one of each", 1
        )


def _parquet_rows(path: Path) -> TableRows:
    import polars as pl

    try:
        frame = pl.read_parquet(path)
    except Exception as exc:  # polars raises several kinds for a file it cannot read
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            path, f"cannot be read as parquet ({reason}); check that it is a parquet file"
        ) from None
    rows = ((index, row) for index, row in enumerate(frame.iter_rows(named=True), start=1))
    return TableRows(path, frame.columns if frame.height else [], None, rows)


def _json_array(path: Path) -> Iterator[tuple[int, Row]]:
    """(line, object) for each element of a file holding one JSON array of objects.

    The standard library's decoder takes the array one element at a time (`raw_decode`),
    which says where each element starts: orjson is faster but parses the whole array at
    once and could only say "record 812", not the line a user can open the file at.
    """
    text = read_utf8_text(path).removeprefix("\ufeff")
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if not text.startswith("[", position):
        raise InputError(
            path,
            "a .json file must hold one JSON array of objects; for one object a line, "
            "name the file .jsonl",
            text.count("\n", 0, position) + 1,
        )
    position = _skip_space(text, position + 1)
    line, counted_to = 1, 0
    if text.startswith("]", position):
        return
    while True:
        line += text.count("\n", counted_to, position)
        counted_to = position
        record, end = _json_record(path, decoder, text, position, line)
        yield line, record
        position = _skip_space(text, end)
        if text.startswith(",", position):
            position = _skip_space(text, position + 1)
            continue
        if text.startswith("]", position) and not text[position + 1 :].strip():
            return
        raise InputError(
            path,
            "expected ',' or the array's closing ']' after a record; fix the JSON",
            text.count("\n", 0, position) + 1,
        )


def _json_record(
    path: Path, decoder: json.JSONDecoder, text: str, position: int, line: int
) -> tuple[Row, int]:
    """The object that starts at `position` (on `line`), and where it ends.

    The standard library's decoder only finds the record's end: its values are orjson's,
    as a .jsonl file's are, so that both kinds refuse what a store cannot keep alike (a
    lone surrogate `\\ud800`, a number too big for a double such as 1e400, NaN), where
    the standard library would hand them on to fail deep in the import.
    """
    try:
        _, end = decoder.raw_decode(text, position)
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"not valid JSON ({exc.msg} at column {exc.colno}); fix the record", exc.lineno
        ) from None
    except RecursionError:  # the decoder recurses once per level of nesting
        raise InputError(
            path, "a record nested too deeply to be read; fix the record", line
        ) from None
    try:
        record = orjson.loads(text[position:end])
    except orjson.JSONDecodeError as exc:
        # orjson counts from the record's start; the file's line and column are wanted.
        column = exc.colno + (
            position - text.rfind("\n", 0, position) - 1 if exc.lineno == 1 else 0
        )
        raise InputError(
            path,
            f"not valid JSON ({exc.msg} at column {column}); fix the record",
            line + exc.lineno - 1,
        ) from None
    if type(record) is not dict:
        raise InputError(
            path, f"expected a JSON object, found {type(record).__name__}; fix the record", line
        )
    return record, end


def _skip_space(text: str, position: int) -> int:
    return _SPACE.match(text, position).end()  # type: ignore[union-attr]
