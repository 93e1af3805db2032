"""Machine formats hold one tidy table (issue 18): `--format csv` parses with the csv module
into one rectangular table with snake_case headers, no prose and no blank line, and
`--format json` is a list of records with the same keys; what a command shows besides its
main table goes to stderr, or to its own file with `--out DIR` (tests/test_check.py,
test_score_report.py and test_render.py hold those commands' `--out` tests)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from conftest import ok_result

SNAKE_CASE = re.compile(r"[a-z][a-z0-9_]*")

COMMANDS = {
    "info": ("info",),
    "runs": ("runs",),
    "check": ("check",),
    "agreement by genre": ("stats", "--table", "agreement", "--by", "genre"),
    "subsets": ("stats", "--table", "subsets"),
    "lengths": ("stats", "--table", "lengths"),
    "pmi by genre": ("stats", "--table", "pmi", "--by", "genre"),
    "cues": ("stats", "--table", "cues"),
    "annotators": ("stats", "--table", "annotators"),
    "hypothesis-only": ("bias", "hypothesis-only", "--cross-validate", "2", "--resamples", "50"),
}
"""Commands whose tables have several parts (groups, sections), on the sample corpus."""


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_csv_is_one_rectangular_table_with_snake_case_headers(
    sample_db: Path, command: tuple[str, ...]
) -> None:
    text = ok_result("--db", sample_db, *command, "--format", "csv").stdout
    table = list(csv.reader(io.StringIO(text)))
    assert len(table) >= 2, text
    assert all(SNAKE_CASE.fullmatch(name) for name in table[0]), table[0]
    assert all(len(row) == len(table[0]) for row in table), text  # no prose, no second table
    assert "\n\n" not in text


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS.values() if c != ("info",)],
    ids=[name for name in COMMANDS if name != "info"],
)  # fmt: skip
def test_json_is_a_list_of_records(sample_db: Path, command: tuple[str, ...]) -> None:
    records = json.loads(ok_result("--db", sample_db, *command, "--format", "json").stdout)
    assert isinstance(records, list) and records
    assert all(isinstance(record, dict) for record in records)
    assert len({tuple(record) for record in records}) == 1  # every record has the same keys
