"""Read paths over premises."""

from __future__ import annotations

from nlibuild.lang import text_keys
from nlibuild.store import Store


def keys_of_premises(store: Store, lang: str) -> set[int]:
    """The text keys that the store's premises rule out of sampling (`lang.text_keys`)."""
    taken: set[int] = set()
    for text in store.premise_texts():
        taken |= text_keys(text, lang)
    return taken
