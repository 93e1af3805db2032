"""The relabel page's library (issue 19): blind items of the validator's own batches,
votes through `relabel import`'s logic with the time spent, undo, and the times in the
annotators table."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import json_rows, ok, query, table_counts, write_jsonl
from elicitation_data import SINGLE
from workbench_data import batches_of, open_store, premises_of, writing_store

from nlibuild.errors import ConflictError, NotFoundError, SubmissionRefused
from nlibuild.invoke import invoke
from nlibuild.models import RelabelItem
from nlibuild.stages.relabel_import import UNDO_STAGE
from nlibuild.workbench.relabelling import (
    pair_at_position,
    pair_numbered,
    record_vote,
    relabel_items,
    undo_vote,
    validator_batches,
)


@pytest.fixture
def store_db(tmp_path: Path) -> Path:
    """SINGLE pairs of twelve premises by w01 and w02, every pair to two of w01, v01, v02."""
    db = writing_store(tmp_path / "corpus.db", protocol="SINGLE")
    answers = [
        {"batch": batch, "writer": writer, "premise_id": premise} | SINGLE
        for writer, batches in batches_of(db).items()
        for batch in batches
        for premise, _ in premises_of(db, batch)
    ]
    ok("--db", db, "elicit", "import", write_jsonl(tmp_path / "answers.jsonl", answers))
    ok("--db", db, "relabel", "create", "--annotators", "w01,v01,v02", "--fraction", 1,
       "--validators", 2)  # fmt: skip
    return db


def relabel_batch(db: Path, annotator: str) -> str:
    rows = query(
        db,
        "SELECT b.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE b.kind = 'relabel' AND a.id = ? ORDER BY b.pk",
        annotator,
    )
    return str(rows[0][0])


def test_a_validator_never_sees_author_label_or_votes(store_db: Path) -> None:
    batch = relabel_batch(store_db, "v01")
    with open_store(store_db) as store:
        assert [b.id for b in validator_batches(store, "v01")] == [
            b for (b,) in query(store_db, "SELECT b.id FROM batches b JOIN annotators a ON "
                                "a.pk = b.annotator_pk WHERE a.id = 'v01' ORDER BY b.pk")
        ]  # fmt: skip
        page = relabel_items(store, "v01", batch)
    assert set(RelabelItem.model_fields) == {
        "pair_id", "position", "lang", "genre", "premise", "hypothesis", "own_vote"
    }  # fmt: skip
    dumped = page.model_dump_json()
    for hidden in ("author", "w01", "w02", "intended", "votes"):
        assert hidden not in dumped
    assert [(c.label, c.key) for c in page.labels] == [
        ("entailment", "1"),
        ("neutral", "2"),
        ("contradiction", "3"),
    ]
    assert page.items and all(item.own_vote is None for item in page.items)


def test_a_validator_cannot_get_their_own_pairs(store_db: Path) -> None:
    own = {p for (p,) in query(store_db, "SELECT p.id FROM pairs p JOIN annotators a ON "
                               "a.pk = p.author_pk WHERE a.id = 'w01'")}  # fmt: skip
    others_batch = relabel_batch(store_db, "v01")
    with open_store(store_db) as store:
        shown = {i.pair_id for b in validator_batches(store, "w01")
                 for i in relabel_items(store, "w01", b.id).items}  # fmt: skip
        assert shown and not shown & own
        with pytest.raises(NotFoundError):
            relabel_items(store, "w01", others_batch)
        with pytest.raises(NotFoundError):
            record_vote(store, "w01", relabel_batch(store_db, "w01"), sorted(own)[0], "neutral")


def test_votes_with_times_land_and_the_annotators_table_shows_them(store_db: Path) -> None:
    batch = relabel_batch(store_db, "v01")
    with open_store(store_db) as store:
        items = relabel_items(store, "v01", batch).items[:3]
        for item, seconds in zip(items, (4.0, 9.5, 30.0), strict=True):
            result = record_vote(store, "v01", batch, item.pair_id, "neutral", seconds)
            assert result.run_id is not None and not result.unchanged
        assert relabel_items(store, "v01", batch).items[0].own_vote == "neutral"
    votes = query(store_db, "SELECT v.label, v.position FROM votes v JOIN annotators a ON "
                  "a.pk = v.annotator_pk WHERE a.id = 'v01'")  # fmt: skip
    assert votes == [("neutral", 1)] * 3
    assert query(store_db, "SELECT sum(seconds) FROM vote_times") == [(43.5,)]
    rows = {r["annotator"]: r for r in json_rows("--db", store_db, "stats", "--table",
                                                 "annotators")}  # fmt: skip
    assert rows["v01"]["seconds_per_item"] == 9.5
    assert rows["w01"]["seconds_per_item"] is None
    assert "seconds per item" in ok("--db", store_db, "stats", "--table", "annotators",
                                    "--format", "md")  # fmt: skip


def test_the_same_label_changes_nothing_and_another_needs_an_undo(store_db: Path) -> None:
    batch = relabel_batch(store_db, "v01")
    with open_store(store_db) as store:
        pair = relabel_items(store, "v01", batch).items[0].pair_id
        record_vote(store, "v01", batch, pair, "entailment", 3)
        before = table_counts(store_db)
        assert record_vote(store, "v01", batch, pair, "entailment", 5).unchanged
        assert table_counts(store_db) == before
        with pytest.raises(ConflictError, match="undo"):
            record_vote(store, "v01", batch, pair, "contradiction", 5)
        with pytest.raises(SubmissionRefused):
            record_vote(store, "v01", batch, pair, "maybe", 5)
        assert undo_vote(store, "v01", batch, pair)
        assert relabel_items(store, "v01", batch).items[0].own_vote is None
        assert not undo_vote(store, "v01", batch, pair)
        record_vote(store, "v01", batch, pair, "contradiction", 5)
    assert query(store_db, "SELECT v.label FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
                 "WHERE p.id = ? AND v.position >= 1", pair) == [("contradiction",)]  # fmt: skip
    assert query(store_db, "SELECT seconds FROM vote_times") == [(5.0,)]
    counts = query(
        store_db,
        "SELECT n_votes, n_contradiction FROM pair_labels l JOIN pairs p "
        "ON p.pk = l.pair_pk WHERE p.id = ?",
        pair,
    )
    assert counts == [(2, 1 + (pair[-2] == "c"))]
    assert ok("--db", store_db, "check").strip()


def test_an_undo_is_the_relabel_undo_stage_and_says_what_it_took_back(store_db: Path) -> None:
    batch = relabel_batch(store_db, "v01")
    with open_store(store_db) as store:
        pair = relabel_items(store, "v01", batch).items[0].pair_id
        record_vote(store, "v01", batch, pair, "neutral", 4)
        undone = invoke(UNDO_STAGE, store, annotator="v01", batch=batch, pair=pair)
        again = invoke(UNDO_STAGE, store, annotator="v01", batch=batch, pair=pair)
    assert undone.result is not None and undone.result.removed == 1
    (run,) = query(store_db, "SELECT id, signature FROM runs WHERE stage = 'relabel-undo'")
    assert undone.summary == (
        f"Undid v01's vote on pair {pair} of batch {batch} (run {run[0]}, {run[1]})"
    )
    assert again.result is None
    assert again.summary == (
        f"Undid nothing: v01's vote on pair {pair} of batch {batch} was not given, so no run "
        "was recorded"
    )


def test_one_item_is_found_by_its_number_or_position_as_the_batch_lists_it(
    store_db: Path,
) -> None:
    """A vote names one item (the page by its number, the JSON route by its position), and
    is found alone, without reading the batch's every item: the same pair either way."""
    with open_store(store_db) as store:
        for validator in ("w01", "v01"):
            batch = relabel_batch(store_db, validator)
            items = relabel_items(store, validator, batch).items
            assert items
            for number, item in enumerate(items, 1):
                assert pair_numbered(store, validator, batch, number) == item.pair_id
                assert pair_at_position(store, validator, batch, item.position) == item.pair_id
            for number in (0, len(items) + 1):
                with pytest.raises(NotFoundError):
                    pair_numbered(store, validator, batch, number)
            with pytest.raises(NotFoundError):
                pair_at_position(store, validator, batch, max(i.position for i in items) + 1)
        with pytest.raises(NotFoundError):
            pair_numbered(store, "w01", relabel_batch(store_db, "v01"), 1)
