"""OCNLI json (JSON lines despite the extension), as CLUE ships it.

Each line: `level`, `sentence1`, `sentence2`, `label` (gold or `-`), `label0`..`label4`
(label0 the author's; empty when a pair was not relabelled), `genre`, `prem_id`, `id`.
OCNLI has no pair IDs of its own beyond a per-file integer `id`, which is kept on the pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from nlibuild.formats.corpora.base import CorpusFormat, ReadSettings, WriteSettings, Written
from nlibuild.formats.tabular import (
    SourcePair,
    iter_json_objects,
    optional_text,
    require_text,
    write_json_lines,
)
from nlibuild.models import NO_GOLD
from nlibuild.store import ExportRow

VOTE_KEYS = ("label0", "label1", "label2", "label3", "label4")
_CORE = frozenset({"level", "sentence1", "sentence2", "label", "genre", "prem_id", *VOTE_KEYS})


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair]:
    for line, record in iter_json_objects(path, "ocnli", settings.progress):
        premise = require_text(path, line, record, "sentence1", "ocnli")
        hypothesis = require_text(path, line, record, "sentence2", "ocnli")
        if "label" not in record:
            require_text(path, line, record, "label", "ocnli")
        labels = [record.get(key) for key in VOTE_KEYS]
        extra = {key: value for key, value in record.items() if key not in _CORE}
        yield SourcePair(
            line=line,
            premise=premise,
            hypothesis=hypothesis,
            premise_key=optional_text(path, line, record, "prem_id"),
            genre=optional_text(path, line, record, "genre"),
            level=optional_text(path, line, record, "level"),
            labels=[label for label in labels if label not in (None, "")],
            gold=record.get("label"),
            extra=extra or None,
        )


def to_record(row: ExportRow, index: int) -> dict[str, Any]:
    """The OCNLI object of one stored pair; `index` stands in for a missing original `id`."""
    record: dict[str, Any] = {
        "level": row.level or "",
        "sentence1": row.premise,
        "sentence2": row.hypothesis,
        "label": row.gold or NO_GOLD,
    }
    for position, key in enumerate(VOTE_KEYS):
        record[key] = row.labels[position] if position < len(row.labels) else ""
    record["genre"] = row.genre or ""
    record["prem_id"] = row.premise_id
    record["id"] = index
    if row.extra_json:
        record.update(orjson.loads(row.extra_json))
    return record


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    """OCNLI json; a pair imported without an `id` gets its position in this export."""
    return Written(write_json_lines(out, (to_record(row, i) for i, row in enumerate(rows))))


FORMAT = CorpusFormat("ocnli", reader=read, writer=write)
