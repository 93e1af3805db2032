"""Stores written by an earlier release open, migrate, keep every row and keep working."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import assert_user_error, ok, run_cli
from legacy_stores import STORES, table_digest

MANIFEST: dict[str, dict[str, dict[str, object]]] = json.loads(
    (STORES / "manifest.json").read_text(encoding="utf-8")
)


@pytest.fixture(params=sorted(MANIFEST))
def legacy_store(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """A copy of one committed store (the original must stay as the old release wrote it)."""
    name = str(request.param)
    copy = tmp_path / name
    shutil.copyfile(STORES / name, copy)
    return name, copy


def test_an_old_store_opens_migrates_and_keeps_every_row(legacy_store: tuple[str, Path]) -> None:
    name, db = legacy_store
    ok("--db", db, "info")
    with sqlite3.connect(db) as conn:
        for table, expected in MANIFEST[name].items():
            columns = expected["columns"]
            assert isinstance(columns, list)
            rows, digest = table_digest(conn, table, [str(c) for c in columns])
            assert (table, rows) == (table, expected["rows"])
            assert (table, digest) == (table, expected["sha256"])


def test_an_old_store_keeps_working_after_its_migration(legacy_store: tuple[str, Path]) -> None:
    _, db = legacy_store
    for command in (["runs"], ["stats", "--table", "agreement"], ["aggregate-labels"]):
        result = run_cli("--db", db, *command)
        assert result.exit_code == 0, (command, result.stderr)
    out = db.parent / "out.jsonl"
    ok("--db", db, "export", "--format", "mnli-jsonl", "--out", out)
    assert out.read_text(encoding="utf-8").count("\n") > 0


def test_an_old_store_locked_while_it_would_migrate_gives_one_error_line(
    legacy_store: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, db = legacy_store
    monkeypatch.setenv("NLIBUILD_BUSY_TIMEOUT", "0.2")
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        result = run_cli("--db", db, "info")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_user_error(result, f"{db}: the store is locked by another process", "0.2 s")
    assert run_cli("--db", db, "info").exit_code == 0  # and migrates once it is free
