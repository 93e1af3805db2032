"""Shared test helpers: the CLI runner, fresh stores, and the real-data fixtures."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from nlibuild.cli import app

os.environ.setdefault("OMP_NUM_THREADS", "1")

PROJECT = Path(__file__).resolve().parent.parent
DATA = PROJECT / "data"
FIXTURES = PROJECT.parent / "shared" / "fixtures"

requires_fixtures = pytest.mark.skipif(
    not FIXTURES.is_dir(),
    reason="../shared/fixtures is absent (real NLI data lives beside the project, not in it)",
)

DATA_TABLES = (
    "premises", "pairs", "votes", "gold", "translations", "annotators", "sources", "runs",
    "batches", "assignments", "violations", "annotator_aliases",
)  # fmt: skip


def run_cli(*args: str | Path) -> Result:
    """Invoke `nlibuild ARGS...` in-process, with stdout and stderr kept apart."""
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def assert_user_error(result: Result, *fragments: str) -> str:
    """Exit 1 with exactly one `Error:` line on stderr holding every fragment; returns it."""
    # An uncaught exception also exits 1 under CliRunner; only a clean exit is a user error.
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("Error: "), line
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


def table_counts(db: Path) -> dict[str, int]:
    """Row count of every data table: equal snapshots mean an unchanged store."""
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in DATA_TABLES}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh, empty English store."""
    path = tmp_path / "corpus.db"
    result = run_cli("--db", path, "init")
    assert result.exit_code == 0, result.stderr
    return path
