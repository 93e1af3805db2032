"""Every command that opens a store, on a store damaged in generated ways (issue 26): it
works, or it prints one `Error:` line (never a traceback, never the internal error of a
bug), and a store it refuses is left as it was: byte for byte where its bytes were damaged,
row for row where its rows were.

The damage, to a real store made by the test (the 48 sample pairs, aggregated, split and
translated; in WAL mode, or in rollback-journal mode as an older release left it):

- the file cut at any offset;
- bytes flipped in the header (its first 100 bytes: page size, counts, schema cookie,
  user version) or anywhere in its pages;
- rows deleted from any table (a store edited by hand, a tool that "cleaned" it);
- a `-wal` or `-journal` file of garbage beside it (one that starts as SQLite's own would,
  or not at all).

`make test` runs a bounded, fixed set of examples; `make fuzz` many, random.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest
from conftest import DATA, SAMPLE_MNLI
from fuzz_checks import assert_one_error_line, examples, file_bytes, invoked, store_digest
from hypothesis import given
from hypothesis import strategies as st
from test_store_damage import intact_store

import nlibuild

EXAMPLES = 12
"""Examples per kind of damage under `make test` (about 0.3 s each)."""

COMMANDS: dict[str, tuple[str, ...]] = {
    "info": ("info",),
    "runs": ("runs",),
    "stats": ("stats", "--table", "agreement"),
    "stats-lengths": ("stats", "--table", "lengths"),
    "import": ("import", str(SAMPLE_MNLI), "--format", "mnli"),
    "aggregate": ("aggregate-labels",),
    "export": ("export", "--format", "mnli-jsonl", "--out", "{folder}/out.jsonl"),
    "check": ("check",),
    "check-repair": ("check", "--repair"),
}
"""Readers, writers and `check`: each opens the store its own way."""

WAL_MAGIC = bytes.fromhex("377f0682")
JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The intact store in each journal mode."""
    return {mode: template_in_mode(tmp_path_factory, mode) for mode in ("wal", "delete")}


def template_in_mode(tmp_path_factory: pytest.TempPathFactory, mode: str) -> Path:
    """test_store_damage's intact store, with splits and German translations too."""
    db = intact_store(tmp_path_factory.mktemp(f"intact-{mode}") / "corpus.db", mode)
    corpus = nlibuild.open(db)
    corpus.split(dev=10, test=10, draw_from="labelled", group_by="pair")
    corpus.translate_import(
        path=DATA / "translations" / "sample_mnli.de.tsv", lang="de", translator="de01"
    )
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute(f"PRAGMA journal_mode={mode}")
    return db


class Scratch:
    """One example's folder: a copy of a template store's file, damaged."""

    def __init__(self, root: Path, template: Path, number: int) -> None:
        self.folder = root / f"example-{number}"
        self.folder.mkdir()
        self.db = self.folder / "corpus.db"
        self.db.write_bytes(template.read_bytes())


def works_or_refuses_leaving_bytes(scratch: Scratch, command: str) -> None:
    """The promise for a store whose bytes were damaged: exit 0, or one line and the file
    byte for byte as it was."""
    before = file_bytes(scratch.db)
    result = invoked("--db", str(scratch.db), *words_of(command, scratch.folder))
    if result.exit_code != 0:
        assert_one_error_line(result)
        assert file_bytes(scratch.db) == before, f"{command} changed a store it refused"


def words_of(command: str, folder: Path) -> list[str]:
    return [word.replace("{folder}", str(folder)) for word in COMMANDS[command]]


commands = st.sampled_from(sorted(COMMANDS))
modes = st.sampled_from(["wal", "delete"])


def test_a_store_cut_at_any_offset(templates: dict[str, Path], tmp_path: Path) -> None:
    @examples(EXAMPLES)
    @given(mode=modes, command=commands, share=st.floats(0, 1, exclude_max=True))
    def property_holds(mode: str, command: str, share: float) -> None:
        scratch = Scratch(tmp_path, templates[mode], len(list(tmp_path.iterdir())))
        data = scratch.db.read_bytes()
        scratch.db.write_bytes(data[: int(len(data) * share)])
        works_or_refuses_leaving_bytes(scratch, command)

    property_holds()


flips = st.lists(
    st.tuples(
        st.one_of(st.integers(0, 99), st.integers(100, 1 << 30)),  # header, or any page
        st.integers(1, 255),
    ),
    min_size=1,
    max_size=4,
)


def test_a_store_with_bytes_flipped(templates: dict[str, Path], tmp_path: Path) -> None:
    @examples(EXAMPLES * 2)
    @given(mode=modes, command=commands, changes=flips)
    def property_holds(mode: str, command: str, changes: list[tuple[int, int]]) -> None:
        scratch = Scratch(tmp_path, templates[mode], len(list(tmp_path.iterdir())))
        data = bytearray(scratch.db.read_bytes())
        for offset, mask in changes:
            data[offset % len(data)] ^= mask
        scratch.db.write_bytes(bytes(data))
        works_or_refuses_leaving_bytes(scratch, command)

    property_holds()


def store_tables(db: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]  # fmt: skip


def delete_rows(db: Path, table: str, every: int, offset: int) -> None:
    """Every `every`-th row of `table` (from `offset`) deleted, foreign keys off, as a
    tool that knows nothing of the schema would; the store stays in its journal mode."""
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as conn:
        info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
        keys = ", ".join(f'"{row[1]}"' for row in sorted(info, key=lambda r: r[5]) if row[5])
        keys = keys or "rowid"  # a table WITHOUT ROWID has a primary key
        conn.execute(
            f'DELETE FROM "{table}" WHERE ({keys}) IN (SELECT {keys} FROM '
            f'(SELECT {keys}, row_number() OVER (ORDER BY {keys}) AS n FROM "{table}") '
            "WHERE n % ? = ?)",
            (every, offset % every),
        )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def test_a_store_with_rows_deleted(templates: dict[str, Path], tmp_path: Path) -> None:
    tables = store_tables(templates["wal"])

    @examples(EXAMPLES * 2)
    @given(
        mode=modes,
        command=commands,
        deleted=st.lists(
            st.tuples(st.sampled_from(tables), st.integers(1, 4), st.integers(0, 3)),
            min_size=1,
            max_size=3,
        ),
    )
    def property_holds(mode: str, command: str, deleted: list[tuple[str, int, int]]) -> None:
        scratch = Scratch(tmp_path, templates[mode], len(list(tmp_path.iterdir())))
        for table, every, offset in deleted:
            delete_rows(scratch.db, table, every, offset)
        before = store_digest(scratch.db)
        result = invoked("--db", str(scratch.db), *words_of(command, scratch.folder))
        if result.exit_code != 0:
            assert_one_error_line(result)
            if not repaired(scratch.db):
                assert store_digest(scratch.db) == before, f"{command} changed a store it refused"

    property_holds()


def repaired(db: Path) -> bool:
    """Whether `check --repair` repaired the store: it then says, as an `Error:` line, what
    is left for `aggregate-labels` to do (the gold of pairs whose counts it rebuilt)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        last = conn.execute("SELECT stage FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    return last is not None and last[0] == "check-repair"


garbage = st.one_of(
    st.binary(max_size=4096),
    st.binary(min_size=24, max_size=4096).map(lambda rest: WAL_MAGIC + rest),
    st.binary(min_size=24, max_size=4096).map(lambda rest: JOURNAL_MAGIC + rest),
)


def test_a_store_beside_a_journal_of_garbage(templates: dict[str, Path], tmp_path: Path) -> None:
    """A `-wal` beside a store in WAL mode, a `-journal` beside one in rollback mode (hot,
    to SQLite, when it starts as a journal does): SQLite reads it on opening."""

    @examples(EXAMPLES)
    @given(mode=modes, command=commands, data=garbage)
    def property_holds(mode: str, command: str, data: bytes) -> None:
        scratch = Scratch(tmp_path, templates[mode], len(list(tmp_path.iterdir())))
        side = "-wal" if mode == "wal" else "-journal"
        scratch.db.with_name(scratch.db.name + side).write_bytes(data)
        works_or_refuses_leaving_bytes(scratch, command)

    property_holds()
