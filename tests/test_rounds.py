"""Adversarial rounds (issue 29, item 4; ANLI, Nie et al. 2020): `elicit create --round N`
tags batches, `split --by-round` keeps each round's dev and test apart, `stats --table
model-loop` counts per round, protocol and writer what the model in the loop said, the
report has a "Model in the loop" section, and `pipelines/adversarial-round.toml` plans one
round with its waits for people.

The store is built as two rounds would make it, in order: a base corpus (MNLI's sample, no
round); round 1 written against model `base-zero-shot-s1@10`, its fooling pairs validated
and aggregated; split by round; the next model trained (`score train`, with a job runner of
this file's whose predictions are known); round 2 written against that model, step 20; and
the same job name trained once more after round 2 (which round 2's model is not). What the
model said of each pair is put into `model_predictions` as the workbench records it.
"""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from collections.abc import Callable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import (
    DATA,
    PROJECT,
    SAMPLE_MNLI,
    assert_user_error,
    copy_store,
    ok,
    query,
    refused,
    run_cli,
)
from legacy_stores import STORES

import nlibuild
from nlibuild.models import NLI_LABELS, ScoreTraining
from nlibuild.scoring.job_files import (
    DYNAMICS_FILE,
    GOLD_ARGMAX_FILE,
    TRAIN,
    CheckpointRecord,
    DoneRecord,
    append_checkpoint,
    predictions_path,
    read_pairs,
    write_done,
)
from nlibuild.stages import score_train

E, N, C = "entailment", "neutral", "contradiction"
VALIDATORS = ("v01", "v02", "v03", "v04")
ROUND_1_MODEL = "base-zero-shot-s1@10 sha256:aaaaaaaaaaaa"
ROUND_2_MODEL = "base-zero-shot-s1@20 sha256:bbbbbbbbbbbb"

# Each premise's hypotheses under SINGLE: entailment, neutral, contradiction.
HYPOTHESES = {
    "news_0001": ("Traffic is going to be rerouted.", "The detour will last for six months.",
                  "The trip gets quicker."),
    "news_0002": ("Adult tickets are going up.", "Children keep travelling free.",
                  "Adult tickets get cheaper."),
    "news_0003": ("A committee chair opposed it.", "He expects to lose his seat.", "He backed it."),
    "news_0004": ("Someone rises early daily.", "She works on a farm.", "They sleep until noon."),
}  # fmt: skip

# (the model's label, the writer's tries) of each pair; the writer's label is the pair's.
ROUND_1 = {
    "news_0001-e1": (N, 3), "news_0001-n1": (N, 1), "news_0001-c1": (E, 2),
    "news_0002-e1": (E, 1), "news_0002-n1": (C, 4), "news_0002-c1": (C, 1),
}  # fmt: skip
ROUND_2 = {
    "news_0003-e1": (N, 2), "news_0003-n1": (N, 1), "news_0003-c1": (C, 1),
    "news_0004-e1": (C, 5), "news_0004-n1": (N, 1), "news_0004-c1": (C, 1),
}  # fmt: skip
# The validators' votes on the fooling pairs sent to them (news_0004-e1 never is).
ROUND_1_VOTES = {"news_0001-e1": (E, E, E, E), "news_0001-c1": (N, N, N, N),
                 "news_0002-n1": (N, N, N, C)}  # fmt: skip
ROUND_2_VOTES = {"news_0003-e1": (E, E, E, E)}


# --- building the two rounds ------------------------------------------------------------------


def write_round(corpus: nlibuild.Corpus, db: Path, number: int, premises: tuple[str, ...],
                writers: tuple[str, ...]) -> None:  # fmt: skip
    """Batches of `premises` for round `number`, one premise each, and their answers."""
    chosen = db.parent / f"round-{number}.premises.txt"
    chosen.write_text("".join(f"{p}\n" for p in premises), encoding="utf-8")
    corpus.elicit_create(protocol="SINGLE", annotators=writers, batch_size=1, round=number,
                         premises=chosen)  # fmt: skip
    rows = query(
        db, "SELECT b.id, a.id, b.protocol, s.item_id, pr.genre, pr.text FROM batches b "
        "JOIN annotators a ON a.pk = b.annotator_pk JOIN assignments s ON s.batch_pk = b.pk "
        "JOIN premises pr ON pr.id = s.item_id WHERE b.round = ? ORDER BY b.id", number,
    )  # fmt: skip
    answers = db.parent / f"round-{number}.answers.csv"
    with answers.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["batch", "writer", "protocol", "premise_id", "genre", "premise",
                      "unusable", "entailment_1", "neutral_1", "contradiction_1"])  # fmt: skip
        out.writerows([*row, "", *HYPOTHESES[row[3]]] for row in rows)
    corpus.elicit_import(path=answers, format="csv")


def record_predictions(db: Path, model: str, said: dict[str, tuple[str, int]]) -> None:
    """What the workbench records (the modelloop branch's rows): each try of a field's
    hypothesis (the last one's label is the pair's), and the prediction of the pair."""
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.executemany(
            "INSERT INTO model_predictions(pair_pk, model, label, probabilities, tries) "
            "SELECT pk, ?, ?, ?, ? FROM pairs WHERE id = ?",
            [(model, label, json.dumps({label: 1.0}), tries, pair_id)
             for pair_id, (label, tries) in said.items()],
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO model_tries(batch_pk, item_id, slot, hypothesis, model, label, fooled, "
            "tried_at) SELECT p.batch_pk, pr.id, p.author_label || '_1', p.hypothesis, ?, ?, "
            "? <> p.author_label, '2026-01-01T00:00:00' FROM pairs p "
            "JOIN premises pr ON pr.pk = p.premise_pk WHERE p.id = ?",
            [(model, label, label, pair_id)
             for pair_id, (label, tries) in said.items() for _ in range(tries)],
        )  # fmt: skip


def validate(
    corpus: nlibuild.Corpus, db: Path, number: int, votes: Mapping[str, tuple[str, ...]]
) -> None:
    """The fooling pairs `stats --table model-loop --out` lists sent to the validators, their
    `votes` (in validator order) imported, and gold aggregated."""
    listed = db.parent / f"round-{number}.fooled.txt"
    corpus.stats("model-loop", round=number, out=listed)
    corpus.relabel_create(pairs=listed, annotators=VALIDATORS, validators=len(VALIDATORS))
    batch_of = {
        (annotator, pair): batch
        for batch, annotator, pair in query(
            db, "SELECT b.id, a.id, s.item_id FROM batches b JOIN annotators a "
            "ON a.pk = b.annotator_pk JOIN assignments s ON s.batch_pk = b.pk "
            "WHERE b.kind = 'relabel'",
        )
    }  # fmt: skip
    file = db.parent / f"round-{number}.votes.jsonl"
    lines = [
        json.dumps({"batch": batch_of[(v, pair)], "annotator": v, "pair_id": pair, "label": label})
        for pair, labels in votes.items()
        for v, label in zip(VALIDATORS, labels, strict=True)
    ]
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    corpus.relabel_import(path=file, format="jsonl")
    corpus.aggregate_labels()


def runner_predicting(label: str) -> Callable[..., None]:
    """A job runner (as nlibuild.scoring.job.run_job) of one checkpoint at step 20 that
    predicts `label` for every evaluation row."""

    def run_job(folder: Path, on_checkpoint: Any = None, resume: bool = False) -> None:
        pairs = list(read_pairs(folder))
        rows = sum(1 for p in pairs if p.split != TRAIN)
        train = len(pairs) - rows
        predictions = predictions_path(folder, 0)
        predictions.parent.mkdir(parents=True, exist_ok=True)
        np.save(predictions, np.full(rows, NLI_LABELS.index(label), dtype=np.int8))
        record = CheckpointRecord(index=0, step=20, epoch=1.0, examples_seen=20,
                                  train_loss=0.5, seconds=1.0)  # fmt: skip
        append_checkpoint(folder, record)
        if on_checkpoint is not None:
            on_checkpoint(record)
        np.save(folder / DYNAMICS_FILE, np.full((1, train), 0.5, dtype=np.float32))
        np.save(folder / GOLD_ARGMAX_FILE, np.ones((1, train), dtype=np.int8))
        write_done(folder, DoneRecord(checkpoints=1, seconds=1.0, device="cpu", processes=1))

    return run_job


def train(corpus: nlibuild.Corpus, db: Path, predicting: str, mp: pytest.MonkeyPatch) -> None:
    mp.setattr(score_train, "job_runner", lambda: runner_predicting(predicting))
    model = db.parent / "base"
    model.mkdir(exist_ok=True)
    corpus.score_train(model=model, training=ScoreTraining(seeds=(1,)))


def build_two_rounds(db: Path) -> Path:
    corpus = nlibuild.create(db, lang="en")
    corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    corpus.ingest(paths=(DATA / "sources" / "en" / "news.txt",), genre="news")
    corpus.sample(n=4, all_genres=True, seed=13)
    write_round(corpus, db, 1, ("news_0001", "news_0002"), ("w01", "w02"))
    record_predictions(db, ROUND_1_MODEL, ROUND_1)
    validate(corpus, db, 1, ROUND_1_VOTES)
    corpus.split(dev=1, test=2, by_round=True)
    with pytest.MonkeyPatch.context() as mp:
        train(corpus, db, E, mp)  # round 2's model
        write_round(corpus, db, 2, ("news_0003", "news_0004"), ("w01",))
        record_predictions(db, ROUND_2_MODEL, ROUND_2)
        validate(corpus, db, 2, ROUND_2_VOTES)
        train(corpus, db, C, mp)  # the same job name again: round 3's model
    return db


@pytest.fixture(scope="module")
def rounds_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_two_rounds(tmp_path_factory.mktemp("rounds") / "template.db")


@pytest.fixture
def rounds_db(rounds_template: Path, tmp_path: Path) -> Path:
    return copy_store(rounds_template, tmp_path / "rounds.db")


def model_loop_rows(db: Path, **options: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = nlibuild.open(db).stats("model-loop", **options).to_dicts()
    return rows


def counts(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["round"], row["protocol"], row["writer"], row["pairs"], row["fooled"],
            row["verified"], row["fooled_unvalidated"], row["tries"])  # fmt: skip


# --- stats --table model-loop -----------------------------------------------------------------


def test_the_table_counts_per_round_then_per_protocol_and_writer(rounds_db: Path) -> None:
    """Hand-counted from ROUND_1/ROUND_2 and the votes: round 1 fooled the model on 3 of 6
    pairs (news_0001-e1, -c1, news_0002-n1), and the validators confirmed the writer on 2
    (news_0001-c1's gold is neutral); 12 tries. Round 2 fooled it on 2, verified 1
    (news_0004-e1 has its writer's vote alone, whose label is its majority gold, yet no
    validator saw it); 11 tries."""
    rows = model_loop_rows(rounds_db)
    assert [counts(row) for row in rows] == [
        (1, "all", "all", 6, 3, 2, 0, 12),
        (1, "SINGLE", "w01", 3, 2, 1, 0, 6),  # news_0001
        (1, "SINGLE", "w02", 3, 1, 1, 0, 6),  # news_0002
        (2, "all", "all", 6, 2, 1, 1, 11),
        (2, "SINGLE", "w01", 6, 2, 1, 1, 11),
    ]
    shares = [v for r in rows for v in (r["fooled_share"], r["verified_share"])]
    assert shares == pytest.approx([3 / 6, 2 / 6, 2 / 3, 1 / 3, 1 / 3, 1 / 3, 2 / 6, 1 / 6,
                                    2 / 6, 1 / 6])  # fmt: skip
    assert [row["tries_per_verified"] for row in rows] == pytest.approx([6, 6, 6, 11, 11])
    assert [row["model"] for row in rows] == [ROUND_1_MODEL, None, None, ROUND_2_MODEL, None]


def test_every_try_of_a_round_counts_also_of_a_premise_that_gave_no_pair(
    rounds_db: Path,
) -> None:
    """ANLI's tries per verified pair are all tries of a round over its verified pairs: a
    writer who tried the model on a premise, then answered it as unusable, tried too."""
    query(rounds_db, "INSERT INTO assignments(batch_pk, item_id, position, status) "
          "SELECT pk, 'news_0001', 2, 'unusable' FROM batches WHERE id = 'e0004'")  # fmt: skip
    query(rounds_db, "INSERT INTO model_tries(batch_pk, item_id, slot, hypothesis, model, "
          "label, fooled, tried_at) SELECT pk, 'news_0001', 'entailment_1', 'It rained.', ?, "
          "'neutral', 1, '2026-01-02T00:00:00' FROM batches WHERE id = 'e0004'",
          ROUND_2_MODEL)  # fmt: skip
    round_2 = model_loop_rows(rounds_db, round=2)
    assert [(row["tries"], row["tries_per_verified"]) for row in round_2] == [(12, 12), (12, 12)]


def test_a_rounds_model_is_tested_on_the_earlier_rounds_test_pairs(rounds_db: Path) -> None:
    """Round 2's model is the job trained after round 1 was split (it predicted entailment
    everywhere): of round 1's test pairs, news_0001-e1 (gold entailment) and news_0001-c1
    (gold neutral), it got 1. The same job name trained after round 2 (predicting
    contradiction, 0 of 2) is not round 2's model. Round 1 has no earlier round."""
    tested = query(rounds_db, "SELECT p.id FROM splits s JOIN pairs p ON p.pk = s.pair_pk "
                   "WHERE s.split = 'test' ORDER BY p.id")  # fmt: skip
    assert tested == [("news_0001-c1",), ("news_0001-e1",)]
    first, _, _, second, _ = model_loop_rows(rounds_db)
    assert (second["earlier_test_accuracy"], second["earlier_test_pairs"]) == (0.5, 2)
    assert second["accuracy_note"] is None
    assert first["earlier_test_accuracy"] is None
    assert "no round before round 1 has test pairs" in first["accuracy_note"]
    # What it was read from: the score job's `round` slice of its test split.
    assert query(rounds_db, "SELECT j.run_id, a.correct, a.total FROM score_accuracy a "
                 "JOIN score_jobs j ON j.pk = a.job_pk WHERE a.split = 'test' "
                 "AND a.slice = 'round' AND a.value = '1' ORDER BY j.run_id")[1:] == [
        (query(rounds_db, "SELECT max(run_id) FROM score_jobs")[0][0], 0, 2)
    ]  # fmt: skip


def test_a_model_no_score_job_made_is_not_available_with_the_command_that_tests_it(
    rounds_db: Path,
) -> None:
    query(rounds_db, "UPDATE model_predictions SET model = 'elsewhere@5 sha256:cccccccccccc' "
          "WHERE model = ?", ROUND_2_MODEL)  # fmt: skip
    second = model_loop_rows(rounds_db, round=2)[0]
    assert second["earlier_test_accuracy"] is None
    assert "elsewhere@5 sha256:cccccccccccc is no score job's checkpoint" in second["accuracy_note"]
    assert (
        "`nlibuild split --by-round` before the round model's `nlibuild score train`"
        in (second["accuracy_note"])
    )


def test_round_and_out_list_the_fooled_pairs_waiting_for_validators(
    rounds_template: Path, rounds_db: Path, tmp_path: Path
) -> None:
    # What `validate` sent round 1's validators, written before any was.
    listed = (rounds_template.parent / "round-1.fooled.txt").read_text(encoding="utf-8")
    assert listed.splitlines()[1:] == ["news_0001-c1", "news_0001-e1", "news_0002-n1"]
    query(rounds_db, "DELETE FROM assignments WHERE item_id = 'news_0004-e1' AND batch_pk IN "
          "(SELECT pk FROM batches WHERE kind = 'relabel')")  # fmt: skip
    out = tmp_path / "waiting.txt"
    rows = model_loop_rows(rounds_db, round=2, out=out)
    assert {row["round"] for row in rows} == {2}
    assert out.read_text(encoding="utf-8").splitlines()[1:] == ["news_0004-e1"]


def test_the_command_shows_na_and_why_and_writes_csv(rounds_db: Path) -> None:
    shown = ok("--db", rounds_db, "stats", "--table", "model-loop")
    assert "n.a." in shown
    assert "round 1: no round before round 1 has test pairs" in shown
    assert "1 fooled pair without a validator's vote" in shown
    result = run_cli("--db", rounds_db, "stats", "--table", "model-loop", "--round", "2",
                     "--format", "csv")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("round,protocol,writer,pairs,fooled,fooled_share,verified,")
    assert lines[1].startswith("2,all,all,6,2,0.333,1,0.167,1,11,11.000,")
    assert "Note: fooled: the model's label is not the writer's" in result.stderr


def test_a_store_without_predictions_says_what_records_them(sample_db: Path) -> None:
    result = run_cli("--db", sample_db, "stats", "--table", "model-loop")
    assert_user_error(result, "no pair was written with a model in the loop",
                      "`nlibuild serve --model DIR`")  # fmt: skip
    result = run_cli("--db", sample_db, "stats", "--table", "lengths", "--round", "1")
    assert_user_error(result, "--round does not apply to --table lengths")


# --- the report ---------------------------------------------------------------------------


def model_loop_section(db: Path, tmp_path: Path) -> str:
    page = tmp_path / "report.html"
    ok("--db", db, "report", "--out", page)
    text = page.read_text(encoding="utf-8")
    start = text.index('<section id="model-loop">')
    return text[start : text.index("</section>", start)]


def test_the_report_shows_the_rounds_table(rounds_db: Path, tmp_path: Path) -> None:
    section = model_loop_section(rounds_db, tmp_path)
    assert "<h2>Model in the loop</h2>" in section
    assert "Not available" not in section
    assert ROUND_2_MODEL in section and '<td class="number">0.500</td>' in section
    assert "no round before round 1 has test pairs" in section


def test_the_report_says_not_available_without_rounds(sample_db: Path, tmp_path: Path) -> None:
    section = model_loop_section(sample_db, tmp_path)
    assert "Not available: no pair was written with a model in the loop" in section


# --- elicit create --round ----------------------------------------------------------------


def test_elicit_create_tags_its_batches_with_the_round(rounds_db: Path) -> None:
    assert query(rounds_db, "SELECT id, kind, round FROM batches ORDER BY id") == [
        ("e0001", "elicit", 1), ("e0002", "elicit", 1),
        ("e0003", "elicit", 2), ("e0004", "elicit", 2),
        *[(f"r{n:04d}", "relabel", None) for n in range(1, 9)],
    ]  # fmt: skip


def test_the_command_takes_round_and_says_it(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    corpus = nlibuild.create(db, lang="en")
    corpus.ingest(paths=(DATA / "sources" / "en" / "news.txt",), genre="news")
    corpus.sample(n=2, all_genres=True, seed=13)
    result = run_cli("--db", db, "elicit", "create", "--protocol", "SINGLE", "--annotators",
                     "w01", "--round", "0")  # fmt: skip
    assert_user_error(result, "option round: Input should be greater than or equal to 1")
    shown = ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01",
               "--round", "3")  # fmt: skip
    assert "Created 1 batch of SINGLE (round 3) for 1 writer: 2 premises" in shown
    assert query(db, "SELECT id, round FROM batches") == [("e0001", 3)]


# --- split --by-round ---------------------------------------------------------------------


def splits_by_round(db: Path) -> list[tuple[Any, ...]]:
    return query(
        db, "SELECT b.round, s.split, count(*) FROM splits s JOIN pairs p ON p.pk = s.pair_pk "
        "LEFT JOIN batches b ON b.pk = p.batch_pk GROUP BY b.round, s.split "
        "ORDER BY b.round IS NULL, b.round, s.split",
    )  # fmt: skip


def test_split_by_round_draws_dev_and_test_from_each_rounds_pairs(rounds_db: Path) -> None:
    """Each round gets --dev and --test of its own pairs (ANLI's R1, R2); the base corpus,
    of no round, is train."""
    result = nlibuild.open(rounds_db).split(dev=1, test=2, by_round=True, replace=True,
                                            draw_from="labelled", group_by="pair")  # fmt: skip
    assert result.rounds == {
        "1": {"train": 3, "dev": 1, "test": 2},
        "2": {"train": 3, "dev": 1, "test": 2},
        "-": {"train": 48, "dev": 0, "test": 0},
    }
    assert splits_by_round(rounds_db) == [
        (1, "dev", 1), (1, "test", 2), (1, "train", 3),
        (2, "dev", 1), (2, "test", 2), (2, "train", 3),
        (None, "train", 48),
    ]  # fmt: skip


def test_the_first_split_of_the_rounds_kept_round_1_apart(rounds_db: Path) -> None:
    """What `build_two_rounds` split when round 1 was the only one: of its validated pairs,
    news_0002 (one) is dev and news_0001 (two) is test; their other pairs are held out."""
    assert splits_by_round(rounds_db) == [(1, "dev", 1), (1, "test", 2), (None, "train", 48)]


def test_a_round_too_small_for_dev_and_test_is_named(rounds_db: Path) -> None:
    """Round 2 has one validated pair with gold (news_0003-e1)."""
    refused(rounds_db, lambda corpus: corpus.split(dev=1, test=1, by_round=True, replace=True,
                                                   group_by="pair"),
            "--dev 1 and --test 1 need 2 validated pairs with a gold label in round 2, and "
            "the store has 1")  # fmt: skip


def test_the_command_says_each_round_and_refuses_a_store_without_rounds(
    rounds_db: Path, sample_db: Path
) -> None:
    shown = ok("--db", rounds_db, "split", "--dev", "1", "--test", "2", "--by-round",
               "--replace", "--from", "labelled", "--group-by", "pair")  # fmt: skip
    assert ("; round 1: train 3, dev 1, test 2; round 2: train 3, dev 1, test 2; no round: "
            "train 48;") in shown  # fmt: skip
    result = run_cli("--db", sample_db, "split", "--dev", "1", "--test", "1", "--by-round")
    assert_user_error(result, "no pair belongs to a round: `elicit create --round N` tags")


# --- a store of an earlier release ------------------------------------------------------------


def test_a_legacy_store_migrates_to_batches_of_no_round(tmp_path: Path) -> None:
    db = tmp_path / "v7.db"
    shutil.copyfile(STORES / "v7-zh-elicited.db", db)
    ok("--db", db, "info")
    assert query(db, "SELECT count(*), count(round) FROM batches")[0][1] == 0
    assert query(db, "SELECT count(*) FROM model_predictions") == [(0,)]
    result = run_cli("--db", db, "stats", "--table", "model-loop")
    assert_user_error(result, "no pair was written with a model in the loop")
    result = run_cli("--db", db, "split", "--dev", "1", "--test", "1", "--by-round", "--replace")
    assert_user_error(result, "no pair belongs to a round")


# --- the recipe -----------------------------------------------------------------------------


def recipe_tree(tmp_path: Path) -> Path:
    """pipelines/adversarial-round.toml and its preset beside the project's data, with a
    model folder."""
    (tmp_path / "pipelines").mkdir()
    recipe = tmp_path / "pipelines" / "adversarial-round.toml"
    for name in ("adversarial-round.toml", "adversarial-round.preset.toml"):
        shutil.copyfile(PROJECT / "pipelines" / name, tmp_path / "pipelines" / name)
    (tmp_path / "data").symlink_to(DATA)
    (tmp_path / "out" / "rounds" / "base-model").mkdir(parents=True)
    return recipe


def test_the_round_recipe_plans_its_steps_and_waits_for_the_writers(tmp_path: Path) -> None:
    recipe = recipe_tree(tmp_path)
    db = tmp_path / "rounds.db"
    plan = json.loads(ok("--db", db, "run", recipe, "--dry-run", "--format", "json"))
    assert [(step["stage"], step["action"]) for step in plan] == [
        ("init", "run"), ("import", "run"), ("split", "run"), ("score-train", "run"),
        ("score-export-model", "run"), ("ingest", "run"), ("ingest", "run"), ("sample", "run"),
        ("elicit-create", "run"),
        ("relabel-create", "wait"), ("aggregate-labels", "wait"), ("split", "wait"),
        ("score-train", "wait"),
    ]  # fmt: skip
    writers = plan[9]["why"]
    assert writers.startswith(f"{tmp_path / 'out' / 'rounds' / 'round-1.fooled.txt'} does not")
    assert "`nlibuild stats --table model-loop --round 1 --out" in writers
    assert "`nlibuild serve --model out/rounds/round-1-model`" in writers
    assert not db.exists()


def test_the_round_recipe_waits_for_the_validators_once_the_writers_are_done(
    tmp_path: Path,
) -> None:
    recipe = recipe_tree(tmp_path)
    (tmp_path / "out" / "rounds" / "round-1.fooled.txt").write_text("news_0001-e1\n")
    db = tmp_path / "rounds.db"
    plan = json.loads(ok("--db", db, "run", recipe, "--dry-run", "--format", "json"))
    assert [step["action"] for step in plan[9:]] == ["run", "wait", "wait", "wait"]
    assert "round-1.validated does not exist yet (validators vote" in plan[10]["why"]
