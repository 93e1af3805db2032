"""What a user must be able to trust: `split` never replaces the splits a store already has
unless asked to (`--replace`), and `elicit import` and `relabel import` refuse an answer
file that holds no answers instead of reporting an import that added nothing."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from conftest import SAMPLE_MNLI, query, refused, write_jsonl

import nlibuild


def splits(db: Path) -> dict[str, str]:
    """Pair ID -> split, for every pair in a split."""
    return dict(query(db, "SELECT p.id, s.split FROM splits s JOIN pairs p ON p.pk = s.pair_pk"))


def last_run(db: Path, stage: str) -> int:
    run_id: int = query(db, "SELECT max(id) FROM runs WHERE stage = ?", stage)[0][0]
    return run_id


def runs(db: Path) -> list[tuple[int, str, str]]:
    """(id, stage, signature) of every run, to see that a refused run left no row."""
    return query(db, "SELECT id, stage, signature FROM runs ORDER BY id")


# --- split refuses to replace splits unless asked --------------------------------------------


@pytest.fixture
def labelled_db(sample_db: Path) -> Path:
    """The sample corpus with its majority gold, so that `split` has validated pairs."""
    nlibuild.open(sample_db).aggregate_labels()
    return sample_db


def test_a_second_split_is_refused_and_keeps_the_first(labelled_db: Path) -> None:
    run_id = nlibuild.open(labelled_db).split(dev=4, test=4, seed=1).run_id
    first, logged = splits(labelled_db), runs(labelled_db)
    refused(labelled_db, lambda corpus: corpus.split(dev=4, test=4, seed=2),
            f"{len(first)} pairs already have a split:", f"{len(first)} from run {run_id} "
            "(split)", "--replace")  # fmt: skip
    assert splits(labelled_db) == first
    assert runs(labelled_db) == logged


def test_the_splits_of_an_import_with_split_are_not_replaced_silently(
    db: Path, tmp_path: Path
) -> None:
    nlibuild.open(db).import_corpus(path=SAMPLE_MNLI, format="mnli", split="train")
    released, logged = splits(db), runs(db)
    assert len(released) == 48
    run_id = last_run(db, "import")
    refused(db, lambda corpus: corpus.split(dev=4, test=4),
            "48 pairs already have a split:", f"48 from run {run_id} (import)",
            "--replace")  # fmt: skip
    assert splits(db) == released
    assert runs(db) == logged


def test_every_run_whose_splits_would_go_is_named(db: Path, tmp_path: Path) -> None:
    records = [json.loads(line) for line in SAMPLE_MNLI.read_text("utf-8").splitlines()]
    (tmp_path / "train.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records[:30]), "utf-8"
    )
    (tmp_path / "dev.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records[30:]), "utf-8"
    )
    corpus = nlibuild.open(db)
    train_run = corpus.import_corpus(path=tmp_path / "train.jsonl", format="mnli", split="train")
    dev_run = corpus.import_corpus(path=tmp_path / "dev.jsonl", format="mnli", split="dev")
    refused(db, lambda corpus: corpus.split(dev=4, test=4),
            "48 pairs already have a split:", f"30 from run {train_run.run_id} (import)",
            f"18 from run {dev_run.run_id} (import)")  # fmt: skip


def test_replace_replaces_the_splits(labelled_db: Path) -> None:
    corpus = nlibuild.open(labelled_db)
    corpus.split(dev=4, test=4, seed=1)
    first = splits(labelled_db)
    result = corpus.split(dev=4, test=4, seed=2, replace=True)
    run_id = last_run(labelled_db, "split")
    assert result.run_id == run_id and "replace:yes" in result.signature
    assert splits(labelled_db) != first
    assert query(labelled_db, "SELECT DISTINCT run_id FROM splits") == [(run_id,)]


def test_a_first_split_needs_no_replace(labelled_db: Path) -> None:
    result = nlibuild.open(labelled_db).split(dev=4, test=4)
    assert "replace:no" in result.signature
    assert splits(labelled_db)


# --- answer files with no answers are refused ------------------------------------------------


def write_csv(path: Path, header: list[str], rows: list[list[str]] | None = None) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows or [])
    return path


MTURK_COLUMNS = ["AssignmentId", "WorkerId", "AssignmentStatus", "Input.batch"]


def empty_elicit_file(tmp_path: Path, fmt: str) -> Path:
    """An answer file of `fmt` that holds no answers: what a platform gives back before
    anyone has worked (or a wrong export)."""
    if fmt == "jsonl":
        path = tmp_path / "answers.jsonl"
        path.write_text("", encoding="utf-8")
        return path
    if fmt == "csv":
        header = ["batch", "premise_id", "entailment_1", "neutral_1", "contradiction_1"]
        return write_csv(tmp_path / "answers.csv", header)
    if fmt == "labelstudio":
        path = tmp_path / "answers.json"
        path.write_text("[]", encoding="utf-8")
        return path
    return write_csv(tmp_path / "results.csv",
                     [*MTURK_COLUMNS, "Input.premise_id", "Answer.entailment_1"])  # fmt: skip


def empty_relabel_file(tmp_path: Path, fmt: str) -> Path:
    if fmt == "jsonl":
        path = tmp_path / "votes.jsonl"
        path.write_text("", encoding="utf-8")
        return path
    if fmt == "csv":
        return write_csv(tmp_path / "votes.csv", ["batch", "pair_id", "annotator", "label"])
    if fmt == "labelstudio":
        path = tmp_path / "votes.json"
        path.write_text("[]", encoding="utf-8")
        return path
    return write_csv(tmp_path / "results.csv", [*MTURK_COLUMNS, "Input.pair_id", "Answer.label"])


FILE_KINDS = {
    "jsonl": "a jsonl file",
    "csv": "a csv file",
    "labelstudio": "Label Studio's full JSON export",
    "mturk": "MTurk's batch results CSV",
}


@pytest.mark.parametrize("fmt", sorted(FILE_KINDS))
def test_elicit_import_refuses_a_file_with_no_answers(db: Path, tmp_path: Path, fmt: str) -> None:
    path = empty_elicit_file(tmp_path, fmt)
    logged = runs(db)
    refused(db, lambda corpus: corpus.elicit_import(path=path, format=fmt),
            str(path), "holds no answers", f"read as {FILE_KINDS[fmt]}")  # fmt: skip
    assert runs(db) == logged


@pytest.mark.parametrize("fmt", sorted(FILE_KINDS))
def test_relabel_import_refuses_a_file_with_no_answers(
    sample_db: Path, tmp_path: Path, fmt: str
) -> None:
    path = empty_relabel_file(tmp_path, fmt)
    logged = runs(sample_db)
    refused(sample_db, lambda corpus: corpus.relabel_import(path=path, format=fmt),
            str(path), "holds no answers", f"read as {FILE_KINDS[fmt]}")  # fmt: skip
    assert runs(sample_db) == logged


def test_a_relabel_sheet_sent_back_unfilled_holds_no_answers(
    sample_db: Path, tmp_path: Path
) -> None:
    # Every row is a task whose label was left empty: nothing was answered.
    sheet = write_csv(tmp_path / "votes.csv", ["batch", "pair_id", "annotator", "label"],
                      [["r0001", "p1", "v01", ""], ["r0001", "p2", "v01", ""]])  # fmt: skip
    refused(sample_db, lambda corpus: corpus.relabel_import(path=sheet, format="csv"),
            "holds no answers", "read as a csv file; 2 left without a label")  # fmt: skip


def test_a_labelstudio_export_whose_every_annotation_was_cancelled_holds_no_answers(
    db: Path, tmp_path: Path
) -> None:
    export = tmp_path / "answers.json"
    task = {"id": 7, "data": {"batch": "e0001", "premise_id": "p1"},
            "annotations": [{"id": 1, "was_cancelled": True, "result": []}]}  # fmt: skip
    export.write_text(json.dumps([task]), encoding="utf-8")
    refused(db, lambda corpus: corpus.elicit_import(path=export, format="labelstudio"),
            "holds no answers", "1 cancelled (skipped) in Label Studio")  # fmt: skip


def test_a_file_with_one_answer_is_still_read(sample_db: Path, tmp_path: Path) -> None:
    # The refusal is for files with nothing in them; one answer goes on to the usual checks
    # (here: the pair was never sent out for relabelling).
    votes = tmp_path / "votes.jsonl"
    write_jsonl(votes, [{"pair_id": "nope", "annotator": "v01", "label": "entailment"}])
    refused(
        sample_db,
        lambda corpus: corpus.relabel_import(path=votes, format="jsonl"),
        "worker 'v01' is not an annotator",
    )
