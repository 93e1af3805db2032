"""Live feedback on a draft (issue 19): the same rule code as `elicit import`, with the
overlap share, negator spans and the protocol's negator rule per field, and fast."""

from __future__ import annotations

import time
from pathlib import Path
from statistics import median

import pytest
from conftest import copy_store, ok, query, write_jsonl
from workbench_data import batches_of, open_store, premises_of, writing_store

from nlibuild.errors import NotFoundError
from nlibuild.workbench.feedback import draft_feedback


@pytest.fixture
def store_db(tmp_path: Path) -> Path:
    return writing_store(tmp_path / "corpus.db")


def test_a_hypothesis_copying_most_of_the_premise_is_over_the_limit_as_the_import_finds(
    store_db: Path, tmp_path: Path
) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise, text = premises_of(store_db, batch)[0]
    copied = text.rstrip(".") + " indeed."
    with open_store(store_db) as store:
        feedback = draft_feedback(store, "w01", batch, premise, {"entailment_1": copied})
    field = feedback.fields[0]
    assert field.slot == "entailment_1" and feedback.max_overlap == 0.7
    assert field.overlap is not None and field.overlap > 0.7
    [overlap] = [f for f in field.findings if f.rule == "overlap"]
    assert overlap.severity == "error" and overlap.blocks
    # `elicit import` of the same answer records the same finding.
    imported = copy_store(store_db, tmp_path / "import" / "corpus.db")
    answer = {"batch": batch, "writer": "w01", "premise_id": premise, "entailment": [copied]}
    ok("--db", imported, "elicit", "import", write_jsonl(tmp_path / "a.jsonl", [answer]))
    [(detail,)] = query(imported, "SELECT detail FROM violations WHERE rule = 'overlap'")
    assert detail == f"{overlap.message}: {copied}"


def test_a_negator_in_a_multi_constraint_contradiction_gives_its_span(store_db: Path) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise = premises_of(store_db, batch)[0][0]
    fields = {"contradiction_1": "Nothing like that happened.",
              "contradiction_2": "The council did NOT meet."}  # fmt: skip
    with open_store(store_db) as store:
        feedback = draft_feedback(store, "w01", batch, premise, fields)
    by_slot = {f.slot: f for f in feedback.fields}
    first, second = by_slot["contradiction_1"], by_slot["contradiction_2"]
    assert [(m.negator, m.start, m.end) for m in first.negators] == [("nothing", 0, 7)]
    assert [(m.negator, m.start, m.end) for m in second.negators] == [("not", 16, 19)]
    assert fields["contradiction_2"][16:19] == "NOT"
    assert not first.negator_forbidden and second.negator_forbidden
    assert [f.rule for f in second.findings] == ["negator"]
    assert not by_slot["entailment_1"].negators and by_slot["entailment_1"].overlap is None
    assert feedback.blocked


def test_duplicates_copies_and_short_fields_are_reported_per_field(store_db: Path) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise, text = premises_of(store_db, batch)[0]
    fields = {"entailment_1": text, "neutral_1": "It was costly.",
              "neutral_2": "it was costly.", "contradiction_1": "No."}  # fmt: skip
    with open_store(store_db) as store:
        feedback = draft_feedback(store, "w01", batch, premise, fields)
    rules = {f.slot: [x.rule for x in f.findings] for f in feedback.fields}
    assert rules["entailment_1"] == ["copy"]
    assert rules["neutral_2"] == ["duplicate"]
    assert rules["contradiction_1"] == ["too_short"]
    assert {f.rule for f in feedback.answer_findings} == {"too_few"}
    short = feedback.fields[6].findings[0]
    assert short.severity == "warning" and not short.blocks


def test_feedback_on_another_writers_batch_is_not_found(store_db: Path) -> None:
    theirs = batches_of(store_db)["w02"][0]
    with open_store(store_db) as store, pytest.raises(NotFoundError):
        draft_feedback(store, "w01", theirs, premises_of(store_db, theirs)[0][0], {})


def test_feedback_on_a_typical_premise_takes_under_5_ms(store_db: Path) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise = premises_of(store_db, batch)[0][0]
    fields = {"entailment_1": "The council agreed on some spending.",
              "neutral_1": "The parks will get new benches.",
              "contradiction_1": "The council never approved a budget.",
              "contradiction_2": "No money went to the parks."}  # fmt: skip
    with open_store(store_db) as store:
        draft_feedback(store, "w01", batch, premise, fields)  # settings and lexicon cached
        took = []
        for _ in range(30):
            started = time.perf_counter()
            draft_feedback(store, "w01", batch, premise, fields)
            took.append(time.perf_counter() - started)
    assert median(took) < 0.005, f"median {median(took) * 1000:.2f} ms"
