"""The writing page's library (issue 19): a writer sees their own batches only, drafts
autosave without a run, and a submission is recorded exactly as `elicit import` of the same
answer records it, once, unless a blocking rule refuses it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import copy_store, ok, query, table_counts, write_jsonl
from elicitation_data import MULTI, SINGLE
from workbench_data import (
    BLOCK_NOTHING,
    as_labels,
    batches_of,
    open_store,
    premises_of,
    writing_store,
)

from nlibuild.errors import ConflictError, NotFoundError, SubmissionRefused
from nlibuild.models import Level, Protocol
from nlibuild.workbench.writing import (
    load_draft,
    save_draft,
    submit_answer,
    writer_batches,
    writing_task,
)


@pytest.fixture
def store_db(tmp_path: Path) -> Path:
    return writing_store(tmp_path / "corpus.db")


def test_a_writers_task_lists_only_their_batch(store_db: Path) -> None:
    mine = batches_of(store_db)["w01"]
    with open_store(store_db) as store:
        assert [b.id for b in writer_batches(store, "w01")] == mine
        task = writing_task(store, "w01", mine[0])
    assert task.protocol is Protocol.MULTI_CONSTRAINT
    assert [p.id for p in task.premises] == [p for p, _ in premises_of(store_db, mine[0])]
    assert [s.name for s in task.slots][:3] == ["entailment_1", "entailment_2", "entailment_3"]
    assert [s.level for s in task.slots][:3] == [Level.EASY, Level.MEDIUM, Level.HARD]
    assert "MULTI_CONSTRAINT" in task.instructions and task.instructions_lang == "en"
    assert not any(p.answered or p.draft for p in task.premises)


def test_another_writers_batch_is_not_found(store_db: Path) -> None:
    theirs = batches_of(store_db)["w02"][0]
    with open_store(store_db) as store:
        for batch in (theirs, "e9999", "r0001"):
            with pytest.raises(NotFoundError):
                writing_task(store, "w01", batch)
        with pytest.raises(NotFoundError):
            submit_answer(store, "w01", theirs, premises_of(store_db, theirs)[0][0], False,
                          as_labels(MULTI))  # fmt: skip


def test_a_draft_autosaves_without_a_run(store_db: Path) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise = premises_of(store_db, batch)[0][0]
    before = table_counts(store_db)
    with open_store(store_db) as store:
        save_draft(store, "w01", batch, premise, {"entailment_1": "A first try."})
        saved = save_draft(store, "w01", batch, premise, {"entailment_1": "A second try.",
                                                           "not_a_field": "dropped"})  # fmt: skip
        assert load_draft(store, "w01", batch, premise) == saved
        assert saved.fields == {"entailment_1": "A second try."}
        assert writing_task(store, "w01", batch).premises[0].draft == saved
        with pytest.raises(NotFoundError):
            load_draft(store, "w02", batch, premise)
    assert query(store_db, "SELECT item_id FROM drafts") == [(premise,)]
    assert table_counts(store_db) == before  # no run, nothing else


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """The rows an answer writes, without run IDs."""
    return {
        "pairs": query(db, "SELECT pk, id, premise_pk, hypothesis, lang, protocol, level, "
                       "author_pk, author_label, batch_pk FROM pairs ORDER BY pk"),
        "votes": query(db, "SELECT pair_pk, annotator_pk, position, label FROM votes "
                       "ORDER BY pair_pk, position"),
        "violations": query(db, "SELECT batch_pk, annotator_pk, item_id, pair_id, rule, "
                            "severity, detail, kept FROM violations ORDER BY pk"),
        "assignments": query(db, "SELECT batch_pk, item_id, status, answer_key "
                             "FROM assignments ORDER BY batch_pk, item_id"),
        "pair_labels": query(db, "SELECT * FROM pair_labels ORDER BY pair_pk"),
    }  # fmt: skip


def test_a_submission_writes_what_elicit_import_of_the_same_answer_writes(
    tmp_path: Path,
) -> None:
    submitted = writing_store(tmp_path / "workbench" / "corpus.db", preset=BLOCK_NOTHING)
    imported = copy_store(submitted, tmp_path / "import" / "corpus.db")
    batch = batches_of(submitted)["w01"][0]
    premise, text = premises_of(submitted, batch)[0]
    # A copy of most of the premise (overlap), two negated contradictions (MULTI_CONSTRAINT)
    # a missing neutral and two of three entailments: findings of four rules.
    answer = {
        "entailment": [text.rstrip(".") + " indeed.", "Something happened."],
        "neutral": [],
        "contradiction": ["Nothing happened.", "It did not happen at all.", "All stayed."],
    }
    with open_store(submitted) as store:
        result = submit_answer(store, "w01", batch, premise, False, as_labels(answer))
    write_jsonl(tmp_path / "answer.jsonl",
                [{"batch": batch, "writer": "w01", "premise_id": premise} | answer])  # fmt: skip
    ok("--db", imported, "elicit", "import", tmp_path / "answer.jsonl")
    assert _rows(submitted) == _rows(imported)
    rules = {rule for (rule,) in query(submitted, "SELECT rule FROM violations")}
    assert rules == {"overlap", "negator", "missing_label", "too_few"}
    assert result.pairs_added == [f"{premise}-e1", f"{premise}-e2", f"{premise}-c1",
                                  f"{premise}-c2", f"{premise}-c3"]  # fmt: skip
    settings, signature = query(submitted, "SELECT config_json, signature FROM runs "
                                "WHERE stage = 'elicit-import'")[0]  # fmt: skip
    assert '"source":"workbench"' in settings and "source:workbench" in signature


def test_resubmitting_the_same_answer_adds_nothing(store_db: Path) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise = premises_of(store_db, batch)[0][0]
    with open_store(store_db) as store:
        first = submit_answer(store, "w01", batch, premise, False, as_labels(MULTI))
        before = table_counts(store_db)
        again = submit_answer(store, "w01", batch, premise, False, as_labels(MULTI))
        assert table_counts(store_db) == before
        with pytest.raises(ConflictError, match="already answered"):
            submit_answer(store, "w01", batch, premise, False, as_labels(SINGLE))
    assert first.run_id is not None and len(first.pairs_added) == 9
    assert again.unchanged and again.run_id is None
    assert table_counts(store_db) == before


def test_a_blocked_rule_records_nothing(store_db: Path) -> None:
    batch = batches_of(store_db)["w01"][0]
    premise, text = premises_of(store_db, batch)[0]
    copied = MULTI | {"neutral": [text, *MULTI["neutral"][1:]]}
    before = table_counts(store_db)
    with open_store(store_db) as store, pytest.raises(SubmissionRefused) as refused:
        submit_answer(store, "w01", batch, premise, False, as_labels(copied))
    assert ("copy", "the hypothesis is the premise") in refused.value.findings
    assert table_counts(store_db) == before


def test_eight_writers_submitting_fifty_answers_each_lose_none(tmp_path: Path) -> None:
    writers = [f"w{n:02d}" for n in range(1, 9)]
    db = tmp_path / "corpus.db"
    sentences = [f"Report {n} says the {n}th bridge of the county was painted green."
                 for n in range(400)]  # fmt: skip
    from elicitation_data import premise_corpus

    premise_corpus(db, {"news": sentences}, lang="en")
    ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--writers", ",".join(writers),
       "--batch-size", 50)  # fmt: skip
    work = {w: [(b, p) for b in bs for p, _ in premises_of(db, b)]
            for w, bs in batches_of(db).items()}  # fmt: skip
    failures: list[BaseException] = []

    def write(writer: str) -> None:
        try:
            with open_store(db) as store:
                for batch, premise in work[writer]:
                    submit_answer(store, writer, batch, premise, False, as_labels(SINGLE))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in writers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sum(len(v) for v in work.values()) == 400
    assert query(db, "SELECT count(*) FROM pairs") == [(1200,)]
    assert query(db, "SELECT status, count(*) FROM assignments GROUP BY status") == [
        ("answered", 400)
    ]
