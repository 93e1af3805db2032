"""The store side of scoring (issue 17): the rows of a job per mode, per-checkpoint commits
and --resume, `score plan` and `score import`, `score baselines`, and the one-line errors.

No torch is needed: a fake job runner writes the results files the way
nlibuild/scoring/job_files.py says a job does, and is put in place of the real one."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import (
    DATA,
    copy_store,
    fails,
    ok,
    query,
    refused,
    table_counts,
    without_runs,
)

import nlibuild
from nlibuild.api import StageWarning
from nlibuild.invoke import invoke
from nlibuild.models import NLI_LABELS, ScoreJobSummary, ScoreMode, ScoreTraining
from nlibuild.scores.score_jobs import job_rows, mode_jobs, read_corpus
from nlibuild.scoring.job_files import (
    DYNAMICS_FILE,
    GOLD_ARGMAX_FILE,
    TRAIN,
    CheckpointRecord,
    DoneRecord,
    append_checkpoint,
    predictions_path,
    read_checkpoints,
    read_pairs,
    read_spec,
    write_done,
)
from nlibuild.stages import score_baselines, score_train
from nlibuild.store import Store

GERMAN = DATA / "translations" / "sample_mnli.de.tsv"
CHECKPOINTS = 4


@pytest.fixture
def scored_db(sample_db: Path) -> Path:
    """The 48 sample pairs split 28/10/10 (3 without gold), with human and machine
    translations of every unit into German."""
    corpus = nlibuild.open(sample_db)
    corpus.split(dev=10, test=10, draw_from="labelled", group_by="pair")
    corpus.translate_import(path=GERMAN, lang="de", translator="de01")
    return sample_db


def with_mt(db: Path) -> Path:
    nlibuild.open(db).translate_import(path=GERMAN, lang="de", kind="mt", translator="mt01")
    return db


def seeds(*chosen: int) -> ScoreTraining:
    """The shared training settings with these seeds (`--seeds 1,2`)."""
    return ScoreTraining(seeds=chosen)


def progress(job: ScoreJobSummary) -> tuple[str, int, int, bool]:
    """A job's name, checkpoints in the store, checkpoints this run added, and whether it
    finished: what its line says as `4 checkpoints (2 new), finished`."""
    return job.name, job.checkpoints, job.added, job.finished


def fake_job(crash_after: int | None = None) -> Callable[..., None]:
    """A job runner as nlibuild.scoring.job.run_job behaves: CHECKPOINTS checkpoints, each
    with its predictions (checkpoint k predicts the gold label of every row whose position
    is below k/CHECKPOINTS of the rows, `neutral` otherwise), then the dynamics of two
    epochs (the gold label's probability 0.4, then 0.8, the argmax both times) and
    done.json. It raises after `crash_after` checkpoints of a fresh start."""

    def run_job(folder: Path, on_checkpoint: Any = None, resume: bool = False) -> None:
        spec = read_spec(folder)
        pairs = list(read_pairs(folder))
        gold = np.asarray([p.label for p in pairs if p.split != TRAIN], dtype=np.int8)
        train = sum(1 for p in pairs if p.split == TRAIN)
        done = len(read_checkpoints(folder)) if resume else 0
        for index in range(done, CHECKPOINTS):
            if crash_after is not None and not resume and index == crash_after:
                raise RuntimeError("the GPU fell over")
            predicted = np.where(np.arange(len(gold)) < len(gold) * index / CHECKPOINTS, gold, 1)
            path = predictions_path(folder, index)
            path.parent.mkdir(parents=True, exist_ok=True)
            np.save(path, predicted.astype(np.int8))
            steps = 10 * (index + 1)
            record = CheckpointRecord(
                index=index, step=steps, epoch=index / 2, examples_seen=spec.batch_size * steps,
                train_loss=1.0 / (index + 1), seconds=float(index),
            )  # fmt: skip
            append_checkpoint(folder, record)
            if on_checkpoint is not None:
                on_checkpoint(record)
        np.save(folder / DYNAMICS_FILE, np.tile([[0.4], [0.8]], (1, train)).astype(np.float32))
        np.save(folder / GOLD_ARGMAX_FILE, np.ones((2, train), dtype=np.int8))
        write_done(folder, DoneRecord(checkpoints=CHECKPOINTS, seconds=1.0, device="cpu",
                                      processes=1))  # fmt: skip

    return run_job


@pytest.fixture
def fake_runner(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    runner = fake_job()
    monkeypatch.setattr(score_train, "job_runner", lambda: runner)
    return runner


def model_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny-bert"
    folder.mkdir(exist_ok=True)
    return folder


# --- the rows of a job ----------------------------------------------------------------------


def rows_of(db: Path, mode: ScoreMode, train: str, evals: tuple[str, ...]) -> Any:
    with Store.open(db) as store:
        return job_rows(read_corpus(store, evals), mode, train, evals)


def test_zero_shot_trains_in_english_and_evaluates_every_language(scored_db: Path) -> None:
    query(scored_db, "DELETE FROM translations WHERE lang = 'de' AND unit_id = "
          "(SELECT 'h:' || p.id FROM pairs p JOIN splits s ON s.pair_pk = p.pk "
          "WHERE s.split = 'dev' ORDER BY p.id LIMIT 1)")  # fmt: skip
    rows = rows_of(scored_db, ScoreMode.ZERO_SHOT, "en", ("en", "de"))
    counts = Counter((r.split, r.lang) for r in rows.records)
    gold_by_split = Counter(
        split for (split,) in query(
            scored_db, "SELECT s.split FROM splits s JOIN gold_rows g ON g.pair_pk = s.pair_pk "
            "WHERE g.label <> '-'",
        )
    )  # fmt: skip
    assert counts[(TRAIN, "en")] == gold_by_split["train"]
    assert counts[(TRAIN, "de")] == 0
    assert counts[("dev", "en")] == gold_by_split["dev"]
    assert counts[("dev", "de")] == gold_by_split["dev"] - 1
    assert rows.left_out.untranslated == {"de": 1}
    assert rows.left_out.without_gold == 48 - sum(gold_by_split.values())
    german = next(r for r in rows.records if r.lang == "de")
    assert german.hypothesis in GERMAN.read_text(encoding="utf-8")


def test_translate_train_adds_the_machine_translated_train_split(scored_db: Path) -> None:
    zero_shot = rows_of(scored_db, ScoreMode.ZERO_SHOT, "en", ("en", "de"))
    rows = rows_of(with_mt(scored_db), ScoreMode.TRANSLATE_TRAIN_ALL, "en", ("en", "de"))
    train = Counter(r.lang for r in rows.records if r.split == TRAIN)
    assert train == {"en": zero_shot.train_rows, "de": zero_shot.train_rows}
    assert rows.eval_rows == zero_shot.eval_rows


def test_translate_test_reads_each_language_through_machine_translation(scored_db: Path) -> None:
    # Trained in German, the English pairs are evaluated through their German MT.
    rows = rows_of(with_mt(scored_db), ScoreMode.TRANSLATE_TEST, "de", ("de", "en"))
    english = [r for r in rows.records if r.lang == "en"]
    assert english and all(r.split != TRAIN for r in english)
    german = {line.split("\t")[-1] for line in GERMAN.read_text(encoding="utf-8").splitlines()}
    assert {r.hypothesis for r in english} <= german


def test_hyp_only_trains_a_model_per_language_on_its_own_train_text(scored_db: Path) -> None:
    """Poliak et al.'s hypothesis-only baseline measures the artifacts of a language's own
    hypotheses: the German job trains on the German train split, not on English."""
    with Store.open(scored_db) as store:
        planned = mode_jobs(
            read_corpus(store, ("en", "de")), ScoreMode.HYP_ONLY, "en", ("en", "de")
        )
    english, german = planned.jobs
    assert (english.name_lang, english.train_langs, english.eval_langs) == (None, ("en",), ("en",))
    assert (german.name_lang, german.train_langs, german.eval_langs) == ("de", ("de",), ("de",))
    zero_shot = rows_of(scored_db, ScoreMode.ZERO_SHOT, "en", ("en", "de")).records
    assert english.rows.records == [r for r in zero_shot if r.lang == "en"]
    assert {(r.split == TRAIN, r.lang) for r in german.rows.records} == {
        (True, "de"),
        (False, "de"),
    }
    assert german.rows.train_rows == english.rows.train_rows
    assert [r for r in german.rows.records if r.split != TRAIN] == [
        r for r in zero_shot if r.lang == "de"
    ]
    assert planned.left_out.not_available == {}


def test_a_mode_without_machine_translations_names_the_import(
    scored_db: Path, tmp_path: Path, fake_runner: Any
) -> None:
    refused(scored_db,
            lambda corpus: corpus.score_train(model=model_folder(tmp_path), mode="translate-train"),
            "machine translation into de", "--kind mt")  # fmt: skip


# --- score train ------------------------------------------------------------------------------


def test_train_records_every_checkpoint_with_slices_and_dynamics(
    scored_db: Path, tmp_path: Path, fake_runner: Any
) -> None:
    trained = nlibuild.open(scored_db).score_train(
        model=model_folder(tmp_path), training=ScoreTraining(seeds=(1, 2), epochs=2)
    )
    assert trained.jobs[0].name == "tiny-bert-zero-shot-s1"
    assert "en/test" in trained.jobs[0].last_accuracy
    jobs = query(scored_db, "SELECT pk, name, mode, seed, finished, folder FROM score_jobs")
    assert [(j[1], j[3], j[4]) for j in jobs] == [
        ("tiny-bert-zero-shot-s1", 1, 1), ("tiny-bert-zero-shot-s2", 2, 1)
    ]  # fmt: skip
    job_pk, folder = jobs[0][0], Path(jobs[0][5])
    assert folder.parent.parent == scored_db.parent / "corpus.score"
    steps = query(scored_db, "SELECT steps_json FROM runs WHERE stage = 'score-train'")[0][0]
    assert json.loads(steps)[:2] == ["tiny-bert-zero-shot-s1:0", "tiny-bert-zero-shot-s1:1"]
    assert query(scored_db, "SELECT count(*) FROM score_checkpoints WHERE job_pk = ?", job_pk) == [
        (CHECKPOINTS,)
    ]
    # Accuracy per checkpoint equals the predictions file against the gold labels.
    evaluated = [p for p in read_pairs(folder) if p.split != TRAIN]
    predicted = np.load(predictions_path(folder, 2))
    for lang in ("en", "de"):
        at = [i for i, p in enumerate(evaluated) if p.lang == lang and p.split == "test"]
        correct = sum(int(predicted[i] == evaluated[i].label) for i in at)
        assert query(
            scored_db, "SELECT correct, total FROM score_accuracy WHERE job_pk = ? AND idx = 2 "
            "AND lang = ? AND split = 'test' AND slice = 'all'", job_pk, lang,
        ) == [(correct, len(at))]  # fmt: skip
    slices = query(scored_db, "SELECT slice, value, sum(total) FROM score_accuracy WHERE "
                   "job_pk = ? AND idx = 0 AND lang = 'en' AND split = 'dev' GROUP BY slice, "
                   "value", job_pk)  # fmt: skip
    by_slice = Counter[str]()
    for name, _, total in slices:
        by_slice[name] += total
    dev = by_slice["all"]
    assert {name: by_slice[name] for name in ("genre", "label", "relabelled")} == {
        "genre": dev, "label": dev, "relabelled": dev
    }  # fmt: skip
    contradictions = sum(
        t for name, value, t in slices if name == "label" and value == "contradiction"
    )
    assert by_slice["negated"] == contradictions
    dynamics = query(scored_db, "SELECT confidence, variability, correctness FROM "
                     "score_dynamics WHERE job_pk = ?", job_pk)  # fmt: skip
    train = sum(1 for p in read_pairs(folder) if p.split == TRAIN)
    assert len(dynamics) == train
    # Correctness counts the epochs where the gold label was the argmax (Swayamdipta et al.
    # 2020): both, though its probability was 0.4 in the first (three labels).
    assert dynamics[0] == pytest.approx((0.6, 0.2, 1.0))


def test_a_crash_keeps_the_committed_checkpoints_and_resume_finishes(
    scored_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(score_train, "job_runner", lambda: fake_job(crash_after=2))
    model = model_folder(tmp_path)
    with pytest.raises(RuntimeError, match="GPU fell over"):
        nlibuild.open(scored_db).score_train(model=model, training=seeds(7))
    assert query(scored_db, "SELECT status FROM runs WHERE stage = 'score-train'") == [("failed",)]
    assert query(scored_db, "SELECT count(*) FROM score_checkpoints") == [(2,)]
    assert query(scored_db, "SELECT finished FROM score_jobs") == [(0,)]
    # The Python API has no `resume` (the CLI runs score_train.RESUMING_STAGE for --resume).
    shown = ok("--db", scored_db, "score", "train", "--model", model, "--seeds", "7", "--resume")
    assert "4 checkpoints (2 new), finished" in shown
    assert query(scored_db, "SELECT id, status FROM runs WHERE stage = 'score-train'") == [
        (query(scored_db, "SELECT run_id FROM score_jobs")[0][0], "ok")
    ]
    assert query(scored_db, "SELECT count(*), count(DISTINCT idx) FROM score_checkpoints") == [
        (CHECKPOINTS, CHECKPOINTS)
    ]


def test_a_missing_model_folder_is_one_error_line(scored_db: Path, tmp_path: Path) -> None:
    fails(scored_db, "score", "train", "--model", tmp_path / "no-such-model",
          says=("--model", "no-such-model", "not a folder"))  # fmt: skip


def test_missing_torch_is_refused_naming_the_extra(
    scored_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    refused(scored_db, lambda corpus: corpus.score_train(model=model_folder(tmp_path)),
            "install the score extra: pip install 'nlibuild[score]'")  # fmt: skip


# --- score plan and score import ------------------------------------------------------------


def test_plan_writes_job_folders_and_a_torchrun_script(scored_db: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan"
    nlibuild.open(scored_db).score_plan(
        models=(model_folder(tmp_path),), modes=("zero-shot", "hyp-only"), training=seeds(1, 2),
        out=plan, gpus_per_job=2,
    )  # fmt: skip
    # hyp-only is one job a language: the train language's keeps its name, German's says it.
    names = [
        f"tiny-bert-{mode}-s{seed}"
        for mode in ("zero-shot", "hyp-only", "hyp-only-de")
        for seed in (1, 2)
    ]
    assert [job["folder"] for job in json.loads((plan / "plan.json").read_text())["jobs"]] == names
    assert read_spec(plan / names[2]).hypothesis_only
    assert read_spec(plan / names[4]).train_langs == ("de",)
    lines = (plan / "run.sh").read_text().splitlines()
    assert lines[0] == "#!/usr/bin/env bash"
    launches = [line for line in lines if line.startswith('"$PYTHON"')]
    assert launches == [
        f'"$PYTHON" -m torch.distributed.run --standalone --nproc_per_node=2 '
        f"-m nlibuild.scoring.job {name} --resume"
        for name in names
    ]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_plan_writes_a_slurm_array(scored_db: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan"
    nlibuild.open(scored_db).score_plan(
        models=(model_folder(tmp_path),), training=seeds(1, 2, 3), out=plan, launcher="slurm"
    )
    script = (plan / "slurm.sh").read_text()
    assert "#SBATCH --array=0-2" in script
    assert '-m nlibuild.scoring.job "${JOBS[$SLURM_ARRAY_TASK_ID]}" --resume' in script


def test_import_merges_finished_and_partial_jobs_once(scored_db: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan"
    corpus = nlibuild.open(scored_db)
    corpus.score_plan(models=(model_folder(tmp_path),), training=seeds(1, 2, 3), out=plan)
    fake_job()(plan / "tiny-bert-zero-shot-s1")
    with pytest.raises(RuntimeError):
        fake_job(crash_after=1)(plan / "tiny-bert-zero-shot-s2")
    with pytest.warns(StageWarning, match="job tiny-bert-zero-shot-s2 did not finish"):
        imported = corpus.score_import(folder=plan)
    assert [progress(job) for job in imported.jobs] == [
        ("tiny-bert-zero-shot-s1", 4, 4, True), ("tiny-bert-zero-shot-s2", 1, 1, False)
    ]  # fmt: skip
    assert imported.not_started == ["tiny-bert-zero-shot-s3"]
    assert list(imported.stopped) == ["tiny-bert-zero-shot-s2"]
    before = table_counts(scored_db)
    scores = query(scored_db, "SELECT count(*) FROM score_accuracy")
    with pytest.warns(StageWarning, match="job tiny-bert-zero-shot-s2 did not finish"):
        corpus.score_import(folder=plan)
    assert without_runs(table_counts(scored_db)) == without_runs(before)
    assert query(scored_db, "SELECT count(*) FROM score_accuracy") == scores
    fake_job()(plan / "tiny-bert-zero-shot-s2", resume=True)
    assert [progress(job) for job in corpus.score_import(folder=plan).jobs] == [
        ("tiny-bert-zero-shot-s1", 4, 0, True), ("tiny-bert-zero-shot-s2", 4, 3, True)
    ]  # fmt: skip
    assert query(scored_db, "SELECT count(*), sum(finished) FROM score_jobs") == [(2, 2)]


def test_import_refuses_another_stores_plan(scored_db: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan"
    nlibuild.open(scored_db).score_plan(
        models=(model_folder(tmp_path),), training=seeds(1), out=plan
    )
    fake_job()(plan / "tiny-bert-zero-shot-s1")
    other = nlibuild.create(tmp_path / "other.db", preset="ocnli")
    other.import_corpus(path=DATA / "sample_ocnli.json")
    refused(other.path, lambda corpus: corpus.score_import(folder=plan),
            "tiny-bert-zero-shot-s1", "another store")  # fmt: skip


# --- score baselines --------------------------------------------------------------------------


def test_baselines_are_recorded_with_the_majority_at_the_label_share(scored_db: Path) -> None:
    nlibuild.open(scored_db).score_baselines()
    assert query(scored_db, "SELECT mode, model, finished FROM score_jobs ORDER BY pk") == [
        ("majority", "", 1), ("hypothesis-only-bow", "", 1), ("overlap", "", 1)
    ]  # fmt: skip
    train_labels = Counter(
        label for (label,) in query(
            scored_db, "SELECT g.label FROM splits s JOIN gold_rows g ON g.pair_pk = s.pair_pk "
            "WHERE s.split = 'train' AND g.label <> '-'",
        )
    )  # fmt: skip
    majority = max(NLI_LABELS, key=lambda label: (train_labels[label], -NLI_LABELS.index(label)))
    share = query(
        scored_db, "SELECT sum(g.label = ?), count(*) FROM splits s JOIN gold_rows g ON "
        "g.pair_pk = s.pair_pk WHERE s.split = 'test' AND g.label <> '-'", majority,
    )[0]  # fmt: skip
    assert query(
        scored_db, "SELECT a.correct, a.total FROM score_accuracy a JOIN score_jobs j ON "
        "j.pk = a.job_pk WHERE j.mode = 'majority' AND a.lang = 'en' AND a.split = 'test' "
        "AND a.slice = 'all'",
    ) == [share]  # fmt: skip
    assert query(scored_db, "SELECT count(*) FROM score_checkpoints") == [(3,)]


def test_baselines_run_by_a_recipe_say_what_the_command_prints(
    scored_db: Path, tmp_path: Path
) -> None:
    """A recipe's step or the Python API runs the stage through `invoke`: its summary is
    the command's output, a line per job with its accuracy and then the run."""
    twin = copy_store(scored_db, tmp_path / "twin.db")
    printed = ok("--db", scored_db, "score", "baselines")
    with Store.open(twin) as store:
        outcome = invoke(score_baselines.STAGE, store)
    lines = outcome.summary.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == [
        "Scored majority-s13", "Scored hypothesis-only-bow-s13", "Scored overlap-s13"
    ]  # fmt: skip
    assert lines[3].startswith("3 jobs; 3 pairs without gold left out (run ")
    assert printed == outcome.summary + "\n"


def test_baselines_without_splits_are_refused_naming_the_split_command(sample_db: Path) -> None:
    refused(sample_db, lambda corpus: corpus.score_baselines(), "train split", "nlibuild split")


# --- the real job, end to end -----------------------------------------------------------------


def test_a_tiny_model_built_from_the_store_trains_and_is_scored_end_to_end(
    scored_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="the score extra (torch) is not installed")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    model = tmp_path / "tiny"
    built = ok("--db", scored_db, "score", "tiny-model", "--out", model)
    assert built.startswith(f"Built a tiny random model in {model}")
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {
        p.name for p in model.iterdir()
    }
    nlibuild.open(scored_db).score_train(
        model=model, training=ScoreTraining(seeds=(1,), epochs=1, eval_every=0.5, batch_size=8)
    )
    # Two checkpoints (every half epoch), each with en and de, dev and test, for the whole
    # split and its slices; the dynamics of every training pair with gold.
    assert query(scored_db, "SELECT count(*) FROM score_checkpoints") == [(2,)]
    assert query(
        scored_db,
        "SELECT DISTINCT lang, split FROM score_accuracy WHERE slice = 'all' ORDER BY 1, 2",
    ) == [("de", "dev"), ("de", "test"), ("en", "dev"), ("en", "test")]
    ((folder, finished),) = query(scored_db, "SELECT folder, finished FROM score_jobs")
    assert finished == 1
    trained = {p.id for p in read_pairs(Path(folder)) if p.split == TRAIN}
    assert query(scored_db, "SELECT count(*) FROM score_dynamics") == [(len(trained),)]
    assert len(trained) == 25  # the 28 pairs of the train split less 3 without gold


def test_a_tiny_model_of_another_hidden_size_has_a_head_per_16_units(
    scored_db: Path, tmp_path: Path
) -> None:
    pytest.importorskip("torch", reason="the score extra (torch) is not installed")
    ok("--db", scored_db, "score", "tiny-model", "--out", tmp_path / "tiny", "--hidden", 64)
    config = json.loads((tmp_path / "tiny/config.json").read_text())
    assert (config["hidden_size"], config["num_attention_heads"]) == (64, 4)
    assert config["num_hidden_layers"] == 2
    fails(scored_db, "score", "tiny-model", "--out", tmp_path / "odd", "--hidden", 20,
          says=("hidden", "multiple of 16"))  # fmt: skip
    assert not (tmp_path / "odd").exists()


def test_a_tiny_model_into_a_folder_holding_files_is_refused(
    scored_db: Path, tmp_path: Path
) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "config.json").write_text("{}")
    fails(scored_db, "score", "tiny-model", "--out", tmp_path / "taken",
          says=("already exists and is not an empty folder",))  # fmt: skip
