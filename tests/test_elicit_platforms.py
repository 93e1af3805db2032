"""Hypothesis elicitation through annotation platforms: `elicit create`, `export`, `import`.

- `create` puts premises that no batch holds yet into batches e0001, e0002, ... of one
  writer each: genres are mixed in every batch, the load is balanced over the writers (over
  earlier runs too), `--max-per-writer` caps a writer and leaves the rest unassigned, and
  the same seed gives the same batches.
- `export` writes the work package of a platform: task files with our IDs (batch, writer,
  premise_id) in every task, the instructions in English and Chinese, and for Label Studio
  and MTurk the form, with one field per expected hypothesis (3 for SINGLE, 9 for MULTI*)
  and the `unusable` box with the value `x`.
- `import` reads the answers back exactly as the platform gives them (jsonl answers; the
  csv sheet filled in, or a long sheet; Label Studio's full JSON export; MTurk's batch
  results CSV, with Answer.<field> columns or one crowd-form Answer.taskAnswers) and turns
  them into pairs `<premise>-<e|n|c><k>` with the author's label, level, protocol and batch
  and the author's vote at position 0. Cancelled and rejected platform work is dropped and
  reported; platform worker IDs are mapped with --annotator-map.
- An answer that breaks a rule is reported and stored in `violations` (exit 0); one that
  cannot be read is refused (an `NlibuildError`; the CLI's one `Error:` line, exit 1), and
  the store is exactly as it was. Importing the same answers again adds nothing.

The stages run through the Python API; the CLI's own tests keep its printed report, the
batch lines of `elicit create` and the `Error:` line.
"""

from __future__ import annotations

import csv
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    copy_store,
    drawn_rows,
    fails,
    ok,
    query,
    refused,
    table_counts,
    without_runs,
    write_jsonl,
)
from elicitation_data import (
    FICTION,
    MTURK_COLUMNS,
    MULTI,
    NEWS,
    SINGLE,
    annotator_map,
    mturk_input,
    read_task_file,
    write_mturk_results,
)

import nlibuild
from nlibuild.api import Corpus
from nlibuild.models import ElicitCreateResult, ElicitImportResult

ANSWERS = {"SINGLE": SINGLE, "MULTI": MULTI, "MULTI_ENCOURAGE": MULTI, "MULTI_CONSTRAINT": MULTI}
X = "x"
"""An answer that marks the premise unusable."""

LABELS = ("entailment", "neutral", "contradiction")
LEVELS = ("easy", "medium", "hard")
TASK_FILES = {
    "jsonl": "{}.tasks.jsonl",
    "csv": "{}.csv",
    "labelstudio": "{}.labelstudio.json",
    "mturk": "{}.mturk-input.csv",
}
Answer = dict[str, list[str]] | str
"""Hypotheses per label, or X."""
Tasks = list[dict[str, Any]]
"""The tasks of one batch as exported (`tasks`)."""


# --- helpers: the store ----------------------------------------------------------------


def premise_corpus(db: Path, genres: dict[str, list[str]], **init: str) -> Corpus:
    """A store (`nlibuild.create(db, **init)`) whose premises are the sentences given per
    genre: each genre's sentences ingested from `<genre>.txt` beside the store and all
    sampled (as `elicitation_data.premise_corpus`)."""
    corpus = nlibuild.create(db, **init)
    for genre, sentences in genres.items():
        source = db.parent / f"{genre}.txt"
        source.write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
        corpus.ingest(paths=(source,), genre=genre)
        corpus.sample(genres=(genre,), n=len(sentences), min_len=3, max_len=40)
    return corpus


def create(
    db: Path, protocol: str = "SINGLE", writers: str = "w01", **settings: Any
) -> ElicitCreateResult:
    """`elicit create --protocol PROTOCOL --annotators WRITERS` with more `settings`."""
    return nlibuild.open(db).elicit_create(
        protocol=protocol, annotators=tuple(writers.split(",")), **settings
    )


def export(db: Path, fmt: str, out: Path, *batches: str) -> Path:
    """`elicit export BATCHES --format FMT --out OUT` (every batch when none is named)."""
    nlibuild.open(db).elicit_export(batches=batches, all=not batches, format=fmt, out=out)
    return out


def import_answers(
    db: Path, path: Path | str, fmt: str = "jsonl", **settings: Any
) -> ElicitImportResult:
    """`elicit import PATH --format FMT` with more `settings`."""
    return nlibuild.open(db).elicit_import(path=path, format=fmt, **settings)


def closing(report: ElicitImportResult) -> dict[str, Any]:
    """What the import's closing line says, in its order: `Imported 6 answers, 1 cancelled
    (skipped) in Label Studio: 15 pairs added, 0 rejected, 1 marked x`."""
    return {
        "answers": report.answers,
        "dropped": report.dropped,
        "left open": report.left_open,
        "added": report.pairs_added,
        "rejected": report.pairs_rejected,
        "marked x": report.unusable,
    }


def read(answers: int, added: int, marked_x: int = 0) -> dict[str, Any]:
    """`closing` of an import that read `answers`, dropped no platform work, added `added`
    pairs and rejected none."""
    return {
        "answers": answers,
        "dropped": {},
        "left open": 0,
        "added": added,
        "rejected": 0,
        "marked x": marked_x,
    }


def tasks(out: Path, fmt: str, batch: str = "e0001") -> Tasks:
    """The tasks of one batch's exported task file, as the platform gets them."""
    return read_task_file(out / TASK_FILES[fmt].format(batch), fmt)


def batch_layout(db: Path) -> list[tuple[str, str, str, str, int]]:
    """(batch, writer, premise, genre, position) of every assignment."""
    return query(
        db,
        "SELECT b.id, a.id, s.item_id, p.genre, s.position FROM assignments s "
        "JOIN batches b ON b.pk = s.batch_pk JOIN annotators a ON a.pk = b.annotator_pk "
        "JOIN premises p ON p.id = s.item_id ORDER BY b.pk, s.position",
    )


def loads(db: Path) -> dict[str, int]:
    """Premises given to each writer, over all batches."""
    return dict(
        query(
            db,
            "SELECT a.id, count(*) FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
            "JOIN annotators a ON a.pk = b.annotator_pk GROUP BY a.id ORDER BY a.id",
        )
    )


def stored_pairs(db: Path) -> set[tuple[str, str, str, str | None, str, str, str]]:
    """(pair, hypothesis, author label, level, protocol, batch, author) of every pair."""
    return set(
        query(
            db,
            "SELECT p.id, p.hypothesis, p.author_label, p.level, p.protocol, b.id, a.id "
            "FROM pairs p JOIN batches b ON b.pk = p.batch_pk "
            "JOIN annotators a ON a.pk = p.author_pk",
        )
    )


def expected_pairs(
    premise_ids: list[str], answer: dict[str, list[str]], protocol: str, batch: str, writer: str
) -> set[tuple[str, str, str, str | None, str, str, str]]:
    return {
        (
            f"{premise_id}-{label[0]}{k}",
            text,
            label,
            None if protocol == "SINGLE" else LEVELS[k - 1],
            protocol,
            batch,
            writer,
        )
        for premise_id in premise_ids
        for label in LABELS
        for k, text in enumerate(answer[label], 1)
    }


def assert_author_votes(db: Path) -> None:
    """Every pair has exactly one vote, at position 0, by its author, for its label."""
    rows = query(
        db,
        "SELECT p.id, p.author_pk, p.author_label, count(v.pair_pk), "
        "min(v.position), min(v.annotator_pk), min(v.label) "
        "FROM pairs p LEFT JOIN votes v ON v.pair_pk = p.pk GROUP BY p.pk",
    )
    assert rows
    for pair, author, label, votes, position, voter, voted in rows:
        assert (votes, position, voter, voted) == (1, 0, author, label), pair


def assert_round_trip(
    db: Path, batch_tasks: Tasks, protocol: str, *, unusable: tuple[str, ...] = ()
) -> None:
    """Every answered premise of the batch made its pairs; premises marked x made none."""
    batch, writer = batch_tasks[0]["batch"], batch_tasks[0]["writer"]
    answered = [t["premise_id"] for t in batch_tasks if t["premise_id"] not in unusable]
    assert stored_pairs(db) == expected_pairs(answered, ANSWERS[protocol], protocol, batch, writer)
    assert_author_votes(db)
    statuses = dict(query(db, "SELECT item_id, status FROM assignments"))
    for task in batch_tasks:
        premise = task["premise_id"]
        assert statuses[premise] == ("unusable" if premise in unusable else "answered")


def violations(db: Path) -> list[tuple[str, str, str | None, int, str, str | None]]:
    """(rule, item, pair, kept, writer, batch) of every stored violation."""
    return query(
        db,
        "SELECT v.rule, v.item_id, v.pair_id, v.kept, a.id, b.id FROM violations v "
        "LEFT JOIN annotators a ON a.pk = v.annotator_pk "
        "LEFT JOIN batches b ON b.pk = v.batch_pk ORDER BY v.pk",
    )


# --- helpers: platform files -------------------------------------------------------------


def slots(answer: Answer) -> dict[str, str]:
    """Form fields `<label>_<k>` of an answer (none for x)."""
    if answer == X:
        return {}
    assert isinstance(answer, dict)
    return {f"{label}_{k}": text for label in LABELS for k, text in enumerate(answer[label], 1)}


def jsonl_answer(task: dict[str, Any], answer: Answer, **changes: Any) -> dict[str, Any]:
    """The `ElicitAnswer` of the writer the task went to; `changes` override fields."""
    hypotheses = answer if isinstance(answer, dict) else {label: [] for label in LABELS}
    record: dict[str, Any] = {
        "batch": task["batch"],
        "writer": task["writer"],
        "premise_id": task["premise_id"],
        "unusable": answer == X,
        **hypotheses,
    }
    return record | changes


def filled_sheet(exported: Path, path: Path, answers: dict[str, Answer]) -> Path:
    """The exported `<batch>.csv` with its answer columns filled in, saved by a spreadsheet."""
    with exported.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        rows = list(reader)
    for row in rows:
        answer = answers[row["premise_id"]]
        row["unusable"] = X if answer == X else ""
        row.update(slots(answer))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header)  # \r\n line ends, as spreadsheets write
        writer.writeheader()
        writer.writerows(rows)
    return path


def labelstudio_export(
    path: Path,
    batch_tasks: Tasks,
    answers: dict[str, Answer],
    *,
    completed_by: Any = 4,
    cancelled: tuple[str, ...] = (),
) -> Path:
    """Label Studio's full JSON export (Export > JSON) of a project made from our tasks."""
    user = completed_by["id"] if isinstance(completed_by, dict) else completed_by
    exported = []
    for index, data in enumerate(batch_tasks):
        task_id = 101 + index
        premise = data["premise_id"]
        result: list[dict[str, Any]] = []
        if premise not in cancelled:
            answer = answers[premise]
            if answer == X:
                result.append(
                    {"value": {"choices": [X]}, "id": f"u{index}", "from_name": "unusable",
                     "to_name": "premise", "type": "choices", "origin": "manual"}
                )  # fmt: skip
            for name, text in slots(answer).items():
                result.append(
                    {"value": {"text": [text]}, "id": f"{name[:3]}{index}", "from_name": name,
                     "to_name": "premise", "type": "textarea", "origin": "manual"}
                )  # fmt: skip
        annotation = {
            "id": 1001 + index,
            "completed_by": completed_by,
            "result": result,
            "was_cancelled": premise in cancelled,
            "ground_truth": False,
            "created_at": "2024-05-02T09:15:27.512345Z",
            "updated_at": "2024-05-02T09:15:27.512345Z",
            "draft_created_at": None,
            "lead_time": 12.5,
            "prediction": {},
            "result_count": 0,
            "unique_id": f"0d2c3e4f-1a2b-4c5d-8e9f-{index:012d}",
            "import_id": None,
            "last_action": None,
            "task": task_id,
            "project": 7,
            "updated_by": user,
            "parent_prediction": None,
            "parent_annotation": None,
            "last_created_by": None,
        }
        exported.append(
            {
                "id": task_id,
                "annotations": [annotation],
                "file_upload": "4f1e2d3c-e0001.labelstudio.json",
                "drafts": [],
                "predictions": [],
                "data": data,
                "meta": {},
                "created_at": "2024-05-01T08:00:00.000000Z",
                "updated_at": "2024-05-02T09:15:27.512345Z",
                "inner_id": index + 1,
                "total_annotations": int(premise not in cancelled),
                "cancelled_annotations": int(premise in cancelled),
                "total_predictions": 0,
                "comment_count": 0,
                "unresolved_comment_count": 0,
                "last_comment_updated_at": None,
                "project": 7,
                "updated_by": user,
                "comment_authors": [],
            }
        )
    path.write_text(json.dumps(exported, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def mturk_results(
    path: Path,
    input_csv: Path,
    answers: dict[str, Answer],
    *,
    worker: str = "A1B2C3D4E5",
    crowd_form: bool = False,
    flattened: bool = False,
    rejected: tuple[str, ...] = (),
    drop: tuple[str, ...] = (),
) -> Path:
    """The batch results CSV MTurk downloads: one row per assignment, the HIT's columns,
    Input.<column> of the input CSV, the answers (Answer.<field> columns of a classic HTML
    form, or crowd-form's Answer.taskAnswers JSON, or crowd-form with answer-format
    flatten-objects: Answer.unusable.x = true/false), then Approve and Reject."""
    inputs, hits = mturk_input(input_csv)
    fields = sorted(slots(ANSWERS[hits[0]["protocol"]]))
    checkbox = f"unusable.{X}" if flattened else "unusable"
    answer_columns = ["taskAnswers"] if crowd_form else [*fields, checkbox]
    header = [
        *(c for c in MTURK_COLUMNS if c not in drop),
        *(f"Input.{c}" for c in inputs),
        *(f"Answer.{c}" for c in answer_columns),
        "Approve",
        "Reject",
    ]
    rows = []
    for index, hit in enumerate(hits):
        answer = answers[hit["premise_id"]]
        status = "Rejected" if hit["premise_id"] in rejected else "Submitted"
        form = {name: slots(answer).get(name, "") for name in fields}
        if crowd_form:
            answered = {"taskAnswers": json.dumps([form | {"unusable": {X: answer == X}}])}
        elif flattened:
            answered = form | {checkbox: "true" if answer == X else "false"}
        else:
            answered = form | {"unusable": X if answer == X else ""}
        meta = {
            "HITId": f"3SR6AEG6W5SQ{index:06d}EXAMPLE",
            "HITTypeId": "3AQGTEXAMPLEHITTYPE",
            "Title": "Write three sentences about a premise",
            "Description": "Read a sentence and write hypotheses for it",
            "Keywords": "writing, nli, sentences",
            "Reward": "$0.50",
            "CreationTime": "Thu May 02 01:00:00 PDT 2024",
            "MaxAssignments": "1",
            "RequesterAnnotation": "BatchId:5123456;OriginalHitTemplateId:928390;",
            "AssignmentDurationInSeconds": "3600",
            "AutoApprovalDelayInSeconds": "259200",
            "Expiration": "Thu May 09 01:00:00 PDT 2024",
            "NumberOfSimilarHITs": "",
            "LifetimeInSeconds": "",
            "AssignmentId": f"3OVHNO1VE{index:06d}ASSIGN",
            "WorkerId": worker,
            "AssignmentStatus": status,
            "AcceptTime": "Thu May 02 02:10:00 PDT 2024",
            "SubmitTime": "Thu May 02 02:12:00 PDT 2024",
            "AutoApprovalTime": "Sun May 05 02:12:00 PDT 2024",
            "ApprovalTime": "",
            "RejectionTime": "Thu May 02 05:00:00 PDT 2024" if status == "Rejected" else "",
            "RequesterFeedback": "Empty answer" if status == "Rejected" else "",
            "WorkTimeInSeconds": "120",
            "LifetimeApprovalRate": "100% (12/12)",
            "Last30DaysApprovalRate": "100% (12/12)",
            "Last7DaysApprovalRate": "100% (12/12)",
        }
        rows.append(
            [meta[c] for c in MTURK_COLUMNS if c not in drop]
            + [hit[c] for c in inputs]
            + [answered[c] for c in answer_columns]
            + ["", ""]
        )
    return write_mturk_results(path, header, rows)


# --- fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Stores built once per module; tests work on copies (see `copy_store`)."""
    root = tmp_path_factory.mktemp("templates")
    (root / "news").mkdir()
    (root / "mixed").mkdir()
    return {
        "news": premise_corpus(root / "news" / "corpus.db", {"news": NEWS}, lang="en").path,
        "mixed": premise_corpus(
            root / "mixed" / "corpus.db", {"news": NEWS, "fiction": FICTION}, lang="en"
        ).path,
    }


@pytest.fixture
def store(templates: dict[str, Path], tmp_path: Path) -> Path:
    """Six news premises (news_0001..news_0006), not yet in any batch."""
    return copy_store(templates["news"], tmp_path / "corpus.db")


@pytest.fixture
def mixed(templates: dict[str, Path], tmp_path: Path) -> Path:
    """Six news and six fiction premises, not yet in any batch."""
    return copy_store(templates["mixed"], tmp_path / "corpus.db")


@pytest.fixture
def two_batches(store: Path, tmp_path: Path) -> tuple[Path, Tasks, Tasks]:
    """SINGLE batches e0001 and e0002 of three premises, one for w01 and one for w02,
    exported as jsonl; returns the store and both batches' tasks."""
    create(store, batch_size=3, writers="w01,w02")
    out = export(store, "jsonl", tmp_path / "package")
    first, second = tasks(out, "jsonl", "e0001"), tasks(out, "jsonl", "e0002")
    assert first[0]["writer"] != second[0]["writer"]
    return store, first, second


def answered_all(batch_tasks: Tasks, answer: Answer) -> dict[str, Answer]:
    return {task["premise_id"]: answer for task in batch_tasks}


# --- 1. round trips through each platform --------------------------------------------------


def test_jsonl_answers_become_pairs_with_the_authors_vote(store: Path, tmp_path: Path) -> None:
    create(store)
    batch_tasks = tasks(export(store, "jsonl", tmp_path / "package"), "jsonl")
    answers = write_jsonl(
        tmp_path / "answers.jsonl", [jsonl_answer(t, SINGLE) for t in batch_tasks]
    )

    report = ok("--db", store, "elicit", "import", answers, "--format", "jsonl")

    assert "Imported 6 answers: 18 pairs added, 0 rejected, 0 marked x" in report
    assert_round_trip(store, batch_tasks, "SINGLE")
    assert violations(store) == []


def test_a_filled_in_csv_sheet_comes_back_as_pairs(store: Path, tmp_path: Path) -> None:
    create(store, protocol="MULTI")
    out = export(store, "csv", tmp_path / "package")
    batch_tasks = tasks(out, "csv")
    x = batch_tasks[-1]["premise_id"]
    answers = answered_all(batch_tasks, MULTI) | {x: X}
    sheet = filled_sheet(out / "e0001.csv", tmp_path / "e0001-answers.csv", answers)

    report = import_answers(store, sheet, "csv")

    assert closing(report) == read(answers=6, added=45, marked_x=1)
    assert_round_trip(store, batch_tasks, "MULTI", unusable=(x,))


def test_a_long_csv_names_premises_by_id_with_batch_and_writer_given(
    store: Path, tmp_path: Path
) -> None:
    create(store)
    batch_tasks = tasks(export(store, "csv", tmp_path / "package"), "csv")
    sheet = tmp_path / "long.csv"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["premise_id", "label", "hypothesis"])
        for label in LABELS:  # label by label, premises interleaved
            for task in batch_tasks:
                writer.writerow([task["premise_id"], label, SINGLE[label][0]])

    report = import_answers(store, sheet, "csv", batch="e0001", writer="w01")

    assert report.pairs_added == 18
    assert_round_trip(store, batch_tasks, "SINGLE")


def test_a_long_tsv_names_premises_by_text_with_integer_labels(store: Path, tmp_path: Path) -> None:
    """One hypothesis per row, in writing order (the k-th is level k); labels 0/1/2 with
    --label-order; the premise given by its text."""
    create(store, protocol="MULTI")
    batch_tasks = tasks(export(store, "csv", tmp_path / "package"), "csv")
    lines = ["premise\tlabel\thypothesis"]
    for task in batch_tasks:
        for number, label in enumerate(LABELS):
            lines += [f"{task['premise']}\t{number}\t{text}" for text in MULTI[label]]
    sheet = tmp_path / "long.tsv"
    sheet.write_text("\n".join(lines) + "\n", encoding="utf-8")

    report = import_answers(store, sheet, "csv", batch="e0001", writer="w01", label_order="e,n,c")

    assert (report.answers, report.dropped, report.pairs_added) == (6, {}, 54)
    assert_round_trip(store, batch_tasks, "MULTI")


def test_integer_labels_without_a_label_order_are_an_error(store: Path, tmp_path: Path) -> None:
    create(store)
    batch_tasks = tasks(export(store, "csv", tmp_path / "package"), "csv")
    sheet = tmp_path / "long.csv"
    sheet.write_text(f"premise_id,label,hypothesis\n{batch_tasks[0]['premise_id']},0,Hi.\n")
    refused(
        store,
        lambda corpus: corpus.elicit_import(path=sheet, format="csv", batch="e0001", writer="w01"),
        "long.csv, line 2",
        "'0'",
    )


def test_a_labelstudio_export_comes_back_as_pairs(store: Path, tmp_path: Path) -> None:
    create(store, protocol="MULTI")
    batch_tasks = tasks(export(store, "labelstudio", tmp_path / "package"), "labelstudio")
    x = batch_tasks[0]["premise_id"]
    exported = labelstudio_export(
        tmp_path / "project-7-at-2024-05-02-09-20-5c3e1a2b.json",
        batch_tasks,
        answered_all(batch_tasks, MULTI) | {x: X},
    )
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))

    report = import_answers(store, exported, "labelstudio", annotator_map=users)

    assert closing(report) == read(answers=6, added=45, marked_x=1)
    assert_round_trip(store, batch_tasks, "MULTI", unusable=(x,))
    assert query(store, "SELECT platform, platform_id FROM annotator_aliases") == [
        ("labelstudio", "4")
    ]


def test_a_cancelled_labelstudio_annotation_is_dropped_and_reported(
    store: Path, tmp_path: Path
) -> None:
    create(store)
    batch_tasks = tasks(export(store, "labelstudio", tmp_path / "package"), "labelstudio")
    skipped = batch_tasks[2]["premise_id"]
    exported = labelstudio_export(
        tmp_path / "export.json",
        batch_tasks,
        answered_all(batch_tasks, SINGLE),
        cancelled=(skipped,),
    )
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))

    report = import_answers(store, exported, "labelstudio", annotator_map=users)

    dropped = {"cancelled (skipped) in Label Studio": 1}
    assert (report.answers, report.dropped, report.pairs_added) == (5, dropped, 15)
    assert not any(pair[0].startswith(f"{skipped}-") for pair in stored_pairs(store))
    assert query(store, "SELECT status FROM assignments WHERE item_id = ?", skipped) == [("open",)]


def test_a_labelstudio_user_given_as_an_object_is_mapped_by_user_id(
    store: Path, tmp_path: Path
) -> None:
    create(store)
    batch_tasks = tasks(export(store, "labelstudio", tmp_path / "package"), "labelstudio")
    exported = labelstudio_export(
        tmp_path / "export.json",
        batch_tasks,
        answered_all(batch_tasks, SINGLE),
        completed_by={"id": 4, "first_name": "", "last_name": "", "email": "ann@example.org"},
    )
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))

    report = import_answers(store, exported, "labelstudio", annotator_map=users)

    assert report.pairs_added == 18
    assert_round_trip(store, batch_tasks, "SINGLE")


def test_mturk_results_with_answer_columns_come_back_as_pairs(store: Path, tmp_path: Path) -> None:
    create(store, protocol="MULTI_CONSTRAINT")
    out = export(store, "mturk", tmp_path / "package")
    batch_tasks = tasks(out, "mturk")
    x = batch_tasks[1]["premise_id"]
    results = mturk_results(
        tmp_path / "Batch_5123456_batch_results.csv",
        out / "e0001.mturk-input.csv",
        answered_all(batch_tasks, MULTI) | {x: X},
    )
    workers = annotator_map(
        tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"), ("labelstudio", "4", "w09")
    )

    report = import_answers(store, results, "mturk", annotator_map=workers)

    assert closing(report) == read(answers=6, added=45, marked_x=1)
    assert_round_trip(store, batch_tasks, "MULTI_CONSTRAINT", unusable=(x,))
    assert query(store, "SELECT platform, platform_id FROM annotator_aliases") == [
        ("mturk", "A1B2C3D4E5")
    ]


def test_mturk_crowd_form_task_answers_come_back_as_pairs(store: Path, tmp_path: Path) -> None:
    create(store)
    out = export(store, "mturk", tmp_path / "package")
    batch_tasks = tasks(out, "mturk")
    results = mturk_results(
        tmp_path / "Batch_5123456_batch_results.csv",
        out / "e0001.mturk-input.csv",
        answered_all(batch_tasks, SINGLE),
        crowd_form=True,
    )
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))

    report = import_answers(store, results, "mturk", annotator_map=workers)

    assert closing(report) == read(answers=6, added=18)
    assert_round_trip(store, batch_tasks, "SINGLE")


def test_a_ticked_crowd_form_checkbox_marks_the_premise_x(store: Path, tmp_path: Path) -> None:
    create(store)
    out = export(store, "mturk", tmp_path / "package")
    batch_tasks = tasks(out, "mturk")
    results = mturk_results(
        tmp_path / "results.csv", out / "e0001.mturk-input.csv", answered_all(batch_tasks, X),
        crowd_form=True,
    )  # fmt: skip
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))

    report = import_answers(store, results, "mturk", annotator_map=workers)

    assert closing(report) == read(answers=6, added=0, marked_x=6)
    assert query(store, "SELECT DISTINCT status FROM assignments") == [("unusable",)]


def test_a_flattened_crowd_form_checkbox_column_marks_the_premise_x(
    store: Path, tmp_path: Path
) -> None:
    create(store)
    out = export(store, "mturk", tmp_path / "package")
    batch_tasks = tasks(out, "mturk")
    x = batch_tasks[0]["premise_id"]
    results = mturk_results(
        tmp_path / "results.csv", out / "e0001.mturk-input.csv",
        answered_all(batch_tasks, SINGLE) | {x: X}, flattened=True,
    )  # fmt: skip
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))

    report = import_answers(store, results, "mturk", annotator_map=workers)

    assert closing(report) == read(answers=6, added=15, marked_x=1)
    assert_round_trip(store, batch_tasks, "SINGLE", unusable=(x,))


def test_rejected_mturk_assignments_are_dropped_and_reported(store: Path, tmp_path: Path) -> None:
    create(store)
    out = export(store, "mturk", tmp_path / "package")
    batch_tasks = tasks(out, "mturk")
    rejected = batch_tasks[0]["premise_id"]
    results = mturk_results(
        tmp_path / "results.csv", out / "e0001.mturk-input.csv",
        answered_all(batch_tasks, SINGLE), rejected=(rejected,),
    )  # fmt: skip
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))

    report = import_answers(store, results, "mturk", annotator_map=workers)

    dropped = {"rejected on MTurk": 1}
    assert (report.answers, report.dropped, report.pairs_added) == (5, dropped, 15)
    assert not any(pair[0].startswith(f"{rejected}-") for pair in stored_pairs(store))
    assert query(store, "SELECT status FROM assignments WHERE item_id = ?", rejected) == [("open",)]


def test_platform_workers_mapped_once_are_known_to_later_imports(
    store: Path, tmp_path: Path
) -> None:
    create(store, batch_size=3)
    out = export(store, "mturk", tmp_path / "package")
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))
    for batch in ("e0001", "e0002"):
        results = mturk_results(
            tmp_path / f"{batch}-results.csv",
            out / f"{batch}.mturk-input.csv",
            answered_all(tasks(out, "mturk", batch), SINGLE),
        )
        mapping = {"annotator_map": workers} if batch == "e0001" else {}
        assert import_answers(store, results, "mturk", **mapping).pairs_added == 9
    assert {pair[6] for pair in stored_pairs(store)} == {"w01"}


# --- 1b. the exported work package ---------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "labelstudio", "mturk"])
def test_every_exported_task_carries_our_ids_and_the_instructions_come_along(
    store: Path, tmp_path: Path, fmt: str
) -> None:
    create(store, batch_size=4, writers="w01,w02", protocol="MULTI_ENCOURAGE")
    out = export(store, fmt, tmp_path / "package")

    seen = []
    for batch, writer in query(
        store, "SELECT b.id, a.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk"
    ):
        batch_tasks = tasks(out, fmt, batch)
        assert {(t["batch"], t["writer"]) for t in batch_tasks} == {(batch, writer)}
        assert all(t["premise_id"] and t["premise"] in NEWS for t in batch_tasks)
        seen += [t["premise_id"] for t in batch_tasks]
    assert sorted(seen) == [f"news_{n:04d}" for n in range(1, 7)]
    for lang in ("en", "zh"):
        text = (out / f"instructions.MULTI_ENCOURAGE.{lang}.md").read_text(encoding="utf-8")
        assert "MULTI_ENCOURAGE" in text


@pytest.mark.parametrize(("protocol", "fields"), [("SINGLE", 3), ("MULTI", 9),
                                                  ("MULTI_CONSTRAINT", 9)])  # fmt: skip
def test_the_labelstudio_config_has_a_text_area_per_hypothesis_and_the_x_choice(
    store: Path, tmp_path: Path, protocol: str, fields: int
) -> None:
    create(store, protocol=protocol)
    out = export(store, "labelstudio", tmp_path / "package")

    view = ET.parse(out / f"labelstudio-config.{protocol}.xml").getroot()

    areas = [area.get("name") for area in view.iter("TextArea")]
    assert areas == list(slots(ANSWERS[protocol]))
    assert len(areas) == fields
    (choices,) = view.iter("Choices")
    assert choices.get("name") == "unusable"
    assert [c.get("value") for c in choices.iter("Choice")] == [X]
    text_fields = {t.get("name"): t.get("value") for t in view.iter("Text")}
    assert text_fields == {"premise": "$premise"}


@pytest.mark.parametrize(("protocol", "fields"), [("SINGLE", 3), ("MULTI", 9)])
def test_the_mturk_template_has_the_same_fields_and_the_premise(
    store: Path, tmp_path: Path, protocol: str, fields: int
) -> None:
    create(store, protocol=protocol)
    out = export(store, "mturk", tmp_path / "package")

    template = (out / f"mturk-template.{protocol}.html").read_text(encoding="utf-8")

    names = [f'<crowd-input name="{name}"' for name in slots(ANSWERS[protocol])]
    assert all(name in template for name in names)
    assert template.count("<crowd-input ") == fields
    assert '<crowd-checkbox name="unusable" value="x">' in template
    assert "${premise}" in template and "${premise_id}" in template
    header = (out / "e0001.mturk-input.csv").read_text(encoding="utf-8").splitlines()[0]
    assert {"premise", "premise_id", "batch"} <= set(header.split(","))


# --- 2. making batches ---------------------------------------------------------------------


def test_every_batch_mixes_the_genres(mixed: Path) -> None:
    db = mixed

    create(db, batch_size=4, writers="w01,w02,w03")

    genres: dict[str, list[str]] = {}
    for batch, _, _, genre, _ in batch_layout(db):
        genres.setdefault(batch, []).append(genre)
    assert list(genres) == ["e0001", "e0002", "e0003"]
    assert all(sorted(g) == ["fiction", "fiction", "news", "news"] for g in genres.values())


def test_the_load_is_balanced_over_writers_and_runs(mixed: Path) -> None:
    db = mixed
    create(db, batch_size=2, genres=("news",), writers="w01,w02,w03")
    assert loads(db) == {"w01": 2, "w02": 2, "w03": 2}

    # w04 joins late: the next batches go to the writer with the fewest premises so far.
    create(db, batch_size=2, genres=("fiction",), writers="w01,w02,w03,w04")

    fiction = [row for row in batch_layout(db) if row[3] == "fiction"]
    assert [writer for _, writer, *_ in fiction][:2] == ["w04", "w04"]
    # Batches of 2 over 12 premises and 4 writers: no writer is a batch ahead of another.
    assert sorted(loads(db).values()) == [2, 2, 4, 4]


def test_max_per_writer_caps_a_writer_and_reports_the_rest(store: Path) -> None:
    report = create(store, batch_size=5, max_per_writer=2, writers="w01,w02")

    assert (sum(b.premises for b in report.batches), report.unassigned) == (4, 2)
    assert loads(store) == {"w01": 2, "w02": 2}
    # The cap holds over runs: the same writers get nothing more.
    again = create(store, max_per_writer=2, writers="w01,w02")
    assert (again.batches, again.unassigned) == ([], 2)


def test_a_second_create_continues_numbering_with_premises_no_batch_holds(mixed: Path) -> None:
    db = mixed
    create(db, batch_size=3, genres=("news",), writers="w01,w02")
    first = batch_layout(db)

    report = ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w03",
                "--batch-size", 4)  # fmt: skip

    layout = batch_layout(db)
    assert layout[: len(first)] == first
    later = layout[len(first) :]
    assert sorted({row[0] for row in later}) == ["e0003", "e0004"]
    # The stage's table of batches (every front end draws it): batch, writer, premises, genres.
    assert ["e0003", "w03", "4", "fiction 4"] in drawn_rows(report, "Batches")
    assert sorted(row[2] for row in later) == [f"fiction_{n:04d}" for n in range(1, 7)]
    assert len({row[2] for row in layout}) == len(layout) == 12


def test_nothing_left_to_batch_is_an_error(store: Path) -> None:
    create(store)
    refused(
        store,
        lambda corpus: corpus.elicit_create(protocol="SINGLE", annotators=("w02",)),
        "no premises",
        "waiting for writers",
    )


def test_the_same_seed_gives_the_same_batches(templates: dict[str, Path], tmp_path: Path) -> None:
    layouts = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        db = copy_store(templates["mixed"], tmp_path / name / "corpus.db")
        create(db, batch_size=4, seed=seed, writers="w01,w02,w03")
        layouts.append(batch_layout(db))

    assert layouts[0] == layouts[1]
    assert layouts[0] != layouts[2]


# --- 3. bad input: refused (the CLI's one Error: line), the store unchanged -----------------


@pytest.fixture
def labelstudio_batch(store: Path, tmp_path: Path) -> tuple[Path, Tasks, Path]:
    """A SINGLE batch of w01 exported for Label Studio, and the map of user 4 to w01."""
    create(store)
    batch_tasks = tasks(export(store, "labelstudio", tmp_path / "package"), "labelstudio")
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))
    return store, batch_tasks, users


def test_a_labelstudio_export_of_another_project_is_an_error(
    labelstudio_batch: tuple[Path, Tasks, Path], tmp_path: Path
) -> None:
    store, _, users = labelstudio_batch
    sentiment = [{"text": "I loved this film.", "id": 3}, {"text": "Dull.", "id": 4}]
    exported = tmp_path / "sentiment.json"
    exported.write_text(
        json.dumps(
            [
                {"id": 11 + i, "data": data, "annotations": [
                    {"id": 21 + i, "completed_by": 4, "was_cancelled": False, "result": [
                        {"value": {"choices": ["Positive"]}, "id": "a1", "from_name": "sentiment",
                         "to_name": "text", "type": "choices", "origin": "manual"}]}],
                 "drafts": [], "predictions": [], "meta": {}, "project": 3}
                for i, data in enumerate(sentiment)
            ]
        )
    )  # fmt: skip
    refused(
        store,
        lambda corpus: corpus.elicit_import(
            path=exported, format="labelstudio", annotator_map=users
        ),
        "sentiment.json",
        "task 11",
        "no premise_id and batch",
    )


def test_a_labelstudio_result_field_that_is_not_ours_is_an_error(
    labelstudio_batch: tuple[Path, Tasks, Path], tmp_path: Path
) -> None:
    store, batch_tasks, users = labelstudio_batch
    exported = labelstudio_export(
        tmp_path / "export.json", batch_tasks, answered_all(batch_tasks, SINGLE)
    )
    tasks_json = json.loads(exported.read_text(encoding="utf-8"))
    tasks_json[1]["annotations"][0]["result"][0]["from_name"] = "sentiment"
    exported.write_text(json.dumps(tasks_json), encoding="utf-8")

    refused(
        store,
        lambda corpus: corpus.elicit_import(
            path=exported, format="labelstudio", annotator_map=users
        ),
        "export.json",
        "task 102",
        "'sentiment'",
        "another project",
    )


def test_label_studio_json_min_is_an_error(
    labelstudio_batch: tuple[Path, Tasks, Path], tmp_path: Path
) -> None:
    store, batch_tasks, users = labelstudio_batch
    json_min = tmp_path / "min.json"
    json_min.write_text(json.dumps([t | {"entailment_1": "Hi."} for t in batch_tasks]))
    refused(
        store,
        lambda corpus: corpus.elicit_import(
            path=json_min, format="labelstudio", annotator_map=users
        ),
        "min.json",
        "full JSON export",
    )


@pytest.fixture
def mturk_batch(store: Path, tmp_path: Path) -> tuple[Path, Path, Tasks]:
    """A SINGLE batch of w01 exported for MTurk: the store, the input CSV, its tasks."""
    create(store)
    out = export(store, "mturk", tmp_path / "package")
    return store, out / "e0001.mturk-input.csv", tasks(out, "mturk")


def test_mturk_results_without_the_worker_column_are_an_error(
    mturk_batch: tuple[Path, Path, Tasks], tmp_path: Path
) -> None:
    store, input_csv, batch_tasks = mturk_batch
    results = mturk_results(
        tmp_path / "results.csv", input_csv, answered_all(batch_tasks, SINGLE), drop=("WorkerId",)
    )
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))
    refused(
        store,
        lambda corpus: corpus.elicit_import(path=results, format="mturk", annotator_map=workers),
        "results.csv, line 1",
        "missing column(s) WorkerId",
    )


@pytest.mark.parametrize("fmt", ["mturk", "labelstudio"])
def test_an_unknown_platform_worker_without_a_map_is_an_error(
    store: Path, tmp_path: Path, fmt: str
) -> None:
    create(store)
    out = export(store, fmt, tmp_path / "package")
    batch_tasks = tasks(out, fmt)
    answers = answered_all(batch_tasks, SINGLE)
    if fmt == "mturk":
        results = mturk_results(tmp_path / "results.csv", out / "e0001.mturk-input.csv", answers)
        worker = "'A1B2C3D4E5'"
    else:
        results = labelstudio_export(tmp_path / "results.json", batch_tasks, answers)
        worker = "'4'"
    refused(
        store,
        lambda corpus: corpus.elicit_import(path=results, format=fmt),
        f"{fmt} worker {worker}",
        "--annotator-map",
    )
    assert query(store, "SELECT count(*) FROM annotator_aliases") == [(0,)]


def test_answers_for_a_batch_the_store_lacks_are_an_error(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, _ = two_batches
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [jsonl_answer(first[0], SINGLE), jsonl_answer(first[1], SINGLE, batch="e0099")],
    )
    refused(
        store,
        lambda corpus: corpus.elicit_import(path=answers, format="jsonl"),
        "answers.jsonl, line 2",
        "batch 'e0099'",
        "another store",
    )


def test_exporting_a_batch_the_store_lacks_is_an_error(store: Path, tmp_path: Path) -> None:
    create(store)
    refused(
        store,
        lambda corpus: corpus.elicit_export(
            batches=("e0001", "e0099"), format="jsonl", out=tmp_path / "package"
        ),
        "no elicitation batch e0099",
    )
    assert not (tmp_path / "package").exists()


def test_a_negator_file_with_a_bad_line_is_an_error(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, _ = two_batches
    answers = write_jsonl(tmp_path / "answers.jsonl", [jsonl_answer(t, SINGLE) for t in first])
    negators = tmp_path / "negators.txt"
    negators.write_text("# more negators\nhardly\nnot at all?\n", encoding="utf-8")
    refused(
        store,
        lambda corpus: corpus.elicit_import(path=answers, format="jsonl", negators=(negators,)),
        "negators.txt, line 3",
        "'not at all?'",
    )


def test_two_different_answers_for_one_premise_in_a_file_are_an_error(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, _ = two_batches
    other = {**SINGLE, "neutral": ["It rained later."]}
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [jsonl_answer(first[0], SINGLE), jsonl_answer(first[1], SINGLE),
         jsonl_answer(first[0], other)],
    )  # fmt: skip
    message = refused(
        store,
        lambda corpus: corpus.elicit_import(path=answers, format="jsonl"),
        f"{answers}, line 3",
        f"different answer for {first[0]['premise_id']}",
        "line 1",
    )
    assert message.count("answers.jsonl") == 1, message


def test_a_different_answer_to_a_premise_answered_before_is_an_error(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, _ = two_batches
    import_answers(
        store, write_jsonl(tmp_path / "first.jsonl", [jsonl_answer(t, SINGLE) for t in first])
    )
    changed = {**SINGLE, "contradiction": ["It never happened."]}
    answers = write_jsonl(tmp_path / "second.jsonl", [jsonl_answer(first[2], changed)])
    line = fails(store, "elicit", "import", answers, "--format", "jsonl",
                 says=(f"Error: {answers}, line 1: {first[2]['premise_id']}", "already answered",
                       "keeps the first answer"))  # fmt: skip
    assert line.count("second.jsonl") == 1, line


# --- 4. reported violations --------------------------------------------------------------


def test_answers_for_another_writers_batch_are_reported_not_paired(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, second = two_batches
    intruder = second[0]["writer"]
    answers = write_jsonl(
        tmp_path / "answers.jsonl", [jsonl_answer(t, SINGLE, writer=intruder) for t in first]
    )

    report = import_answers(store, answers)

    assert (report.answers, report.dropped, report.pairs_added) == (3, {}, 0)
    assert [rule.rule for rule in report.rules] == ["other_writer"]
    assert stored_pairs(store) == set()
    assert violations(store) == [
        ("other_writer", t["premise_id"], None, 0, intruder, "e0001") for t in first
    ]
    assert query(store, "SELECT DISTINCT status FROM assignments") == [("open",)]


def test_an_answer_for_a_premise_not_in_the_batch_is_reported(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, second = two_batches
    stray = second[0]["premise_id"]
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [jsonl_answer(t, SINGLE) for t in first]
        + [jsonl_answer(first[0], SINGLE, premise_id=stray)],
    )

    report = import_answers(store, answers)

    assert report.pairs_added == 9
    assert [rule.rule for rule in report.rules] == ["not_in_batch"]
    assert_round_trip(store, first, "SINGLE")
    writer = first[0]["writer"]
    assert violations(store) == [("not_in_batch", stray, None, 0, writer, "e0001")]
    (detail,) = query(store, "SELECT detail FROM violations")[0]
    assert detail == f"{stray} is not in batch e0001"


@pytest.mark.parametrize(("mode", "kept"), [("flag", 1), ("reject", 0)])
def test_on_violation_decides_whether_a_pair_that_breaks_a_rule_is_kept(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path, mode: str, kept: int
) -> None:
    store, first, _ = two_batches
    copied = first[0]
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [jsonl_answer(copied, {**SINGLE, "entailment": [copied["premise"]]})]
        + [jsonl_answer(t, SINGLE) for t in first[1:]],
    )

    report = import_answers(store, answers, on_violation=mode)

    bad = f"{copied['premise_id']}-e1"
    assert (report.pairs_added, report.pairs_rejected) == (8 + kept, 1 - kept)
    assert (bad in {pair[0] for pair in stored_pairs(store)}) is bool(kept)
    assert f"{copied['premise_id']}-n1" in {pair[0] for pair in stored_pairs(store)}
    assert violations(store) == [
        ("copy", copied["premise_id"], bad, kept, copied["writer"], "e0001")
    ]


# --- 5. importing the same answers again -------------------------------------------------


def test_importing_the_same_answers_twice_adds_nothing_the_second_time(
    two_batches: tuple[Path, Tasks, Tasks], tmp_path: Path
) -> None:
    store, first, second = two_batches
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [jsonl_answer(first[0], {**SINGLE, "entailment": [first[0]["premise"]]})]
        + [jsonl_answer(t, SINGLE) for t in first[1:]]
        + [jsonl_answer(second[0], SINGLE, writer=first[0]["writer"])],
    )
    import_answers(store, answers)
    before = table_counts(store)
    assert before["violations"] == 2

    report = import_answers(store, answers)

    added, rejected, marked_x = report.pairs_added, report.pairs_rejected, report.unusable
    assert (added, rejected, marked_x, report.unchanged, report.violations_added) == (0, 0, 0, 3, 0)
    after = table_counts(store)
    assert without_runs(after) == without_runs(before)
    assert after["runs"] == before["runs"] + 1


def test_a_platform_export_downloaded_again_adds_nothing(
    labelstudio_batch: tuple[Path, Tasks, Path], tmp_path: Path
) -> None:
    store, batch_tasks, users = labelstudio_batch
    exported = labelstudio_export(
        tmp_path / "project-7-at-2024-05-02-09-20-5c3e1a2b.json",
        batch_tasks,
        answered_all(batch_tasks, SINGLE),
    )
    import_answers(store, exported, "labelstudio", annotator_map=users)
    before = table_counts(store)
    again = shutil.copy(exported, tmp_path / "project-7-at-2024-05-03-17-45-9d8e7f6a.json")

    report = import_answers(store, again, "labelstudio")

    assert (report.unchanged, report.violations_added) == (6, 0)
    assert without_runs(table_counts(store)) == without_runs(before)


def test_a_violation_in_an_export_downloaded_again_is_stored_once(
    labelstudio_batch: tuple[Path, Tasks, Path], tmp_path: Path
) -> None:
    store, batch_tasks, _ = labelstudio_batch
    exported = labelstudio_export(
        tmp_path / "project-7-at-2024-05-02-09-20-5c3e1a2b.json",
        batch_tasks,
        answered_all(batch_tasks, SINGLE),
    )
    # User 5 (w02) also answered the first task of w01's batch.
    project = json.loads(exported.read_text(encoding="utf-8"))
    intruder = project[0]["annotations"][0] | {"id": 2001, "completed_by": 5}
    project[0]["annotations"].append(intruder)
    exported.write_text(json.dumps(project), encoding="utf-8")
    users = annotator_map(
        tmp_path / "users.csv", ("labelstudio", "4", "w01"), ("labelstudio", "5", "w02")
    )
    import_answers(store, exported, "labelstudio", annotator_map=users)
    assert [v[0] for v in violations(store)] == ["other_writer"]
    before = table_counts(store)
    again = shutil.copy(exported, tmp_path / "project-7-at-2024-05-03-17-45-9d8e7f6a.json")

    report = import_answers(store, again, "labelstudio")

    assert report.violations_added == 0
    assert without_runs(table_counts(store)) == without_runs(before)
