"""The store is never harmed by what a command is asked to do: an output path that is the
store, a `--db` that is some other file, a seed too large to use."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from conftest import assert_user_error, fails, new_store, ok, run_cli

from nlibuild.models import SEED_LIMIT

HUGE_SEED = 99999999999999999999999
"""Larger than any seed a random generator takes (2**64 and beyond)."""


def _store_files(db: Path) -> dict[str, bytes]:
    """The store's bytes and those of its side files, to show that nothing replaced them."""
    return {
        path.name: path.read_bytes()
        for path in sorted(db.parent.iterdir())
        if path.name.startswith(db.name)
    }


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_export_refuses_to_write_over_the_store_or_its_side_files(
    sample_db: Path, suffix: str
) -> None:
    target = sample_db.parent / f"{sample_db.name}{suffix}"
    before = _store_files(sample_db)
    fails(sample_db, "export", "--format", "mnli-jsonl", "--out", target,
          says=("--out", str(target)))  # fmt: skip
    assert _store_files(sample_db) == before
    assert ok("--db", sample_db, "info")


def test_export_refuses_the_store_named_another_way_or_through_a_symlink(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = sample_db.parent / "link.jsonl"
    link.symlink_to(sample_db)
    before = _store_files(sample_db)
    fails(sample_db, "export", "--format", "mnli-jsonl", "--out", link, says=("--out", "link"))
    monkeypatch.chdir(sample_db.parent)
    fails(Path(sample_db.name), "export", "--format", "jsonl",
          "--out", Path("sub/..") / sample_db.name, says=("--out",))  # fmt: skip
    assert _store_files(sample_db) == before


def test_translate_export_refuses_to_write_over_the_store(sample_db: Path) -> None:
    fails(sample_db, "translate", "export", "--lang", "de", "--format", "tsv",
          "--out", sample_db, says=("--out", str(sample_db)))  # fmt: skip


@pytest.mark.parametrize("stage", ["elicit", "relabel"])
def test_a_work_package_folder_cannot_be_the_store(sample_db: Path, stage: str) -> None:
    fails(sample_db, stage, "export", "--all", "--out", sample_db,
          says=("--out", str(sample_db)))  # fmt: skip


def test_an_export_beside_the_store_is_still_written(sample_db: Path) -> None:
    out = sample_db.parent / f"{sample_db.name}.jsonl"
    ok("--db", sample_db, "export", "--format", "mnli-jsonl", "--out", out)
    assert out.stat().st_size > 0


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


def test_sample_refuses_a_seed_too_large_to_use(tmp_path: Path) -> None:
    db = new_store(tmp_path / "corpus.db")
    source = tmp_path / "news.txt"
    source.write_text(
        "The city council approved a new budget for public parks on Monday.\n\n"
        "Heavy rain flooded several streets in the old town overnight.\n",
        encoding="utf-8",
    )
    ok("--db", db, "ingest", source, "--genre", "news")
    fails(db, "sample", "--genre", "news", "--n", 1, "--min-len", 3, "--max-len", 40,
          "--seed", HUGE_SEED, says=("seed",))  # fmt: skip
    fails(db, "sample", "--genre", "news", "--n", 1, "--min-len", 3, "--max-len", 40,
          "--seed", -1, says=("seed",))  # fmt: skip


@pytest.mark.parametrize(
    "command",
    [
        ("split", "--dev", "4", "--test", "4", "--from", "labelled"),
        ("relabel", "create", "--annotators", "v01,v02,v03", "--fraction", "0.5"),
        ("stats", "--table", "agreement", "--ci", "0.9", "--resamples", "10"),
        ("elicit", "create", "--protocol", "SINGLE", "--annotators", "w01"),
        ("bias", "hypothesis-only", "--cross-validate", "2"),
    ],
)
def test_a_seed_too_large_to_use_is_one_error_line(
    sample_db: Path, command: tuple[str, ...]
) -> None:
    fails(sample_db, *command, "--seed", HUGE_SEED, says=("seed",))


def test_the_largest_seed_is_still_used(sample_db: Path) -> None:
    ok("--db", sample_db, "split", "--dev", "4", "--test", "4", "--from", "labelled",
       "--seed", SEED_LIMIT - 1)  # fmt: skip
