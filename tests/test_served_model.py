"""A served model (issue 29, items 1 and 5): a job keeps the weights of the checkpoints a
selection can pick, `score export-model` writes one as a model folder, `load_served_model`
predicts what the job predicted at that checkpoint, and `serve --model` loads it before it
listens (one `Error:` line for a broken folder; no torch without `--model`).

The tests that train skip without torch; a tiny random model is trained on the sample
corpus, on the CPU with one thread."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import PROJECT, assert_user_error, ok, query, run_cli, write_jsonl

import nlibuild
from nlibuild.models import NLI_LABELS, ScoreTraining
from nlibuild.scoring import ScoringError
from nlibuild.scoring.job_files import (
    CHECKPOINT_KEY,
    KEPT_WEIGHTS_FILE,
    STEP_KEY,
    CheckpointRecord,
    JobSpec,
    kept_model_folder,
    predictions_path,
    read_checkpoints,
    read_pairs,
    weights_metadata,
)
from nlibuild.scoring.planted import planted_pair

JOB = "tiny-zero-shot-s1"


def planted_corpus(path: Path, pairs: int) -> Path:
    """`pairs` pairs of the planted rule as MNLI jsonl, each with its author's vote."""
    rng = random.Random(5)
    records = []
    for n in range(pairs):
        premise, hypothesis, label = planted_pair(rng)
        gold = NLI_LABELS[label]
        records.append({"annotator_labels": [gold], "genre": "synthetic", "gold_label": gold,
                        "pairID": f"{n:05d}s{gold[0]}", "promptID": f"{n:05d}s",
                        "sentence1": premise, "sentence2": hypothesis})  # fmt: skip
    return write_jsonl(path, records)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 400 pairs of the planted rule (nlibuild/scoring/planted.py) split
    320/40/40 and a finished tiny job on it, whose dev accuracy changes over 8 checkpoints."""
    torch = pytest.importorskip("torch", reason="training needs the `score` extra (torch)")
    torch.set_num_threads(1)
    db = tmp_path_factory.mktemp("served") / "corpus.db"
    nlibuild.create(db)
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=planted_corpus(db.parent / "planted.jsonl", 400), format="mnli")
    corpus.split(dev=40, test=40, draw_from="labelled")
    ok("--db", db, "score", "tiny-model", "--out", db.parent / "tiny")
    training = ScoreTraining(seeds=(1,), epochs=2.0, eval_every=0.25, batch_size=16, lr=5e-3)
    corpus.score_train(model=db.parent / "tiny", training=training)
    return db


def job_folder(db: Path) -> Path:
    return Path(query(db, "SELECT folder FROM score_jobs WHERE name = ?", JOB)[0][0])


def best_dev_index(records: list[CheckpointRecord]) -> int:
    """The earliest checkpoint of the best English dev accuracy: `score report`'s en-dev."""
    accuracy = [r.accuracy["en/dev"][0] / r.accuracy["en/dev"][1] for r in records]
    return int(np.argmax(accuracy))


def kept_index(folder: Path, rule: str) -> int | None:
    weights = kept_model_folder(folder, rule) / KEPT_WEIGHTS_FILE
    return int(weights_metadata(weights)[CHECKPOINT_KEY]) if weights.exists() else None


def test_a_job_keeps_the_weights_of_its_best_dev_checkpoint_and_of_its_last(
    trained: Path,
) -> None:
    folder = job_folder(trained)
    records = read_checkpoints(folder)
    assert len(records) == 8
    best = best_dev_index(records)
    assert 0 < best < 7  # the first was kept, then replaced by a better one
    assert kept_index(folder, "en-dev") == best
    assert kept_index(folder, "last") == 7
    metadata = weights_metadata(kept_model_folder(folder, "en-dev") / KEPT_WEIGHTS_FILE)
    assert metadata[STEP_KEY] == str(records[best].step)


def served_probabilities(out: Path, folder: Path) -> tuple[Any, list[dict[str, float]]]:
    from nlibuild.scoring.served import load_served_model

    served = load_served_model(out, device="cpu")
    rows = [p for p in read_pairs(folder) if p.split != "train"]
    return served, served.predict([(p.premise, p.hypothesis) for p in rows])


@pytest.mark.parametrize("rule", ["en-dev", "last"])
def test_the_exported_model_predicts_what_the_job_did_at_that_checkpoint(
    trained: Path, tmp_path: Path, rule: str
) -> None:
    folder = job_folder(trained)
    records = read_checkpoints(folder)
    result = nlibuild.open(trained).score_export_model(job=JOB, select=rule, out=tmp_path / rule)
    assert result.checkpoint == (best_dev_index(records) if rule == "en-dev" else 7)
    served, probabilities = served_probabilities(tmp_path / rule, folder)
    assert served.labels == ("entailment", "neutral", "contradiction")
    assert served.identity == result.identity
    assert served.identity.startswith(f"{JOB}@{records[result.checkpoint].step} sha256:")
    table = np.array([[row[label] for label in served.labels] for row in probabilities])
    np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-5)
    # The job read each batch unpadded, the server pads: the same labels up to rounding,
    # so rows whose two likeliest labels are within rounding are not compared.
    ordered = np.sort(table, axis=1)
    clear = ordered[:, -1] - ordered[:, -2] > 1e-4
    assert clear.sum() >= 0.9 * len(table)
    job_labels = np.load(predictions_path(folder, result.checkpoint))
    assert np.array_equal(table.argmax(axis=1)[clear], job_labels[clear])


def test_nlibuild_json_names_the_store_job_checkpoint_and_its_accuracies(
    trained: Path, tmp_path: Path
) -> None:
    result = nlibuild.open(trained).score_export_model(job=JOB, out=tmp_path / "model")
    described = json.loads((tmp_path / "model" / "nlibuild.json").read_text(encoding="utf-8"))
    assert described["store"] == str(trained.resolve())
    assert described["job"]["name"] == JOB and described["job"]["mode"] == "zero-shot"
    assert described["checkpoint"]["index"] == result.checkpoint
    assert described["select"] == {"rule": "en-dev", "lang": "en"}
    stored = query(
        trained,
        "SELECT a.lang || '/' || a.split, 1.0 * a.correct / a.total FROM score_accuracy a "
        "JOIN score_jobs j ON j.pk = a.job_pk WHERE j.name = ? AND a.idx = ? "
        "AND a.slice = 'all'",
        JOB,
        result.checkpoint,
    )
    assert described["accuracy"] == pytest.approx(dict(stored)) == result.accuracy
    assert described["labels"] == ["entailment", "neutral", "contradiction"]
    assert described["export_run"] == result.run_id
    weights = tmp_path / "model" / KEPT_WEIGHTS_FILE
    from nlibuild.scoring.served import weights_sha256

    assert described["weights_sha256"] == weights_sha256(weights)
    assert {"config.json", "tokenizer.json"} <= {p.name for p in (tmp_path / "model").iterdir()}


@contextmanager
def kept_weights_moved_away(folder: Path) -> Iterator[None]:
    """The job's kept models hidden for the block (as a job run before they were kept)."""
    moved = folder.parent / "kept-aside"
    moved.mkdir()
    for rule in ("en-dev", "last"):
        if kept_model_folder(folder, rule).exists():
            shutil.move(kept_model_folder(folder, rule), moved / rule)
    try:
        yield
    finally:
        for kept in moved.iterdir():
            shutil.move(kept, kept_model_folder(folder, kept.name))
        moved.rmdir()


def test_a_checkpoint_whose_weights_the_job_did_not_keep_is_one_error_line(
    trained: Path, tmp_path: Path
) -> None:
    with kept_weights_moved_away(job_folder(trained)):
        line = assert_user_error(
            run_cli("--db", trained, "score", "export-model", JOB, "--out", tmp_path / "m"),
            f"job {JOB}: en-dev picks checkpoint",
            "whose weights the job did not keep (it kept checkpoints: none",
        )
    assert "train the job again" in line
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["tiny-zero-shot-s2"], ("no job 'tiny-zero-shot-s2'", f"did you mean {JOB}?")),
        ([JOB, "--select", "test-ceiling"], ("--select", "test-ceiling", "en-dev")),
        ([JOB, "--lang", "de"], ("--lang de: only --select target-dev reads",)),
        ([JOB, "--select", "target-dev", "--lang", "de"], ("--lang de: job", "evaluated en;")),
        ([JOB, "--run", "1"], (f"no job '{JOB}' of run 1",)),
    ],
)
def test_export_model_refuses_in_one_error_line(
    trained: Path, tmp_path: Path, args: list[str], says: tuple[str, ...]
) -> None:
    result = run_cli("--db", trained, "score", "export-model", *args, "--out", tmp_path / "m")
    assert_user_error(result, *says)
    assert not (tmp_path / "m").exists()


def test_export_model_refuses_a_folder_that_holds_files(trained: Path, tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "pytorch_model.bin").write_bytes(b"another model")
    result = run_cli("--db", trained, "score", "export-model", JOB, "--out", tmp_path / "m")
    assert_user_error(result, "--out", "already exists and is not an empty folder")


def test_a_missing_or_altered_model_folder_is_a_scoring_error(
    trained: Path, tmp_path: Path
) -> None:
    from nlibuild.scoring.served import load_served_model

    with pytest.raises(ScoringError, match="no such model folder"):
        load_served_model(tmp_path / "nowhere")
    with pytest.raises(ScoringError, match=r"no nlibuild\.json: not a folder written by"):
        load_served_model(kept_model_folder(job_folder(trained), "en-dev"))
    nlibuild.open(trained).score_export_model(job=JOB, out=tmp_path / "model")
    weights = tmp_path / "model" / KEPT_WEIGHTS_FILE
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ScoringError, match="SHA-256 differs"):
        load_served_model(tmp_path / "model")


def test_serve_with_a_broken_model_folder_is_one_error_line_before_listening(
    trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def listened(*_: object, **__: object) -> None:
        raise AssertionError("the server listened")

    monkeypatch.setattr("uvicorn.run", listened)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "nlibuild.json").write_text("{not json", encoding="utf-8")
    result = run_cli("--db", trained, "serve", "--model", tmp_path / "broken")
    assert_user_error(result, "nlibuild.json: cannot be read", "export the model again")
    result = run_cli("--db", trained, "serve", "--model", tmp_path / "nowhere")
    assert_user_error(result, "nowhere: no such model folder")


def test_serve_hands_the_loaded_model_to_the_web_context(
    trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nlibuild.web import app

    exported = nlibuild.open(trained).score_export_model(job=JOB, out=tmp_path / "model")
    made: list[Any] = []
    create_app = app.create_app

    def recorded(*args: Any) -> Any:
        made.append(args)
        return create_app(*args)

    monkeypatch.setattr(app, "create_app", recorded)
    monkeypatch.setattr("uvicorn.run", lambda *_, **__: None)
    served = ok("--db", trained, "serve", "--model", tmp_path / "model")
    assert f"with the model {exported.identity}" in served
    predictor = made[0][2]
    assert predictor.identity == exported.identity
    assert predictor.predict([]) == []
    [probabilities] = predictor.predict([("A dog runs in a park.", "An animal is outside.")])
    assert list(probabilities) == ["entailment", "neutral", "contradiction"]


SERVE_WITHOUT_LISTENING = """
import sys, uvicorn
uvicorn.run = lambda *args, **kwargs: None
from nlibuild.cli import main
sys.argv = ["nlibuild", "--db", sys.argv[1], "serve"]
try:
    main()
except SystemExit as stop:
    assert not stop.code, stop.code
print("torch" in sys.modules)
"""


def test_serve_without_a_model_imports_no_torch(sample_db: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SERVE_WITHOUT_LISTENING, str(sample_db)],
        capture_output=True, text=True, cwd=PROJECT,
        env=os.environ | {"PYTHONPATH": str(PROJECT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "False"


def test_a_resumed_job_deletes_the_kept_model_of_a_checkpoint_it_dropped(tmp_path: Path) -> None:
    """A crash after a new best was kept, before the state was saved: the resumed run
    drops that checkpoint, so its weights must go too; the best so far is then taken from
    the checkpoints kept."""
    torch = pytest.importorskip("torch", reason="the kept models are written with torch")
    from safetensors.torch import save_file

    from nlibuild.scoring.kept_models import KeptModels

    spec = JobSpec("j", "m", "zero-shot", 1, ("en",), ("en",))
    for rule, index in (("en-dev", 3), ("last", 1)):
        weights = kept_model_folder(tmp_path, rule) / KEPT_WEIGHTS_FILE
        weights.parent.mkdir(parents=True)
        metadata = {CHECKPOINT_KEY: str(index), STEP_KEY: str(10 * index)}
        save_file({"w": torch.zeros(2)}, str(weights), metadata=metadata)
    kept = KeptModels(tmp_path, spec, config=None, tokenizer=None)
    records = [
        CheckpointRecord(n, 10 * n, n / 4, 0, None, {"en/dev": [correct, 10]})
        for n, correct in enumerate([4, 6, 5])
    ]
    kept.resume(records)
    assert kept_index(tmp_path, "en-dev") is None
    assert kept_index(tmp_path, "last") == 1
    assert (kept.best, kept.best_index) == (0.6, 1)
