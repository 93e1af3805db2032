"""Label Studio: task JSON out (our task in each task's `data`) with a labeling config,
answers back as Label Studio's full JSON export (tasks with their `annotations`).

The elicitation config has one TextArea per expected hypothesis and a Choices `unusable`
with the value `x`; the relabelling config one required Choices `label`. A TextArea named
by the label's name people see (`矛盾_1`, a config localised by hand) is read as the
label's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import orjson
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
from nlibuild.formats.tabular import write_atomically, write_text
from nlibuild.labelling.label_names import LabelNames, shown_name
from nlibuild.labelling.labels import LabelNormaliser
from nlibuild.models import ElicitTask, RelabelTask
from nlibuild.protocol.elicitation import LABEL_ORDER, slot_name


def write_tasks(out: Path, batch: str, tasks: Sequence[BaseModel]) -> Path:
    """The tasks of one batch, elicitation or relabelling alike, for Label Studio's import."""
    records = [task.model_dump(mode="json") for task in tasks]
    path = out / f"{batch}.labelstudio.json"
    body = orjson.dumps([{"data": r} for r in records], option=orjson.OPT_INDENT_2)
    write_atomically(path, lambda handle: handle.write(body))
    return path


def write_elicit_tasks(
    out: Path, batch: str, tasks: Sequence[ElicitTask], names: LabelNames
) -> Path:
    """An elicitation batch: the tasks as they are (the config shows the names)."""
    return write_tasks(out, batch, tasks)


def write_relabel_tasks(
    out: Path, batch: str, tasks: Sequence[RelabelTask], names: LabelNames
) -> Path:
    """A relabelling batch: the tasks as they are (the config shows the names)."""
    return write_tasks(out, batch, tasks)


def write_elicit_form(
    out: Path, protocol: str, per_label: int, instructions: dict[str, str], names: LabelNames
) -> Path:
    path = out / f"labelstudio-config.{protocol}.xml"
    write_text(path, labelstudio_config(per_label, protocol, names))
    return path


def write_relabel_form(
    out: Path, labels: Sequence[str], instructions: dict[str, str], names: LabelNames
) -> Path:
    path = out / f"labelstudio-config.{RELABEL_FORM}.xml"
    write_text(path, relabel_labelstudio_config(labels, names))
    return path


def read_answers(path: Path, normaliser: LabelNormaliser, names: LabelNames) -> AnswerFile:
    result = AnswerFile([])
    annotations = labelstudio_annotations(
        path, "premise_id", "nlibuild elicit export", result.dropped
    )
    for where, data, annotation in annotations:
        values: dict[str, Any] = {}
        for name, value in _results(path, where, annotation):
            field_name = answer_field(name, names) if isinstance(name, str) else name
            if field_name == UNUSABLE_FIELD:
                values[field_name] = value.get("choices", [])
            elif isinstance(field_name, str) and SLOT.match(field_name):
                values[field_name] = _texts(path, where, name, value.get("text", []))
            elif isinstance(name, str) and names_no_label(name, names):
                raise InputError(path, f"{where}: result {no_label_in(name, names)}")
            else:
                raise InputError(
                    path,
                    f"{where}: result field {name!r} is not in nlibuild's labeling config; "
                    "is this the export of another project?",
                )
        # An annotation with no result (text areas left untouched) is an empty submission,
        # which `Platform.read_answers` sets aside like every platform's.
        result.answers.append(
            RawAnswer(
                where=f"{path.name}, {where}",
                worker=_labelstudio_user(annotation.get("completed_by")),
                batch=str(data["batch"]),
                premise_id=str(data["premise_id"]),
                premise=None,
                unusable=is_marked(values.get(UNUSABLE_FIELD)),
                hypotheses=slot_hypotheses(values),
            )
        )
    return result


def _labelstudio_user(completed_by: Any) -> str | None:
    """The annotator's Label Studio user ID: `completed_by` is the ID (an int), or in some
    versions an object with `id` and `email`. Maps (--annotator-map) name users by ID."""
    if isinstance(completed_by, dict):
        completed_by = completed_by.get("id")
    return None if completed_by is None else str(completed_by)


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
        annotations = task["annotations"]
        if not isinstance(annotations, list) or not all(isinstance(a, dict) for a in annotations):
            raise InputError(path, f"{where}: annotations must be a list of objects{_UNEDITED}")
        for annotation in annotations:
            if annotation.get("was_cancelled"):
                dropped["cancelled (skipped) in Label Studio"] += 1
                continue
            yield f"{where}, annotation {annotation.get('id', '?')}", data, annotation


def read_votes(path: Path, labels: Sequence[str]) -> VoteFile:
    result = VoteFile([])
    annotations = labelstudio_annotations(
        path, "pair_id", "nlibuild relabel export", result.dropped
    )
    for where, data, annotation in annotations:
        choices: list[str] = []
        for name, value in _results(path, where, annotation):
            if name != LABEL_FIELD:
                raise InputError(
                    path,
                    f"{where}: result field {name!r} is not in nlibuild's "
                    "relabelling config; is this the export of another project?",
                )
            chosen = value.get("choices") or []
            if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
                raise InputError(
                    path,
                    f"{where}: choices must be a list of label names, found {chosen!r}; give "
                    "Label Studio's full JSON export, unedited",
                )
            choices += chosen
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


_UNEDITED = "; give Label Studio's full JSON export, unedited"


def _results(
    path: Path, where: str, annotation: dict[str, Any]
) -> list[tuple[Any, dict[str, Any]]]:
    """(from_name, value) of each result of an annotation, whose shape is checked: a hand-
    edited export must be an `Error:` line, not a crash or a value read as something else."""
    results = annotation.get("result") or []
    if not isinstance(results, list) or not all(isinstance(item, dict) for item in results):
        raise InputError(path, f"{where}: result must be a list of objects{_UNEDITED}")
    pairs = []
    for item in results:
        value = item.get("value") or {}
        if not isinstance(value, dict):
            raise InputError(path, f"{where}: a result's value must be an object{_UNEDITED}")
        pairs.append((item.get("from_name"), value))
    return pairs


def _texts(path: Path, where: str, name: str, texts: Any) -> list[str]:
    """A TextArea's value: a list of strings (one per submitted line)."""
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise InputError(
            path, f"{where}: {name} must be a list of texts, found {texts!r}{_UNEDITED}"
        )
    return texts


def labelstudio_config(per_label: int, protocol: str, names: LabelNames = ()) -> str:
    """A Label Studio labeling config: the premise, the `x` flag, one TextArea per
    expected hypothesis (named like the csv columns, so answers read the same way), under
    a header with the label's name as people see it."""
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
        shown = shown_name(label.value, names)
        lines.append(f'  <Header value={quoteattr(shown.capitalize())} size="5"/>')
        for k in range(1, per_label + 1):
            name = slot_name(label, k)
            lines.append(
                f'  <TextArea name="{name}" toName="premise" rows="1" maxSubmissions="1" '
                f'editable="true" placeholder={quoteattr(f"{shown} {k}")}/>'
            )
    lines.append("</View>")
    return "\n".join(lines) + "\n"


def relabel_labelstudio_config(labels: Sequence[str], names: LabelNames = ()) -> str:
    """A Label Studio labeling config: the premise, the hypothesis and one required choice
    `label` among `labels` (the NLI labels, then the store's extra labels). A choice shows
    the name people see as its `value`, and its `alias`, which Label Studio writes into the
    results instead of the value, is the label, so the export reads back unchanged."""
    choices = [_choice(label, shown_name(label, names)) for label in labels]
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


def _choice(label: str, shown: str) -> str:
    if shown == label:
        return f"    <Choice value={quoteattr(label)}/>"
    return f"    <Choice value={quoteattr(shown)} alias={quoteattr(label)}/>"


PLATFORM = Platform(
    answer_file_kind="Label Studio's full JSON export",
    names_workers=True,
    elicit_batch_writer=write_elicit_tasks,
    elicit_form_writer=write_elicit_form,
    answer_reader=read_answers,
    relabel_batch_writer=write_relabel_tasks,
    relabel_form_writer=write_relabel_form,
    vote_reader=read_votes,
)
