"""What a user must be able to trust: a bad input file is refused with one message naming
the file (and the line or ID where it can) and what to do, never a traceback or a hang, and
the store is left as it was.

The stages are called through the Python API, whose `NlibuildError` holds the message the
CLI prints as its one `Error:` line; one test per command (import, ingest, elicit import,
relabel import, translate import, init, export) runs the CLI and checks that line itself."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_MNLI, assert_user_error, fails, refused, run_cli, write_jsonl

import nlibuild
from nlibuild.api import Corpus

FIELD_OVER_CSV_LIMIT = "x" * (csv.field_size_limit() + 1024)
"""A field longer than Python's csv module reads (128 KiB by default)."""


def first_mnli_record() -> dict[str, Any]:
    record: dict[str, Any] = json.loads(SAMPLE_MNLI.read_text("utf-8").splitlines()[0])
    return record


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# --- labels that are not strings or integers ---------------------------------------------------


@pytest.mark.parametrize("fmt", ["mnli", "snli"])
def test_a_released_corpus_gold_label_that_is_a_number_is_one_error(
    db: Path, tmp_path: Path, fmt: str
) -> None:
    # Already one Error line before this file: an integer is a label read with --label-order.
    path = write_jsonl(tmp_path / "corpus.jsonl", [{**first_mnli_record(), "gold_label": 1}])
    refused(db, lambda corpus: corpus.import_corpus(path=path, format=fmt),
            "corpus.jsonl", "'1'", "--label-order")  # fmt: skip


@pytest.mark.parametrize("fmt", ["mnli", "snli"])
@pytest.mark.parametrize(
    ("field", "value"),
    [("annotator_labels", [["e"]]), ("annotator_labels", [{"label": "e"}]), ("gold_label", ["e"])],
)
def test_a_released_corpus_label_that_is_a_list_is_one_error(
    db: Path, tmp_path: Path, fmt: str, field: str, value: object
) -> None:
    path = write_jsonl(tmp_path / "corpus.jsonl", [{**first_mnli_record(), field: value}])
    refused(db, lambda corpus: corpus.import_corpus(path=path, format=fmt),
            "corpus.jsonl, line 1", "a label must be a string or an integer")  # fmt: skip


@pytest.mark.parametrize(("field", "value"), [("labels", [["e"]]), ("gold_label", [1])])
def test_an_nlibuild_jsonl_label_that_is_a_list_is_one_error(
    db: Path, tmp_path: Path, field: str, value: object
) -> None:
    record = {"premise": "A man sleeps.", "hypothesis": "A man rests.", field: value}
    path = write_jsonl(tmp_path / "corpus.jsonl", [record])
    refused(db, lambda corpus: corpus.import_corpus(path=path, format="jsonl"),
            "corpus.jsonl, line 1", "a label must be a string or an integer")  # fmt: skip


@pytest.mark.parametrize("label", [1.5, [["e"]], {"e": 1}, True])
def test_a_relabel_jsonl_label_that_is_not_a_string_or_integer_is_one_error(
    sample_db: Path, tmp_path: Path, label: object
) -> None:
    # One Error line before this file too (but true passed as the label 1, and a list was
    # named "label.str"); now the line says what the label must be.
    votes = write_jsonl(tmp_path / "votes.jsonl",
                        [{"pair_id": "p1", "annotator": "v01", "label": label}])  # fmt: skip
    refused(sample_db, lambda corpus: corpus.relabel_import(path=votes, format="jsonl"),
            "votes.jsonl, line 1", "field label must be a label name",
            f"found {label!r}")  # fmt: skip


@pytest.mark.parametrize("hypothesis", [1, ["e"]])
def test_an_elicit_jsonl_hypothesis_that_is_not_text_is_one_error(
    db: Path, tmp_path: Path, hypothesis: object
) -> None:
    # Already one Error line before this file.
    answer = {"premise_id": "p1", "writer": "w01", "entailment": [hypothesis]}
    answers = write_jsonl(tmp_path / "answers.jsonl", [answer])
    refused(db, lambda corpus: corpus.elicit_import(path=answers, format="jsonl"),
            "answers.jsonl, line 1", "field entailment.0", "fix the line")  # fmt: skip


@pytest.mark.parametrize("choices", [1, [["entailment"]], [1]])
def test_a_labelstudio_choice_that_is_not_a_label_name_is_one_error(
    sample_db: Path, tmp_path: Path, choices: object
) -> None:
    result = {"from_name": "label", "type": "choices", "value": {"choices": choices}}
    task = {"id": 1, "data": {"batch": "r0001", "pair_id": "p1"},
            "annotations": [{"id": 1, "result": [result]}]}  # fmt: skip
    export = tmp_path / "export.json"
    export.write_text(json.dumps([task]), "utf-8")
    refused(sample_db, lambda corpus: corpus.relabel_import(path=export, format="labelstudio"),
            "export.json", "task 1, annotation 1", "choices must be a list of label names",
            f"found {choices!r}")  # fmt: skip


@pytest.mark.parametrize("label", [1, [["e"]]])
def test_an_mturk_task_answer_label_that_is_not_a_name_is_one_error(
    sample_db: Path, tmp_path: Path, label: object
) -> None:
    results = write_csv(
        tmp_path / "results.csv",
        ["AssignmentId", "WorkerId", "AssignmentStatus", "Input.batch", "Input.pair_id",
         "Answer.taskAnswers"],
        [["a1", "W1", "Submitted", "r0001", "p1", json.dumps([{"label": label}])]],
    )  # fmt: skip
    refused(sample_db, lambda corpus: corpus.relabel_import(path=results, format="mturk"),
            "results.csv, line 2", f"the answer's label is {label!r}")  # fmt: skip


# --- texts holding NUL ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "text", "which"),
    [("sentence1", "\u0000A man sleeps.", "premise"), ("sentence2", "\u0000\u0000", "hypothesis"),
     ("sentence2", "A man\u0000 rests.", "hypothesis")],
)  # fmt: skip
def test_a_mnli_text_holding_nul_is_one_error(
    db: Path, tmp_path: Path, field: str, text: str, which: str
) -> None:
    record = {**first_mnli_record(), field: text}
    path = write_jsonl(tmp_path / "corpus.jsonl", [record])
    refused(db, lambda corpus: corpus.import_corpus(path=path, format="mnli"),
            "corpus.jsonl, line 1", f"the {which} holds a NUL")  # fmt: skip


def test_an_nlibuild_jsonl_premise_of_nuls_is_one_error(db: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "corpus.jsonl",
                       [{"premise": "\u0000", "hypothesis": "A man rests."}])  # fmt: skip
    refused(db, lambda corpus: corpus.import_corpus(path=path, format="jsonl"),
            "corpus.jsonl, line 1", "the premise holds a NUL")  # fmt: skip


def test_an_xnli_text_starting_with_nul_is_one_error(db: Path, tmp_path: Path) -> None:
    """`import`'s refusal as the CLI prints it: one Error line, the store unchanged."""
    path = tmp_path / "corpus.tsv"
    path.write_text("gold_label\tsentence1\tsentence2\nentailment\t\u0000A man.\tA man.\n", "utf-8")
    fails(db, "import", path, "--format", "xnli",
          says=("corpus.tsv, line 2", "the premise holds a NUL"))  # fmt: skip


def test_an_ingested_txt_line_holding_nul_is_one_error(db: Path, tmp_path: Path) -> None:
    """`ingest`'s refusal as the CLI prints it: one Error line, the store unchanged."""
    source = tmp_path / "source.txt"
    source.write_text("A first sentence here.\n\u0000A second sentence here.\n", "utf-8")
    fails(db, "ingest", source, "--genre", "news",
          says=("source.txt, line 2", "holds a NUL"))  # fmt: skip


def test_an_ingested_jsonl_text_holding_nul_is_one_error(db: Path, tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "source.jsonl",
                         [{"text": "A first sentence."}, {"text": "\u0000\u0000"}])  # fmt: skip
    refused(db, lambda corpus: corpus.ingest(paths=[source], genre="news", format="jsonl",
                                             field="text"),
            "source.jsonl, line 2", "field 'text' holds a NUL")  # fmt: skip


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])  # the quick reader, the careful one
def test_a_translation_holding_nul_is_one_error(
    sample_db: Path, tmp_path: Path, line_end: str
) -> None:
    units = nlibuild.open(sample_db).translate_export(lang="fr", out=tmp_path / "units.tsv").out
    header, first, *_ = units.read_text("utf-8").splitlines()
    row = [*first.split("\t")[:-1], "\u0000Bonjour."]
    units.write_text(header + line_end + "\t".join(row) + line_end, "utf-8")
    refused(sample_db, lambda corpus: corpus.translate_import(path=units, lang="fr", partial=True),
            "units.tsv, line 2", f"the translation of {row[0]} holds a NUL")  # fmt: skip


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_an_elicited_hypothesis_holding_nul_is_one_error(
    db: Path, tmp_path: Path, fmt: str
) -> None:
    if fmt == "jsonl":
        answer = {"premise_id": "p1", "writer": "w01", "neutral": ["\u0000"]}
        answers = write_jsonl(tmp_path / "answers.jsonl", [answer])
    else:
        answers = write_csv(tmp_path / "answers.csv", ["premise_id", "writer", "neutral_1"],
                            [["p1", "w01", "\u0000A man."]])  # fmt: skip
    refused(db, lambda corpus: corpus.elicit_import(path=answers, format=fmt),
            f"{answers.name}, line", "this answer holds a NUL")  # fmt: skip


# --- csv fields over the csv module's limit ----------------------------------------------------


def test_an_elicit_csv_field_over_the_csv_limit_is_one_error(db: Path, tmp_path: Path) -> None:
    sheet = write_csv(tmp_path / "answers.csv", ["batch", "premise_id", "entailment_1"],
                      [["e0001", "p1", FIELD_OVER_CSV_LIMIT]])  # fmt: skip
    refused(db, lambda corpus: corpus.elicit_import(path=sheet, format="csv"),
            "answers.csv, line 2", "field larger than field limit", "quote")  # fmt: skip


def test_a_relabel_csv_field_over_the_csv_limit_is_one_error(
    sample_db: Path, tmp_path: Path
) -> None:
    sheet = write_csv(tmp_path / "votes.csv", ["batch", "pair_id", "annotator", "label"],
                      [["r0001", "p1", "v01", FIELD_OVER_CSV_LIMIT]])  # fmt: skip
    refused(sample_db, lambda corpus: corpus.relabel_import(path=sheet, format="csv"),
            "votes.csv, line 2", "field larger than field limit")  # fmt: skip


def test_a_translation_tsv_field_over_the_csv_limit_is_one_error(
    sample_db: Path, tmp_path: Path
) -> None:
    """`translate import`'s refusal as the CLI prints it: one Error line, the store
    unchanged."""
    units = nlibuild.open(sample_db).translate_export(lang="fr", out=tmp_path / "units.tsv").out
    header, first, *_ = units.read_text("utf-8").splitlines()
    # \r\n line ends send the file to the careful reader, which is the one that uses csv.
    row = [*first.split("\t")[:-1], FIELD_OVER_CSV_LIMIT]
    units.write_text(f"{header}\r\n" + "\t".join(row) + "\r\n", "utf-8")
    fails(sample_db, "translate", "import", units, "--lang", "fr", "--partial",
          says=("units.tsv, line 2", "field larger than field limit"))  # fmt: skip


# --- malformed Label Studio exports (already one Error line before this file) ---------------


@pytest.mark.parametrize(
    ("text", "says"),
    [("{not json", "not JSON"), ('{"tasks": []}', "expected a list of tasks"),
     ('[{"id": 1, "data": {"pair_id": "p1"}}]', "task 1 has no data and annotations"),
     ('["a task"]', "task 1 has no data and annotations")],
)  # fmt: skip
@pytest.mark.parametrize("stage", ["elicit", "relabel"])
def test_a_malformed_labelstudio_export_is_one_error(
    sample_db: Path, tmp_path: Path, text: str, says: str, stage: str
) -> None:
    export = tmp_path / "export.json"
    export.write_text(text, "utf-8")

    def import_export(corpus: Corpus) -> object:
        take = corpus.elicit_import if stage == "elicit" else corpus.relabel_import
        return take(path=export, format="labelstudio")

    refused(sample_db, import_export, "export.json", says)


# --- XNLI headers missing a twin column --------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "row", "missing"),
    [("gold_label\tsentence1", "entailment\tA man.", "sentence2"),
     ("gold_label\tsentence1_fr\tsentence1_en\tsentence2_en",
      "entailment\tUn homme.\tA man.\tA man.", "sentence2_fr"),
     ("gold_label\tsentence2_de\tsentence1_en\tsentence2_en",
      "entailment\tEin Mann.\tA man.\tA man.", "sentence1_de")],
)  # fmt: skip
def test_an_xnli_header_missing_a_twin_column_is_one_error(
    db: Path, tmp_path: Path, header: str, row: str, missing: str
) -> None:
    path = tmp_path / "corpus.tsv"
    path.write_text(f"{header}\n{row}\n", "utf-8")
    refused(db, lambda corpus: corpus.import_corpus(path=path, format="xnli"),
            "corpus.tsv, line 1", f"no {missing} column")  # fmt: skip


# --- MTurk results naming the label twice ------------------------------------------------------


def test_mturk_results_with_label_and_label_dot_columns_are_one_error(
    sample_db: Path, tmp_path: Path
) -> None:
    """`relabel import`'s refusal as the CLI prints it: one Error line, the store unchanged."""
    results = write_csv(
        tmp_path / "results.csv",
        ["AssignmentId", "WorkerId", "AssignmentStatus", "Input.batch", "Input.pair_id",
         "Answer.label", "Answer.label.entailment"],
        [["a1", "W1", "Submitted", "r0001", "p1", "entailment", "true"]],
    )  # fmt: skip
    fails(sample_db, "relabel", "import", results, "--format", "mturk",
          says=("results.csv, line 1", "Answer.label", "Answer.label.entailment"))  # fmt: skip


# --- option files that are missing, not UTF-8, or not regular files ----------------------------


def elicit_answers(tmp_path: Path) -> Path:
    answer = {"premise_id": "p1", "writer": "w01", "entailment": ["A man."]}
    return write_jsonl(tmp_path / "answers.jsonl", [answer])


def test_a_missing_negator_file_is_one_error(db: Path, tmp_path: Path) -> None:
    """`elicit import`'s refusal as the CLI prints it: one Error line, the store unchanged."""
    missing = tmp_path / "negators.txt"
    fails(db, "elicit", "import", elicit_answers(tmp_path), "--negators", missing,
          says=(str(missing), "no such negator file"))  # fmt: skip


def test_a_preset_that_is_not_utf8_is_one_error(tmp_path: Path) -> None:
    """`init`'s refusal as the CLI prints it: one Error line, no store made."""
    preset = tmp_path / "latin1.toml"
    preset.write_bytes('[import]\nformat = "mnli" # café\n'.encode("latin-1"))
    db = tmp_path / "store.db"
    assert_user_error(run_cli("--db", db, "init", "--preset", preset),
                      "latin1.toml, line 2", "not valid UTF-8", "byte 0xe9")  # fmt: skip
    assert not db.exists()


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Fail the test after 30 s instead of hanging the suite (opening a FIFO blocks)."""

    def give_up(signum: int, frame: object) -> None:
        raise TimeoutError("the CLI hung: it opened a FIFO it should have refused")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.usefixtures("no_hang")
def test_an_annotator_map_that_is_a_fifo_is_refused_unopened(db: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "map.csv"
    os.mkfifo(fifo)  # opening it for reading would block until a writer came
    answers = elicit_answers(tmp_path)
    refused(db, lambda corpus: corpus.elicit_import(path=answers, format="jsonl",
                                                    annotator_map=fifo),
            str(fifo), "annotator map is a FIFO", "not a regular file")  # fmt: skip


@pytest.mark.usefixtures("no_hang")
def test_an_answer_file_that_is_a_directory_or_fifo_is_refused(db: Path, tmp_path: Path) -> None:
    refused(db, lambda corpus: corpus.elicit_import(path=tmp_path, format="jsonl"),
            str(tmp_path), "is a directory")  # fmt: skip
    fifo = tmp_path / "answers.jsonl"
    os.mkfifo(fifo)
    refused(db, lambda corpus: corpus.elicit_import(path=fifo, format="jsonl"),
            str(fifo), "is a FIFO")  # fmt: skip


# --- a store that cannot be written ------------------------------------------------------------


def test_export_from_a_read_only_store_is_one_error(sample_db: Path, tmp_path: Path) -> None:
    """`export`'s refusal as the CLI prints it: one Error line."""
    sqlite3.connect(sample_db).execute("PRAGMA wal_checkpoint(TRUNCATE)").connection.close()
    sample_db.chmod(0o444)
    if os.access(sample_db, os.W_OK):
        pytest.skip("running as root: chmod 444 leaves the store writable")
    out = tmp_path / "out.jsonl"
    fails(sample_db, "export", "--format", "jsonl", "--out", out,
          says=(str(sample_db), "read-only"))  # fmt: skip


def import_fifo(corpus: Corpus, fifo: Path) -> object:
    return corpus.import_corpus(path=fifo, format="mnli")


def ingest_fifo(corpus: Corpus, fifo: Path) -> object:
    return corpus.ingest(paths=[fifo], genre="news", format="txt")


def translate_fifo(corpus: Corpus, fifo: Path) -> object:
    return corpus.translate_import(path=fifo, lang="fr", format="tsv")


@pytest.mark.usefixtures("no_hang")
@pytest.mark.parametrize("read_fifo", [import_fifo, ingest_fifo, translate_fifo])
def test_every_input_that_is_a_fifo_is_refused_unopened(
    sample_db: Path, tmp_path: Path, read_fifo: Callable[[Corpus, Path], object]
) -> None:
    # Before, these said "no such file" of a FIFO that was there.
    fifo = tmp_path / "input.tsv"
    os.mkfifo(fifo)
    refused(sample_db, lambda corpus: read_fifo(corpus, fifo),
            str(fifo), "is a FIFO (named pipe), not a regular file")  # fmt: skip
