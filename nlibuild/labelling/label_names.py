"""The names people see for the labels in a work package, and the labels behind them.

The store, the forms' field values and every file a platform gives back speak the canonical
labels (`entailment`, `neutral`, `contradiction`, the store's extra labels); a validator
reads and may type the name in their own language. A preset's `[labels.names]` gives the
names, else the corpus language's built-in ones below, else people see the canonical label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nlibuild.core.stage import StoreFacts

LabelNames = tuple[tuple[str, str], ...]
"""(canonical label, the name people see) for each label that has a name, in settings."""

BUILTIN_LABEL_NAMES: Mapping[str, Mapping[str, str]] = {
    # The OCNLI paper's text gives no Chinese names for its labels; these are the terms our
    # Chinese instructions (resources/instructions/relabel/zh.md) already use.
    "zh": {
        "entailment": "蕴含",
        "neutral": "中立",
        "contradiction": "矛盾",
        "unrelated": "无关",
        "unknown": "无法判断",
    },
    # The Korean NLI terms KLUE's NLI task uses for its three classes.
    "ko": {"entailment": "함의", "neutral": "중립", "contradiction": "모순"},
}
"""Built-in names per corpus language, used where the preset names none."""


def label_names(lang: str, preset_names: Mapping[str, str] | None) -> LabelNames:
    """The names of a store's labels: the preset's `[labels.names]` when it has them, else
    the built-in names of the corpus language `lang`, else none."""
    names = preset_names if preset_names else BUILTIN_LABEL_NAMES.get(lang, {})
    return tuple(names.items())


def shown_name(label: str, names: LabelNames) -> str:
    """The name people see for `label` (the label itself when it has none)."""
    return dict(names).get(label, label)


def canonical_label(raw: str, names: LabelNames) -> str:
    """The label behind a name people typed back (`矛盾` -> `contradiction`); any other
    text is given back as it is, for the label reader to take or refuse."""
    by_name = {name.casefold(): label for label, name in names}
    return by_name.get(raw.strip().casefold(), raw)


def label_names_default(store: StoreFacts, fields: Mapping[str, Any]) -> dict[str, Any]:
    """The `defaults` of a stage whose work packages show, or whose answers may give back,
    the label names: the store's (its preset's `[labels.names]`, else its language's),
    unless the fields name others. Every front end thus writes the same package."""
    if fields.get("label_names") is not None:
        return dict(fields)
    labels = store.preset.get("labels", {})
    preset_names = labels.get("names") if isinstance(labels, Mapping) else None
    return dict(fields) | {"label_names": label_names(store.lang, preset_names)}
