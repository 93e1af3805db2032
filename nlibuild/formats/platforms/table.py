"""`--format table`: answers and votes in a team's own table file, any kind `table_rows.py`
reads (csv, tsv, jsonl, a JSON array, parquet), told its columns by `--columns`.

With no mapping a key takes the column the csv and jsonl platforms use (`writer` for an
elicitation's worker, `annotator` for a relabelling's), so a sheet nlibuild sent out and a
spreadsheet exported as parquet or JSON array read alike. Hypotheses come one a column
(`entailment_1 .. contradiction_3`) or as a list a label (`entailment`, as the jsonl
platform's answers hold them, or a JSON array in a csv cell); a hypothesis column may be
named by the label's name people see (`矛盾_1`, `矛盾`), as the other platforms read it.
What is read becomes the `RawAnswer`s and `RawVote`s every platform gives, so all that
follows is shared. There is nothing to export in this format: work goes out as csv, jsonl,
Label Studio or MTurk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from nlibuild.errors import ConfigError, InputError
from nlibuild.formats.column_mapping import resolve_columns
from nlibuild.formats.platforms.base import AnswerFile, Platform, RawAnswer, RawVote, VoteFile
from nlibuild.formats.platforms.fields import (
    LABEL_FIELD,
    SLOT,
    answer_field,
    answer_label,
    is_marked,
    known_labels,
)
from nlibuild.formats.table_rows import (
    Row,
    TableRows,
    cell_text,
    label_by_value,
    read_table_rows,
    table_kind,
)
from nlibuild.labelling.label_names import LabelNames
from nlibuild.labelling.labels import LabelNormaliser
from nlibuild.models import Label

_ANSWER_DEFAULTS: dict[str, tuple[str, ...]] = {
    "batch": ("batch",),
    "premise_id": ("premise_id",),
    "premise": ("premise",),
    "worker": ("writer",),
    "unusable": ("unusable",),
}
_VOTE_DEFAULTS: dict[str, tuple[str, ...]] = {
    "batch": ("batch",),
    "pair_id": ("pair_id",),
    "worker": ("annotator",),
}


def _rows(path: Path) -> TableRows:
    return read_table_rows(path, table_kind(path, "--format table"), from_spreadsheet=True)


def _hypothesis_keys(
    path: Path, table: TableRows, asked: Mapping[str, str], names: LabelNames
) -> dict[str, tuple[str, ...]]:
    """The hypothesis keys: `<label>_<k>` and `<label>` (a list), as asked, else the
    columns of those names the file has, or named by the labels' names (`矛盾_1`, `矛盾`).
    Two columns for one key (`entailment_1` and `蕴含_1`) are refused, as the jsonl and
    MTurk readers refuse a field given twice: neither can be chosen over the other."""
    keys: dict[str, tuple[str, ...]] = {}
    for name in table.header:
        slot = answer_field(name, names)
        label = answer_label(name, names)
        key = slot if SLOT.match(slot) else label.value if label is not None else None
        if key is None:
            continue
        if key in keys and key not in asked:
            raise InputError(
                path,
                f"the header has both {keys[key][0]!r} and {name!r}: the {key} hypothesis "
                "given twice; keep one column, or choose one with --columns "
                f"{key}=COLUMN",
                table.header_line,
            )
        keys[key] = (name,)
    return keys | {key: (column,) for key, column in asked.items() if key not in _ANSWER_DEFAULTS}


def read_answers(path: Path, columns: Mapping[str, str], names: LabelNames = ()) -> AnswerFile:
    """One answer a row, read by the mapping `columns` (`models.ANSWER_COLUMN_KEYS`), its
    hypothesis columns found by the labels or their `names`."""
    table = _rows(path)
    if not table.header:
        return AnswerFile([])
    asked = {key: (column,) for key, column in columns.items()}
    hypotheses = _hypothesis_keys(path, table, columns, names)
    mapping = resolve_columns(
        path, table.header, table.header_line, asked, _ANSWER_DEFAULTS | hypotheses, required=()
    )
    if "premise_id" not in mapping and "premise" not in mapping:
        raise InputError(
            path, "no premise_id (or premise) column: name it with --columns premise_id=COLUMN",
            table.header_line,
        )  # fmt: skip
    if not any(key in mapping for key in hypotheses):
        raise InputError(
            path,
            "no hypothesis columns: expected <label>_1 .. <label>_3, or a list a label, for "
            f"the labels {known_labels(names)} or their names; name them with --columns",
            table.header_line,
        )
    return AnswerFile([_answer(path, line, row, mapping) for line, row in table.rows])


def _answer(path: Path, line: int, row: Row, mapping: Mapping[str, tuple[str, ...]]) -> RawAnswer:
    def one(key: str) -> str | None:
        return cell_text(row.get(mapping[key][0])).strip() or None if key in mapping else None

    by_slot: dict[Label, dict[int, str]] = {}
    for key, (column,) in mapping.items():
        label, _, slot = key.partition("_")
        if label not in set(Label) or key in _ANSWER_DEFAULTS:
            continue
        texts = _texts(path, line, column, row.get(column))
        for k, text in enumerate(texts, start=int(slot) if slot else 1):
            by_slot.setdefault(Label(label), {})[k] = text
    return RawAnswer(
        where=f"{path.name}, line {line}",
        worker=one("worker"),
        batch=one("batch"),
        premise_id=one("premise_id"),
        premise=one("premise"),
        unusable="unusable" in mapping and is_marked(row.get(mapping["unusable"][0])),
        hypotheses={
            label: [slots.get(k, "") for k in range(1, max(slots) + 1)]
            for label, slots in by_slot.items()
        },
    )


def _texts(path: Path, line: int, column: str, value: Any) -> list[str]:
    """A hypothesis cell: one text, or a list of them (a JSON array in a csv cell too)."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return [value]
    if isinstance(value, list):
        if not all(isinstance(item, str) for item in value):
            raise InputError(path, f"column {column!r} must hold texts, found {value!r}", line)
        return value
    if value is not None and not isinstance(value, str):
        raise InputError(path, f"column {column!r} must hold text, found {value!r}", line)
    return [value or ""]


def read_votes(path: Path, columns: Mapping[str, str], label_values: Mapping[str, str]) -> VoteFile:
    """One vote a row, read by the mapping `columns` (`models.VOTE_COLUMN_KEYS`), its label
    mapped by `label_values` when given (`-` for no label)."""
    table = _rows(path)
    if not table.header:
        return VoteFile([])
    label_column = next(
        (name for name in table.header if name.startswith(f"{LABEL_FIELD} (")), LABEL_FIELD
    )
    defaults = _VOTE_DEFAULTS | {"label": (LABEL_FIELD, label_column)}
    asked = {key: (column,) for key, column in columns.items()}
    mapping = resolve_columns(
        path, table.header, table.header_line, asked, defaults, required=("pair_id", "label")
    )
    votes = VoteFile([])
    for line, row in table.rows:
        pair_id = cell_text(row.get(mapping["pair_id"][0])).strip()
        if not pair_id:
            raise InputError(path, "this row has no pair_id; fill it in or delete the row", line)
        worker, batch = (
            cell_text(row.get(mapping[key][0])).strip() or None if key in mapping else None
            for key in ("worker", "batch")
        )
        label = _vote_label(path, line, row, mapping["label"][0], label_values)
        votes.votes.append(
            RawVote(f"{path.name}, line {line}", line, worker, batch, pair_id, label)
        )
    return votes


def _vote_label(
    path: Path, line: int, row: Row, column: str, label_values: Mapping[str, str]
) -> str | None:
    raw = cell_text(row.get(column)).strip()
    if not raw or not label_values:
        return raw or None
    return label_by_value(path, line, column, raw, label_values)


def _no_export(*_: object) -> Path:
    raise ConfigError(
        "--format table is for reading answers back; send the work out with --format csv, "
        "jsonl, labelstudio or mturk"
    )


def table_platform(
    columns: Mapping[str, str] | None = None, label_values: Mapping[str, str] | None = None
) -> Platform:
    """The table platform reading by `columns` and `label_values`."""
    columns, label_values = columns or {}, label_values or {}

    def answers(path: Path, normaliser: LabelNormaliser, names: LabelNames) -> AnswerFile:
        return read_answers(path, columns, names)

    def votes(path: Path, labels: Sequence[str]) -> VoteFile:
        return read_votes(path, columns, label_values)

    return Platform(
        answer_file_kind="a table file",
        names_workers=False,
        elicit_batch_writer=_no_export,
        answer_reader=answers,
        relabel_batch_writer=_no_export,
        vote_reader=votes,
    )


PLATFORM = table_platform()
"""The table platform with no mapping: the csv and jsonl platforms' column names."""
