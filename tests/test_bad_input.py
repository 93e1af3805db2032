"""Bad input is a user error: one `Error:` line naming the file (and line), exit 1, no
traceback, and a store left exactly as it was (ARCHITECTURE.md: recorded runs, errors).

Every case starts from a store that already holds data/sample_mnli.jsonl, so that
"unchanged" means something.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_MNLI, assert_user_error, fails, ok, read_jsonl, run_cli, table_counts

# --- helpers ----------------------------------------------------------------------------


def mnli(pair_id: str, **fields: Any) -> dict[str, Any]:
    """An MNLI jsonl record of a new pair (premise `t1`), with `fields` changed."""
    record: dict[str, Any] = {
        "annotator_labels": ["entailment", "entailment", "neutral", "entailment", "entailment"],
        "genre": "fiction",
        "gold_label": "entailment",
        "pairID": pair_id,
        "promptID": "t1",
        "sentence1": "The lighthouse keeper climbed the stairs every evening at dusk.",
        "sentence2": f"The keeper climbs the stairs ({pair_id}).",
    }
    record.update(fields)
    return record


def jsonl(*records: dict[str, Any] | str) -> str:
    """JSON lines, non-ASCII unescaped; a string is written as it is (for broken lines)."""
    return "".join(
        (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records
    )


def without(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


# --- a bad file is refused, the store is unchanged ------------------------------------

TSV = (
    "language\tgold_label\tsentence1\tsentence2\tpairID\n"
    "en\tentailment\tA man sleeps.\tA person sleeps.\tt1e\n"
    "en\tneutral\tA man sleeps.\tA tall man sleeps.\n"
)

BAD_FILES = [
    pytest.param(
        "broken.jsonl",
        jsonl(mnli("t1e"), mnli("t1n"), '{"sentence1": "cut off'),
        ["--format", "mnli"],
        ["line 3", "not a valid JSON line", "fix or remove the line"],
        id="malformed-json-line",
    ),
    pytest.param(
        "no_hypothesis.jsonl",
        jsonl(mnli("t1e"), without(mnli("t1n"), "sentence2")),
        ["--format", "mnli"],
        ["line 2", "missing required field 'sentence2'"],
        id="missing-required-field",
    ),
    pytest.param(
        "blank_premise.jsonl",
        jsonl(mnli("t1e", sentence1="  ")),
        ["--format", "mnli"],
        ["line 1", "field 'sentence1' is empty"],
        id="empty-text",
    ),
    pytest.param(
        "twice.jsonl",
        jsonl(mnli("t1e"), mnli("t1n"), mnli("t1e", sentence2="Another hypothesis.")),
        ["--format", "mnli"],
        ["line 3", "pair t1e", "line 1", "different hypothesis"],
        id="duplicate-pair-id-within-the-file",
    ),
    pytest.param(
        "maybe.jsonl",
        jsonl(mnli("t1e"), mnli("t1n", annotator_labels=["neutral", "maybe"])),
        ["--format", "mnli"],
        ["unknown label value(s) 'maybe'", "line 2", "--extra-labels maybe"],
        id="unknown-label-value",
    ),
    pytest.param(
        "glue.jsonl",
        jsonl(mnli("t1e", annotator_labels=[0, 0, 1], gold_label=0)),
        ["--format", "mnli"],
        ["unknown label value(s) '0'", "line 1", "--label-order"],
        id="integer-labels-without-order",
    ),
    pytest.param(
        "latin1.jsonl",
        jsonl(mnli("t1e"), mnli("t1n", sentence2="They met at the café.")).encode("latin-1"),
        ["--format", "mnli"],
        ["line 2", "not valid UTF-8", "byte 0xe9", "re-save the file as UTF-8"],
        id="not-utf8",
    ),
    pytest.param(
        "pairs.tsv",
        TSV,
        ["--format", "mnli"],
        ["line 1", "--format xnli"],
        id="tsv-given-as-mnli",
    ),
    pytest.param(
        "sample.jsonl",
        SAMPLE_MNLI.read_text(encoding="utf-8"),
        ["--format", "xnli"],
        ["line 1", "--format mnli"],
        id="mnli-given-as-xnli",
    ),
    pytest.param(
        "short_row.tsv",
        TSV,
        ["--format", "xnli"],
        ["line 3", "expected 5 tab-separated fields, found 4"],
        id="tsv-row-with-wrong-field-count",
    ),
]


@pytest.mark.parametrize(("name", "content", "options", "fragments"), BAD_FILES)
def test_a_bad_file_is_one_error_line_and_changes_nothing(
    sample_db: Path,
    tmp_path: Path,
    name: str,
    content: str | bytes,
    options: list[str],
    fragments: list[str],
) -> None:
    bad = tmp_path / name
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content, encoding="utf-8")

    fails(sample_db, "import", bad, *options, says=(f"Error: {bad}", *fragments))


def test_a_pair_id_already_in_the_store_with_other_content_is_refused(
    sample_db: Path, tmp_path: Path
) -> None:
    # A corrected copy of the sample (same file name, so the same anonymous annotators):
    # one hypothesis changed on line 5.
    records = read_jsonl(SAMPLE_MNLI)
    records[4]["sentence2"] = "A hypothesis nobody wrote."
    edited = tmp_path / "edited" / SAMPLE_MNLI.name
    edited.parent.mkdir()
    edited.write_text(jsonl(*records), encoding="utf-8")
    pair_id = records[4]["pairID"]

    fails(
        sample_db, "import", edited, "--format", "mnli",
        says=(f"Error: {edited}, line 5:",
              f"pair {pair_id} is already in the store with different hypothesis;"),
    )  # fmt: skip


def test_a_missing_file_is_named(sample_db: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"

    line = fails(
        sample_db, "import", missing, "--format", "mnli", says=(f"Error: {missing}: no such file",)
    )

    assert "line" not in line


# --- declaring what the file needs makes it import ------------------------------------


@pytest.mark.parametrize(
    ("records", "options"),
    [
        pytest.param(
            [mnli("t1e"), mnli("t1n", annotator_labels=["neutral", "maybe"])],
            ["--extra-labels", "maybe"],
            id="extra-label",
        ),
        pytest.param(
            [
                mnli("t1e", annotator_labels=[0, 0, 1], gold_label=0),
                mnli("t1n", annotator_labels=[1], gold_label=1),
            ],
            ["--label-order", "e,n,c"],
            id="integer-labels-with-order",
        ),
    ],
)
def test_the_suggested_option_makes_the_file_import(
    sample_db: Path, tmp_path: Path, records: list[dict[str, Any]], options: list[str]
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(jsonl(*records), encoding="utf-8")
    before = table_counts(sample_db)

    report = ok("--db", sample_db, "import", path, "--format", "mnli", *options)

    assert report.startswith(f"Imported {path}: 2 pairs, 1 premise, ")
    after = table_counts(sample_db)
    assert after["pairs"] == before["pairs"] + 2
    assert after["premises"] == before["premises"] + 1


# --- the store itself -------------------------------------------------------------------


def test_info_on_a_missing_store_says_to_run_init(tmp_path: Path) -> None:
    missing = tmp_path / "none.db"

    result = run_cli("--db", missing, "info", "--format", "json")

    assert_user_error(result, f"Error: {missing}: no store here", "init")
    assert not missing.exists()


def test_a_store_from_a_newer_nlibuild_asks_for_an_upgrade(sample_db: Path) -> None:
    with sqlite3.connect(sample_db) as conn:
        conn.execute("PRAGMA user_version=99")
    conn.close()

    fails(sample_db, "info", "--format", "json",
          says=(f"Error: {sample_db}: ", "schema version 99", "upgrade nlibuild"))  # fmt: skip
    with sqlite3.connect(sample_db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 99
    conn.close()


# --- idempotency ----------------------------------------------------------------------


def test_importing_the_same_file_twice_adds_nothing(sample_db: Path) -> None:
    before = table_counts(sample_db)

    report = ok("--db", sample_db, "import", SAMPLE_MNLI, "--format", "mnli")

    assert report.startswith(
        f"Imported {SAMPLE_MNLI}: 0 pairs, 0 premises, 0 votes, 0 translations added; "
        "48 pairs already present (run 3, "
    )
    after = table_counts(sample_db)
    data = ("premises", "pairs", "votes", "gold", "translations", "annotators")
    assert {t: after[t] for t in data} == {t: before[t] for t in data}
    # The second import is still logged: one more run and one more source.
    assert after["runs"] == before["runs"] + 1
    assert after["sources"] == before["sources"] + 1
