"""Recipes are input a user writes by hand, so a broken one gets what a broken file gets
(README.md, "Safety"): accepted, or refused with one `Error:` line and the store as it was,
never a traceback. Generated recipes are broken versions of a valid one (lines replaced,
dropped, repeated, keys given values of other TOML types; damaged bytes) and raw bytes.

`run --dry-run` must never write; `run` may have run the steps before the one it stops at
(each step is its own recorded run, as when the commands are typed one by one), and the
store must then pass `nlibuild check`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import SAMPLE_MNLI, copy_store, table_counts
from fuzz_checks import examples
from fuzz_inputs import broken_file, raw_bytes
from hypothesis import given
from typer.testing import CliRunner, Result

import nlibuild
from nlibuild.cli import app

VALID_RECIPE = """[recipe]
name = "fuzzed"
lang = "en"

[[step]]
stage = "import"
path = "sample_mnli.jsonl"
format = "mnli"

[[step]]
stage = "aggregate-labels"
min_agree = 3
method = "majority"

[[step]]
stage = "split"
dev = 8
test = 8
draw_from = "labelled"

[[step]]
stage = "export"
format = "mnli-jsonl"
out = "corpus.mnli.jsonl"
"""
"""A recipe the demo data runs: import, gold, a split, an export."""

EXAMPLES = 25
RAW_EXAMPLES = 10
"""Under `make test`; `make fuzz` (the `fuzz` profile) takes its own, larger count."""


def refused_or_done(result: Result, allowed: tuple[int, ...]) -> None:
    """Exit with one of `allowed` codes and no traceback; an exit 1 is one `Error:` line."""
    assert isinstance(result.exception, SystemExit | None), repr(result.exception)
    assert result.exit_code in allowed, result.output
    assert "Traceback" not in result.output
    if result.exit_code == 1:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr


class Workbench:
    """A folder with the sample corpus and a store made from the valid recipe's `init`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLE_MNLI, root / "sample_mnli.jsonl")
        self.template = root / "template.db"
        nlibuild.create(self.template, lang="en")

    def recipe(self, data: bytes) -> Path:
        path = self.root / "fuzzed.toml"
        path.write_bytes(data)
        return path

    def store(self) -> Path:
        return copy_store(self.template, self.root / "scratch" / "corpus.db")


def check_recipe(bench: Workbench, data: bytes) -> None:
    recipe, db = bench.recipe(data), bench.store()
    before = table_counts(db)
    runner = CliRunner()
    planned = runner.invoke(app, ["--db", str(db), "run", str(recipe), "--dry-run"])
    refused_or_done(planned, (0, 1))
    assert table_counts(db) == before
    ran = runner.invoke(app, ["--db", str(db), "run", str(recipe)])
    refused_or_done(ran, (0, 1, 3))
    if ran.exit_code == 1 and planned.exit_code == 1:
        assert table_counts(db) == before  # refused before any step ran
    checked = runner.invoke(app, ["--db", str(db), "check"])
    assert checked.exit_code == 0, checked.output


def test_the_valid_recipe_runs(tmp_path: Path) -> None:
    bench = Workbench(tmp_path)
    result = CliRunner().invoke(
        app, ["--db", str(bench.store()), "run", str(bench.recipe(VALID_RECIPE.encode()))]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "corpus.mnli.jsonl").is_file()


def test_a_broken_recipe_is_run_or_one_error_line(tmp_path: Path) -> None:
    bench = Workbench(tmp_path)

    @examples(EXAMPLES)
    @given(data=broken_file("lines", VALID_RECIPE))
    def property_holds(data: bytes) -> None:
        check_recipe(bench, data)

    property_holds()


def test_raw_bytes_as_a_recipe_are_one_error_line(tmp_path: Path) -> None:
    bench = Workbench(tmp_path)

    @examples(RAW_EXAMPLES)
    @given(data=raw_bytes)
    def property_holds(data: bytes) -> None:
        check_recipe(bench, data)

    property_holds()
