"""csv (or .tsv): a spreadsheet, filled in and sent back.

Elicitation: one premise per row with empty answer columns `entailment_1 ..
contradiction_3` and `unusable`. Answers may also come long, one hypothesis per row
(`label`, `hypothesis`, in writing order), and name the premise by its text instead of
its ID. Relabelling: one pair per row with an empty `label` column.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.formats.platforms.base import AnswerFile, Platform, RawAnswer, RawVote, VoteFile
from nlibuild.formats.platforms.fields import (
    LABEL_FIELD,
    SLOT,
    UNUSABLE_FIELD,
    UNUSABLE_MARK,
    is_marked,
    slot_hypotheses,
    slot_names,
)
from nlibuild.formats.tabular import csv_rows, write_spreadsheet_csv
from nlibuild.label_names import LabelNames
from nlibuild.labels import LabelNormaliser, UnknownLabel, unknown_label_hint
from nlibuild.lang import normalise_text
from nlibuild.models import ElicitTask, Label, RelabelTask

CsvRows = Iterator[tuple[int, dict[str, str]]]
"""(line number, row by column name) of a csv file's rows."""


def write_elicit_batch(out: Path, batch: str, tasks: Sequence[ElicitTask]) -> Path:
    """One row per premise, with empty answer columns."""
    records = [task.model_dump(mode="json") for task in tasks]
    path = out / f"{batch}.csv"
    per_label = tasks[0].hypotheses_per_label if tasks else 1
    columns = ["batch", "writer", "protocol", "premise_id", "genre", "premise"]
    blanks = [""] * (1 + 3 * per_label)
    write_spreadsheet_csv(
        path,
        [*columns, UNUSABLE_FIELD, *slot_names(per_label)],
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


def read_answers(path: Path, normaliser: LabelNormaliser) -> AnswerFile:
    header, rows = csv_rows(path, from_spreadsheet=True)
    columns = set(header)
    if "premise_id" not in columns and "premise" not in columns:
        raise InputError(path, "no premise_id (or premise) column; add it to the header", 1)
    wide = any(SLOT.match(name) for name in header)
    long = {"label", "hypothesis"} <= columns
    if not wide and not long:
        raise InputError(
            path,
            "no answer columns: expected entailment_1 .. contradiction_3 (one row per "
            "premise), or label and hypothesis (one row per hypothesis)",
            1,
        )
    if wide:
        return AnswerFile(_wide_answers(path, rows))
    return AnswerFile(_long_answers(path, rows, normaliser))


def _wide_answers(path: Path, rows: CsvRows) -> list[RawAnswer]:
    """One answer per row, its hypotheses in the columns `<label>_<k>`."""
    return [
        RawAnswer(
            where=f"{path.name}, line {line}",
            worker=row.get("writer") or None,
            batch=row.get("batch") or None,
            premise_id=row.get("premise_id") or None,
            premise=row.get("premise") or None,
            unusable=is_marked(row.get(UNUSABLE_FIELD)),
            hypotheses=slot_hypotheses(row),
        )
        for line, row in rows
    ]


def _long_answers(path: Path, rows: CsvRows, normaliser: LabelNormaliser) -> list[RawAnswer]:
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
        raw_label = row["label"].strip()
        if raw_label.lower() == UNUSABLE_MARK or is_marked(row.get(UNUSABLE_FIELD)):
            answer.unusable = True
            continue
        try:
            label = normaliser.vote(raw_label)
        except UnknownLabel:
            hint = unknown_label_hint([raw_label], normaliser.label_order is not None)
            raise InputError(
                path,
                f"label {raw_label!r} is not entailment, neutral, contradiction or x"
                + (f"; {hint}" if hint else ""),
                line,
            ) from None
        if label not in {lab.value for lab in Label}:
            raise InputError(path, f"label {raw_label!r} cannot be an author's label", line)
        answer.hypotheses.setdefault(Label(label), []).append(row["hypothesis"])
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
