"""jsonl: one task per line out (`models.ElicitTask`, `models.RelabelTask`); answers back
one per line (`models.ElicitAnswer`, `models.RelabelVote`). An answer's hypotheses may be
keyed by the label's name people see (`"矛盾": [...]`), as a vote's label may be that name."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from nlibuild.errors import InputError
from nlibuild.formats.platforms.base import AnswerFile, Platform, RawAnswer, RawVote, VoteFile
from nlibuild.formats.platforms.fields import answer_label, known_labels
from nlibuild.formats.tabular import iter_json_objects, write_json_lines
from nlibuild.labelling.label_names import LabelNames
from nlibuild.labelling.labels import LabelNormaliser
from nlibuild.models import ElicitAnswer, ElicitTask, Label, RelabelTask, RelabelVote


def write_tasks(out: Path, batch: str, tasks: Sequence[BaseModel]) -> Path:
    """The task file of one batch, elicitation or relabelling alike."""
    path = out / f"{batch}.tasks.jsonl"
    write_json_lines(path, iter([task.model_dump(mode="json") for task in tasks]))
    return path


def write_elicit_tasks(
    out: Path, batch: str, tasks: Sequence[ElicitTask], names: LabelNames
) -> Path:
    """An elicitation batch: its tasks as they are; an answer may key its hypotheses by the
    labels or by the names people see."""
    return write_tasks(out, batch, tasks)


def read_answers(path: Path, normaliser: LabelNormaliser, names: LabelNames) -> AnswerFile:
    return AnswerFile(list(_answers(path, names)))


def read_votes(path: Path, labels: Sequence[str]) -> VoteFile:
    return VoteFile(list(_votes(path)))


_KNOWN_KEYS = frozenset(ElicitAnswer.model_fields) | frozenset(ElicitTask.model_fields)
"""The keys of a line that are not hypotheses: an answer's and the task's it came back in."""


def _by_label(path: Path, line: int, record: dict[str, Any], names: LabelNames) -> dict[str, Any]:
    """The record with hypotheses keyed by a label's name under the label's key; a key
    holding a list that is no field and names no label is a misspelt label, refused."""
    keyed: dict[str, Any] = {}
    for key, value in record.items():
        label = answer_label(key, names) if key not in _KNOWN_KEYS else None
        if label is None and key not in _KNOWN_KEYS and isinstance(value, list):
            raise InputError(
                path,
                f"field {key!r} names no label: hypotheses are keyed by a label, one of "
                f"{known_labels(names)}, or by its name; correct it",
                line,
            )
        field_name = key if label is None else label.value
        if field_name in keyed:
            raise InputError(
                path, f"{field_name} hypotheses are given twice (as {key!r} too); keep one", line
            )
        keyed[field_name] = value
    return keyed


def _answers(path: Path, names: LabelNames) -> Iterator[RawAnswer]:
    for line, record in iter_json_objects(path, "jsonl"):
        try:
            answer = ElicitAnswer.model_validate(_by_label(path, line, record, names))
        except ValidationError as exc:
            raise _invalid_field(path, line, exc) from None
        if answer.premise_id is None and answer.premise is None:
            raise InputError(path, "an answer needs premise_id (or the premise text)", line)
        yield RawAnswer(
            where=f"{path.name}, line {line}",
            worker=answer.writer,
            batch=answer.batch,
            premise_id=answer.premise_id,
            premise=answer.premise,
            unusable=answer.unusable,
            hypotheses={label: list(getattr(answer, label.value)) for label in Label},
        )


def _votes(path: Path) -> Iterator[RawVote]:
    for line, record in iter_json_objects(path, "jsonl"):
        raw_label = record.get("label")
        # Checked before the model, which would read true as the integer 1 (a label under
        # --label-order) and name a list's fault by union member ("label.str").
        if raw_label is not None and (
            isinstance(raw_label, bool) or not isinstance(raw_label, (str, int))
        ):
            raise InputError(
                path,
                f"field label must be a label name, its initial or an integer, found "
                f"{raw_label!r}; fix the line",
                line,
            )
        try:
            vote = RelabelVote.model_validate(record)
        except ValidationError as exc:
            raise _invalid_field(path, line, exc) from None
        label = None if vote.label is None else str(vote.label).strip() or None
        yield RawVote(
            f"{path.name}, line {line}", line, vote.annotator, vote.batch, vote.pair_id, label
        )


def write_relabel_tasks(
    out: Path, batch: str, tasks: Sequence[RelabelTask], names: LabelNames
) -> Path:
    """A relabelling batch: its tasks as they are; a `label` written back may be a label or
    the name people see for it (`relabel import` reads both)."""
    return write_tasks(out, batch, tasks)


def _invalid_field(path: Path, line: int, exc: ValidationError) -> InputError:
    """The error for the first field of a line the answer's model refused."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return InputError(path, f"field {where}: {first['msg']}; fix the line", line)


PLATFORM = Platform(
    answer_file_kind="a jsonl file",
    names_workers=False,
    elicit_batch_writer=write_elicit_tasks,
    answer_reader=read_answers,
    relabel_batch_writer=write_relabel_tasks,
    vote_reader=read_votes,
)
