"""MNLI/SNLI jsonl: read a release, write one back.

A release line has `annotator_labels` (element 0 the author's), `gold_label` (`-` when no
3-of-5 majority), `pairID`, `promptID` (MNLI) or `captionID` (SNLI), `genre` (MNLI),
`sentence1`, `sentence2` and their parses. Every other field is kept, on the premise when
its name starts with `sentence1` and on the pair otherwise, so that an export reproduces
every input field. Lines are written with sorted keys, the releases' own order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from nlibuild.errors import InputError
from nlibuild.formats.corpora.base import CorpusFormat, ReadSettings, WriteSettings, Written
from nlibuild.formats.tabular import (
    ProgressCallback,
    SourcePair,
    iter_json_objects,
    optional_text,
    require_text,
    write_json_lines,
)
from nlibuild.models import NO_GOLD
from nlibuild.store import ExportRow

_CORE = frozenset(
    {"annotator_labels", "annotator_ids", "genre", "gold_label", "pairID", "sentence1", "sentence2"}
)
_PREMISE_KEYS = ("promptID", "captionID")


class _Layout(NamedTuple):
    """Where the keys of a line go; worked out once per distinct key order."""

    premise_key_field: str | None
    premise_extra: tuple[str, ...]
    pair_extra: tuple[str, ...]
    has_labels: bool
    has_gold: bool


def _layout(keys: tuple[str, ...]) -> _Layout:
    premise_extra = tuple(
        k for k in keys if k not in _CORE and (k.startswith("sentence1") or k in _PREMISE_KEYS)
    )
    pair_extra = tuple(k for k in keys if k not in _CORE and k not in premise_extra)
    key_field = next((k for k in _PREMISE_KEYS if k in keys), None)
    return _Layout(
        key_field, premise_extra, pair_extra, "annotator_labels" in keys, "gold_label" in keys
    )


def read_release(
    path: Path, fmt: str, progress: ProgressCallback | None = None
) -> Iterator[SourcePair]:
    """Read an MNLI (`fmt='mnli'`) or SNLI (`fmt='snli'`) jsonl release.

    This is the import's hot loop: the common case (well-formed line, known key layout)
    takes a straight path, and anything unusual goes through the checks that explain it.
    """
    layouts: dict[tuple[str, ...], _Layout] = {}
    # Any, not cast() after the checks: cast is a function call, three a line.
    premise: Any
    hypothesis: Any
    pair_key: Any
    for line, record in iter_json_objects(path, fmt, progress):
        keys = tuple(record)
        layout = layouts.get(keys)
        if layout is None:
            layout = layouts[keys] = _layout(keys)
        try:
            premise = record["sentence1"]
            hypothesis = record["sentence2"]
            pair_key = record["pairID"]
            labels = record["annotator_labels"] if layout.has_labels else []
            premise_key = record[layout.premise_key_field] if layout.premise_key_field else None
        except KeyError:
            premise = hypothesis = pair_key = premise_key = None
            labels = []
        if not (
            type(premise) is str
            and type(hypothesis) is str
            and type(pair_key) is str
            and premise.strip()
            and hypothesis.strip()
            and pair_key.strip()
        ):
            for key in ("sentence1", "sentence2", "pairID"):
                require_text(path, line, record, key, fmt)
        if type(labels) is not list:
            raise InputError(path, "field 'annotator_labels' must be a list of labels", line)
        annotators = record.get("annotator_ids")
        if annotators is not None and (
            type(annotators) is not list or len(annotators) != len(labels)
        ):
            raise InputError(
                path, "field 'annotator_ids' must be a list as long as 'annotator_labels'", line
            )
        if not labels and not layout.has_gold:
            raise InputError(
                path, f"missing required field 'gold_label' for --format {fmt}; add it", line
            )
        if type(premise_key) is not str or not premise_key:
            premise_key = (
                optional_text(path, line, record, layout.premise_key_field)
                if layout.premise_key_field
                else None
            )
        genre = record.get("genre")
        if genre is not None and (type(genre) is not str or not genre):
            genre = optional_text(path, line, record, "genre")
        premise_extra = layout.premise_extra
        pair_extra = layout.pair_extra
        yield SourcePair(
            line,
            premise,
            hypothesis,
            premise_key,
            pair_key,
            genre,
            labels=labels,
            annotators=annotators,
            gold=record.get("gold_label"),
            # Only layouts with extra fields pay for building the dicts.
            premise_extra={k: record[k] for k in premise_extra} if premise_extra else None,
            extra={k: record[k] for k in pair_extra} if pair_extra else None,
        )


def to_record(row: ExportRow, anonymous: set[str]) -> dict[str, Any]:
    """The MNLI jsonl object of one stored pair."""
    record: dict[str, Any] = {
        "annotator_labels": list(row.labels),
        "gold_label": row.gold or NO_GOLD,
        "pairID": row.id,
        "promptID": row.premise_id,
        "sentence1": row.premise,
        "sentence2": row.hypothesis,
    }
    # MNLI has `genre` on every line; a pair without one (an SNLI pair, or an empty genre,
    # which the reader keeps as none) gets "" rather than a line missing the key.
    record["genre"] = row.genre or ""
    if row.annotators and not all(a in anonymous for a in row.annotators):
        record["annotator_ids"] = list(row.annotators)
    if row.premise_extra_json:
        record.update(orjson.loads(row.premise_extra_json))
    if row.extra_json:
        record.update(orjson.loads(row.extra_json))
    return dict(sorted(record.items()))


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair]:
    return read_release(path, "mnli", settings.progress)


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    """MNLI jsonl; `annotator_ids` only where some annotator has a name of their own."""
    anonymous = settings.anonymous_annotators()
    return Written(write_json_lines(out, (to_record(row, anonymous) for row in rows)))


FORMAT = CorpusFormat("mnli", reader=read, writer=write)
