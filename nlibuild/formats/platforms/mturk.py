"""MTurk: an input CSV out (one HIT per premise or pair, our IDs in its columns) with an
HTML template (crowd-html-elements); answers back as the batch results CSV, with
`Answer.<field>` columns or one crowd-form `Answer.taskAnswers` JSON string. A hypothesis
field named by the label's name people see (`Answer.矛盾_1`, a template localised by hand)
is read as the label's.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
from markdown_it import MarkdownIt
from pydantic import BaseModel

from nlibuild.errors import InputError
from nlibuild.formats.platforms.base import (
    RELABEL_FORM,
    AnswerFile,
    Platform,
    RawAnswer,
    RawVote,
    VoteFile,
)
from nlibuild.formats.platforms.fields import (
    LABEL_FIELD,
    SLOT,
    UNUSABLE_FIELD,
    UNUSABLE_MARK,
    answer_field,
    is_marked,
    names_no_label,
    no_label_in,
    slot_hypotheses,
)
from nlibuild.formats.tabular import csv_rows, write_spreadsheet_csv, write_text
from nlibuild.labelling.label_names import LabelNames, shown_name
from nlibuild.labelling.labels import LabelNormaliser
from nlibuild.models import ElicitTask, RelabelTask
from nlibuild.protocol.elicitation import LABEL_ORDER, slot_name


def _write_input(path: Path, task_type: type[BaseModel], tasks: Sequence[BaseModel]) -> None:
    """The input CSV: one column per field of `task_type`, one row per task (HIT)."""
    records = [task.model_dump(mode="json") for task in tasks]
    columns = list(task_type.model_fields)
    write_spreadsheet_csv(
        path, columns, [[r[c] if r[c] is not None else "" for c in columns] for r in records]
    )


def write_elicit_batch(
    out: Path, batch: str, tasks: Sequence[ElicitTask], names: LabelNames
) -> Path:
    """The input CSV (the template shows the names)."""
    path = out / f"{batch}.mturk-input.csv"
    _write_input(path, ElicitTask, tasks)
    return path


def write_relabel_batch(
    out: Path, batch: str, tasks: Sequence[RelabelTask], names: LabelNames
) -> Path:
    path = out / f"{batch}.mturk-input.csv"
    _write_input(path, RelabelTask, tasks)
    return path


def write_elicit_form(
    out: Path, protocol: str, per_label: int, instructions: dict[str, str], names: LabelNames
) -> Path:
    """The HIT template; it embeds the first instructions (the corpus language's)."""
    path = out / f"mturk-template.{protocol}.html"
    first = next(iter(instructions.values()), "")
    write_text(path, mturk_template(per_label, protocol, first, names))
    return path


def write_relabel_form(
    out: Path, labels: Sequence[str], instructions: dict[str, str], names: LabelNames
) -> Path:
    """The HIT template; it embeds the first instructions (the corpus language's)."""
    path = out / f"mturk-template.{RELABEL_FORM}.html"
    first = next(iter(instructions.values()), "")
    write_text(path, relabel_mturk_template(labels, first, names))
    return path


def instructions_html(markdown: str) -> str:
    """The instructions' Markdown as HTML for the HIT's detailed instructions. CommonMark
    with raw HTML off: a `<` in the text is shown, never run as markup in the worker's
    page; tables on, as instructions may hold one."""
    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    return str(renderer.render(markdown))


def mturk_results(
    path: Path, item_column: str, command: str, dropped: Counter[str]
) -> tuple[list[str], Iterator[tuple[int, dict[str, str]]]]:
    """The header and the (line, row) of every assignment still standing in MTurk's batch
    results CSV of a `command` package, whose input names its items in `item_column`.
    Rejected or cancelled assignments are counted in `dropped`, not given."""
    header, rows = csv_rows(path, from_spreadsheet=True)
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
    _refuse_field_given_twice(path, header)

    def standing() -> Iterator[tuple[int, dict[str, str]]]:
        for line, row in rows:
            status = row["AssignmentStatus"].strip().lower()
            if status in {"rejected", "cancelled", "canceled"}:
                dropped[f"{status} on MTurk"] += 1
                continue
            yield line, row

    return header, standing()


def _refuse_field_given_twice(path: Path, header: list[str]) -> None:
    """A form field is one column `Answer.<field>` or, flattened from an object, columns
    `Answer.<field>.<part>`; a header with both gives two answers to one question (mostly
    results of two forms pasted together), and neither can be chosen."""
    answers = [name.removeprefix("Answer.") for name in header if name.startswith("Answer.")]
    flat = {name for name in answers if "." not in name}
    for name in answers:
        field_name, _, part = name.partition(".")
        if part and field_name in flat:
            raise InputError(
                path,
                f"the header has both Answer.{field_name} and Answer.{name}: one form field "
                "given twice; keep the columns of the form this batch used",
                1,
            )


def read_answers(path: Path, normaliser: LabelNormaliser, names: LabelNames) -> AnswerFile:
    result = AnswerFile([])
    header, rows = mturk_results(path, "premise_id", "nlibuild elicit export", result.dropped)
    if "Answer.taskAnswers" not in header and not any(
        SLOT.match(answer_field(name.removeprefix("Answer."), names)) for name in header
    ):
        raise InputError(
            path, "no Answer.taskAnswers and no Answer.<label>_<k> columns; is this a results CSV?"
        )
    for line, row in rows:
        values = _slots_by_label(path, line, _mturk_answers(path, line, row), names)
        _require_text_slots(path, line, values)
        result.answers.append(
            RawAnswer(
                where=f"{path.name}, line {line} (assignment {row['AssignmentId']})",
                worker=row["WorkerId"].strip() or None,
                batch=row["Input.batch"].strip() or None,
                premise_id=row["Input.premise_id"].strip() or None,
                premise=None,
                unusable=is_marked(values.get(UNUSABLE_FIELD)),
                hypotheses=slot_hypotheses(values),
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


def _slots_by_label(
    path: Path, line: int, values: dict[str, Any], names: LabelNames
) -> dict[str, Any]:
    """The form's answers with each hypothesis field under the form's name for it
    (`answer_field`); a field that `names_no_label` is refused, not passed over."""
    keyed: dict[str, Any] = {}
    for name, value in values.items():
        if names_no_label(name, names):
            raise InputError(path, no_label_in(f"Answer.{name}", names), line)
        field_name = answer_field(name, names)
        if field_name in keyed:
            raise InputError(path, f"Answer.{field_name} is given twice (as {name!r} too)", line)
        keyed[field_name] = value
    return keyed


def _require_text_slots(path: Path, line: int, values: dict[str, Any]) -> None:
    # A crowd-input gives text; a number, list or object in Answer.taskAnswers would
    # otherwise be stored as its Python spelling, a hypothesis nobody wrote.
    for name, value in values.items():
        if SLOT.match(name) and not isinstance(value, str):
            raise InputError(
                path, f"Answer.taskAnswers: {name} must be text, found {value!r}; fix the row", line
            )


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
        return [name for name, ticked in answer.items() if is_marked(ticked)]
    return [name for name in labels if is_marked(values.get(name))]


def read_votes(path: Path, labels: Sequence[str]) -> VoteFile:
    result = VoteFile([])
    header, rows = mturk_results(path, "pair_id", "nlibuild relabel export", result.dropped)
    if not any(name.startswith("Answer.") for name in header):
        raise InputError(
            path, "no Answer.label or Answer.taskAnswers column; is this a results CSV?", 1
        )
    for line, row in rows:
        values = _mturk_answers(path, line, row)
        answer = values.get(LABEL_FIELD)
        # A list or a number in Answer.taskAnswers is no shape a form of ours gives; read
        # on, it would pass for a task left without a label.
        if answer is not None and not isinstance(answer, (str, dict)):
            raise InputError(
                path,
                f"the answer's label is {answer!r}, not a label name; give the results of "
                "the form `nlibuild relabel export --format mturk` wrote",
                line,
            )
        chosen = _chosen_label(values, labels)
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


def mturk_template(per_label: int, protocol: str, instructions: str, names: LabelNames = ()) -> str:
    """An MTurk HIT layout (crowd-html-elements): the instructions, the premise, the `x`
    box and one input per expected hypothesis, under the label's name as people see it.
    `${...}` are the input CSV's columns."""
    fields = []
    for label in LABEL_ORDER:
        shown = html.escape(shown_name(label.value, names))
        fields.append(f"    <h3>{shown.capitalize()}</h3>")
        for k in range(1, per_label + 1):
            fields.append(
                f'    <crowd-input name="{slot_name(label, k)}" label="{shown} {k}"></crowd-input>'
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
{_indented(instructions_html(instructions))}
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


def relabel_mturk_template(labels: Sequence[str], instructions: str, names: LabelNames = ()) -> str:
    """An MTurk HIT layout (crowd-html-elements): the instructions, the pair and a
    crowd-radio-group whose buttons are named after the labels (they come back in
    Answer.taskAnswers as {"<label>": {"<label>": true}}) and show the names people see.
    `${...}` are input columns."""
    buttons = "\n".join(
        f'    <crowd-radio-button name="{html.escape(label)}" value="{html.escape(label)}">'
        f"{html.escape(shown_name(label, names))}</crowd-radio-button>"
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
{_indented(instructions_html(instructions))}
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


def _indented(markup: str) -> str:
    return "\n".join(f"      {line}" if line else line for line in markup.strip().splitlines())


PLATFORM = Platform(
    answer_file_kind="MTurk's batch results CSV",
    names_workers=True,
    elicit_batch_writer=write_elicit_batch,
    elicit_form_writer=write_elicit_form,
    answer_reader=read_answers,
    relabel_batch_writer=write_relabel_batch,
    relabel_form_writer=write_relabel_form,
    vote_reader=read_votes,
)
