"""The `stats` table registry: every table found, listed in order, and the command
refusing options the chosen table does not read.

What is tested here is the command line's (its help, its option names, its Error lines);
the stores are built through the Python API (conftest's `sample_db`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import assert_user_error, run_cli, table_counts

from nlibuild.cli import app
from nlibuild.stats import StatsOptions, stats_tables

TABLES = ("premises", "subsets", "agreement", "annotators", "translation", "lengths", "pmi",
          "cues", "cartography", "model-loop")  # fmt: skip


def test_every_table_module_is_registered_in_listing_order() -> None:
    assert tuple(stats_tables()) == TABLES


def test_every_option_a_table_reads_is_a_stats_option() -> None:
    fields = {field.name for field in dataclasses.fields(StatsOptions)}
    for table in stats_tables().values():
        assert table.options <= fields, table.name


def test_help_has_one_paragraph_per_table() -> None:
    result = run_cli("stats", "--help")
    assert result.exit_code == 0
    for name in TABLES:
        assert f"  {name}: " in result.stdout, name


def test_an_unknown_table_lists_the_tables(db: Path) -> None:
    result = run_cli("--db", db, "stats", "--table", "votes")
    assert_user_error(result, "--table 'votes' is not one of: " + ", ".join(TABLES))


@pytest.mark.parametrize(
    ("table", "option", "takes"),
    [
        ("lengths", ["--top", "5"], "(its options: --format)"),
        ("premises", ["--by", "genre"], "(its options: --min-len, --max-len, --unit, --format)"),
        ("agreement", ["--per-label"], "--include-extra, --ci, --resamples, --seed, --format)"),
        ("pmi", ["--seed", "7"], "(its options: --by, --top, --smoothing, --min-count"),
    ],
)
def test_an_option_the_table_does_not_read_is_refused(
    sample_db: Path, table: str, option: list[str], takes: str
) -> None:
    before = table_counts(sample_db)
    result = run_cli("--db", sample_db, "stats", "--table", table, *option)
    assert_user_error(result, f"{option[0]} does not apply to --table {table} ", takes)
    assert table_counts(sample_db) == before


def test_an_option_left_at_its_default_is_not_refused(sample_db: Path) -> None:
    result = run_cli("--db", sample_db, "stats", "--table", "lengths", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("lang,kind,unit,premises,")


def test_the_cli_app_is_still_importable_from_nlibuild_cli() -> None:
    assert app.info.name == "nlibuild"
