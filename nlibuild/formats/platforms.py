"""Work packages out to annotation platforms, and answers back from them.

Four ways to the writers:
- jsonl: one task per line out (`models.ElicitTask`); answers back one per line
  (`models.ElicitAnswer`).
- csv (or .tsv): a spreadsheet, one premise per row with empty answer columns
  `entailment_1 .. contradiction_3` and `unusable`, filled in and sent back. Answers may also
  come long, one hypothesis per row (`label`, `hypothesis`, in writing order), and name
  the premise by its text instead of its ID.
- labelstudio: task JSON (our task in each task's `data`) plus a labeling config with one
  TextArea per expected hypothesis and a Choices `unusable` with the value `x`; answers
  come back as Label Studio's full JSON export (tasks with their `annotations`).
- mturk: an input CSV (one HIT per premise, our IDs in its columns) plus an HTML template
  (crowd-html-elements); answers come back as the batch results CSV, with `Answer.<field>`
  columns or one crowd-form `Answer.taskAnswers` JSON string.

Readers return `RawAnswer`s, still in the platform's terms (its worker IDs); the import
stage maps them to our annotators, batches and premises.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from xml.sax.saxutils import quoteattr

import orjson
from pydantic import ValidationError

from nlibuild.elicitation import LABEL_ORDER, slot_name
from nlibuild.errors import InputError
from nlibuild.formats.tabular import bad_utf8, iter_json_objects, write_atomically, write_json_lines
from nlibuild.labels import LabelNormaliser, UnknownLabel, unknown_label_hint
from nlibuild.lang import normalise_text
from nlibuild.models import (
    ElicitAnswer,
    ElicitTask,
    Label,
    PlatformFormat,
    RelabelTask,
    RelabelVote,
)

UNUSABLE_FIELD = "unusable"
UNUSABLE_MARK = "x"

_SLOT = re.compile(r"^(entailment|neutral|contradiction)_([1-9])$")


@dataclass
class RawAnswer:
    """One answer as the platform gave it. `worker` is the platform's ID of the writer."""

    where: str
    worker: str | None
    batch: str | None
    premise_id: str | None
    premise: str | None
    unusable: bool
    hypotheses: dict[Label, list[str]]


@dataclass
class AnswerFile:
    answers: list[RawAnswer]
    dropped: Counter[str] = field(default_factory=Counter)


def read_answers(
    path: Path, fmt: PlatformFormat, normaliser: LabelNormaliser | None = None
) -> AnswerFile:
    """Every answer of a file in the platform format `fmt` (see the module docstring)."""
    if not path.is_file():
        raise InputError(path, "no such file; check the path")
    if fmt is PlatformFormat.JSONL:
        return AnswerFile(list(_read_jsonl(path)))
    if fmt is PlatformFormat.CSV:
        return AnswerFile(_read_csv(path, normaliser or LabelNormaliser()))
    if fmt is PlatformFormat.LABELSTUDIO:
        return _read_labelstudio(path)
    return _read_mturk(path)


def _is_marked(value: Any) -> bool:
    """Whether a form value ticks the unusable box: x, true, on, yes, 1; a checkbox's
    object form ({"x": true}) or a list of choices holding one of those."""
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        # crowd-checkbox gives {"x": true} ticked and {"x": false} not: the values decide.
        return any(_is_marked(v) for v in value.values())
    if isinstance(value, list):
        return any(_is_marked(v) for v in value)
    if value is None:
        return False
    return str(value).strip().lower() in {"x", "true", "on", "yes", "1"}


def _slots(values: dict[str, Any]) -> dict[Label, list[str]]:
    """Per label, the form fields `<label>_<k>` in k order ('' for an empty field)."""
    found: dict[Label, dict[int, str]] = {}
    for name, value in values.items():
        match = _SLOT.match(name)
        if match is None:
            continue
        text = " ".join(value) if isinstance(value, list) else str(value or "")
        found.setdefault(Label(match.group(1)), {})[int(match.group(2))] = text
    hypotheses: dict[Label, list[str]] = {}
    for label, by_k in found.items():
        hypotheses[label] = [by_k.get(k, "") for k in range(1, max(by_k) + 1)]
    return hypotheses


# --- jsonl ------------------------------------------------------------------------------


def _read_jsonl(path: Path) -> Iterator[RawAnswer]:
    for line, record in iter_json_objects(path, "jsonl"):
        try:
            answer = ElicitAnswer.model_validate(record)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise InputError(path, f"field {where}: {first['msg']}", line) from None
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


# --- csv / tsv --------------------------------------------------------------------------


def _delimiter(path: Path, header: str) -> str:
    if path.suffix.lower() == ".tsv" or ("\t" in header and "," not in header):
        return "\t"
    return ","


def csv_rows(
    path: Path, delimiter: str | None = None
) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The header and (line number, row) of a UTF-8 csv/tsv file; the delimiter is the
    one given, else guessed from the suffix and the header."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read it ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        line = raw.count(b"\n", 0, exc.start) + 1
        raise bad_utf8(path, line, exc.start - line_start + 1, raw[exc.start]) from None
    delimiter = delimiter or _delimiter(path, text.split("\n", 1)[0])
    # Tab-separated NLI files (XNLI, XNLIvar) do not quote fields: a `"` is text there.
    source = io.StringIO(text, newline="")
    if delimiter == "\t":
        reader = csv.reader(source, delimiter="\t", quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(source)
    try:
        header = [name.strip() for name in next(reader)]
    except StopIteration:
        raise InputError(path, "the file is empty; export the answers again") from None

    def rows() -> Iterator[tuple[int, dict[str, str]]]:
        for values in reader:
            if not "".join(values).strip():  # a blank row
                continue
            line = reader.line_num
            if len(values) != len(header):
                raise InputError(
                    path,
                    f"{len(values)} columns where the header has {len(header)}; "
                    "check the quoting of this row",
                    line,
                )
            yield line, dict(zip(header, values, strict=True))

    return header, rows()


def _read_csv(path: Path, normaliser: LabelNormaliser) -> list[RawAnswer]:
    header, rows = csv_rows(path)
    columns = set(header)
    if "premise_id" not in columns and "premise" not in columns:
        raise InputError(path, "no premise_id (or premise) column; add it to the header", 1)
    wide = any(_SLOT.match(name) for name in header)
    long = {"label", "hypothesis"} <= columns
    if not wide and not long:
        raise InputError(
            path,
            "no answer columns: expected entailment_1 .. contradiction_3 (one row per "
            "premise), or label and hypothesis (one row per hypothesis)",
            1,
        )
    if wide:
        return [
            RawAnswer(
                where=f"{path.name}, line {line}",
                worker=row.get("writer") or None,
                batch=row.get("batch") or None,
                premise_id=row.get("premise_id") or None,
                premise=row.get("premise") or None,
                unusable=_is_marked(row.get(UNUSABLE_FIELD)),
                hypotheses=_slots(row),
            )
            for line, row in rows
        ]
    # Long: the rows of one (batch, writer, premise) are gathered, wherever they are, in
    # file order, which is the order they were written in.
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
        if raw_label.lower() == UNUSABLE_MARK or _is_marked(row.get(UNUSABLE_FIELD)):
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


# --- Label Studio ------------------------------------------------------------------------


def _read_labelstudio(path: Path) -> AnswerFile:
    result = AnswerFile([])
    annotations = labelstudio_annotations(
        path, "premise_id", "nlibuild elicit export", result.dropped
    )
    for where, data, annotation in annotations:
        values: dict[str, Any] = {}
        for item in annotation.get("result") or []:
            name = item.get("from_name")
            value = item.get("value") or {}
            if name == UNUSABLE_FIELD:
                values[name] = value.get("choices", [])
            elif isinstance(name, str) and _SLOT.match(name):
                values[name] = value.get("text", [])
            else:
                raise InputError(
                    path,
                    f"{where}: result field {name!r} is not in nlibuild's labeling config; "
                    "is this the export of another project?",
                )
        if not values:
            result.dropped["submitted empty"] += 1
            continue
        result.answers.append(
            RawAnswer(
                where=f"{path.name}, {where}",
                worker=_labelstudio_user(annotation.get("completed_by")),
                batch=str(data["batch"]),
                premise_id=str(data["premise_id"]),
                premise=None,
                unusable=_is_marked(values.get(UNUSABLE_FIELD)),
                hypotheses=_slots(values),
            )
        )
    return result


def _labelstudio_user(completed_by: Any) -> str | None:
    """The annotator's Label Studio user ID: `completed_by` is the ID (an int), or in some
    versions an object with `id` and `email`. Maps (--annotators) name users by ID."""
    if isinstance(completed_by, dict):
        completed_by = completed_by.get("id")
    return None if completed_by is None else str(completed_by)


# --- MTurk -------------------------------------------------------------------------------


def mturk_results(
    path: Path, item_column: str, command: str, dropped: Counter[str]
) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The header and the (line, row) of every assignment still standing in MTurk's batch
    results CSV of a `command` package, whose input names its items in `item_column`.
    Rejected or cancelled assignments are counted in `dropped`, not given."""
    header, rows = csv_rows(path)
    required = ("AssignmentId", "WorkerId", "AssignmentStatus", "Input.batch",
                f"Input.{item_column}")  # fmt: skip
    missing = [name for name in required if name not in header]
    if missing:
        raise InputError(
            path,
            f"missing column(s) {', '.join(missing)}: give the batch results CSV that MTurk "
            f"downloads (Manage > Results) for a `{command} --format mturk` batch, unedited",
            1,
        )

    def standing() -> Iterator[tuple[int, dict[str, str]]]:
        for line, row in rows:
            status = row["AssignmentStatus"].strip().lower()
            if status in {"rejected", "cancelled", "canceled"}:
                dropped[f"{status} on MTurk"] += 1
                continue
            yield line, row

    return header, standing()


def _read_mturk(path: Path) -> AnswerFile:
    result = AnswerFile([])
    header, rows = mturk_results(path, "premise_id", "nlibuild elicit export", result.dropped)
    if "Answer.taskAnswers" not in header and not any(
        _SLOT.match(name.removeprefix("Answer.")) for name in header
    ):
        raise InputError(
            path, "no Answer.taskAnswers and no Answer.<label>_<k> columns; is this a results CSV?"
        )
    for line, row in rows:
        values = _mturk_answers(path, line, row)
        result.answers.append(
            RawAnswer(
                where=f"{path.name}, line {line} (assignment {row['AssignmentId']})",
                worker=row["WorkerId"].strip() or None,
                batch=row["Input.batch"].strip() or None,
                premise_id=row["Input.premise_id"].strip() or None,
                premise=None,
                unusable=_is_marked(values.get(UNUSABLE_FIELD)),
                hypotheses=_slots(values),
            )
        )
    return result


# --- writing work packages ----------------------------------------------------------------


def slot_names(per_label: int) -> list[str]:
    return [slot_name(label, k) for label in LABEL_ORDER for k in range(1, per_label + 1)]


def _write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> int:
    def write(handle: IO[bytes]) -> int:
        text = io.StringIO(newline="")
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        handle.write(text.getvalue().encode("utf-8"))
        return len(rows)

    return write_atomically(path, write)


def _write_text(path: Path, text: str) -> None:
    write_atomically(path, lambda handle: handle.write(text.encode("utf-8")))


def write_batch(out: Path, fmt: PlatformFormat, batch: str, tasks: Sequence[ElicitTask]) -> Path:
    """The task file of one batch; returns its path."""
    records = [task.model_dump(mode="json") for task in tasks]
    if fmt is PlatformFormat.JSONL:
        path = out / f"{batch}.tasks.jsonl"
        write_json_lines(path, iter(records))
    elif fmt is PlatformFormat.CSV:
        path = out / f"{batch}.csv"
        per_label = tasks[0].hypotheses_per_label if tasks else 1
        columns = ["batch", "writer", "protocol", "premise_id", "genre", "premise"]
        blanks = [""] * (1 + 3 * per_label)
        _write_csv(
            path,
            [*columns, UNUSABLE_FIELD, *slot_names(per_label)],
            [[r[c] or "" for c in columns] + blanks for r in records],
        )
    elif fmt is PlatformFormat.LABELSTUDIO:
        path = out / f"{batch}.labelstudio.json"
        body = orjson.dumps([{"data": r} for r in records], option=orjson.OPT_INDENT_2)
        write_atomically(path, lambda handle: handle.write(body))
    else:
        path = out / f"{batch}.mturk-input.csv"
        columns = list(ElicitTask.model_fields)
        _write_csv(
            path, columns, [[r[c] if r[c] is not None else "" for c in columns] for r in records]
        )
    return path


def labelstudio_config(per_label: int, protocol: str) -> str:
    """A Label Studio labeling config: the premise, the `x` flag, one TextArea per
    expected hypothesis (named like the csv columns, so answers read the same way)."""
    lines = [
        "<View>",
        f"  <!-- nlibuild elicitation, protocol {protocol}: {per_label} per label -->",
        '  <Header value="Premise $premise_id (batch $batch, $genre)"/>',
        '  <Text name="premise" value="$premise"/>',
        f'  <Choices name="{UNUSABLE_FIELD}" toName="premise" choice="single" showInline="true">',
        f'    <Choice value="{UNUSABLE_MARK}" hint="This premise cannot be used: write nothing"/>',
        "  </Choices>",
    ]
    for label in LABEL_ORDER:
        lines.append(f'  <Header value={quoteattr(label.value.capitalize())} size="5"/>')
        for k in range(1, per_label + 1):
            name = slot_name(label, k)
            lines.append(
                f'  <TextArea name="{name}" toName="premise" rows="1" maxSubmissions="1" '
                f'editable="true" placeholder={quoteattr(f"{label.value} {k}")}/>'
            )
    lines.append("</View>")
    return "\n".join(lines) + "\n"


def mturk_template(per_label: int, protocol: str, instructions: str) -> str:
    """An MTurk HIT layout (crowd-html-elements): the instructions, the premise, the `x`
    box and one input per expected hypothesis. `${...}` are the input CSV's columns."""
    fields = []
    for label in LABEL_ORDER:
        fields.append(f"    <h3>{label.value.capitalize()}</h3>")
        for k in range(1, per_label + 1):
            fields.append(
                f'    <crowd-input name="{slot_name(label, k)}" '
                f'label="{label.value} {k}"></crowd-input>'
            )
    body = "\n".join(fields)
    return f"""<!-- nlibuild elicitation, protocol {protocol}: {per_label} per label -->
<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<crowd-form>
  <crowd-instructions link-text="Instructions" link-type="button">
    <short-summary>
      <p>Write {per_label} hypothesis(es) per label for the premise.</p>
    </short-summary>
    <detailed-instructions>
      <pre style="white-space: pre-wrap">{html.escape(instructions)}</pre>
    </detailed-instructions>
  </crowd-instructions>
  <p>Premise ${{premise_id}} (batch ${{batch}}):</p>
  <p><strong>${{premise}}</strong></p>
  <crowd-checkbox name="{UNUSABLE_FIELD}" value="{UNUSABLE_MARK}">
    x: this premise cannot be used
  </crowd-checkbox>
{body}
</crowd-form>
"""


def write_support_files(
    out: Path, fmt: PlatformFormat, protocol: str, per_label: int, instructions: dict[str, str]
) -> list[Path]:
    """Instructions (one file per language) and the platform's form for one protocol."""
    written = []
    for lang, text in instructions.items():
        path = out / f"instructions.{protocol}.{lang}.md"
        _write_text(path, text)
        written.append(path)
    if fmt is PlatformFormat.LABELSTUDIO:
        path = out / f"labelstudio-config.{protocol}.xml"
        _write_text(path, labelstudio_config(per_label, protocol))
        written.append(path)
    elif fmt is PlatformFormat.MTURK:
        path = out / f"mturk-template.{protocol}.html"
        first = next(iter(instructions.values()), "")
        _write_text(path, mturk_template(per_label, protocol, first))
        written.append(path)
    return written


# --- relabelling: one label per pair, out and back ----------------------------------------
#
# A relabelling task is a pair (`models.RelabelTask`); the answer is one label in the field
# `label`: a csv column, a Label Studio Choices, an MTurk radio group. Readers return
# `RawVote`s in the platform's terms (its worker IDs, the label as written); the import
# stage maps them to our annotators and normalises the labels.

LABEL_FIELD = "label"


@dataclass
class RawVote:
    """One label as the platform gave it; `label` is None when the task was left unlabelled."""

    where: str
    line: int | None
    worker: str | None
    batch: str | None
    pair_id: str
    label: str | None


@dataclass
class VoteFile:
    votes: list[RawVote]
    dropped: Counter[str] = field(default_factory=Counter)


def read_votes(path: Path, fmt: PlatformFormat, labels: Sequence[str]) -> VoteFile:
    """Every vote of a file in the platform format `fmt`; `labels` are the label values
    the form offered (an MTurk radio group names its buttons after them)."""
    if not path.is_file():
        raise InputError(path, "no such file; check the path")
    if fmt is PlatformFormat.JSONL:
        return VoteFile(list(_read_jsonl_votes(path)))
    if fmt is PlatformFormat.CSV:
        return _read_csv_votes(path)
    if fmt is PlatformFormat.LABELSTUDIO:
        return _read_labelstudio_votes(path)
    return _read_mturk_votes(path, labels)


def _read_jsonl_votes(path: Path) -> Iterator[RawVote]:
    for line, record in iter_json_objects(path, "jsonl"):
        try:
            vote = RelabelVote.model_validate(record)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise InputError(path, f"field {where}: {first['msg']}", line) from None
        label = None if vote.label is None else str(vote.label).strip() or None
        yield RawVote(
            f"{path.name}, line {line}", line, vote.annotator, vote.batch, vote.pair_id, label
        )


def _read_csv_votes(path: Path) -> VoteFile:
    header, rows = csv_rows(path)
    missing = [name for name in ("pair_id", LABEL_FIELD) if name not in header]
    if missing:
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
                label=row[LABEL_FIELD].strip() or None,
            )
        )
    return result


def labelstudio_annotations(
    path: Path, id_field: str, command: str, dropped: Counter[str]
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(where, task data, annotation) of every annotation in Label Studio's full JSON export
    of a project made from `command`'s tasks (their data hold `batch` and `id_field`).
    Cancelled (skipped) annotations are counted in `dropped`, not given."""
    try:
        tasks = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(
            path, f"not JSON ({exc}); give Label Studio's full JSON export (Export > JSON)"
        ) from None
    if not isinstance(tasks, list):
        raise InputError(path, "expected a list of tasks: Label Studio's full JSON export")
    for index, task in enumerate(tasks):
        where = f"task {task.get('id', index + 1) if isinstance(task, dict) else index + 1}"
        data = task.get("data") if isinstance(task, dict) else None
        if not isinstance(data, dict) or "annotations" not in task:
            raise InputError(
                path,
                f"{where} has no data and annotations: give Label Studio's full JSON export "
                "(not JSON-MIN or CSV)",
            )
        if not data.get(id_field) or not data.get("batch"):
            raise InputError(
                path,
                f"{where} has no {id_field} and batch in its data: this is not the export of "
                f"a project made from `{command} --format labelstudio`",
            )
        for annotation in task["annotations"]:
            if annotation.get("was_cancelled"):
                dropped["cancelled (skipped) in Label Studio"] += 1
                continue
            yield f"{where}, annotation {annotation.get('id', '?')}", data, annotation


def _read_labelstudio_votes(path: Path) -> VoteFile:
    result = VoteFile([])
    annotations = labelstudio_annotations(
        path, "pair_id", "nlibuild relabel export", result.dropped
    )
    for where, data, annotation in annotations:
        choices: list[str] = []
        for item in annotation.get("result") or []:
            if item.get("from_name") != LABEL_FIELD:
                raise InputError(
                    path,
                    f"{where}: result field {item.get('from_name')!r} is not in nlibuild's "
                    "relabelling config; is this the export of another project?",
                )
            choices += (item.get("value") or {}).get("choices") or []
        if len(choices) > 1:
            raise InputError(
                path,
                f"{where}: {len(choices)} labels ({', '.join(map(str, choices))}); the config "
                "asks for one: fix it in Label Studio and export again",
            )
        if not choices:
            result.dropped["submitted empty"] += 1
            continue
        result.votes.append(
            RawVote(
                where=f"{path.name}, {where}",
                line=None,
                worker=_labelstudio_user(annotation.get("completed_by")),
                batch=str(data["batch"]),
                pair_id=str(data["pair_id"]),
                label=str(choices[0]),
            )
        )
    return result


def _mturk_answers(path: Path, line: int, row: dict[str, str]) -> dict[str, Any]:
    """The form's answers in one row of MTurk's results: the `Answer.<field>` columns
    (`Answer.a.b` of a flattened object as {"a": {"b": ...}}), or crowd-form's one
    `Answer.taskAnswers` JSON string."""
    values: dict[str, Any] = {}
    for name, value in row.items():
        if name.startswith("Answer."):
            field_name, _, part = name.removeprefix("Answer.").partition(".")
            if part:
                values.setdefault(field_name, {})[part] = value
            else:
                values[field_name] = value
    if not values.get("taskAnswers"):
        return values
    try:
        decoded = orjson.loads(values["taskAnswers"])
    except orjson.JSONDecodeError as exc:
        raise InputError(path, f"Answer.taskAnswers is not JSON ({exc})", line) from None
    if isinstance(decoded, list):
        decoded = decoded[0] if decoded else {}
    if not isinstance(decoded, dict):
        raise InputError(path, "Answer.taskAnswers is not a JSON object", line)
    return decoded


def _chosen_label(values: dict[str, Any], labels: Sequence[str]) -> list[str]:
    """The labels a form's answers choose: `label` as a value (a classic radio group), as
    {"label": value} (crowd-classifier) or as {value: ticked} (a flattened group); or,
    crowd-radio-group's shape, buttons named after the labels, each {value: ticked}."""
    answer = values.get(LABEL_FIELD)
    if isinstance(answer, str):
        return [answer.strip()] if answer.strip() else []
    if isinstance(answer, dict):
        if isinstance(answer.get(LABEL_FIELD), str):
            return [answer[LABEL_FIELD]]
        return [name for name, ticked in answer.items() if _is_marked(ticked)]
    return [name for name in labels if _is_marked(values.get(name))]


def _read_mturk_votes(path: Path, labels: Sequence[str]) -> VoteFile:
    result = VoteFile([])
    header, rows = mturk_results(path, "pair_id", "nlibuild relabel export", result.dropped)
    if not any(name.startswith("Answer.") for name in header):
        raise InputError(
            path, "no Answer.label or Answer.taskAnswers column; is this a results CSV?", 1
        )
    for line, row in rows:
        chosen = _chosen_label(_mturk_answers(path, line, row), labels)
        if len(chosen) > 1:
            raise InputError(path, f"{len(chosen)} labels chosen ({', '.join(chosen)})", line)
        result.votes.append(
            RawVote(
                where=f"{path.name}, line {line} (assignment {row['AssignmentId']})",
                line=line,
                worker=row["WorkerId"].strip() or None,
                batch=row["Input.batch"].strip() or None,
                pair_id=row["Input.pair_id"].strip(),
                label=chosen[0] if chosen else None,
            )
        )
    return result


RELABEL_FORM = "relabel"
"""The name part of the relabelling package's shared files (`labelstudio-config.relabel.xml`)."""


def write_relabel_batch(
    out: Path, fmt: PlatformFormat, batch: str, tasks: Sequence[RelabelTask]
) -> Path:
    """The task file of one relabelling batch; returns its path."""
    records = [task.model_dump(mode="json") for task in tasks]
    columns = list(RelabelTask.model_fields)
    rows = [[r[c] if r[c] is not None else "" for c in columns] for r in records]
    if fmt is PlatformFormat.JSONL:
        path = out / f"{batch}.tasks.jsonl"
        write_json_lines(path, iter(records))
    elif fmt is PlatformFormat.CSV:
        path = out / f"{batch}.csv"
        _write_csv(path, [*columns, LABEL_FIELD], [[*row, ""] for row in rows])
    elif fmt is PlatformFormat.LABELSTUDIO:
        path = out / f"{batch}.labelstudio.json"
        body = orjson.dumps([{"data": r} for r in records], option=orjson.OPT_INDENT_2)
        write_atomically(path, lambda handle: handle.write(body))
    else:
        path = out / f"{batch}.mturk-input.csv"
        _write_csv(path, columns, rows)
    return path


def relabel_labelstudio_config(labels: Sequence[str]) -> str:
    """A Label Studio labeling config: the premise, the hypothesis and one required choice
    `label` among `labels` (the NLI labels, then the store's extra labels)."""
    choices = [f"    <Choice value={quoteattr(label)}/>" for label in labels]
    return (
        "\n".join(
            [
                "<View>",
                "  <!-- nlibuild relabelling: one label per pair -->",
                '  <Header value="Pair $pair_id (batch $batch)"/>',
                '  <Header value="Premise" size="5"/>',
                '  <Text name="premise" value="$premise"/>',
                '  <Header value="Hypothesis" size="5"/>',
                '  <Text name="hypothesis" value="$hypothesis"/>',
                f'  <Choices name="{LABEL_FIELD}" toName="hypothesis" choice="single-radio" '
                'required="true" showInline="true">',
                *choices,
                "  </Choices>",
                "</View>",
            ]
        )
        + "\n"
    )


def relabel_mturk_template(labels: Sequence[str], instructions: str) -> str:
    """An MTurk HIT layout (crowd-html-elements): the instructions, the pair and a
    crowd-radio-group whose buttons are named after the labels (they come back in
    Answer.taskAnswers as {"<label>": {"<label>": true}}). `${...}` are input columns."""
    buttons = "\n".join(
        f'    <crowd-radio-button name="{html.escape(label)}" value="{html.escape(label)}">'
        f"{html.escape(label)}</crowd-radio-button>"
        for label in labels
    )
    return f"""<!-- nlibuild relabelling: one label per pair -->
<script src="https://assets.crowd.aws/crowd-html-elements.js"></script>
<crowd-form>
  <crowd-instructions link-text="Instructions" link-type="button">
    <short-summary>
      <p>If the premise is true, is the hypothesis true, possibly true, or false?</p>
    </short-summary>
    <detailed-instructions>
      <pre style="white-space: pre-wrap">{html.escape(instructions)}</pre>
    </detailed-instructions>
  </crowd-instructions>
  <p>Pair ${{pair_id}} (batch ${{batch}})</p>
  <p>Premise: <strong>${{premise}}</strong></p>
  <p>Hypothesis: <strong>${{hypothesis}}</strong></p>
  <p>{LABEL_FIELD}:</p>
  <crowd-radio-group>
{buttons}
  </crowd-radio-group>
</crowd-form>
"""


def write_relabel_support_files(
    out: Path, fmt: PlatformFormat, labels: Sequence[str], instructions: dict[str, str]
) -> list[Path]:
    """Instructions (one file per language) and the platform's form for relabelling."""
    written = []
    for lang, text in instructions.items():
        path = out / f"instructions.{RELABEL_FORM}.{lang}.md"
        _write_text(path, text)
        written.append(path)
    if fmt is PlatformFormat.LABELSTUDIO:
        path = out / f"labelstudio-config.{RELABEL_FORM}.xml"
        _write_text(path, relabel_labelstudio_config(labels))
        written.append(path)
    elif fmt is PlatformFormat.MTURK:
        path = out / f"mturk-template.{RELABEL_FORM}.html"
        _write_text(path, relabel_mturk_template(labels, next(iter(instructions.values()), "")))
        written.append(path)
    return written
