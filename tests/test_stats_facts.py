"""`stats` json and csv keep what the table's title and note say (issue 28 item 8): a file
has no title, so the threshold `flagged` was judged by, the overlap measure and limit, the
interval level, PMI's smoothing, the premises' length range and the map cartography lists
from are fields of every row, the first ones, in `--format json`, in `--format csv` and in
`Corpus.stats`'s frame alike."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, json_rows, ok, ok_result
from score_tables import add_dynamics, add_job, add_run

import nlibuild
from nlibuild.stats import stats_tables

CASES = {
    "agreement --ci": (
        "agreement", ["--ci", "0.9", "--resamples", "40", "--seed", "5"],
        {"ci": 0.9, "resamples": 40, "seed": 5, "min_agree": 3},
    ),
    "agreement": (
        "agreement", [],
        {"min_agree": 3},
    ),
    "annotators": (
        "annotators", ["--threshold", "0.55"],
        {"threshold": 0.55, "min_agree": 3},
    ),
    "subsets": (
        "subsets", ["--max-overlap", "0.6", "--overlap-measure", "both"], {"max_overlap": 0.6},
    ),
    "cues": (
        "cues", ["--max-overlap", "0.5", "--overlap-measure", "premise"],
        {"overlap_measure": "premise", "max_overlap": 0.5},
    ),
    "pmi": (
        "pmi", ["--smoothing", "2.5", "--min-count", "2"],
        {"units": "words", "smoothing": 2.5, "min_count": 2},
    ),
}  # fmt: skip
"""Per table: the flags, and the facts every row must carry with them (sample corpus)."""


def csv_table(*args: str | Path) -> tuple[list[str], list[list[str]]]:
    """`nlibuild ARGS... --format csv`: its header and its rows."""
    header, *rows = list(csv.reader(io.StringIO(ok(*args, "--format", "csv"))))
    return header, rows


def csv_value(cell: str, like: Any) -> Any:
    """A csv cell read as the json value `like` is (csv writes floats with the table's
    decimals, None as an empty cell)."""
    if like is None:
        return None if cell == "" else cell
    return type(like)(cell)


def assert_facts_lead(db: Path, table: str, flags: list[str], facts: dict[str, Any]) -> None:
    """Every json record and csv row of the table starts with `facts`, in that order."""
    records = json_rows("--db", db, "stats", "--table", table, *flags)
    assert records
    for record in records:
        assert list(record)[: len(facts)] == list(facts)
        assert {name: record[name] for name in facts} == facts
    header, rows = csv_table("--db", db, "stats", "--table", table, *flags)
    assert header[: len(facts)] == list(facts)
    assert rows
    for row in rows:
        cells = zip(facts, row[: len(facts)], strict=True)
        read = {name: csv_value(cell, facts[name]) for name, cell in cells}
        assert read == pytest.approx(facts)


@pytest.mark.parametrize(("table", "flags", "facts"), CASES.values(), ids=list(CASES))
def test_json_and_csv_rows_carry_what_the_title_says(
    sample_db: Path, table: str, flags: list[str], facts: dict[str, Any]
) -> None:
    assert_facts_lead(sample_db, table, flags, facts)


def test_the_people_s_formats_say_the_facts_in_the_title_not_in_columns(sample_db: Path) -> None:
    flags = ["--smoothing", "2.5", "--min-count", "2"]
    shown = ok("--db", sample_db, "stats", "--table", "pmi", *flags, "--format", "md")
    assert shown.startswith("| group ")  # md has no title line: the columns are the table's
    terminal = ok_result("--db", sample_db, "stats", "--table", "pmi", *flags).stdout
    assert "add-2.5 smoothing, words in 2+ pairs" in " ".join(terminal.split())


def test_the_majority_rule_fact_is_the_aggregate_run_s(sample_db: Path) -> None:
    nlibuild.open(sample_db).aggregate_labels(min_agree=4)
    for table in ("agreement", "annotators"):
        [record, *_] = json_rows("--db", sample_db, "stats", "--table", table)
        assert record["min_agree"] == 4


def test_without_ci_agreement_rows_carry_no_interval_facts(sample_db: Path) -> None:
    [record, *_] = json_rows("--db", sample_db, "stats", "--table", "agreement")
    assert {"ci", "resamples", "seed"}.isdisjoint(record)
    assert record["low"] is None


def test_cues_csv_names_the_unit_overlap_is_counted_in(sample_db: Path) -> None:
    header, rows = csv_table("--db", sample_db, "stats", "--table", "cues")
    assert {row[header.index("overlap_unit")] for row in rows} == {"words"}


def test_subsets_rows_name_the_unit_overlap_is_counted_in(sample_db: Path) -> None:
    [row] = json_rows("--db", sample_db, "stats", "--table", "subsets")
    assert (row["overlap_measure"], row["overlap_unit"]) == ("hypothesis", "words")


def test_premises_rows_carry_the_length_range_qualifying_counts(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "en.db")
    corpus.ingest(paths=(DATA / "sources" / "en" / "news.txt",), genre="news")
    flags = ["--min-len", "4", "--max-len", "12"]
    assert_facts_lead(corpus.path, "premises", flags, {"min_len": 4, "max_len": 12})


def test_cartography_rows_carry_the_map_they_are_listed_from(sample_db: Path) -> None:
    run_id = add_run(sample_db)
    for seed in (1, 2):
        job = add_job(sample_db, run_id, f"tiny-s{seed}", seed=seed)
        for pair_id, confidence in (("10412ge", 0.9), ("10412gn", 0.5), ("10587gc", 0.2)):
            add_dynamics(sample_db, job, pair_id, confidence, 0.1 * seed, 0.5)
    facts = {"run": run_id, "model": "models/tiny", "mode": "zero-shot", "job": None,
             "jobs": 2, "top": 1, "region_rule": "exclusive"}  # fmt: skip
    flags = ["--top", "1", "--regions", "exclusive"]
    assert_facts_lead(sample_db, "cartography", flags, facts)
    one = json_rows("--db", sample_db, "stats", "--table", "cartography", "--job", "tiny-s1")
    assert {(r["job"], r["jobs"]) for r in one} == {("tiny-s1", 1)}


@pytest.mark.parametrize(("table", "flags", "facts"), CASES.values(), ids=list(CASES))
def test_the_api_frame_has_the_facts_as_its_first_columns(
    sample_db: Path, table: str, flags: list[str], facts: dict[str, Any]
) -> None:
    options = dict(zip((f[2:].replace("-", "_") for f in flags[::2]), flags[1::2], strict=True))
    frame = nlibuild.open(sample_db).stats(table, **options)
    assert frame.columns[: len(facts)] == list(facts)
    assert frame.select(list(facts)).unique().to_dicts() == [facts]


def test_tables_whose_rows_say_it_all_have_no_facts() -> None:
    """model-loop: its note defines its columns; every value it rests on is in its rows."""
    bare = {name for name, table in stats_tables().items() if table.facts is None}
    assert bare == {"lengths", "translation", "model-loop"}
