"""`--format table`: any table of pairs, whatever its columns are called.

The files teams hold come in many shapes (KLUE's JSON array, LiveNLI's csv with a column a
vote, AmericasNLI's one file with a language column): instead of a converter each, this
reader takes the file's kind from its suffix (`.csv`, `.tsv`, `.jsonl`, `.json` for one JSON
array of objects, `.parquet`) and is told which column holds what (`--columns`, the keys
of `models.TABLE_COLUMN_KEYS`; a key not given takes the column of its own name when the
file has one) and what the label values mean (`--labels 0=entailment,...`). Columns the
mapping leaves out are kept on the pair, as the other readers keep theirs.

Lines are the file's own (a record of a JSON array is found at the line it starts on); a
parquet file has no lines, so there "line N" is its Nth row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from nlibuild.errors import InputError
from nlibuild.formats.column_mapping import resolve_columns
from nlibuild.formats.corpora.base import CorpusFormat, ReadSettings
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.formats.tabular import SourcePair, csv_rows, iter_json_objects
from nlibuild.models import NO_GOLD, TABLE_COLUMN_KEYS

Row = dict[str, Any]

_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
}
_SPACE = re.compile(r"[ \t\n\r]*")


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair]:
    """The pairs of a table file, read by the mapping in `settings`."""
    header, header_line, rows = _table(path, settings)
    if header is None:
        return  # no rows: the import says the file holds no pairs
    mapping = _mapping(path, header, header_line, settings.columns or {})
    used = {column for names in mapping.values() for column in names}
    kept = [column for column in header if column not in used]
    labels = settings.label_values or None
    for line, row in rows:
        yield _pair(path, line, row, mapping, labels, kept)


def _table(
    path: Path, settings: ReadSettings
) -> tuple[list[str] | None, int | None, Iterator[tuple[int, Row]]]:
    """The columns, the line that names them, and the (line, row) of every row."""
    kind = _SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise InputError(
            path,
            "--format table reads .csv, .tsv, .jsonl, .json (one JSON array) and .parquet "
            "files; give the file the suffix of its kind",
        )
    if kind in ("csv", "tsv"):
        if path.stat().st_size == 0:
            raise InputError(path, "the file is empty; expected a header row and pairs", 1)
        header, text_rows = csv_rows(path, "\t" if kind == "tsv" else ",")
        _require_distinct(path, header)
        return header, 1, iter(text_rows)
    if kind == "parquet":
        frame = _parquet(path)
        rows = ((index, row) for index, row in enumerate(frame.iter_rows(named=True), start=1))
        return (frame.columns if frame.height else None), None, rows
    records = (
        iter_json_objects(path, "table", settings.progress)
        if kind == "jsonl"
        else _json_array(path)
    )
    first = next(records, None)
    if first is None:
        return None, None, iter(())
    return list(first[1]), first[0], _chain_first(first, records)


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


def _parquet(path: Path) -> pl.DataFrame:
    try:
        return pl.read_parquet(path)
    except Exception as exc:  # polars raises several kinds for a file it cannot read
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            path, f"cannot be read as parquet ({reason}); check that it is a parquet file"
        ) from None


def _json_array(path: Path) -> Iterator[tuple[int, Row]]:
    """(line, object) for each element of a file holding one JSON array of objects.

    The standard library's decoder takes the array one element at a time (`raw_decode`),
    which says where each element starts: orjson is faster but parses the whole array at
    once and could only say "record 812", not the line a user can open the file at.
    """
    text = read_utf8_text(path).removeprefix("\ufeff")
    decoder = json.JSONDecoder()
    position = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("[", position):
        raise InputError(
            path,
            "a .json file must hold one JSON array of objects; for one object a line, "
            "name the file .jsonl",
            text.count("\n", 0, position) + 1,
        )
    position = _SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
    line, counted_to = 1, 0
    if text.startswith("]", position):
        return
    while True:
        line += text.count("\n", counted_to, position)
        counted_to = position
        try:
            record, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise InputError(
                path,
                f"not valid JSON ({exc.msg} at column {exc.colno}); fix the record",
                exc.lineno,
            ) from None
        except RecursionError:  # the decoder recurses once per level of nesting
            raise InputError(
                path, "a record nested too deeply to be read; fix the record", line
            ) from None
        if type(record) is not dict:
            raise InputError(
                path, f"expected a JSON object, found {type(record).__name__}; fix the record", line
            )
        yield line, record
        position = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith(",", position):
            position = _SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
            continue
        if text.startswith("]", position) and not text[position + 1 :].strip():
            return
        raise InputError(
            path,
            "expected ',' or the array's closing ']' after a record; fix the JSON",
            text.count("\n", 0, position) + 1,
        )


def _mapping(
    path: Path, header: list[str], line: int | None, asked: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """The column(s) of each key: as asked, else the column of the key's own name."""
    return resolve_columns(
        path, header, line, asked, {key: (key,) for key in TABLE_COLUMN_KEYS},
        required=("premise", "hypothesis"),
    )  # fmt: skip


def _pair(
    path: Path,
    line: int,
    row: Row,
    mapping: dict[str, tuple[str, ...]],
    labels: Mapping[str, str] | None,
    kept: list[str],
) -> SourcePair:
    def one(key: str) -> str | None:
        return _optional(path, line, row, mapping[key][0]) if key in mapping else None

    gold = (
        _label(path, line, row.get(mapping["label"][0]), mapping["label"][0], labels, gold=True)
        if "label" in mapping
        else None
    )
    extra = {column: _kept_value(row[column]) for column in kept if row.get(column) is not None}
    return SourcePair(
        line=line,
        premise=_text(path, line, row, mapping["premise"][0]),
        hypothesis=_text(path, line, row, mapping["hypothesis"][0]),
        premise_key=one("premise_id"),
        pair_key=one("id"),
        genre=one("genre"),
        lang=one("lang"),
        labels=_votes(path, line, row, mapping.get("votes", ()), labels),
        gold=gold,
        extra=extra or None,
    )


def _text(path: Path, line: int, row: Row, column: str) -> str:
    value = row.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(path, f"column {column!r} is empty; give it text or remove the row", line)
    if not isinstance(value, str):
        raise InputError(path, f"column {column!r} must hold text, found {value!r}", line)
    return value


def _optional(path: Path, line: int, row: Row, column: str) -> str | None:
    value = row.get(column)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            path, f"column {column!r} must hold text or an integer, found {value!r}", line
        )
    return str(value)


def _votes(
    path: Path, line: int, row: Row, columns: tuple[str, ...], labels: Mapping[str, str] | None
) -> list[Any]:
    """The row's votes: one a column, or a list in one column (JSON, parquet, or a JSON
    array written in a csv cell)."""
    if len(columns) == 1:
        value = row.get(columns[0])
        if isinstance(value, str) and value.lstrip().startswith("["):
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError:
                raise InputError(
                    path, f"column {columns[0]!r} holds no valid JSON list of votes", line
                ) from None
        if isinstance(value, list):
            return [_label(path, line, vote, columns[0], labels, gold=False) for vote in value]
    return [_label(path, line, row.get(column), column, labels, gold=False) for column in columns]


def _label(
    path: Path, line: int, raw: Any, column: str, labels: Mapping[str, str] | None, gold: bool
) -> Any:
    """A label value as the importer takes it: mapped by `--labels` when given (where `-`
    means no label: no vote, or no gold), else as the file has it."""
    if raw is None or raw == "" or labels is None:
        return raw
    key = str(raw).strip() if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
    if key is None or key not in labels:
        raise InputError(
            path,
            f"label value {raw!r} in column {column!r} is not one of --labels' values "
            f"({', '.join(labels)}); add it to --labels",
            line,
        )
    label = labels[key]
    if label == NO_GOLD:
        return NO_GOLD if gold else None
    return label


def _kept_value(value: Any) -> Any:
    """A column the mapping leaves out, as JSON can keep it on the pair."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [_kept_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _kept_value(item) for key, item in value.items()}
    return str(value)


FORMAT = CorpusFormat("table", reader=read)
