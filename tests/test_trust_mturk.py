"""An empty submission is no answer, on every platform.

A writer who submits a task without writing anything (every hypothesis field empty, the
unusable box not ticked) has not answered it: an MTurk results row, a Label Studio
annotation with empty text areas, a csv row or a jsonl record alike. The import counts it
("1 empty submission left open"), stores nothing for it and leaves the premise's
assignment open, so that a later file with a real answer for it imports.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import copy_store, fails, ok, query, write_jsonl
from elicitation_data import NEWS, SINGLE, annotator_map, premise_corpus
from test_elicit_platforms import (
    Answer,
    Tasks,
    answered_all,
    create,
    export,
    filled_sheet,
    jsonl_answer,
    labelstudio_export,
    mturk_results,
    tasks,
)

EMPTY: Answer = {label: [""] for label in SINGLE}
"""A SINGLE form submitted with every hypothesis field left empty and the box not ticked."""

AnswerWriter = Callable[[Path, Path, Tasks, dict[str, Answer]], list[str]]
"""(package folder, file to write, the batch's tasks, answers) -> the import's arguments."""


def _jsonl(out: Path, path: Path, batch_tasks: Tasks, answers: dict[str, Answer]) -> list[str]:
    write_jsonl(path, [jsonl_answer(t, answers[t["premise_id"]]) for t in batch_tasks])
    return [str(path), "--format", "jsonl"]


def _csv(out: Path, path: Path, batch_tasks: Tasks, answers: dict[str, Answer]) -> list[str]:
    filled_sheet(out / "e0001.csv", path, answers)
    return [str(path), "--format", "csv"]


def _labelstudio(
    out: Path, path: Path, batch_tasks: Tasks, answers: dict[str, Answer]
) -> list[str]:
    labelstudio_export(path, batch_tasks, answers)
    users = annotator_map(path.parent / "users.csv", ("labelstudio", "4", "w01"))
    return [str(path), "--format", "labelstudio", "--annotator-map", str(users)]


def _mturk(out: Path, path: Path, batch_tasks: Tasks, answers: dict[str, Answer]) -> list[str]:
    mturk_results(path, out / "e0001.mturk-input.csv", answers)
    workers = annotator_map(path.parent / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))
    return [str(path), "--format", "mturk", "--annotator-map", str(workers)]


PLATFORMS: dict[str, tuple[str, AnswerWriter]] = {
    "jsonl": ("jsonl", _jsonl),
    "csv": ("csv", _csv),
    "labelstudio": ("json", _labelstudio),
    "mturk": ("csv", _mturk),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template")
    return premise_corpus(root / "corpus.db", {"news": NEWS}, lang="en").path


def status(db: Path, premise: str) -> list[tuple[str]]:
    return query(db, "SELECT status FROM assignments WHERE item_id = ?", premise)


def pairs_of(db: Path, premise: str) -> list[tuple[str]]:
    return query(db, "SELECT id FROM pairs WHERE id LIKE ? ORDER BY id", f"{premise}-%")


@pytest.mark.parametrize("fmt", list(PLATFORMS))
def test_an_empty_submission_leaves_its_premise_open_until_a_real_answer_comes(
    fmt: str, template: Path, tmp_path: Path
) -> None:
    store = copy_store(template, tmp_path / "corpus.db")
    create(store)
    out = export(store, fmt, tmp_path / "package")
    batch_tasks = tasks(out, fmt)
    empty = batch_tasks[1]["premise_id"]
    ext, write = PLATFORMS[fmt]
    first = tmp_path / "first"
    first.mkdir()
    args = write(out, first / f"answers.{ext}", batch_tasks,
                 answered_all(batch_tasks, SINGLE) | {empty: EMPTY})  # fmt: skip

    report = ok("--db", store, "elicit", "import", *args)

    assert "Imported 5 answers, 1 empty submission left open: 15 pairs added" in report
    assert status(store, empty) == [("open",)]
    assert pairs_of(store, empty) == []
    assert query(store, "SELECT count(*) FROM violations WHERE item_id = ?", empty) == [(0,)]
    answered = query(store, "SELECT count(*) FROM assignments WHERE status = 'answered'")
    assert answered == [(5,)]

    later = tmp_path / "later"
    later.mkdir()
    args = write(out, later / f"answers.{ext}", batch_tasks, answered_all(batch_tasks, SINGLE))

    report = ok("--db", store, "elicit", "import", *args)

    assert "Imported 6 answers: 3 pairs added, 0 rejected, 0 marked x, 5 already imported" in report
    assert status(store, empty) == [("answered",)]
    assert pairs_of(store, empty) == [(f"{empty}-{x}1",) for x in "cen"]


def test_a_labelstudio_annotation_with_no_result_is_an_empty_submission(
    template: Path, tmp_path: Path
) -> None:
    """Label Studio leaves an untouched text area out of the result: an annotation
    submitted without writing has an empty result list, the same empty submission."""
    store = copy_store(template, tmp_path / "corpus.db")
    create(store)
    batch_tasks = tasks(export(store, "labelstudio", tmp_path / "package"), "labelstudio")
    empty = batch_tasks[0]["premise_id"]
    exported = labelstudio_export(tmp_path / "export.json", batch_tasks,
                                  answered_all(batch_tasks, SINGLE))  # fmt: skip
    project = json.loads(exported.read_text(encoding="utf-8"))
    project[0]["annotations"][0]["result"] = []
    exported.write_text(json.dumps(project), encoding="utf-8")
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))

    report = ok("--db", store, "elicit", "import", exported, "--format", "labelstudio",
                "--annotator-map", users)  # fmt: skip

    assert "Imported 5 answers, 1 empty submission left open: 15 pairs added" in report
    assert status(store, empty) == [("open",)]


def test_a_file_of_empty_submissions_only_is_refused_and_says_so(
    template: Path, tmp_path: Path
) -> None:
    """Nothing to import: refused like any file with no answers, naming what it held."""
    store = copy_store(template, tmp_path / "corpus.db")
    create(store)
    out = export(store, "mturk", tmp_path / "package")
    args = _mturk(out, tmp_path / "results.csv", tasks(out, "mturk"),
                  answered_all(tasks(out, "mturk"), EMPTY))  # fmt: skip

    fails(store, "elicit", "import", *args,
          says=("holds no answers", "6 empty submissions left open"))  # fmt: skip
    assert query(store, "SELECT count(*) FROM assignments WHERE status = 'open'") == [(6,)]
