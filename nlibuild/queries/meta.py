"""Read paths over the store's metadata (the `meta` table: language, preset, labels)."""

from __future__ import annotations

from nlibuild.models import NLI_LABELS
from nlibuild.store import Store


def store_labels(store: Store) -> list[str]:
    """The labels a validator may give: the three NLI labels, then the store's extra
    labels (meta `extra_labels`, from `init --extra-labels` or the preset)."""
    extra = [e for e in store.meta().get("extra_labels", "").split(",") if e]
    return [*NLI_LABELS, *(e for e in extra if e not in NLI_LABELS)]
