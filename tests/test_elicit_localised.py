"""Elicitation answers written with the labels' names people see.

A store made with the ocnli preset names its labels in Chinese (`[labels.names]`: 蕴含,
中立, 矛盾). Its `elicit export` packages show those names (the csv sheet's column heads, the
Label Studio and MTurk forms' headings), and whatever an answer file names a hypothesis by,
the label or its name, `elicit import` reads it as the label, as `relabel import` reads a
name typed back (`label_names.canonical_label`):

- csv: the exported heads `contradiction_1 (矛盾 1)`, columns named `矛盾_1`, or a long
  sheet's label cells `矛盾`;
- jsonl: hypotheses keyed `"矛盾": [...]`;
- Label Studio: results `from_name` `contradiction_1` or `矛盾_1` (a config localised by hand);
- MTurk: `Answer.矛盾_1` columns, or those keys in crowd-form's `Answer.taskAnswers`;
- `--format table`: columns `矛盾_1`, or `矛盾` holding a list.

A name no label has (`蕴涵`, a misspelt `蕴含`) is refused (the CLI's one `Error:` line)
naming the file and the labels with their names, and the store is left as it was.

The stages run through the Python API (the CLI's `elicit import` is tested in
test_elicit_platforms).
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import copy_store, query, refused, write_jsonl
from elicitation_data import annotator_map
from test_elicit_platforms import (
    create,
    export,
    import_answers,
    labelstudio_export,
    mturk_results,
    premise_corpus,
    tasks,
)
from test_generic_reader import write_table

NAMES = {"entailment": "蕴含", "neutral": "中立", "contradiction": "矛盾"}
PREMISES = [
    "市政府周一批准了公园建设的新预算。",
    "昨夜大雨淹没了老城区的几条街道。",
    "博物馆明年春天将开放一个现代雕塑展厅。",
    "本地果农说今年秋天苹果大丰收。",
]
ANSWER = {
    "entailment": ["有人做出了一个决定。", "某件事发生了。", "有消息传出。"],
    "neutral": ["大家都很高兴。", "这花了很多钱。", "记者很早就到了。"],
    "contradiction": ["什么都没有发生。", "一切照旧。", "情况完全相反。"],
}
"""One writer's answer to every premise: three hypotheses a label (the preset's protocol,
MULTI_CONSTRAINT), each text written for one label only."""

MISSPELT = "蕴涵"
"""Not 蕴含: a name no label has."""
KNOWN = "entailment (蕴含), neutral (中立), contradiction (矛盾)"
"""How an error names the labels a hypothesis may be written for."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Chinese store with the ocnli preset: four news premises in batch e0001 of w01."""
    db = tmp_path_factory.mktemp("localised") / "corpus.db"
    premise_corpus(db, {"news": PREMISES}, preset="ocnli")
    create(db, protocol="MULTI_CONSTRAINT")
    return db


@pytest.fixture
def store(template: Path, tmp_path: Path) -> Path:
    return copy_store(template, tmp_path / "store" / "corpus.db")


def assert_labelled_as_written(db: Path) -> None:
    """Every premise made nine pairs, each with the label its hypothesis was written for,
    in its ID (`-c1`) and as its author's vote."""
    written = {text: label for label, texts in ANSWER.items() for text in texts}
    pairs = query(
        db,
        "SELECT p.id, p.hypothesis, p.author_label, v.label FROM pairs p "
        "JOIN votes v ON v.pair_pk = p.pk AND v.position = 0",
    )
    assert len(pairs) == len(PREMISES) * 9
    for pair_id, hypothesis, label, vote in pairs:
        assert (label, vote) == (written[hypothesis], written[hypothesis]), pair_id
        assert pair_id.rsplit("-", 1)[1][0] == label[0], pair_id


def by_name(field: str) -> str:
    """A hypothesis field named by its label's name: `contradiction_1` -> `矛盾_1`."""
    label, _, k = field.partition("_")
    return f"{NAMES[label]}_{k}"


# --- csv -----------------------------------------------------------------------------------


def sheet(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def write_sheet(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_csv_sheet_heads_its_answer_columns_with_the_names(store: Path, tmp_path: Path) -> None:
    header, _ = sheet(export(store, "csv", tmp_path / "package") / "e0001.csv")
    assert header[-9:] == [
        f"{label}_{k} ({NAMES[label]} {k})" for label in NAMES for k in (1, 2, 3)
    ]


@pytest.mark.parametrize("columns", ["as exported", "named by the names"])
def test_a_csv_sheet_filled_in_under_the_names_gives_the_labels(
    store: Path, tmp_path: Path, columns: str
) -> None:
    header, rows = sheet(export(store, "csv", tmp_path / "package") / "e0001.csv")
    slot_of = {name: name.split(" ")[0] for name in header if " (" in name}
    for row in rows:
        for name, slot in slot_of.items():
            label, _, k = slot.partition("_")
            row[name] = ANSWER[label][int(k) - 1]
    if columns == "named by the names":
        renamed = {name: by_name(slot) for name, slot in slot_of.items()}
        header = [renamed.get(name, name) for name in header]
        rows = [{renamed.get(name, name): value for name, value in row.items()} for row in rows]
    filled = write_sheet(tmp_path / "e0001-done.csv", header, rows)

    import_answers(store, filled, "csv")

    assert_labelled_as_written(store)


def test_a_long_csv_sheet_may_give_the_names_as_labels(store: Path, tmp_path: Path) -> None:
    rows = [
        {"batch": "e0001", "writer": "w01", "premise": premise, "label": NAMES[label],
         "hypothesis": text}
        for premise in PREMISES for label, texts in ANSWER.items() for text in texts
    ]  # fmt: skip
    path = write_sheet(tmp_path / "long.csv", list(rows[0]), rows)

    import_answers(store, path, "csv")

    assert_labelled_as_written(store)


# --- jsonl ---------------------------------------------------------------------------------


def test_jsonl_answers_may_key_the_hypotheses_by_the_names(store: Path, tmp_path: Path) -> None:
    answers = [
        {**task, **{NAMES[label]: texts for label, texts in ANSWER.items()}}
        for task in tasks(export(store, "jsonl", tmp_path / "package"), "jsonl")
    ]
    path = write_jsonl(tmp_path / "answers.jsonl", answers)

    import_answers(store, path)

    assert_labelled_as_written(store)


# --- Label Studio --------------------------------------------------------------------------


@pytest.mark.parametrize("fields", ["as the config names them", "named by the names"])
def test_a_labelstudio_export_gives_the_labels(store: Path, tmp_path: Path, fields: str) -> None:
    out = export(store, "labelstudio", tmp_path / "package")
    config = ET.parse(out / "labelstudio-config.MULTI_CONSTRAINT.xml").getroot()
    headers = [h.get("value") for h in config.iter("Header")]
    assert headers[-3:] == list(NAMES.values())
    batch_tasks = tasks(out, "labelstudio")
    path = labelstudio_export(
        tmp_path / "export.json", batch_tasks, {t["premise_id"]: ANSWER for t in batch_tasks}
    )
    if fields == "named by the names":
        rename_results(path, by_name)
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))

    import_answers(store, path, "labelstudio", annotator_map=users)

    assert_labelled_as_written(store)


def rename_results(path: Path, rename: Any) -> None:
    """Label Studio's export with each result's `from_name` renamed."""
    exported = json.loads(path.read_text(encoding="utf-8"))
    for task in exported:
        for result in task["annotations"][0]["result"]:
            result["from_name"] = rename(result["from_name"])
    path.write_text(json.dumps(exported, ensure_ascii=False), encoding="utf-8")


# --- MTurk ---------------------------------------------------------------------------------


def rename_answer_columns(path: Path, rename: Any) -> None:
    """MTurk's results with each `Answer.<label>_<k>` column renamed."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    rows[0] = [
        f"Answer.{rename(name.removeprefix('Answer.'))}"
        if name.startswith("Answer.") and name != "Answer.unusable" else name
        for name in rows[0]
    ]  # fmt: skip
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, quoting=csv.QUOTE_ALL).writerows(rows)


def rename_task_answers(path: Path, rename: Any) -> None:
    """MTurk's results with the keys of crowd-form's `Answer.taskAnswers` renamed."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    column = rows[0].index("Answer.taskAnswers")
    for row in rows[1:]:
        form = json.loads(row[column])[0]
        row[column] = json.dumps(
            [{(rename(k) if k != "unusable" else k): v for k, v in form.items()}],
            ensure_ascii=False,
        )
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, quoting=csv.QUOTE_ALL).writerows(rows)


@pytest.mark.parametrize(
    "form", ["Answer columns", "Answer columns named by the names", "taskAnswers by the names"]
)
def test_mturk_results_give_the_labels(store: Path, tmp_path: Path, form: str) -> None:
    out = export(store, "mturk", tmp_path / "package")
    template = (out / "mturk-template.MULTI_CONSTRAINT.html").read_text(encoding="utf-8")
    assert all(f"<h3>{name}</h3>" in template for name in NAMES.values())
    batch_tasks = tasks(out, "mturk")
    path = mturk_results(
        tmp_path / "results.csv",
        out / "e0001.mturk-input.csv",
        {t["premise_id"]: ANSWER for t in batch_tasks},
        crowd_form=form.startswith("taskAnswers"),
    )
    if form == "Answer columns named by the names":
        rename_answer_columns(path, by_name)
    elif form == "taskAnswers by the names":
        rename_task_answers(path, by_name)
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))

    import_answers(store, path, "mturk", annotator_map=workers)

    assert_labelled_as_written(store)


# --- --format table ------------------------------------------------------------------------


@pytest.mark.parametrize("columns", ["one a column", "a list a name"])
def test_a_table_file_may_name_its_hypothesis_columns_by_the_names(
    store: Path, tmp_path: Path, columns: str
) -> None:
    rows: list[dict[str, Any]] = []
    for task in tasks(export(store, "jsonl", tmp_path / "package"), "jsonl"):
        row: dict[str, Any] = {"batch": task["batch"], "writer": task["writer"],
                               "premise_id": task["premise_id"]}  # fmt: skip
        for label, texts in ANSWER.items():
            if columns == "a list a name":
                row[NAMES[label]] = texts
            else:
                row |= {f"{NAMES[label]}_{k}": text for k, text in enumerate(texts, 1)}
        rows.append(row)
    path = write_table(tmp_path / "answers.jsonl", rows)

    import_answers(store, path, "table")

    assert_labelled_as_written(store)


def test_a_table_file_with_a_hypothesis_column_under_both_names_is_refused(
    store: Path, tmp_path: Path
) -> None:
    """`entailment_1` and `蕴含_1` are one field: as jsonl and MTurk, the table reader
    refuses it given twice rather than let the later column win."""
    rows: list[dict[str, Any]] = []
    for task in tasks(export(store, "jsonl", tmp_path / "package"), "jsonl"):
        row: dict[str, Any] = {"batch": task["batch"], "writer": task["writer"],
                               "premise_id": task["premise_id"]}  # fmt: skip
        for label, texts in ANSWER.items():
            row |= {f"{label}_{k}": text for k, text in enumerate(texts, 1)}
        row[by_name("entailment_1")] = ANSWER["neutral"][0]  # a second text for one field
        rows.append(row)
    path = write_table(tmp_path / "answers.csv", rows)

    refused(
        store,
        lambda corpus: import_answers(corpus.path, path, "table"),
        "answers.csv", "'entailment_1'", "'蕴含_1'", "given twice",
    )  # fmt: skip
    # Choosing the column with --columns says which is meant.
    import_answers(store, path, "table", columns={"entailment_1": "entailment_1"})
    assert_labelled_as_written(store)


# --- a name no label has -------------------------------------------------------------------


def misspelt(field: str) -> str:
    """`entailment_1` as `蕴涵_1` (a misspelt name), any other label's field by its name."""
    named = by_name(field)
    return named.replace(NAMES["entailment"], MISSPELT)


Written = tuple[Path, dict[str, Any]]
"""An answers file and the settings of its `elicit import` (`format`, `annotator_map`)."""


def misspelt_sheet(store: Path, tmp_path: Path) -> Written:
    header, rows = sheet(export(store, "csv", tmp_path / "package") / "e0001.csv")
    renamed = {name: misspelt(name.split(" ")[0]) for name in header if " (" in name}
    header = [renamed.get(name, name) for name in header]
    rows = [{renamed.get(name, name): value for name, value in row.items()} for row in rows]
    return write_sheet(tmp_path / "e0001-done.csv", header, rows), {"format": "csv"}


def misspelt_long_sheet(store: Path, tmp_path: Path) -> Written:
    rows = [{"batch": "e0001", "writer": "w01", "premise": PREMISES[0], "label": MISSPELT,
             "hypothesis": ANSWER["entailment"][0]}]  # fmt: skip
    return write_sheet(tmp_path / "long.csv", list(rows[0]), rows), {"format": "csv"}


def misspelt_jsonl(store: Path, tmp_path: Path) -> Written:
    answers = [
        {**task, MISSPELT: ANSWER["entailment"]}
        for task in tasks(export(store, "jsonl", tmp_path / "package"), "jsonl")
    ]
    return write_jsonl(tmp_path / "answers.jsonl", answers), {"format": "jsonl"}


def misspelt_labelstudio(store: Path, tmp_path: Path) -> Written:
    batch_tasks = tasks(export(store, "labelstudio", tmp_path / "package"), "labelstudio")
    path = labelstudio_export(
        tmp_path / "export.json", batch_tasks, {t["premise_id"]: ANSWER for t in batch_tasks}
    )
    rename_results(path, misspelt)
    users = annotator_map(tmp_path / "users.csv", ("labelstudio", "4", "w01"))
    return path, {"format": "labelstudio", "annotator_map": users}


def misspelt_mturk(store: Path, tmp_path: Path) -> Written:
    out = export(store, "mturk", tmp_path / "package")
    batch_tasks = tasks(out, "mturk")
    path = mturk_results(
        tmp_path / "results.csv",
        out / "e0001.mturk-input.csv",
        {t["premise_id"]: ANSWER for t in batch_tasks},
        crowd_form=True,
    )
    rename_task_answers(path, misspelt)
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "A1B2C3D4E5", "w01"))
    return path, {"format": "mturk", "annotator_map": workers}


@pytest.mark.parametrize(
    ("written", "file", "says"),
    [
        (misspelt_sheet, "e0001-done.csv", "line 1: field '蕴涵_1' names no label"),
        (misspelt_long_sheet, "long.csv", "line 2: label '蕴涵' is not one of"),
        (misspelt_jsonl, "answers.jsonl", "line 1: field '蕴涵' names no label"),
        (misspelt_labelstudio, "export.json", "result field '蕴涵_1' names no label"),
        (misspelt_mturk, "results.csv", "line 2: field 'Answer.蕴涵_1' names no label"),
    ],
    ids=["csv", "long csv", "jsonl", "labelstudio", "mturk"],
)
def test_a_name_no_label_has_is_one_error_naming_the_labels_and_their_names(
    store: Path, tmp_path: Path, written: Any, file: str, says: str
) -> None:
    path, settings = written(store, tmp_path)
    refused(store, lambda corpus: corpus.elicit_import(path=path, **settings), file, says, KNOWN)
