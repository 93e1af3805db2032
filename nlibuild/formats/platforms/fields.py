"""The fields of nlibuild's forms, the same on every platform, and reading them back.

An elicitation form has one field per expected hypothesis, `<label>_<k>`, and a box
`unusable` ticked with `x`; a relabelling form has one field `label`.

Where the labels have names people see (`label_names.py`), an answer file may name a
hypothesis field by them (`矛盾_1`, a csv header `contradiction_1 (矛盾 1)`, a jsonl key
`矛盾`); `answer_field` and `answer_label` read them as the labels, with the same
`canonical_label` the relabel import reads a name typed back with.
"""

from __future__ import annotations

import re
from typing import Any

from nlibuild.labelling.label_names import LabelNames, canonical_label, shown_name
from nlibuild.models import Label
from nlibuild.protocol.elicitation import LABEL_ORDER, slot_name

UNUSABLE_FIELD = "unusable"
UNUSABLE_MARK = "x"

LABEL_FIELD = "label"
"""The relabelling form's one answer: a csv column, a Label Studio Choices, an MTurk radio group."""

SLOT = re.compile(r"^(entailment|neutral|contradiction)_([1-9])$")
"""A hypothesis field, `<label>_<k>`: a csv column, a Label Studio TextArea, an MTurk input."""


_NUMBERED = re.compile(r"^(.+)_([1-9])$")
"""A field that reads as the k-th hypothesis of something: `<label or name>_<k>`."""

_SHOWN_AFTER = re.compile(r"^(\S+) \(.*\)$")
"""A csv header with what people see after the field: `contradiction_1 (矛盾 1)`."""


def answer_field(name: str, names: LabelNames) -> str:
    """The form's field that a field of an answer file stands for: `contradiction_1` for
    itself, for the csv sheet's header `contradiction_1 (矛盾 1)` and for `矛盾_1` (named by
    the name people see); any other field as it is."""
    shown = _SHOWN_AFTER.match(name)
    if shown is not None and SLOT.match(shown.group(1)):
        return shown.group(1)
    numbered = _NUMBERED.match(name.strip())
    if numbered is None:
        return name
    label = canonical_label(numbered.group(1), names)
    found = f"{label}_{numbered.group(2)}"
    return found if SLOT.match(found) else name


def answer_label(key: str, names: LabelNames) -> Label | None:
    """The label a list of hypotheses under `key` is for (`contradiction` or its name
    `矛盾`), or None for a key that names no NLI label."""
    label = canonical_label(key, names)
    return Label(label) if label in set(Label) else None


def names_no_label(name: str, names: LabelNames) -> bool:
    """Whether a field reads as a hypothesis (`<something>_<k>`) but that something is
    neither a label nor a label's name (`蕴涵_1`, a misspelt `蕴含`): a misspelling, which
    must not be passed over as a field the form does not have."""
    return _NUMBERED.match(name.strip()) is not None and not SLOT.match(answer_field(name, names))


def known_labels(names: LabelNames) -> str:
    """The labels a hypothesis may be written for, each with its name where it has one:
    `entailment (蕴含), neutral (中立), contradiction (矛盾)`."""
    shown = [(label.value, shown_name(label.value, names)) for label in LABEL_ORDER]
    return ", ".join(label if name == label else f"{label} ({name})" for label, name in shown)


def no_label_in(name: str, names: LabelNames) -> str:
    """The error's words for a field that `names_no_label`."""
    return (
        f"field {name!r} names no label: a hypothesis field is <label>_<k>, the label one "
        f"of {known_labels(names)}, by itself or by its name; correct it"
    )


def is_marked(value: Any) -> bool:
    """Whether a form value ticks the unusable box: x, true, on, yes, 1; a checkbox's
    object form ({"x": true}) or a list of choices holding one of those."""
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        # crowd-checkbox gives {"x": true} ticked and {"x": false} not: the values decide.
        return any(is_marked(v) for v in value.values())
    if isinstance(value, list):
        return any(is_marked(v) for v in value)
    if value is None:
        return False
    return str(value).strip().lower() in {"x", "true", "on", "yes", "1"}


def slot_hypotheses(values: dict[str, Any], names: LabelNames = ()) -> dict[Label, list[str]]:
    """Per label, the form fields `<label>_<k>` (or as `answer_field` reads them) in k
    order ('' for an empty field)."""
    found: dict[Label, dict[int, str]] = {}
    for name, value in values.items():
        match = SLOT.match(answer_field(name, names))
        if match is None:
            continue
        text = " ".join(value) if isinstance(value, list) else str(value or "")
        found.setdefault(Label(match.group(1)), {})[int(match.group(2))] = text
    hypotheses: dict[Label, list[str]] = {}
    for label, by_k in found.items():
        hypotheses[label] = [by_k.get(k, "") for k in range(1, max(by_k) + 1)]
    return hypotheses


def slot_names(per_label: int) -> list[str]:
    """The hypothesis fields of a form asking for `per_label` hypotheses per label."""
    return [slot_name(label, k) for label in LABEL_ORDER for k in range(1, per_label + 1)]


def shown_slot_names(per_label: int, names: LabelNames) -> list[str]:
    """The hypothesis fields as a csv sheet's header shows them: with the name people see
    after each where the labels have names (`contradiction_1 (矛盾 1)`), as the relabelling
    sheet's label column lists them; `answer_field` reads both back."""
    return [
        slot_name(label, k) if shown_name(label.value, names) == label.value
        else f"{slot_name(label, k)} ({shown_name(label.value, names)} {k})"
        for label in LABEL_ORDER
        for k in range(1, per_label + 1)
    ]  # fmt: skip
