"""nlibuild's own jsonl: one `models.PairRecord` per line, the pair with its votes, their
annotators and its gold label."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.formats.corpora.base import CorpusFormat, ReadSettings, WriteSettings, Written
from nlibuild.formats.tabular import (
    SourcePair,
    iter_json_objects,
    optional_text,
    require_text,
    row_language,
    write_json_lines,
)
from nlibuild.models import NO_GOLD, PairRecord
from nlibuild.store import ExportRow

_PAIR_RECORD_KEYS = frozenset(
    {"pair_id", "premise_id", "premise", "hypothesis", "genre", "lang", "level", "protocol",
     "labels", "annotators", "gold_label"}
)  # fmt: skip


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair]:
    """Read nlibuild jsonl (see `models.PairRecord`)."""
    for line, record in iter_json_objects(path, "jsonl", settings.progress):
        unknown = set(record) - _PAIR_RECORD_KEYS
        if unknown:
            raise InputError(
                path,
                f"unknown field(s) {', '.join(sorted(unknown))} for --format jsonl "
                f"(fields: {', '.join(sorted(_PAIR_RECORD_KEYS))})",
                line,
            )
        labels = record.get("labels") or []
        annotators = record.get("annotators")
        if not isinstance(labels, list):
            raise InputError(path, "field 'labels' must be a list", line)
        if annotators is not None and (
            not isinstance(annotators, list) or len(annotators) != len(labels)
        ):
            raise InputError(path, "field 'annotators' must be a list as long as 'labels'", line)
        yield SourcePair(
            line=line,
            premise=require_text(path, line, record, "premise", "jsonl"),
            hypothesis=require_text(path, line, record, "hypothesis", "jsonl"),
            premise_key=optional_text(path, line, record, "premise_id"),
            pair_key=optional_text(path, line, record, "pair_id"),
            genre=optional_text(path, line, record, "genre"),
            lang=_language(path, line, optional_text(path, line, record, "lang")),
            level=optional_text(path, line, record, "level"),
            protocol=optional_text(path, line, record, "protocol"),
            labels=labels,
            annotators=[str(a) for a in annotators] if annotators is not None else None,
            gold=record.get("gold_label"),
        )


def _language(path: Path, line: int, value: str | None) -> str | None:
    return None if value is None else row_language(path, line, value, "field 'lang'")


def to_record(row: ExportRow) -> dict[str, object]:
    """The nlibuild jsonl object of one stored pair (fields without a value left out)."""
    record = PairRecord(
        pair_id=row.id,
        premise_id=row.premise_id,
        premise=row.premise,
        hypothesis=row.hypothesis,
        genre=row.genre,
        lang=row.lang,
        level=row.level,
        protocol=row.protocol,
        labels=list(row.labels),
        annotators=list(row.annotators),
        gold_label=row.gold or NO_GOLD,
    )
    return record.model_dump(mode="json", exclude_none=True)


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    return Written(write_json_lines(out, (to_record(row) for row in rows)))


FORMAT = CorpusFormat("jsonl", reader=read, writer=write)
