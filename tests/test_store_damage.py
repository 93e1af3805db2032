"""A damaged store file is refused with one `Error:` line naming it, and left byte for byte
as it was (issue 26: `info` on a corrupt store gave an internal error and, switching the
file to WAL mode, rewrote 4 bytes of its header).

Three damages, as files get damaged: pages garbled in the middle of the file, a file cut
short, a header overwritten; each in a store in WAL mode and in one left in rollback-journal
mode by an older release, which opening switches to WAL. A writer (and `check`) reads every
page before it begins, so that a damaged page it never reads is refused as well; a reader is
refused when it meets one, and opening an intact store reads no more than it did.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SAMPLE_MNLI, assert_user_error, ok, run_cli

import nlibuild
from nlibuild.core.database import check_intact
from nlibuild.store import Store

PAGE = 4096
MAGIC = b"SQLite format 3\x00"


def garble(data: bytes, start: int, end: int) -> bytes:
    """`data` with the bytes from `start` to `end` replaced by a fixed pattern."""
    noise = bytes((index * 7 + 13) % 256 for index in range(start, end))
    return data[:start] + noise + data[end:]


def garbled_middle(data: bytes) -> bytes:
    """The pages of the middle half of the file (the tables' rows) garbled."""
    pages = len(data) // PAGE
    return garble(data, pages // 4 * PAGE, pages * 3 // 4 * PAGE)


CORPUS_TABLES = ("pairs", "votes", "pair_labels")


def garbled_rows(data: bytes) -> bytes:
    """The pages of the corpus's tables garbled, the schema left readable: the store opens,
    and a command meets the damage when it reads them."""
    with contextlib.closing(sqlite3.connect(":memory:")) as conn:
        # Header bytes 18 and 19 say WAL mode, which a database in memory cannot read.
        conn.deserialize(data[:18] + b"\x01\x01" + data[20:])
        pages = [page for (page,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name IN (?, ?, ?)", CORPUS_TABLES
        )]  # fmt: skip
    for page in pages:
        data = garble(data, (page - 1) * PAGE, page * PAGE)
    return data


def truncated(data: bytes) -> bytes:
    """The file cut after half its pages, as a full disk or an interrupted copy leaves it."""
    return data[: len(data) // PAGE // 2 * PAGE]


def header_overwritten(data: bytes) -> bytes:
    """The header's first bytes (SQLite's magic string) overwritten."""
    return b"garbage, not sql" + data[len(MAGIC) :]


DAMAGES: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "garbled-middle": (garbled_middle, "the store is damaged ("),
    "garbled-rows": (garbled_rows, "the store is damaged ("),
    "truncated": (truncated, "the store is damaged ("),
    "header": (header_overwritten, "a store whose header is damaged (file is not a database)"),
}
"""Each damage and what its `Error:` line says of the store (then SQLite's words: "database
disk image is malformed" from a read, or what `PRAGMA quick_check` found)."""

COMMANDS = {
    "info": ("info",),
    "stats": ("stats", "--table", "agreement"),
    "import": ("import", SAMPLE_MNLI, "--format", "mnli"),
    "check": ("check",),
    "check-repair": ("check", "--repair"),
}


def journal_mode(db: Path) -> str:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        mode: str = conn.execute("PRAGMA journal_mode").fetchone()[0]
    return mode


def intact_store(db: Path, mode: str) -> Path:
    """The 48 sample pairs, aggregated, at `db`, in the journal mode `mode`: `wal`, or
    `delete` as an older release left a store (the whole store in the file, either way)."""
    corpus = nlibuild.create(db)
    corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    corpus.aggregate_labels()
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute(f"PRAGMA journal_mode={mode}")
    assert journal_mode(db) == mode and len(db.read_bytes()) >= 40 * PAGE
    return db


@pytest.fixture(scope="module", params=["wal", "delete"])
def intact(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 48 sample pairs, aggregated, in WAL mode or left in rollback-journal mode."""
    return intact_store(
        tmp_path_factory.mktemp(f"intact-{request.param}") / "corpus.db", request.param
    )


def damaged_copy(intact: Path, folder: Path, damage: str) -> Path:
    db = folder / "corpus.db"
    db.write_bytes(DAMAGES[damage][0](intact.read_bytes()))
    return db


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_store_is_one_error_line_and_left_as_it_was(
    intact: Path, tmp_path: Path, damage: str, command: str
) -> None:
    db = damaged_copy(intact, tmp_path, damage)
    before = db.read_bytes()
    result = run_cli("--db", db, *COMMANDS[command])
    line = assert_user_error(result, f"{db}: ", DAMAGES[damage][1], "left as it is")
    assert "restore" in line and "internal error" not in line
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.db"]  # no -wal, no -shm


def test_a_writer_refuses_a_damaged_page_it_would_never_read(intact: Path, tmp_path: Path) -> None:
    """aggregate-labels reads the votes and writes the gold: a table of scores garbled far
    from them would still be damage its run's writes land beside, so every page is checked
    first (`PRAGMA quick_check`); so is the store by `check`, whose job it is."""
    with contextlib.closing(sqlite3.connect(intact)) as conn:
        (root,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'score_dynamics'"
        ).fetchone()
    db = tmp_path / "corpus.db"
    data = intact.read_bytes()
    db.write_bytes(garble(data, (root - 1) * PAGE, root * PAGE))
    before = db.read_bytes()
    for command in (("aggregate-labels",), ("check",)):
        assert_user_error(
            run_cli("--db", db, *command), f"{db}: the store is damaged (PRAGMA quick_check: "
        )
        assert db.read_bytes() == before
    if journal_mode(intact) == "wal":  # opened as it is: a reader that never meets the
        ok("--db", db, "stats", "--table", "agreement")  # page reads every row it shows
        assert db.read_bytes() == before


def pages_read_whole(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The stores whose every page is read (`check_intact`) from now on, in order."""
    checked: list[Path] = []

    def recorded(conn: sqlite3.Connection, path: Path) -> None:
        checked.append(path)
        check_intact(conn, path)

    monkeypatch.setattr("nlibuild.store.check_intact", recorded)
    return checked


def test_an_intact_store_in_wal_mode_is_read_without_reading_every_page(
    intact: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PRAGMA quick_check` reads the whole file (about 0.25 s per 90 MiB): reading
    commands on a store that needs no switch to WAL and no migration never run it; `check`
    and each writer run it once."""
    db = Path(shutil.copyfile(intact, tmp_path / "corpus.db"))
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    checked = pages_read_whole(monkeypatch)
    ok("--db", db, "info")
    ok("--db", db, "stats", "--table", "agreement")
    assert checked == []
    ok("--db", db, "check")
    ok("--db", db, "aggregate-labels")
    ok("--db", db, "check", "--repair")
    assert checked == [db, db, db]


def test_a_store_in_rollback_journal_mode_is_checked_once_before_its_switch_to_wal(
    intact: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The switch rewrites the header: the pages are read first, once, then the intact
    store is switched as before, and a run on it reads them no second time."""
    db = Path(shutil.copyfile(intact, tmp_path / "corpus.db"))
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    checked = pages_read_whole(monkeypatch)
    with Store.open(db) as store:
        store.check_intact_once()
    assert (checked, journal_mode(db)) == ([db], "wal")
