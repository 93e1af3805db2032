"""XNLI's baselines on an XNLI-shaped store (issue 27): English pairs, their human German
translations, and machine translations both ways.

XNLI section 4.1: "TRANSLATE TRAIN, where the training data is translated into each target
language to provide data to train each classifier, and TRANSLATE TEST, where a translation
system is used at test time to translate input sentences to the training language"; section
5.1: "For TRANSLATE TEST ... we translate each test set into English". The German test set
is the human German translation, so its English machine translation is a translation of a
translation, stored with its source language (schema 16). The jobs run through the fake
runner of test_score_store (no torch), but for one tiny-model run end to end."""

from __future__ import annotations

import contextlib
import csv
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from conftest import ok, query, refused
from test_score_store import GERMAN, fake_job, model_folder, seeds

import nlibuild
from nlibuild.core.database import migrate, migration_scripts
from nlibuild.models import NLI_LABELS, ScoreMode, ScoreTraining
from nlibuild.scores.score_jobs import job_rows, mode_jobs, read_corpus
from nlibuild.scoring.job_files import TRAIN, PairRecord, predictions_path, read_pairs, read_spec
from nlibuild.stages import score_train
from nlibuild.store import Store

EVALS = ("en", "de")


def english_of(db: Path) -> dict[str, str]:
    """unit ID -> the pair's own English text."""
    with Store.open(db) as store:
        return {unit: text for unit, _, text in store.source_units()}


def units_file(rows: list[dict[str, str]], path: Path) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]), delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def read_units(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def back_translated(english: str) -> str:
    """What the test's 'MT system' makes of a German unit: English, and not the original."""
    return f"As translated back, {english}"


@pytest.fixture
def xnli_db(sample_db: Path, tmp_path: Path) -> Path:
    """The 48 English sample pairs split 28/10/10, human German translations of every unit,
    and their machine translation back into English, exported and imported as a user would."""
    corpus = nlibuild.open(sample_db)
    corpus.split(dev=10, test=10, draw_from="labelled", group_by="pair")
    corpus.translate_import(path=GERMAN, lang="de", translator="de01")
    exported = tmp_path / "units.de-en.tsv"
    corpus.translate_export(lang="en", kind="mt", source_lang="de", out=exported)
    english = english_of(sample_db)
    units = [unit | {"text": back_translated(english[unit["unit_id"]])}
             for unit in read_units(exported)]  # fmt: skip
    corpus.translate_import(
        path=units_file(units, tmp_path / "mt.de-en.tsv"), lang="en", kind="mt", source_lang="de"
    )
    return sample_db


def with_german_mt(db: Path, tmp_path: Path) -> Path:
    """Machine translations of every unit into German, marked so that they differ from the
    human German (translate-train's training text)."""
    units = [unit | {"text": f"Maschinell: {unit['text']}"} for unit in read_units(GERMAN)]
    nlibuild.open(db).translate_import(
        path=units_file(units, tmp_path / "mt.en-de.tsv"), lang="de", kind="mt"
    )
    return db


def texts_by_unit(db: Path, lang: str, kind: str, source: str = "") -> dict[str, str]:
    return dict(
        query(
            db,
            "SELECT unit_id, text FROM translations WHERE lang = ? AND kind = ? "
            "AND source_lang = ?",
            lang,
            kind,
            source,
        )
    )


def gold_of(db: Path, split: str) -> dict[str, str]:
    """pair ID -> gold label of the pairs of `split` that have one."""
    return dict(
        query(
            db,
            "SELECT p.id, g.label FROM splits s JOIN pairs p ON p.pk = s.pair_pk "
            "JOIN gold_rows g ON g.pair_pk = p.pk WHERE s.split = ? AND g.label <> '-'",
            split,
        )
    )


def premise_of(db: Path) -> dict[str, str]:
    return dict(
        query(db, "SELECT p.id, pr.id FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk")
    )


def records_of(records: list[PairRecord], lang: str, train: bool) -> dict[str, PairRecord]:
    return {r.id: r for r in records if r.lang == lang and (r.split == TRAIN) == train}


# --- storing the machine translation of a translation --------------------------------------


def test_export_writes_the_german_translations_as_the_units_to_translate(
    xnli_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "again.tsv"
    result = nlibuild.open(xnli_db).translate_export(
        lang="en", kind="mt", source_lang="de", out=out
    )
    german = texts_by_unit(xnli_db, "de", "human")
    units = read_units(out)
    assert {u["unit_id"]: u["source"] for u in units} == german
    assert {(u["source_lang"], u["lang"]) for u in units} == {("de", "en")}
    assert result.premises + result.hypotheses == len(german)


def test_the_mt_of_a_translation_is_kept_apart_from_the_pairs_own(xnli_db: Path) -> None:
    english = english_of(xnli_db)
    stored = texts_by_unit(xnli_db, "en", "mt", "de")
    assert stored == {unit: back_translated(english[unit]) for unit in stored}
    assert len(stored) == len(texts_by_unit(xnli_db, "de", "human"))
    assert texts_by_unit(xnli_db, "en", "mt") == {}  # nothing from the pairs' own texts
    kinds = {
        (row["lang"], row["kind"]) for row in nlibuild.open(xnli_db).stats("translation").to_dicts()
    }
    assert kinds == {("de", "human"), ("en", "mt from de")}


def test_a_second_import_of_the_same_mt_adds_nothing(xnli_db: Path, tmp_path: Path) -> None:
    shown = ok("--db", xnli_db, "translate", "import", tmp_path / "mt.de-en.tsv", "--lang", "en",
               "--kind", "mt", "--source-lang", "de")  # fmt: skip
    units = len(texts_by_unit(xnli_db, "en", "mt", "de"))
    assert f"Imported {units} units of en (mt from de): 0 added, {units} already there" in shown


def test_a_source_language_is_for_machine_translations(xnli_db: Path, tmp_path: Path) -> None:
    refused(xnli_db, lambda corpus: corpus.translate_import(
        path=tmp_path / "mt.de-en.tsv", lang="en", source_lang="de"), "--kind mt")  # fmt: skip
    refused(xnli_db, lambda corpus: corpus.translate_export(
        lang="en", kind="mt", source_lang="fr", out=tmp_path / "fr.tsv"),
        "no human translation into fr", "--lang fr")  # fmt: skip
    refused(xnli_db, lambda corpus: corpus.translate_export(
        lang="de", kind="mt", source_lang="de", out=tmp_path / "de.tsv"),
        "--source-lang de is --lang de")  # fmt: skip


def test_an_older_store_keeps_its_translations_and_renames_translate_train(
    tmp_path: Path,
) -> None:
    """A store of the schema before translations had a source: every translation is of the
    pairs' own text, and a translate-train job is translate-train-all."""
    before = next(
        n for n, name, _ in migration_scripts() if name.endswith("_translation_sources.sql")
    )
    db = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
        migrate(conn, db, target=before - 1)
        conn.execute("INSERT INTO runs(id, stage, config_json, signature, started_at, status, "
                     "version) VALUES (1, 'import', '{}', '', '', 'ok', '0')")  # fmt: skip
        conn.execute("INSERT INTO translations(unit_id, lang, kind, text, run_id) "
                     "VALUES ('h:1', 'de', 'mt', 'Hallo', 1)")  # fmt: skip
        conn.execute("INSERT INTO score_jobs(run_id, name, model, mode, seed, train_langs, "
                     "eval_langs, spec, folder) VALUES (1, 'm-translate-train-s1', 'm', "
                     "'translate-train', 1, '[]', '[]', '{}', '')")  # fmt: skip
    with Store.open(db):
        pass
    assert query(db, "SELECT unit_id, lang, kind, source_lang, text FROM translations") == [
        ("h:1", "de", "mt", "", "Hallo")
    ]
    assert query(db, "SELECT mode FROM score_jobs") == [("translate-train-all",)]


# --- translate-test ---------------------------------------------------------------------------


def test_translate_test_reads_german_pairs_through_the_mt_of_their_german(xnli_db: Path) -> None:
    with Store.open(xnli_db) as store:
        rows = job_rows(read_corpus(store, EVALS), ScoreMode.TRANSLATE_TEST, "en", EVALS)
    english = english_of(xnli_db)
    evaluated = {**gold_of(xnli_db, "dev"), **gold_of(xnli_db, "test")}
    premises = premise_of(xnli_db)
    german = records_of(rows.records, "de", train=False)
    assert set(german) == set(evaluated)
    for pair_id, record in german.items():
        assert record.hypothesis == back_translated(english[f"h:{pair_id}"])
        assert record.premise == back_translated(english[f"p:{premises[pair_id]}"])
        assert NLI_LABELS[record.label] == evaluated[pair_id]
    # English is evaluated as written, and only English is trained on.
    assert {i: r.hypothesis for i, r in records_of(rows.records, "en", train=False).items()} == {
        i: english[f"h:{i}"] for i in evaluated
    }
    assert set(records_of(rows.records, "en", train=True)) == set(gold_of(xnli_db, "train"))
    assert not records_of(rows.records, "de", train=True)


def test_translate_test_without_the_mt_names_the_export_and_import(
    xnli_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    query(xnli_db, "DELETE FROM translations WHERE source_lang = 'de'")
    monkeypatch.setattr(score_train, "job_runner", lambda: fake_job())
    refused(xnli_db, lambda corpus: corpus.score_train(
        model=model_folder(tmp_path), mode="translate-test", langs={"eval_langs": EVALS}),
        "machine translation", "translate export --lang en --kind mt --source-lang de",
        "translate import FILE --lang en --kind mt --source-lang de")  # fmt: skip


def test_translate_test_is_trained_and_scored_per_language(
    xnli_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(score_train, "job_runner", lambda: fake_job())
    trained = nlibuild.open(xnli_db).score_train(
        model=model_folder(tmp_path), mode="translate-test", training=seeds(1)
    )
    assert [job.name for job in trained.jobs] == ["tiny-bert-translate-test-s1"]
    ((folder,),) = query(xnli_db, "SELECT folder FROM score_jobs")
    stored = {(r.id, r.lang): r.hypothesis for r in read_pairs(Path(folder)) if r.split != TRAIN}
    english = english_of(xnli_db)
    assert {h for (_, lang), h in stored.items() if lang == "de"} == {
        back_translated(english[f"h:{i}"]) for (i, lang) in stored if lang == "de"
    }
    totals = dict(query(xnli_db, "SELECT lang, sum(total) FROM score_accuracy WHERE idx = 0 "
                        "AND slice = 'all' GROUP BY lang"))  # fmt: skip
    assert totals == {"en": len(stored) // 2, "de": len(stored) // 2}


def test_translate_train_each_is_trained_and_scored_in_its_language(
    xnli_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(score_train, "job_runner", lambda: fake_job())
    trained = nlibuild.open(with_german_mt(xnli_db, tmp_path)).score_train(
        model=model_folder(tmp_path), mode="translate-train-each", training=seeds(1, 2)
    )
    assert [job.name for job in trained.jobs] == [
        "tiny-bert-translate-train-each-de-s1", "tiny-bert-translate-train-each-de-s2"
    ]  # fmt: skip
    assert accuracy_langs(xnli_db, "translate-train-each") == {"de"}
    assert query(xnli_db, "SELECT DISTINCT train_langs FROM score_jobs") == [('["de"]',)]


# --- translate-train-each and translate-train-all ---------------------------------------------


def test_translate_train_each_trains_german_on_the_german_mt(xnli_db: Path, tmp_path: Path) -> None:
    db = with_german_mt(xnli_db, tmp_path)
    with Store.open(db) as store:
        planned = mode_jobs(read_corpus(store, EVALS), ScoreMode.TRANSLATE_TRAIN_EACH, "en", EVALS)
    (job,) = planned.jobs
    assert (job.name_lang, job.train_langs, job.eval_langs) == ("de", ("de",), ("de",))
    machine = texts_by_unit(db, "de", "mt")
    human = texts_by_unit(db, "de", "human")
    train = records_of(job.rows.records, "de", train=True)
    assert set(train) == set(gold_of(db, "train"))
    assert all(r.hypothesis == machine[f"h:{i}"] for i, r in train.items())
    evaluated = records_of(job.rows.records, "de", train=False)
    assert set(evaluated) == {*gold_of(db, "dev"), *gold_of(db, "test")}
    assert all(r.hypothesis == human[f"h:{i}"] for i, r in evaluated.items())
    assert {r.lang for r in job.rows.records} == {"de"}


def test_translate_train_each_plans_one_job_per_language_and_seed(
    xnli_db: Path, tmp_path: Path
) -> None:
    plan = tmp_path / "plan"
    nlibuild.open(with_german_mt(xnli_db, tmp_path)).score_plan(
        models=(model_folder(tmp_path),), modes=("translate-train-each", "translate-train"),
        training=seeds(1, 2), out=plan,
    )  # fmt: skip
    jobs = json.loads((plan / "plan.json").read_text())["jobs"]
    assert [(job["folder"], job["mode"]) for job in jobs] == [
        ("tiny-bert-translate-train-each-de-s1", "translate-train-each"),
        ("tiny-bert-translate-train-each-de-s2", "translate-train-each"),
        # The former name of translate-train-all is taken as it.
        ("tiny-bert-translate-train-all-s1", "translate-train-all"),
        ("tiny-bert-translate-train-all-s2", "translate-train-all"),
    ]
    assert read_spec(plan / jobs[0]["folder"]).train_langs == ("de",)
    assert read_spec(plan / jobs[2]["folder"]).train_langs == ("en", "de")


def test_translate_train_each_needs_another_language(xnli_db: Path, tmp_path: Path) -> None:
    refused(xnli_db, lambda corpus: corpus.score_plan(
        models=(model_folder(tmp_path),), modes=("translate-train-each",),
        langs={"eval_langs": ("en",)}, out=tmp_path / "plan"),
        "translate-train-each", "besides en", "--eval-langs")  # fmt: skip
    refused(xnli_db, lambda corpus: corpus.score_plan(
        models=(model_folder(tmp_path),), modes=("translate-train-each",), out=tmp_path / "plan"),
        "no train pair has a machine translation into de", "--lang de --kind mt")  # fmt: skip


def test_a_plan_of_the_old_translate_train_imports_as_translate_train_all(
    xnli_db: Path, tmp_path: Path
) -> None:
    plan = tmp_path / "plan"
    corpus = nlibuild.open(with_german_mt(xnli_db, tmp_path))
    corpus.score_plan(models=(model_folder(tmp_path),), modes=("translate-train-all",),
                      training=seeds(1), out=plan)  # fmt: skip
    job = plan / "tiny-bert-translate-train-all-s1"
    # As `score plan` wrote it before translate-train-each existed.
    spec = json.loads((job / "job.json").read_text()) | {"mode": "translate-train"}
    (job / "job.json").write_text(json.dumps(spec))
    fake_job()(job)
    imported = corpus.score_import(folder=plan)
    assert [j.mode for j in imported.jobs] == ["translate-train-all"]
    assert query(xnli_db, "SELECT mode FROM score_jobs") == [("translate-train-all",)]


# --- hypothesis-only, per language --------------------------------------------------------------


def drop_german_train(db: Path) -> Path:
    """XNLI's shape: German for dev and test only (XNLI translated its 7,500 dev and test
    pairs; the train split is MultiNLI's English)."""
    query(db, "DELETE FROM translations WHERE lang = 'de' AND kind = 'human' AND unit_id IN ("
          "SELECT 'h:' || p.id FROM pairs p JOIN splits s ON s.pair_pk = p.pk "
          "WHERE s.split = 'train')")  # fmt: skip
    return db


def test_hyp_only_has_no_german_model_without_german_train_text(xnli_db: Path) -> None:
    db = drop_german_train(xnli_db)
    with Store.open(db) as store:
        planned = mode_jobs(read_corpus(store, EVALS), ScoreMode.HYP_ONLY, "en", EVALS)
    assert [job.train_langs for job in planned.jobs] == [("en",)]
    assert planned.left_out.not_available == {"hyp-only": ["de"]}


def accuracy_langs(db: Path, mode: str) -> set[str]:
    return {
        lang
        for (lang,) in query(
            db, "SELECT DISTINCT a.lang FROM score_accuracy a JOIN score_jobs j "
            "ON j.pk = a.job_pk WHERE j.mode = ?", mode,
        )
    }  # fmt: skip


def test_baselines_score_hypothesis_only_per_language(xnli_db: Path) -> None:
    nlibuild.open(xnli_db).score_baselines()
    assert accuracy_langs(xnli_db, "hypothesis-only-bow") == {"en", "de"}
    (trained,) = query(xnli_db, "SELECT train_langs FROM score_jobs WHERE mode = ?",
                       "hypothesis-only-bow")  # fmt: skip
    assert json.loads(trained[0]) == ["en", "de"]


def test_baselines_say_na_where_a_language_has_no_train_text(xnli_db: Path) -> None:
    shown = ok("--db", drop_german_train(xnli_db), "score", "baselines")
    assert accuracy_langs(xnli_db, "hypothesis-only-bow") == {"en"}
    assert accuracy_langs(xnli_db, "majority") == {"en", "de"}
    assert "n.a. for want of train text: hypothesis-only-bow de" in shown


# --- the real job, end to end -------------------------------------------------------------------


def test_a_tiny_model_is_trained_and_scored_by_translate_test(
    xnli_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="the score extra (torch) is not installed")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    model = tmp_path / "tiny"
    ok("--db", xnli_db, "score", "tiny-model", "--out", model)
    nlibuild.open(xnli_db).score_train(
        model=model, mode="translate-test",
        training=ScoreTraining(seeds=(1,), epochs=1, eval_every=1, batch_size=8),
    )  # fmt: skip
    ((folder, finished),) = query(xnli_db, "SELECT folder, finished FROM score_jobs")
    assert finished == 1
    evaluated = [r for r in read_pairs(Path(folder)) if r.split != TRAIN]
    predicted = np.load(predictions_path(Path(folder), 0))
    german = [i for i, r in enumerate(evaluated) if r.lang == "de" and r.split == "test"]
    correct = sum(int(predicted[i] == evaluated[i].label) for i in german)
    assert query(xnli_db, "SELECT correct, total FROM score_accuracy WHERE lang = 'de' "
                 "AND split = 'test' AND slice = 'all'") == [(correct, len(german))]  # fmt: skip
