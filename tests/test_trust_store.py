"""The store is never harmed by what a command is asked to do: a `--db` that is some other
file is refused before anything is written to it."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from conftest import assert_user_error, new_store, ok, run_cli


def _journal_mode(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        mode: str = conn.execute("PRAGMA journal_mode").fetchone()[0]
    return mode


def test_another_sqlite_database_is_refused_without_being_switched_to_wal(
    tmp_path: Path,
) -> None:
    other = tmp_path / "other.sqlite"
    with contextlib.closing(sqlite3.connect(other)) as conn, conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
        conn.execute("INSERT INTO notes VALUES ('keep me as I am')")
    before = other.read_bytes()
    assert_user_error(run_cli("--db", other, "info"), str(other), "not an nlibuild store")
    assert not (tmp_path / "other.sqlite-wal").exists()
    assert other.read_bytes() == before
    assert _journal_mode(other) == "delete"


def test_a_text_file_given_as_the_store_is_refused_and_left_alone(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("these are not the pages of a database\n" * 200, encoding="utf-8")
    before = notes.read_bytes()
    assert_user_error(run_cli("--db", notes, "info"), str(notes), "not an nlibuild store")
    assert notes.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]


def test_a_store_left_in_rollback_journal_mode_is_opened_and_switched_to_wal(
    tmp_path: Path,
) -> None:
    db = new_store(tmp_path / "corpus.db")
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    assert _journal_mode(db) == "delete"
    ok("--db", db, "info")
    assert _journal_mode(db) == "wal"
