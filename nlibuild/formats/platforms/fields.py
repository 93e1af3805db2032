"""The fields of nlibuild's forms, the same on every platform, and reading them back.

An elicitation form has one field per expected hypothesis, `<label>_<k>`, and a box
`unusable` ticked with `x`; a relabelling form has one field `label`.
"""

from __future__ import annotations

import re
from typing import Any

from nlibuild.elicitation import LABEL_ORDER, slot_name
from nlibuild.models import Label

UNUSABLE_FIELD = "unusable"
UNUSABLE_MARK = "x"

LABEL_FIELD = "label"
"""The relabelling form's one answer: a csv column, a Label Studio Choices, an MTurk radio group."""

SLOT = re.compile(r"^(entailment|neutral|contradiction)_([1-9])$")
"""A hypothesis field, `<label>_<k>`: a csv column, a Label Studio TextArea, an MTurk input."""


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


def slot_hypotheses(values: dict[str, Any]) -> dict[Label, list[str]]:
    """Per label, the form fields `<label>_<k>` in k order ('' for an empty field)."""
    found: dict[Label, dict[int, str]] = {}
    for name, value in values.items():
        match = SLOT.match(name)
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
