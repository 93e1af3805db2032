"""The store's SQLite connection: pragmas, migrations and transactions.

One SQLite file holds one corpus. It runs in WAL mode, so readers never wait for the one
writer, with foreign keys on and a busy timeout: a writer that finds another writer's lock
waits that long, then gets an `Error:` line that names the run holding the lock (from the
`runs` table, see nlibuild/core/runs.py) instead of SQLite's bare "database is locked".
A bulk writer may have its transaction's foreign keys checked once before it commits
instead of row by row (`Transactions.atomic_with_foreign_keys_checked_at_end`).

The schema version lives in `PRAGMA user_version`; the numbered scripts in
nlibuild/core/migrations/ are applied in order, each file one version.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from nlibuild.errors import OUT_OF_SPACE_ADVICE, OUT_OF_SPACE_ERRNOS, NoRoomError, StoreError

BUSY_TIMEOUT_ENV = "NLIBUILD_BUSY_TIMEOUT"
DEFAULT_BUSY_TIMEOUT_S = 5.0
"""How long a writer waits for another writer's lock before giving up with an `Error:` line."""


def busy_timeout_s() -> float:
    """The busy timeout in seconds: $NLIBUILD_BUSY_TIMEOUT, else 5 s."""
    value = os.environ.get(BUSY_TIMEOUT_ENV)
    if value is None:
        return DEFAULT_BUSY_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise StoreError(f"${BUSY_TIMEOUT_ENV}={value!r}: give a number of seconds, e.g. 30")
    return seconds


def lock_holder(conn: sqlite3.Connection, path: Path) -> StoreError:
    """The error for a store whose write lock outlasted the busy timeout, naming the run
    that holds it (readers are never blocked in WAL mode, so the runs table can be read)."""
    try:
        row = conn.execute(
            "SELECT id, stage, command, pid, host, started_at FROM runs "
            "WHERE status = 'running' ORDER BY id DESC LIMIT 1"
        ).fetchone()
    except sqlite3.OperationalError:  # a store still at schema 7, being migrated by another
        row = None
    waited = f"after waiting {busy_timeout_s():g} s"
    retry = "wait for it to finish (or stop it), or set $NLIBUILD_BUSY_TIMEOUT to wait longer"
    if row is None:
        return StoreError(f"{path}: the store is locked by another process {waited}; {retry}")
    run_id, stage, command, pid, host, started = row
    holder = command or f"nlibuild {stage}"
    return StoreError(
        f"{path}: the store is locked by run {run_id} (`{holder}`, pid {pid} on {host}, "
        f"started {started[:19].replace('T', ' ')} UTC) {waited}; {retry}"
    )


def _migration_files() -> list[tuple[int, Traversable]]:
    """(number, file) of every migration shipped in the package, in order."""
    folder = resources.files("nlibuild.core").joinpath("migrations")
    files = sorted(
        ((int(entry.name.split("_", 1)[0]), entry) for entry in folder.iterdir()
         if entry.name.endswith(".sql")),
        key=lambda file: file[0],
    )  # fmt: skip
    numbers = [number for number, _ in files]
    if numbers != list(range(1, len(files) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {numbers}")
    return files


def migration_scripts() -> list[tuple[int, str, str]]:
    """(number, file name, SQL) of every migration, in order (read only to migrate)."""
    return [(n, f.name, f.read_text(encoding="utf-8")) for n, f in _migration_files()]


# Counted from the file names: every command knows the schema it expects without reading
# the scripts, which only a store that needs migrating reads.
SCHEMA_VERSION = len(_migration_files())


_DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite's error says the file itself is damaged: a page ("database disk image
    is malformed", SQLITE_CORRUPT and its extended codes), the header ("file is not a
    database", SQLITE_NOTADB) or the header's format numbers ("unsupported file format");
    or whether a cell holds text that is not UTF-8 (`is_undecodable`)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    return (
        (code is not None and code & 0xFF in _DAMAGE_CODES)
        or "unsupported file format" in str(exc)
        or is_undecodable(exc)
    )


def is_undecodable(exc: BaseException) -> bool:
    """Whether a read met a text cell whose bytes are not UTF-8 (the sqlite3 module's
    "Could not decode to UTF-8 column"): nlibuild writes only text, so the bytes were
    changed under it; the file is otherwise sound (`PRAGMA quick_check` does not read
    text), so a run that met it may take its row back."""
    return isinstance(exc, sqlite3.OperationalError) and "Could not decode to UTF-8" in str(exc)


def damaged(path: Path | str, detail: str) -> StoreError:
    """The one line for a store SQLite cannot read as it is. A damaged header reads as
    "not a database", as any file that is not SQLite does: the line names both."""
    if "not a database" in detail:
        return StoreError(
            f"{path}: not an nlibuild store, or a store whose header is damaged ({detail}); "
            "it was left as it is: pass --db PATH of a store, or restore this one from a backup"
        )
    return StoreError(
        f"{path}: the store is damaged ({detail}); it was left as it is: restore it from a "
        f"backup, or save what SQLite can still read with `sqlite3 {path} .recover`"
    )


def unreadable(path: Path, exc: sqlite3.DatabaseError) -> StoreError:
    """The line for a `--db` whose first reads fail: damaged, no room for the `-shm`
    index a store in WAL mode is read through, or some other file."""
    if is_damage(exc):
        return damaged(path, str(exc))
    if out_of_space_cause(exc) is not None:
        return no_room(path, exc, "the store is unchanged")
    return StoreError(f"{path}: not an nlibuild store ({exc}); pass --db PATH")


SQLITE_OUT_OF_SPACE = (
    "SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_TRUNCATE",
    "SQLITE_IOERR_SHMOPEN", "SQLITE_IOERR_SHMSIZE",
)  # fmt: skip
"""SQLite's names for a write the file system refused: `database or disk is full`
(ENOSPC) and the `disk I/O error`s of a write, sync or truncation, and of sizing the `-shm`
index every reader of a store in WAL mode needs beside it (EFBIG under a file-size limit,
when it is opened or when it grows)."""


def out_of_space_cause(exc: BaseException) -> sqlite3.Error | OSError | None:
    """The error, `exc` or one it was raised while handling, that says a write found no
    room (a full disk, a file-size limit, a quota); None if none does. SQLite rolls a
    transaction back itself on such an error, and the ROLLBACK that follows then fails
    (`cannot rollback - no transaction is active`): hence the errors it happened during."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, sqlite3.Error) and (
            getattr(error, "sqlite_errorname", None) in SQLITE_OUT_OF_SPACE
        ):  # an error raised by the sqlite3 module itself has no name
            return error
        if isinstance(error, OSError) and error.errno in OUT_OF_SPACE_ERRNOS:
            return error
        error = error.__context__
    return None


def no_room(path: Path | str, cause: BaseException, outcome: str) -> NoRoomError:
    """The one line for a store a write to which found no room; `outcome` says what became
    of it (the store is unchanged, no store was made, the steps committed are kept)."""
    return NoRoomError(
        f"{path}: cannot write to the store ({cause}): {OUT_OF_SPACE_ADVICE} and run the "
        f"command again; {outcome}"
    )


def orphaned_rows(conn: sqlite3.Connection, path: Path | str) -> StoreError | None:
    """The line for a store one of whose rows refers to a row that is gone (rows deleted by
    hand, or by a tool that knows nothing of the schema), None if none does. Asked only
    after an error no check foresaw: `PRAGMA foreign_key_check` reads every referring row,
    and a store whose files are intact rarely lacks a row."""
    try:
        found = conn.execute("PRAGMA foreign_key_check").fetchone()
    except sqlite3.Error:
        return None
    if found is None:
        return None
    table, rowid, parent, _ = found
    return StoreError(
        f"{path}: the store is damaged: a row of {table} (rowid {rowid}) refers to a row of "
        f"{parent} that is not there (PRAGMA foreign_key_check); it was left as it is: "
        "restore it from a backup"
    )


def opened_read_only(path: Path | str, exc: BaseException) -> StoreError | None:
    """The line for a write SQLite refused as the store is open read-only to it
    (SQLITE_READONLY: a header whose write version, byte 18, is no format this SQLite
    writes, as a flipped bit leaves it); None for any other error. Asked of the error, not
    of the file: opening and closing the store's file beside SQLite's connection would
    drop the locks SQLite holds on it (POSIX advisory locks are the process's)."""
    name = getattr(exc, "sqlite_errorname", "")
    if not isinstance(exc, sqlite3.Error) or not name.startswith("SQLITE_READONLY"):
        return None
    return StoreError(
        f"{path}: SQLite opens the store read-only ({exc}): its header names a file format "
        "it does not write (the store is damaged), or its folder is not writable; it was "
        "left as it is: restore it from a backup, or make its folder writable"
    )


def check_intact(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged store before anything writes to it: `PRAGMA quick_check`, which
    reads every page (about 0.25 s for 90 MiB, a 200,000-pair store, from the page cache)
    but does not compare indexes with their tables as `integrity_check` does (3x slower)."""
    try:
        (verdict,) = conn.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise damaged(path, str(exc)) from None
        raise
    if verdict != "ok":  # "*** in database main ***\nPage 31: btreeInitPage() returns ..."
        finding = " ".join(verdict.replace("*** in database main ***", "").split())
        raise damaged(path, f"PRAGMA quick_check: {finding}")


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are ours) with the store's pragmas.

    It leaves the file's journal mode alone: `use_wal` switches it once the file is known
    to be a store, so a `--db` that names some other file is refused without being changed.
    """
    try:
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_s()
        )
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: cannot open the store ({exc}); pass --db PATH") from exc
    try:
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        # A whole import is one transaction: a large page cache keeps it off the WAL until
        # commit without letting memory grow unbounded (256 MiB).
        conn.execute("PRAGMA cache_size=-262144")
        conn.execute("PRAGMA temp_store=MEMORY")
    except sqlite3.OperationalError as exc:  # a header's format numbers, no room, else a bug
        conn.close()
        if is_damage(exc) or out_of_space_cause(exc) is not None:
            raise unreadable(path, exc) from None
        raise
    except sqlite3.DatabaseError as exc:  # some pragmas read the header: "not a database"
        conn.close()
        raise unreadable(path, exc) from None
    return conn


def use_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Switch the store to WAL mode (a no-op once it is), closing `conn` if that fails.

    Only for a file known to be a store (or a new one): the switch rewrites the file's
    header and leaves a `-wal` file beside it.
    """
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc) and "busy" not in str(exc):
            conn.close()
            raise unreadable(path, exc) from None
        # A store of an older release, still in rollback-journal mode, held by a writer:
        # switching to WAL needs the file to itself.
        locked = lock_holder(conn, path)
        conn.close()
        raise locked from None
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise unreadable(path, exc) from None


def run_statements(conn: sqlite3.Connection, script: str) -> None:
    """Run a script statement by statement inside the current transaction.

    `executescript` would COMMIT first; the statements are cut where SQLite's own tokenizer
    says one is complete.
    """
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            conn.execute(pending)
            pending = ""
    if pending.strip() and not all(
        part.strip().startswith("--") or not part.strip() for part in pending.splitlines()
    ):
        conn.execute(pending)  # a last statement without its semicolon


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, path: Path, target: int = SCHEMA_VERSION) -> None:
    """Apply the migrations the store lacks, all in one transaction.

    Foreign keys are off while they run, as SQLite's procedure for rebuilding a table asks
    (a rebuilt table is dropped while other tables still reference it), and checked before
    the transaction commits: a migration that would orphan a row is rolled back.
    """
    current = schema_version(conn)
    if current >= target:
        return
    conn.execute("PRAGMA foreign_keys=OFF")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for number, _, script in migration_scripts():
                if current < number <= target:
                    run_statements(conn, script)
                    conn.execute(f"PRAGMA user_version={number}")
            orphans = conn.execute("PRAGMA foreign_key_check").fetchall()
            if orphans:
                raise StoreError(
                    f"{path}: migrating to schema {target} would leave {len(orphans)} rows "
                    f"without their parent (first: {orphans[0]}); the store is unchanged. "
                    "This is a bug in nlibuild: please report it"
                )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.execute("PRAGMA foreign_keys=ON")


def check_foreign_keys(conn: sqlite3.Connection, table: str) -> None:
    """Raise a StoreError naming the first row of `table` whose parent row is missing."""
    violation = conn.execute(f'PRAGMA foreign_key_check("{table}")').fetchone()
    if violation is None:
        return
    _, rowid, parent, key_id = violation
    links = [
        (column, parent_column)
        for key, _, _, column, parent_column, *_ in conn.execute(
            f'PRAGMA foreign_key_list("{table}")'
        )
        if key == key_id
    ]
    columns = ", ".join(f'"{column}"' for column, _ in links)
    # A WITHOUT ROWID table's violations come without a rowid: find the row by its values.
    orphan = conn.execute(
        f'SELECT {columns} FROM "{table}" AS child WHERE '
        + " AND ".join(f'child."{column}" IS NOT NULL' for column, _ in links)
        + f' AND NOT EXISTS (SELECT 1 FROM "{parent}" AS parent WHERE '
        + " AND ".join(
            f'parent."{parent_column or "rowid"}" = child."{column}"'
            for column, parent_column in links
        )
        + ")"
        + (" AND child.rowid = ?" if rowid is not None else "")
        + " LIMIT 1",
        (rowid,) if rowid is not None else (),
    ).fetchone()
    values = ", ".join(
        f"{column} = {value!r}" for (column, _), value in zip(links, orphan or (), strict=False)
    )
    where = f"row {rowid}" if rowid is not None else "a row"
    raise StoreError(
        f"{where} of {table} ({values}) refers to a row of {parent} that does not "
        "exist; nothing was written. This is a bug in nlibuild: please report it with the "
        "input file"
    )


class Transactions:
    """`atomic()` on one connection: the outermost block is a transaction, inner ones are
    savepoints, so a helper can make its own writes atomic inside a stage's transaction."""

    def __init__(self, conn: sqlite3.Connection, locked: Callable[[], Exception]) -> None:
        self.conn = conn
        self.depth = 0
        self.locked = locked
        self.foreign_keys_unchecked: Sequence[str] = ()
        """Tables whose foreign keys are checked before the transaction commits."""

    def begin(self) -> None:
        """Take the write lock, waiting up to the busy timeout for another writer."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise self.locked() from None
            raise

    @property
    def active(self) -> bool:
        return self.depth > 0

    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Everything inside commits together or not at all."""
        savepoint = f"nlibuild_{self.depth}"
        if self.depth == 0:
            self.begin()
        else:
            self.conn.execute(f"SAVEPOINT {savepoint}")
        self.depth += 1
        try:
            yield
        except BaseException:
            self.depth -= 1
            if self.depth == 0:
                self.conn.execute("ROLLBACK")
            else:
                self.conn.execute(f"ROLLBACK TO {savepoint}")
                self.conn.execute(f"RELEASE {savepoint}")
            raise
        self.depth -= 1
        self.conn.execute("COMMIT" if self.depth == 0 else f"RELEASE {savepoint}")

    @contextmanager
    def atomic_with_foreign_keys_checked_at_end(self, tables: Sequence[str]) -> Iterator[None]:
        """The outermost `atomic()`, with SQLite's row-by-row foreign key checks off and the
        foreign keys of `tables` (those the block writes) checked once before it commits.

        For bulk writes: looking up each new row's parents as it comes took about a third
        of a million-pair import's writing; one pass over each table at the end finds the
        same faults. A row without its parent rolls everything back with a StoreError
        naming the table and the row. The pragma cannot change inside a transaction, so
        this block cannot be nested in another.
        """
        if self.depth:
            raise RuntimeError("foreign keys can be checked at the end only outside atomic()")
        (enforced,) = self.conn.execute("PRAGMA foreign_keys").fetchone()
        self.conn.execute("PRAGMA foreign_keys=OFF")
        self.foreign_keys_unchecked = tables
        try:
            with self.atomic():
                yield
                self._check_foreign_keys()
        finally:
            self.foreign_keys_unchecked = ()
            self.conn.execute(f"PRAGMA foreign_keys={'ON' if enforced else 'OFF'}")

    def _check_foreign_keys(self) -> None:
        for table in self.foreign_keys_unchecked:
            check_foreign_keys(self.conn, table)

    def commit_step(self) -> None:
        """Inside the outermost transaction: commit what is done so far and go on in a new one."""
        if self.depth != 1:
            raise RuntimeError("commit_step() belongs to the outermost atomic() block")
        self._check_foreign_keys()
        self.conn.execute("COMMIT")
        self.begin()
