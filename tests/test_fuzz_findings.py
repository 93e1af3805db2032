"""What the fuzz suites (tests/test_fuzz_readers.py, test_fuzz_stores.py) found, one
regression test each, with the smallest failing input hypothesis gave. The promise each
guards: one `Error:` line naming the file and line (or ID), or the store, exit 1, the store
as it was (README.md, "Safety")."""

from __future__ import annotations

import contextlib
import csv
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import assert_user_error, fails, ok, run_cli
from fuzz_checks import store_digest


@pytest.mark.parametrize(
    ("command", "option"),
    [(("elicit", "create", "--protocol", "SINGLE"), "--annotators"),
     (("relabel", "create", "--fraction", "0.5"), "--annotators")],
)  # fmt: skip
@pytest.mark.parametrize(
    ("ids", "says"),
    [(b"\x00\nw02\n", ("line 1", "ID '\\x00'", "use letters, digits")),
     (b"w01\nw02\nw01\n", ("line 3", "ID 'w01' is named twice (line 1 too)"))],
)  # fmt: skip
def test_a_bad_id_in_an_id_list_file_names_the_file_and_line(
    sample_db: Path,
    tmp_path: Path,
    command: tuple[str, ...],
    option: str,
    ids: bytes,
    says: tuple[str, ...],
) -> None:
    # Found: the line named only the option ("option writers: Value error, writer ID
    # '\x00' ..."), not the file the ID came from.
    listed = tmp_path / "people.txt"
    listed.write_bytes(ids)
    fails(sample_db, *command, option, listed, says=(f"{listed}, {says[0]}", *says[1:]))


@pytest.mark.parametrize(
    ("name", "content", "options", "line"),
    [("texts.jsonl",
      '{"text": "It rained.", "genre": "news"}\n{"text": "It snowed.", "genre": "\\u001b[31m"}\n',
      ("--field", "text", "--genre-field", "genre"), 2),
     ("texts.tsv", "text\tgenre\nIt rained.\tnews\nIt snowed.\tnews letters\n",
      ("--genre-field", "genre"), 3)],
)  # fmt: skip
def test_a_genre_from_a_file_that_cannot_be_in_an_id_names_the_file_and_line(
    db: Path, tmp_path: Path, name: str, content: str, options: tuple[str, ...], line: int
) -> None:
    # Found: "Error: genre '\x1b[31mred' cannot be part of premise IDs; ..." named neither
    # the file nor the line the genre came from.
    texts = tmp_path / name
    texts.write_text(content, encoding="utf-8")
    says = (f"{texts}, line {line}", "cannot be part of premise IDs", "--genre-map")
    fails(db, "ingest", texts, *options, says=says)


TEXT_AREA = {"from_name": "entailment_1", "type": "textarea", "value": {"text": ["It rained."]}}


@pytest.mark.parametrize("command", ["elicit", "relabel"])
@pytest.mark.parametrize(
    ("annotations", "says"),
    [(None, "annotations must be a list of objects"),
     (["done"], "annotations must be a list of objects"),
     ([{"id": 7, "result": {"text": "x"}}], "result must be a list of objects"),
     ([{"id": 7, "result": ["x"]}], "result must be a list of objects"),
     ([{"id": 7, "result": [TEXT_AREA | {"value": ["It rained."]}]}],
      "a result's value must be an object")],
)  # fmt: skip
def test_a_labelstudio_export_of_the_wrong_shape_is_one_error(
    sample_db: Path, tmp_path: Path, command: str, annotations: object, says: str
) -> None:
    # Found: `"annotations": null` (and an annotation or result that is not an object)
    # ended in "Error: internal error (TypeError: 'NoneType' object is not iterable)".
    data = {"batch": "b1", "premise_id": "p1", "pair_id": "p1e"}
    export = tmp_path / "export.json"
    export.write_text(json.dumps([{"id": 3, "data": data, "annotations": annotations}]), "utf-8")
    fails(sample_db, command, "import", export, "--format", "labelstudio",
          says=(f"{export}: task 3", says, "full JSON export, unedited"))  # fmt: skip


@pytest.mark.parametrize("texts", [[1], "It rained.", [["It rained."]], None])
def test_a_labelstudio_text_area_that_is_not_a_list_of_texts_is_one_error(
    sample_db: Path, tmp_path: Path, texts: object
) -> None:
    # Found: a list of numbers crashed (TypeError in " ".join), and a string or a nested
    # list would have been stored as hypothesis text of the wrong kind.
    data = {"batch": "b1", "premise_id": "p1"}
    result = TEXT_AREA | {"value": {"text": texts}}
    task = {"id": 3, "data": data, "annotations": [{"id": 7, "result": [result]}]}
    export = tmp_path / "export.json"
    export.write_text(json.dumps([task]), "utf-8")
    fails(sample_db, "elicit", "import", export, "--format", "labelstudio",
          says=(f"{export}: task 3, annotation 7", "entailment_1 must be a list of texts",
                f"found {texts!r}"))  # fmt: skip


@pytest.mark.parametrize("key", ["\x85", "a\nb", "\u2028", "\r", "\x1b[2J", "\x00"])
def test_file_content_quoted_in_the_error_line_cannot_break_it(
    sample_db: Path, tmp_path: Path, key: str
) -> None:
    # Found: an unknown field named "\x85" (NEL, a line break to Python and to many
    # terminals) was quoted raw, and the one Error line became two.
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({key: None}) + "\n", encoding="utf-8")
    line = fails(sample_db, "import", corpus, "--format", "jsonl",
                 says=(f"{corpus}, line 1", "unknown field(s)"))  # fmt: skip
    assert line.isprintable(), line


@pytest.mark.parametrize("hypothesis", [1, ["It rained."], {"text": "It rained."}, None])
def test_an_mturk_hypothesis_that_is_not_text_is_one_error(
    sample_db: Path, tmp_path: Path, hypothesis: object
) -> None:
    # Found reading the readers the fuzzing crashed in: crowd-form's Answer.taskAnswers
    # holding a number, list or object for a hypothesis was stored as its Python spelling
    # ("{'text': 'It rained.'}"), a wrong result no error reported.
    answers = json.dumps([{"entailment_1": hypothesis}])
    results = tmp_path / "results.csv"
    with results.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(
            [["AssignmentId", "WorkerId", "AssignmentStatus", "Input.batch", "Input.premise_id",
              "Answer.taskAnswers"],
             ["a1", "W1", "Submitted", "e0001", "p1", answers]]
        )  # fmt: skip
    fails(sample_db, "elicit", "import", results, "--format", "mturk",
          says=(f"{results}, line 2", "entailment_1 must be text",
                f"found {hypothesis!r}"))  # fmt: skip


def test_a_json_array_nested_past_the_decoders_depth_is_one_error(
    sample_db: Path, tmp_path: Path
) -> None:
    # Found by the fuzz suite: the standard library's decoder recursed until Python stopped it.
    path = tmp_path / "deep.json"
    path.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    fails(
        sample_db,
        "import",
        path,
        "--format",
        "table",
        says=("deep.json, line 1", "nested too deeply"),
    )


# --- found by tests/test_fuzz_stores.py: stores damaged in generated ways -----------------


def damage_rows(db: Path, *statements: str) -> bytes:
    """Run `statements` on the store as a tool that knows nothing of its schema would
    (foreign keys off), leave the whole store in its file; returns its bytes."""
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.read_bytes()


@pytest.mark.parametrize(
    "command",
    [
        ("export", "--format", "mnli-jsonl", "--out", "out.jsonl"),
        ("stats", "--table", "annotators"),
    ],
)
def test_a_store_whose_rows_refer_to_deleted_rows_is_said_damaged(
    sample_db: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    # Found: with the annotators deleted, export ended in "internal error (KeyError: 1)"
    # and left a `failed` run; with every other run deleted too, the export's run took the
    # ID of a deleted one, which rows still named, and its row could not be taken back.
    damage_rows(sample_db, "DELETE FROM annotators", "DELETE FROM runs WHERE id % 2 = 1")
    before = store_digest(sample_db)
    with contextlib.chdir(tmp_path):
        line = assert_user_error(run_cli("--db", sample_db, *command), f"{sample_db}: ")
    assert "the store is damaged: a row of" in line and "refers to a row of" in line
    assert "PRAGMA foreign_key_check" in line and "internal error" not in line
    assert store_digest(sample_db) == before


@pytest.mark.parametrize(
    ("command", "column", "damage"),
    [(("runs",), "stage", "UPDATE runs SET stage = CAST(X'f472616e736c617465' AS TEXT)"),
     (("export", "--format", "mnli-jsonl", "--out", "out.jsonl"), "hypothesis",
      "UPDATE pairs SET hypothesis = CAST(X'41f4' AS TEXT) WHERE pk = 1")],
    ids=["runs", "export"],
)  # fmt: skip
def test_text_that_is_not_utf8_in_a_store_is_said_damaged(
    sample_db: Path, tmp_path: Path, command: tuple[str, ...], column: str, damage: str
) -> None:
    # Found: one flipped bit in a run's stage name ("\xf4ranslate-import") ended `runs` in
    # "internal error (OperationalError: Could not decode to UTF-8 column 'stage' ...)",
    # and the error handler itself in an AttributeError (no `sqlite_errorname`); a writer
    # meeting such text left a `failed` run.
    damage_rows(sample_db, damage)
    before = raw_rows(sample_db)
    with contextlib.chdir(tmp_path):
        line = assert_user_error(run_cli("--db", sample_db, *command), f"{sample_db}: ")
    assert f"the store is damaged (Could not decode to UTF-8 column '{column}'" in line
    assert raw_rows(sample_db) == before


def raw_rows(db: Path) -> list[list[tuple[object, ...]]]:
    """The runs and pairs, text as its bytes (which a store damaged so cannot decode)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.text_factory = bytes
        return [conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                for table in ("runs", "pairs")]  # fmt: skip


def test_a_store_whose_header_makes_sqlite_open_it_read_only_is_refused_by_a_writer(
    sample_db: Path,
) -> None:
    # Found: a flipped bit in byte 18 (the file format's write version, 2 for WAL, made 3)
    # makes SQLite open the store read-only: aggregate-labels ended in "internal error
    # (OperationalError: attempt to write a readonly database)".
    data = bytearray(sample_db.read_bytes())
    data[18] = 3
    sample_db.write_bytes(bytes(data))
    line = fails(sample_db, "aggregate-labels", says=(f"{sample_db}: ",))
    assert "SQLite opens the store read-only (attempt to write a readonly database)" in line
    assert sample_db.read_bytes() == bytes(data)
    ok("--db", sample_db, "info")  # a reader reads it as it is
