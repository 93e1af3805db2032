"""Read paths over batches and their assignments (elicitation and relabelling)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from nlibuild.core.sql_params import json_array
from nlibuild.store import Store


class BatchRow(NamedTuple):
    """A batch with its annotator and how many of its items are still open."""

    pk: int
    id: str
    kind: str
    protocol: str | None
    lang: str
    annotator: str
    items: int
    open: int

    @property
    def answered(self) -> int:
        return self.items - self.open


class BatchPremise(NamedTuple):
    """A premise of an elicitation batch, in the batch's order."""

    pk: int
    id: str
    genre: str | None
    lang: str
    text: str
    status: str


class Assignment(NamedTuple):
    """An item of a batch, as an answer import checks it."""

    batch_pk: int
    batch_id: str
    protocol: str | None
    annotator: str
    item_id: str
    status: str
    answer_key: str | None
    answered_run_id: int | None


_BATCH_ROWS = (
    "SELECT b.pk, b.id, b.kind, b.protocol, b.lang, a.id, count(s.item_id), "
    "coalesce(sum(s.status = 'open'), 0) "
    "FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
    "LEFT JOIN assignments s ON s.batch_pk = b.pk "
)
"""The columns of a `BatchRow`; a query adds its WHERE and `GROUP BY b.pk`."""


def batches_of_kind(store: Store, kind: str, ids: Sequence[str] = ()) -> list[BatchRow]:
    """Batches of `kind` (all, or those among `ids`) in creation order."""
    rows = store.conn.execute(
        _BATCH_ROWS + "WHERE b.kind = ?1 AND (?2 = '[]' OR b.id IN (SELECT value FROM "
        "json_each(?2))) GROUP BY b.pk ORDER BY b.pk",
        (kind, json_array(ids)),
    ).fetchall()
    return [BatchRow(*row) for row in rows]


def batches_of_annotator(store: Store, annotator_id: str, kind: str) -> list[BatchRow]:
    """The batches of `kind` given to this annotator, and no one else's."""
    rows = store.conn.execute(
        _BATCH_ROWS + "WHERE a.id = ? AND b.kind = ? GROUP BY b.pk ORDER BY b.pk",
        (annotator_id, kind),
    ).fetchall()
    return [BatchRow(*row) for row in rows]


def batch_of_annotator(
    store: Store, annotator_id: str, kind: str, batch_id: str
) -> BatchRow | None:
    """The batch `batch_id` if it is of `kind` and given to this annotator; None otherwise
    (not there, of another kind, or someone else's: the caller cannot tell which)."""
    row = store.conn.execute(
        _BATCH_ROWS + "WHERE b.id = ? AND a.id = ? AND b.kind = ? GROUP BY b.pk",
        (batch_id, annotator_id, kind),
    ).fetchone()
    return BatchRow(*row) if row else None


def batch_premises(store: Store, batch_pk: int) -> list[BatchPremise]:
    """The premises of an elicitation batch, in the batch's order."""
    rows = store.conn.execute(
        "SELECT p.pk, p.id, p.genre, p.lang, p.text, s.status FROM assignments s "
        "JOIN premises p ON p.id = s.item_id WHERE s.batch_pk = ? ORDER BY s.position",
        (batch_pk,),
    ).fetchall()
    return [BatchPremise(*row) for row in rows]


def batch_ids(store: Store) -> list[str]:
    """Every batch ID (of any kind) in creation order."""
    return [row[0] for row in store.conn.execute("SELECT id FROM batches ORDER BY pk")]


def items_per_annotator(store: Store, kind: str) -> dict[str, int]:
    """How many items batches of `kind` already gave each annotator."""
    return dict(
        store.conn.execute(
            "SELECT a.id, count(*) FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
            "JOIN annotators a ON a.pk = b.annotator_pk WHERE b.kind = ? GROUP BY a.id",
            (kind,),
        ).fetchall()
    )


def unassigned_premises(
    store: Store, kind: str, protocol: str, genres: Sequence[str], lang: str | None
) -> list[tuple[str, str | None, str]]:
    """(id, genre, lang) of premises waiting for `protocol`, by ID: in no batch of `kind`
    and `protocol`, and without pairs of `protocol` or of no recorded protocol (a corpus's
    pairs whose protocol is unknown count as any). OCNLI (3.2) gave one premise to each of
    its protocols, so a premise in a batch of another protocol is still waiting."""
    rows = store.conn.execute(
        "SELECT p.id, p.genre, p.lang FROM premises p "
        "WHERE NOT EXISTS (SELECT 1 FROM pairs WHERE premise_pk = p.pk "
        "                  AND (protocol IS NULL OR protocol = ?2)) "
        "AND NOT EXISTS (SELECT 1 FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
        "                WHERE s.item_id = p.id AND b.kind = ?1 "
        "                AND coalesce(b.protocol, 'SINGLE') = ?2) "
        "AND (?3 = '[]' OR p.genre IN (SELECT value FROM json_each(?3))) "
        "AND (?4 IS NULL OR p.lang = ?4) ORDER BY p.id",
        (kind, protocol, json_array(genres), lang),
    ).fetchall()
    return [(row[0], row[1], row[2]) for row in rows]


def assignments_of_items(store: Store, kind: str, item_ids: Iterable[str]) -> list[Assignment]:
    """Every assignment of these items in batches of `kind`."""
    rows = store.conn.execute(
        "SELECT b.pk, b.id, b.protocol, a.id, s.item_id, s.status, s.answer_key, "
        "s.answered_run_id FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
        "JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE b.kind = ? AND s.item_id IN (SELECT value FROM json_each(?)) ORDER BY b.pk",
        (kind, json_array(item_ids)),
    ).fetchall()
    return [Assignment(*row) for row in rows]


def relabel_items(store: Store, batch_pk: int) -> list[tuple[str, str, str | None, str, str]]:
    """(pair id, lang, genre, premise, hypothesis) of a relabelling batch, in its order."""
    return store.conn.execute(
        "SELECT p.id, p.lang, pr.genre, pr.text, p.hypothesis FROM assignments s "
        "JOIN pairs p ON p.id = s.item_id JOIN premises pr ON pr.pk = p.premise_pk "
        "WHERE s.batch_pk = ? ORDER BY s.position",
        (batch_pk,),
    ).fetchall()


def open_assignment_count(store: Store) -> int:
    """Items of batches still waiting for an answer."""
    row = store.conn.execute("SELECT count(*) FROM assignments WHERE status = 'open'")
    return int(row.fetchone()[0])


def relabel_candidates(
    store: Store, protocol: str | None
) -> list[tuple[str, str | None, str | None, str | None, str | None, str, str | None]]:
    """(pair id, author, protocol, level, genre, lang, author's label) of every pair not
    yet relabelled: no validator's vote (position >= 1) and in no relabelling batch.
    Only pairs of `protocol` when one is given; by pair ID."""
    return store.conn.execute(
        "SELECT p.id, a.id, p.protocol, p.level, pr.genre, p.lang, p.author_label "
        "FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
        "LEFT JOIN annotators a ON a.pk = p.author_pk "
        "WHERE NOT EXISTS (SELECT 1 FROM votes v WHERE v.pair_pk = p.pk AND v.position >= 1) "
        "AND NOT EXISTS (SELECT 1 FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
        "                WHERE s.item_id = p.id AND b.kind = 'relabel') "
        "AND (?1 IS NULL OR p.protocol = ?1) ORDER BY p.id",
        (protocol,),
    ).fetchall()


def relabel_pairs(
    store: Store, ids: list[str]
) -> list[tuple[str, str | None, str | None, str | None, str | None, str, str | None]]:
    """The rows of `relabel_candidates` for the pairs among `ids` in the store, relabelled
    already or not (`relabel create --pairs` sends back exactly the pairs it is given)."""
    return store.conn.execute(
        "SELECT p.id, a.id, p.protocol, p.level, pr.genre, p.lang, p.author_label "
        "FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
        "LEFT JOIN annotators a ON a.pk = p.author_pk "
        "WHERE p.id IN (SELECT value FROM json_each(?)) ORDER BY p.id",
        (json_array(ids),),
    ).fetchall()
