"""csv (or .tsv): a spreadsheet, filled in and sent back.

Elicitation: one premise per row with empty answer columns `entailment_1 ..
contradiction_3` and `unusable`, each headed with the label's name people see where it has
one (`contradiction_1 (矛盾 1)`). Answers may also come long, one hypothesis per row
(`label`, `hypothesis`, in writing order), and name the premise by its text instead of
its ID; a label, or a column, may be named by the name people see (`矛盾`, `矛盾_1`).
Relabelling: one pair per row with an empty `label` column.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.formats.platforms.base import AnswerFile, Platform, RawAnswer, RawVote, VoteFile
from nlibuild.formats.platforms.fields import (
    LABEL_FIELD,
    SLOT,
    UNUSABLE_FIELD,
    UNUSABLE_MARK,
    answer_field,
    is_marked,
    known_labels,
    names_no_label,
    no_label_in,
    shown_slot_names,
    slot_hypotheses,
)
from nlibuild.formats.tabular import csv_rows, write_spreadsheet_csv
from nlibuild.labelling.label_names import LabelNames, canonical_label
from nlibuild.labelling.labels import LabelNormaliser, UnknownLabel, unknown_label_hint
from nlibuild.models import ElicitTask, Label, RelabelTask
from nlibuild.text.lang import normalise_text

CsvRows = Iterator[tuple[int, dict[str, str]]]
"""(line number, row by column name) of a csv file's rows."""


def write_elicit_batch(
    out: Path, batch: str, tasks: Sequence[ElicitTask], names: LabelNames
) -> Path:
    """One row per premise, with empty answer columns headed with the labels' names."""
    records = [task.model_dump(mode="json") for task in tasks]
    path = out / f"{batch}.csv"
    per_label = tasks[0].hypotheses_per_label if tasks else 1
    columns = ["batch", "writer", "protocol", "premise_id", "genre", "premise"]
    blanks = [""] * (1 + 3 * per_label)
    write_spreadsheet_csv(
        path,
        [*columns, UNUSABLE_FIELD, *shown_slot_names(per_label, names)],
        [[r[c] or "" for c in columns] + blanks for r in records],
    )
    return path


def write_relabel_batch(
    out: Path, batch: str, tasks: Sequence[RelabelTask], names: LabelNames
) -> Path:
    """One row per pair, with an empty label column, whose header lists the names people
    see where the labels have names (`label (蕴含 / 中立 / 矛盾)`): a validator types one of
    them, or the label itself."""
    records = [task.model_dump(mode="json") for task in tasks]
    columns = list(RelabelTask.model_fields)
    rows = [[r[c] if r[c] is not None else "" for c in columns] for r in records]
    path = out / f"{batch}.csv"
    write_spreadsheet_csv(path, [*columns, label_header(names)], [[*row, ""] for row in rows])
    return path


def label_header(names: LabelNames) -> str:
    """The label column's header: `label`, followed by the names people see, if any."""
    if not names:
        return LABEL_FIELD
    return f"{LABEL_FIELD} ({' / '.join(name for _, name in names)})"


def _label_column(header: list[str]) -> str | None:
    """The label column of a sheet: `label`, or `label (...)` as `label_header` wrote it."""
    if LABEL_FIELD in header:
        return LABEL_FIELD
    return next((name for name in header if name.startswith(f"{LABEL_FIELD} (")), None)


def read_answers(path: Path, normaliser: LabelNormaliser, names: LabelNames) -> AnswerFile:
    header, rows = csv_rows(path, from_spreadsheet=True)
    misnamed = next((name for name in header if names_no_label(name, names)), None)
    if misnamed is not None:
        raise InputError(path, no_label_in(misnamed, names), 1)
    label_column = _label_column(header)
    columns = {answer_field(name, names) for name in header} | (
        {LABEL_FIELD} if label_column else set()
    )
    if "premise_id" not in columns and "premise" not in columns:
        raise InputError(path, "no premise_id (or premise) column; add it to the header", 1)
    wide = any(SLOT.match(name) for name in columns)
    long = {LABEL_FIELD, "hypothesis"} <= columns
    if not wide and not long:
        raise InputError(
            path,
            "no answer columns: expected entailment_1 .. contradiction_3 (one row per "
            "premise), or label and hypothesis (one row per hypothesis)",
            1,
        )
    if wide:
        return AnswerFile(_wide_answers(path, rows, names))
    assert label_column is not None
    return AnswerFile(_long_answers(path, rows, _LabelCells(label_column, normaliser, names)))


def _wide_answers(path: Path, rows: CsvRows, names: LabelNames) -> list[RawAnswer]:
    """One answer per row, its hypotheses in the columns `<label>_<k>` (`answer_field`)."""
    return [
        RawAnswer(
            where=f"{path.name}, line {line}",
            worker=row.get("writer") or None,
            batch=row.get("batch") or None,
            premise_id=row.get("premise_id") or None,
            premise=row.get("premise") or None,
            unusable=is_marked(row.get(UNUSABLE_FIELD)),
            hypotheses=slot_hypotheses(row, names),
        )
        for line, row in rows
    ]


@dataclass(frozen=True)
class _LabelCells:
    """How a long sheet's label cells are read: its label column (`label`, or `label (...)`
    as the relabelling sheet heads it), and the label names its cells may hold."""

    column: str
    normaliser: LabelNormaliser
    names: LabelNames

    def label(self, path: Path, line: int, raw: str) -> Label:
        """The label of a cell: a label, its initial or its name people see (`矛盾`)."""
        try:
            label = self.normaliser.vote(canonical_label(raw, self.names))
        except UnknownLabel:
            hint = unknown_label_hint([raw], self.normaliser.label_order is not None)
            raise InputError(
                path,
                f"label {raw!r} is not one of {known_labels(self.names)} or x"
                + (f"; {hint}" if hint else ""),
                line,
            ) from None
        if label not in {lab.value for lab in Label}:
            raise InputError(path, f"label {raw!r} cannot be an author's label", line)
        return Label(label)


def _long_answers(path: Path, rows: CsvRows, cells: _LabelCells) -> list[RawAnswer]:
    """One row per hypothesis (`label`, `hypothesis`): the rows of one (batch, writer,
    premise) are gathered, wherever they are, in file order, which is the order they
    were written in."""
    answers: dict[tuple[str | None, str | None, str | None, str | None], RawAnswer] = {}
    for line, row in rows:
        premise_text = None if row.get("premise_id") else row.get("premise")
        key = (
            row.get("batch") or None,
            row.get("writer") or None,
            row.get("premise_id") or None,
            normalise_text(premise_text).casefold() if premise_text else None,
        )
        answer = answers.get(key)
        if answer is None:
            answer = RawAnswer(
                f"{path.name}, line {line}", key[1], key[0], key[2], premise_text, False, {}
            )
            answers[key] = answer
        raw_label = row[cells.column].strip()
        if raw_label.lower() == UNUSABLE_MARK or is_marked(row.get(UNUSABLE_FIELD)):
            answer.unusable = True
            continue
        label = cells.label(path, line, raw_label)
        answer.hypotheses.setdefault(label, []).append(row["hypothesis"])
    return list(answers.values())


def read_votes(path: Path, labels: Sequence[str]) -> VoteFile:
    header, rows = csv_rows(path, from_spreadsheet=True)
    label_column = _label_column(header)
    found = {"pair_id": "pair_id" in header, LABEL_FIELD: label_column is not None}
    missing = [name for name, there in found.items() if not there]
    if missing or label_column is None:
        raise InputError(
            path,
            f"no {' and no '.join(missing)} column: give the sheet `relabel export --format csv` "
            "wrote, with the label column filled in",
            1,
        )
    result = VoteFile([])
    for line, row in rows:
        if not row["pair_id"].strip():
            raise InputError(path, "this row has no pair_id; fill it in or delete the row", line)
        result.votes.append(
            RawVote(
                where=f"{path.name}, line {line}",
                line=line,
                worker=row.get("annotator", "").strip() or None,
                batch=row.get("batch", "").strip() or None,
                pair_id=row["pair_id"].strip(),
                label=row[label_column].strip() or None,
            )
        )
    return result


PLATFORM = Platform(
    answer_file_kind="a csv file",
    names_workers=False,
    elicit_batch_writer=write_elicit_batch,
    answer_reader=read_answers,
    relabel_batch_writer=write_relabel_batch,
    vote_reader=read_votes,
)
