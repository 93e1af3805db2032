"""Read paths over premises: by ID, in store order, their texts for sampling."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from nlibuild.core.sql_params import json_array
from nlibuild.store import PremiseRow, Store
from nlibuild.text.lang import text_keys


def keys_of_premises(store: Store, lang: str) -> set[int]:
    """The text keys that the store's premises rule out of sampling (`lang.text_keys`)."""
    taken: set[int] = set()
    for text in premise_texts(store):
        taken |= text_keys(text, lang)
    return taken


def premises_by_id(store: Store, ids: Iterable[str]) -> dict[str, PremiseRow]:
    """id -> premise, for the premises among `ids` in the store."""
    rows = store.conn.execute(
        "SELECT pk, id, genre, lang, text, length, extra_json FROM premises "
        "WHERE id IN (SELECT value FROM json_each(?))",
        (json_array(ids),),
    ).fetchall()
    return {row[1]: PremiseRow(*row) for row in rows}


def all_premises(store: Store) -> list[PremiseRow]:
    """Every premise in store order."""
    rows = store.conn.execute(
        "SELECT pk, id, genre, lang, text, length, extra_json FROM premises ORDER BY pk"
    ).fetchall()
    return [PremiseRow(*row) for row in rows]


def premise_ids_with_prefix(store: Store, prefix: str) -> list[str]:
    """IDs of the form `<prefix>_<anything>` (used to continue numbering)."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = store.conn.execute(
        "SELECT id FROM premises WHERE id LIKE ? ESCAPE '\\'", (escaped + "\\_%",)
    ).fetchall()
    return [row[0] for row in rows]


def premise_texts(store: Store) -> Iterator[str]:
    """The text of every premise (streamed: a corpus may hold millions)."""
    for row in store.conn.execute("SELECT text FROM premises"):
        yield row[0]
