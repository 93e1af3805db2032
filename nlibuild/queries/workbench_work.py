"""Read paths of the workbench's writing and relabelling pages (issue 19): a person's own
batches, drafts, their own votes and times per item. Every query that returns work is
bounded by the annotator it is for, so that no page can show another person's."""

from __future__ import annotations

from statistics import median
from typing import NamedTuple

from nlibuild.store import Store


class OwnPair(NamedTuple):
    """A pair of a validator's relabelling batch, as they may see it (no author, no
    intended label, no other vote)."""

    pk: int
    id: str
    position: int
    lang: str
    genre: str | None
    premise: str
    hypothesis: str
    own_vote: str | None


def drafts_of_batch(store: Store, batch_pk: int) -> dict[str, tuple[str, str]]:
    """item id -> (fields JSON, saved at) of a batch's drafts."""
    rows = store.conn.execute(
        "SELECT item_id, fields_json, updated_at FROM drafts WHERE batch_pk = ?", (batch_pk,)
    ).fetchall()
    return {item: (fields, saved) for item, fields, saved in rows}


def draft(store: Store, batch_pk: int, item_id: str) -> tuple[str, str] | None:
    """(fields JSON, saved at) of one item's draft."""
    row = store.conn.execute(
        "SELECT fields_json, updated_at FROM drafts WHERE batch_pk = ? AND item_id = ?",
        (batch_pk, item_id),
    ).fetchone()
    return (row[0], row[1]) if row else None


_OWN_PAIRS = (
    "SELECT p.pk, p.id, s.position, p.lang, pr.genre, pr.text, p.hypothesis, "
    "(SELECT v.label FROM votes v WHERE v.pair_pk = p.pk AND v.annotator_pk = me.pk "
    " AND v.position >= 1) "
    "FROM assignments s JOIN pairs p ON p.id = s.item_id "
    "JOIN premises pr ON pr.pk = p.premise_pk JOIN annotators me ON me.id = ? "
    "WHERE s.batch_pk = ? AND p.author_pk IS NOT me.pk "
)
"""A validator's pairs of one batch; a pair the annotator wrote is left out (a writer
never validates their own pair)."""


def own_pairs(store: Store, annotator_id: str, batch_pk: int) -> list[OwnPair]:
    """The pairs of a relabelling batch in its order, with the annotator's own vote; a pair
    the annotator wrote is left out (a writer never validates their own pair)."""
    rows = store.conn.execute(
        _OWN_PAIRS + "ORDER BY s.position", (annotator_id, batch_pk)
    ).fetchall()
    return [OwnPair(*row) for row in rows]


# One item, read alone: a vote names one item, and reading the batch's 200 to find it was
# most of a vote's cost in the library (bench/RESULTS.md, 2026-11-25).


def own_pair_at(store: Store, annotator_id: str, batch_pk: int, position: int) -> OwnPair | None:
    """The pair at assignment `position` of the batch, if the annotator may see it."""
    row = store.conn.execute(
        _OWN_PAIRS + "AND s.position = ?", (annotator_id, batch_pk, position)
    ).fetchone()
    return OwnPair(*row) if row else None


def own_pair_numbered(
    store: Store, annotator_id: str, batch_pk: int, number: int
) -> OwnPair | None:
    """The `number`-th (from 1) of the pairs `own_pairs` lists, as the page numbers them."""
    if number < 1:
        return None
    row = store.conn.execute(
        _OWN_PAIRS + "ORDER BY s.position LIMIT 1 OFFSET ?", (annotator_id, batch_pk, number - 1)
    ).fetchone()
    return OwnPair(*row) if row else None


def own_pair_of_id(store: Store, annotator_id: str, batch_pk: int, pair_id: str) -> OwnPair | None:
    """The pair `pair_id` of the batch, if the annotator may see it."""
    row = store.conn.execute(
        _OWN_PAIRS + "AND p.id = ?", (annotator_id, batch_pk, pair_id)
    ).fetchone()
    return OwnPair(*row) if row else None


def seconds_per_item(store: Store) -> dict[str, float]:
    """annotator -> the median seconds they spent on an item before voting, for those
    with recorded times (the workbench records them)."""
    times: dict[str, list[float]] = {}
    for annotator, seconds in store.conn.execute(
        "SELECT a.id, t.seconds FROM vote_times t JOIN annotators a ON a.pk = t.annotator_pk"
    ):
        times.setdefault(annotator, []).append(seconds)
    return {annotator: float(median(values)) for annotator, values in times.items()}


def pair_ids_of_run(store: Store, run_id: int) -> list[str]:
    """The IDs of the pairs a run added, in key order."""
    rows = store.conn.execute("SELECT id FROM pairs WHERE run_id = ? ORDER BY pk", (run_id,))
    return [row[0] for row in rows]


class StoredPairRow(NamedTuple):
    id: str
    label: str
    level: str | None
    hypothesis: str


class ViolationRow(NamedTuple):
    pair_id: str | None
    rule: str
    severity: str
    detail: str
    kept: int


def answer_of_item(
    store: Store, batch_pk: int, item_id: str
) -> tuple[str, list[StoredPairRow], list[ViolationRow]] | None:
    """An answered item of an elicitation batch: its status, the pairs the answering run
    added for it (in key order), and the violations recorded for it in this batch; None
    while the item is open."""
    found = store.conn.execute(
        "SELECT status, answered_run_id FROM assignments "
        "WHERE batch_pk = ? AND item_id = ? AND status != 'open'",
        (batch_pk, item_id),
    ).fetchone()
    if found is None:
        return None
    status, run_id = found
    pairs = store.conn.execute(
        "SELECT p.id, p.author_label, p.level, p.hypothesis FROM pairs p "
        "JOIN premises pr ON pr.pk = p.premise_pk "
        "WHERE p.run_id = ? AND pr.id = ? ORDER BY p.pk",
        (run_id, item_id),
    ).fetchall()
    violations = store.conn.execute(
        "SELECT pair_id, rule, severity, detail, kept FROM violations "
        "WHERE batch_pk = ? AND item_id = ? ORDER BY pk",
        (batch_pk, item_id),
    ).fetchall()
    return status, [StoredPairRow(*r) for r in pairs], [ViolationRow(*r) for r in violations]
