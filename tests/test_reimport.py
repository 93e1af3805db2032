"""Importing a file that imported once again adds nothing (README), even where one of its
lines lacks the premise ID the others give (issue 26); and a table holding what no store can
keep (a lone surrogate, a number beyond a double, an ID holding NUL) is one Error line naming
the file and the row, the first time and every time after, never an internal error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import fails, ok, table_counts, without_runs, write_jsonl

import nlibuild
from nlibuild.formats import content_ids
from nlibuild.models import ImportResult

SHARED = "Two dogs run across a snowy field."
"""The premise of every pair below: three hypotheses on one premise, as MNLI and SNLI have."""

REMOVED = object()
"""A field's value that stands for the field left out of the line."""

WITHOUT = {"removed": REMOVED, "null": None, "empty": ""}
"""The ways a line can lack its premise ID."""


def release_line(pair: str, label: str, premise_key: str) -> dict[str, Any]:
    """An MNLI/SNLI release line on the shared premise, named `premise_key`'s value `7`."""
    return {
        "annotator_labels": [label, label],
        "gold_label": label,
        "pairID": pair,
        premise_key: "7",
        "genre": "fiction",
        "sentence1": SHARED,
        "sentence2": f"Some animals are {pair}.",
    }


def ocnli_line(number: int, label: str) -> dict[str, Any]:
    """An OCNLI line (prem_id, no pair ID) on the shared premise."""
    votes = {f"label{i}": label if i < 2 else "" for i in range(5)}
    return {
        "level": "easy",
        "sentence1": SHARED,
        "sentence2": f"Hypothesis number {number}.",
        "label": label,
        **votes,
        "genre": "news",
        "prem_id": "news_7",
        "id": number,
    }


def lacking(record: dict[str, Any], key: str, value: object) -> dict[str, Any]:
    """`record` with `key` set to `value`, or left out when `value` is REMOVED."""
    changed = {k: v for k, v in record.items() if k != key}
    if value is not REMOVED:
        changed[key] = value
    return changed


def corpus_counts(db: Path) -> dict[str, int]:
    """Rows of every data table but the log of runs and of imported files."""
    return {t: n for t, n in without_runs(table_counts(db)).items() if t != "sources"}


def import_twice(db: Path, path: Path, fmt: str) -> tuple[ImportResult, ImportResult]:
    """Import `path` twice, requiring the second to leave the corpus's tables as they were."""
    corpus = nlibuild.open(db)
    first = corpus.import_corpus(path=path, format=fmt)
    after_first = corpus_counts(db)
    again = corpus.import_corpus(path=path, format=fmt)
    assert corpus_counts(db) == after_first
    return first, again


@pytest.mark.parametrize("how", WITHOUT)
@pytest.mark.parametrize(("fmt", "premise_key"), [("mnli", "promptID"), ("snli", "captionID")])
def test_a_release_line_without_its_premise_id_is_found_again(
    db: Path, tmp_path: Path, fmt: str, premise_key: str, how: str
) -> None:
    lines = [
        release_line("p1", "entailment", premise_key),
        lacking(release_line("p2", "neutral", premise_key), premise_key, WITHOUT[how]),
        release_line("p3", "contradiction", premise_key),
    ]
    path = write_jsonl(tmp_path / f"{fmt}.jsonl", lines)
    first, again = import_twice(db, path, fmt)
    # The line without the ID has a premise of its own, named by its content.
    assert (first.pairs_added, first.premises_added) == (3, 2)
    assert (again.pairs_added, again.premises_added, again.pairs_unchanged) == (0, 0, 3)


@pytest.mark.parametrize("how", WITHOUT)
def test_an_ocnli_line_without_prem_id_is_found_again(db: Path, tmp_path: Path, how: str) -> None:
    lines = [
        lacking(ocnli_line(1, "entailment"), "prem_id", WITHOUT[how]),
        ocnli_line(2, "neutral"),
        ocnli_line(3, "contradiction"),
    ]
    path = write_jsonl(tmp_path / "ocnli.json", lines)
    first, again = import_twice(db, path, "ocnli")
    assert (first.pairs_added, first.premises_added) == (3, 2)
    assert (again.pairs_added, again.premises_added, again.pairs_unchanged) == (0, 0, 3)


def test_the_cli_says_a_mixed_file_imported_again_added_nothing(db: Path, tmp_path: Path) -> None:
    lines = [
        release_line("p1", "entailment", "promptID"),
        lacking(release_line("p2", "neutral", "promptID"), "promptID", REMOVED),
    ]
    path = write_jsonl(tmp_path / "mixed.jsonl", lines)
    ok("--db", db, "import", path, "--format", "mnli")
    again = ok("--db", db, "import", path, "--format", "mnli")
    assert "0 pairs, 0 premises, 0 votes, 0 translations added; 2 pairs already" in again


def test_a_derived_premise_id_is_told_from_one_the_corpus_gave() -> None:
    derived = content_ids.premise_id("fiction", "fiction", SHARED)
    assert content_ids.is_derived_premise_id(derived, "fiction", SHARED)
    # Whatever file named it (the prefix), and however long a clash made its digest.
    longer = "renamed_" + derived.rpartition("_")[2] + "abcd"
    assert not content_ids.is_derived_premise_id(longer, "fiction", SHARED)
    digest_16 = content_ids.premise_id("fiction", "fiction", SHARED, {derived})
    assert content_ids.is_derived_premise_id(digest_16, "fiction", SHARED)
    assert not content_ids.is_derived_premise_id(derived, "travel", SHARED)
    assert not content_ids.is_derived_premise_id(derived, "fiction", SHARED + " ")
    # A corpus's own IDs, and the numbered ones an earlier version gave.
    for named in ("7", "news_7", "fiction_0001", "fiction_"):
        assert not content_ids.is_derived_premise_id(named, "fiction", SHARED)


def table_row(**cells: str) -> str:
    """A table row of `cells` (each written into the file as it stands: JSON), the other
    columns of a good row filled in."""
    row = {
        "premise": '"A cat eats."',
        "hypothesis": '"An animal eats."',
        "label": '"entailment"',
        "id": '"p2"',
        "premise_id": '"q2"',
        "score": "2",
        **cells,
    }
    return "{" + ", ".join(f'"{name}": {value}' for name, value in row.items()) + "}"


GOOD_ROW = table_row(premise='"A man sleeps."', id='"p1"', premise_id='"q1"')


def table_file(folder: Path, kind: str, rows: list[str]) -> tuple[Path, int]:
    """`rows` as a .json array (one a line after the `[`) or as .jsonl; the file and the
    line its last row is on."""
    if kind == "json":
        path = folder / "pairs.json"
        path.write_text("[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")
        return path, len(rows) + 1
    path = folder / "pairs.jsonl"
    path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    return path, len(rows)


UNKEEPABLE = {
    "a lone surrogate in the pair ID": ("id", '"p\\ud800"', "surrogate"),
    "a lone surrogate in the premise ID": ("premise_id", '"q\\udc00"', "surrogate"),
    "a lone surrogate in a kept column": ("score", '"\\ud83d"', "surrogate"),
    "10^400 as the pair ID": ("id", "1" + "0" * 400, "infinity"),
    "10^400 in a kept column": ("score", "1" + "0" * 400, "infinity"),
    "1e400 in a kept column": ("score", "1e400", "infinity"),
    "NUL in the pair ID": ("id", '"p\\u0000x"', "pair ID 'p\\x00x' holds a NUL"),
    "NUL in the premise ID": ("premise_id", '"q\\u0000x"', "premise ID 'q\\x00x' holds a NUL"),
}
"""What no store can keep, in a table's cells: the column, its JSON, what the Error says."""


@pytest.mark.parametrize("kind", ["json", "jsonl"])
@pytest.mark.parametrize("case", UNKEEPABLE)
def test_a_table_cell_no_store_can_keep_is_one_error_naming_the_row_every_time(
    db: Path, tmp_path: Path, kind: str, case: str
) -> None:
    column, raw_json, says = UNKEEPABLE[case]
    path, line = table_file(tmp_path, kind, [GOOD_ROW, table_row(**{column: raw_json})])
    for _ in range(2):
        fails(db, "import", path, "--format", "table", says=(f"{path}, line {line}:", says))


def test_an_annotator_id_holding_nul_is_one_error_naming_the_line(db: Path, tmp_path: Path) -> None:
    line = {**release_line("p1", "entailment", "promptID"), "annotator_ids": ["a\x00", "b"]}
    path = write_jsonl(tmp_path / "mnli.jsonl", [release_line("p0", "neutral", "promptID"), line])
    for _ in range(2):
        fails(
            db, "import", path, "--format", "mnli",
            says=(f"{path}, line 2:", "annotator ID 'a\\x00' holds a NUL", "no ID may hold"),
        )  # fmt: skip


@pytest.mark.parametrize("kind", ["json", "jsonl"])
def test_a_table_of_integer_ids_and_numbers_imported_again_adds_nothing(
    db: Path, tmp_path: Path, kind: str
) -> None:
    """The values a store can keep, at their edges, are kept and found again."""
    rows = [
        GOOD_ROW,
        table_row(id=str(2**63 - 1)),
        table_row(id='"p3"', premise='"A hen eats."', premise_id=str(2**64 - 1)),
        table_row(id='"p4"', premise='"A cow eats."', premise_id='"q4"', score="1e300"),
        table_row(id='"p5"', premise='"A dog eats."', premise_id='"q5"', score='"\\ud83d\\ude00"'),
    ]
    path, _ = table_file(tmp_path, kind, rows)
    first, again = import_twice(db, path, "table")
    assert (first.pairs_added, again.pairs_added, again.pairs_unchanged) == (5, 0, 5)
