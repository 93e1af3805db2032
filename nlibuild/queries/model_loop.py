"""Read paths of the model in the writers' loop (issue 29): a writer's model checks of one
premise's fields (table `model_tries`) and what the served model said of submitted pairs
(table `model_predictions`)."""

from __future__ import annotations

from typing import NamedTuple

from nlibuild.core.sql_params import json_array
from nlibuild.store import Store


class LastTry(NamedTuple):
    """The newest model check of one field: the text checked and the model that checked it."""

    hypothesis: str
    model: str


def last_tries(store: Store, batch_pk: int, item_id: str) -> dict[str, LastTry]:
    """field -> its newest try, for the fields of one assignment that have one."""
    rows = store.conn.execute(
        "SELECT slot, hypothesis, model FROM model_tries WHERE pk IN ("
        " SELECT max(pk) FROM model_tries WHERE batch_pk = ? AND item_id = ? GROUP BY slot)",
        (batch_pk, item_id),
    )
    return {slot: LastTry(hypothesis, model) for slot, hypothesis, model in rows}


def tries_per_field(store: Store, batch_pk: int, item_id: str) -> dict[str, int]:
    """field -> how many model checks of it the writer made, for one assignment."""
    rows = store.conn.execute(
        "SELECT slot, count(*) FROM model_tries WHERE batch_pk = ? AND item_id = ? GROUP BY slot",
        (batch_pk, item_id),
    )
    return {slot: int(count) for slot, count in rows}


def pair_keys(store: Store, ids: list[str]) -> dict[str, int]:
    """pair ID -> its key, for those of `ids` in the store."""
    rows = store.conn.execute(
        "SELECT id, pk FROM pairs WHERE id IN (SELECT value FROM json_each(?))", (json_array(ids),)
    )
    return {pair_id: int(pk) for pair_id, pk in rows}


class StoredPrediction(NamedTuple):
    """A submitted pair with what the model said of it, beside the writer's label."""

    pair_id: str
    intended: str
    model: str
    label: str
    probabilities: str
    tries: int


def stored_predictions(store: Store, ids: list[str]) -> dict[str, StoredPrediction]:
    """pair ID -> its stored prediction, for those of `ids` that have one."""
    rows = store.conn.execute(
        "SELECT p.id, p.author_label, m.model, m.label, m.probabilities, m.tries "
        "FROM model_predictions m JOIN pairs p ON p.pk = m.pair_pk "
        "WHERE p.id IN (SELECT value FROM json_each(?))",
        (json_array(ids),),
    )
    return {row[0]: StoredPrediction(*row) for row in rows}
