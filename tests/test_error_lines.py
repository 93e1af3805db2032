"""An `Error:` line names its file once (issue 18: "error lines name the file twice")."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import fails, write_jsonl

from nlibuild.errors import InputError, in_file


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_an_answer_refused_at_a_line_names_its_file_once(
    db: Path, tmp_path: Path, fmt: str
) -> None:
    if fmt == "jsonl":
        answer = {"premise_id": "p1", "writer": "w01", "neutral": ["\u0000"]}
        answers = write_jsonl(tmp_path / "answers.jsonl", [answer])
        place = "line 1"
    else:
        answers = tmp_path / "answers.csv"
        answers.write_text("premise_id,writer,neutral_1\np1,w01,\u0000A man.\n", "utf-8")
        place = "line 2"
    line = fails(db, "elicit", "import", answers, "--format", fmt,
                 says=(f"Error: {answers}, {place}: this answer holds a NUL",))  # fmt: skip
    assert line.count(answers.name) == 1, line


def test_a_place_naming_the_file_takes_the_files_path_instead() -> None:
    path = "/data/batch 3/answers.csv"
    where = "answers.csv, line 7 (assignment A9)"
    assert in_file(path, f"{where}: no writer") == f"{path}, line 7 (assignment A9): no writer"
    assert in_file(path, f"{path}, line 7: x") == f"{path}, line 7: x"
    assert str(InputError(path, f"{where}: no writer")).count("answers.csv") == 1


def test_a_message_about_another_file_keeps_both_names() -> None:
    message = "reference.tsv, line 2: a row was dropped"
    assert in_file("/data/fr.tsv", message) == f"/data/fr.tsv: {message}"
    assert str(InputError("/data/fr.tsv", "no such file; check the path", 4)) == (
        "/data/fr.tsv, line 4: no such file; check the path"
    )
