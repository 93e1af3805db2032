"""Every stage runs as a recorded run: `running` -> `ok` | `failed` | `interrupted`.

`recorded_run()` is the one place that writes the provenance log. It commits the run's row
as `running` before the stage takes the write lock, so that a second writer that finds the
store locked can say which command holds it, and a run killed outright stays visible: its
row names the host and process, and once that process is gone the run shows (and is
recorded) as `interrupted`. The stage's work is one transaction that ends with the run
marked `ok`; a long stage may commit in steps (`RecordedRun.commit_step`) and, run again
with `resume=True`, skip the steps an interrupted run of the same settings committed.

A run that is refused (bad input, a wrong option: an `NlibuildError`) or stopped with
Ctrl-C before it committed a step leaves no row at all: the store is exactly as it was,
which is what a user is told. So does a run stopped by a full disk or a file-size limit
(`out_of_space`): it is refused as the user error it is, naming the store or the file that
could not be written, and its transaction rolls back. An unexpected error is recorded as
`failed` with its text.
"""

from __future__ import annotations

import os
import shlex
import socket
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import orjson
from pydantic import BaseModel

from nlibuild._version import VERSION
from nlibuild.core.database import (
    damaged,
    is_damage,
    is_undecodable,
    no_room,
    opened_read_only,
    orphaned_rows,
    out_of_space_cause,
)
from nlibuild.core.signature import settings_signature
from nlibuild.core.stage import StageName
from nlibuild.errors import (
    OUT_OF_SPACE_ADVICE,
    NlibuildError,
    OutputError,
)

if TYPE_CHECKING:
    from nlibuild.core.database import Transactions

RUNNING, OK, FAILED, INTERRUPTED = "running", "ok", "failed", "interrupted"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def process_alive(pid: int) -> bool:
    """Whether a process of this host with that ID still exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


# Who asked for the runs started in this context when it was not this process's command line:
# the workbench's lead page sets `serve: lead <ID>` around a button's run (`acting_as`), since
# the server's own command line (`nlibuild serve`) says nothing of which lead pressed it.
_acting: ContextVar[str | None] = ContextVar("nlibuild_acting", default=None)


@contextmanager
def acting_as(command: str) -> Iterator[None]:
    """Record `command` as the command of every run started inside this block (this thread's
    context only: a server's other requests keep their own)."""
    token = _acting.set(command)
    try:
        yield
    finally:
        _acting.reset(token)


def this_command() -> str:
    """The command line of this process, as a user would type it; inside `acting_as`, what
    that names (`serve: lead lead01`)."""
    acting = _acting.get()
    if acting is not None:
        return acting
    args = [os.path.basename(sys.argv[0]) or "nlibuild", *sys.argv[1:]]
    if args[0] in {"__main__.py", "-m"}:
        args[0] = "nlibuild"
    return shlex.join(args)


def sweep_interrupted(conn: sqlite3.Connection) -> int:
    """Record as `interrupted` every run left `running` by a process of this host that has
    died (a kill -9, a power cut). Runs of other hosts are left: their processes cannot be
    seen from here. Call inside a write transaction."""
    host = socket.gethostname()
    rows = conn.execute(
        "SELECT id, pid FROM runs WHERE status = 'running' AND host = ? AND pid IS NOT NULL",
        (host,),
    ).fetchall()
    dead = [(run_id, pid) for run_id, pid in rows if not process_alive(pid)]
    conn.executemany(
        "UPDATE runs SET status = 'interrupted', error = ? WHERE id = ?",
        [(died_reason(pid, host), rid) for rid, pid in dead],
    )
    return len(dead)


def died_reason(pid: int | None, host: str | None) -> str:
    """The error of a run whose process died while it was running."""
    return f"process {pid} on {host} ended before the run finished"


def shown_status(status: str, host: str | None, pid: int | None) -> str:
    """A run's status as `nlibuild runs` shows it: `running` only while its process lives."""
    if status == RUNNING and host == socket.gethostname() and pid is not None:
        return RUNNING if process_alive(pid) else INTERRUPTED
    return status


@dataclass
class RecordedRun:
    """The handle a stage gets from `recorded_run()`."""

    id: int
    signature: str
    transactions: Transactions
    done_steps: tuple[str, ...] = ()
    """Steps an interrupted run with the same settings committed (only with resume=True)."""
    counts: dict[str, int] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)

    def finish(self, counts: dict[str, int]) -> None:
        """The counts the run ends with (written when the stage's block ends)."""
        self.counts = dict(counts)

    def commit_step(self, step: str) -> None:
        """Commit everything so far as step `step`: a crash after this keeps it, and a
        resumed run skips it."""
        self.steps.append(step)
        self.transactions.conn.execute(
            "UPDATE runs SET steps_json = ? WHERE id = ?",
            (orjson.dumps([*self.done_steps, *self.steps]).decode(), self.id),
        )
        self.transactions.commit_step()

    @property
    def committed_any(self) -> bool:
        return bool(self.steps or self.done_steps)


def _start(tx: Transactions, stage: str, config: str, signature: str, resume: bool) -> RecordedRun:
    """Commit the run's `running` row (or take up an interrupted run's, with resume)."""
    conn = tx.conn
    with tx.atomic():
        sweep_interrupted(conn)
        process = (this_command(), socket.gethostname(), os.getpid())
        earlier = None
        if resume:
            earlier = conn.execute(
                "SELECT id, steps_json FROM runs WHERE stage = ? AND signature = ? "
                "AND status IN ('interrupted', 'failed') ORDER BY id DESC LIMIT 1",
                (stage, signature),
            ).fetchone()
        if earlier is not None:
            conn.execute(
                "UPDATE runs SET status = 'running', error = NULL, command = ?, host = ?, "
                "pid = ? WHERE id = ?",
                (*process, earlier[0]),
            )
            done = tuple(orjson.loads(earlier[1]))
            return RecordedRun(int(earlier[0]), signature, tx, done_steps=done)
        cursor = conn.execute(
            "INSERT INTO runs(stage, config_json, signature, started_at, status, version, "
            "command, host, pid) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)",
            (stage, config, signature, now(), VERSION, *process),
        )
        assert cursor.lastrowid is not None
        return RecordedRun(int(cursor.lastrowid), signature, tx)


def _end(tx: Transactions, run: RecordedRun, status: str, error: str, forget: bool) -> None:
    """Record how a run ended, outside its own (rolled back) transaction, or remove its row
    (`forget`) so that the store is exactly as it was before the run."""
    if forget and not tx.active:
        # The row this run added goes as it came: without asking other tables, whose rows
        # may name its ID already in a store whose runs were deleted by hand (an ID is
        # reused once its row is gone), where the foreign key check would keep it.
        tx.conn.execute("PRAGMA foreign_keys=OFF")
        try:
            with tx.atomic():
                tx.conn.execute("DELETE FROM runs WHERE id = ?", (run.id,))
        finally:
            tx.conn.execute("PRAGMA foreign_keys=ON")
        return
    with tx.atomic():
        if forget:
            tx.conn.execute("DELETE FROM runs WHERE id = ?", (run.id,))
        else:
            tx.conn.execute(
                "UPDATE runs SET status = ?, error = ?, finished_at = ? WHERE id = ?",
                (status, error, now(), run.id),
            )


@contextmanager
def recorded_run(
    tx: Transactions,
    stage: StageName,
    settings: BaseModel,
    *,
    resume: bool = False,
    foreign_keys_checked_at_end: Sequence[str] = (),
) -> Iterator[RecordedRun]:
    """Run a stage's work as one recorded run (see the module docstring), signed by its
    settings (`settings_signature`). With `foreign_keys_checked_at_end` (the tables a bulk
    writer fills) the work's transaction skips the row-by-row foreign key checks and checks
    those tables once before it commits (`Transactions.atomic_with_foreign_keys_checked_at_end`).
    """
    signature = settings_signature(stage.name, settings)
    config = settings.model_dump_json()
    started: list[RecordedRun] = []  # set once the `running` row is committed
    try:
        started.append(_start(tx, stage.name, config, signature, resume))
        run = started[0]
        work = (
            tx.atomic_with_foreign_keys_checked_at_end(foreign_keys_checked_at_end)
            if foreign_keys_checked_at_end
            else tx.atomic()
        )
        with work:
            yield run
            tx.conn.execute(
                "UPDATE runs SET status = 'ok', finished_at = ?, counts_json = ? WHERE id = ?",
                (now(), orjson.dumps(run.counts).decode(), run.id),
            )
    except BaseException as exc:
        run_or_none = started[0] if started else None
        refusal = exc if isinstance(exc, NlibuildError) else unforeseen(exc, tx.conn, run_or_none)
        if run_or_none is not None:
            _record_stop(tx, run_or_none, exc, refusal)
        if refusal is None or refusal is exc:
            raise
        raise refusal from exc


def unforeseen(
    exc: BaseException, conn: sqlite3.Connection, run: RecordedRun | None
) -> NlibuildError | None:
    """The user error behind an exception no stage foresaw: a full disk (`out_of_space`), a
    store SQLite opened read-only (`opened_read_only`), text that is not UTF-8 in a sound
    file, or rows that refer to rows deleted from the store (`orphaned_rows`): the store is
    damaged, not the code wrong; None for a bug."""
    refusal = out_of_space(exc, conn, run) or opened_read_only(_store_file(conn), exc)
    if refusal is None and is_undecodable(exc):
        refusal = damaged(_store_file(conn), str(exc))
    if refusal is None and not is_damage(exc) and not isinstance(exc, KeyboardInterrupt):
        refusal = orphaned_rows(conn, _store_file(conn))
    return refusal


def _record_stop(
    tx: Transactions, run: RecordedRun, exc: BaseException, refusal: NlibuildError | None
) -> None:
    """Record how a run that did not finish ended (the module docstring says how)."""
    if isinstance(exc, KeyboardInterrupt):
        _end(tx, run, INTERRUPTED, "interrupted (Ctrl-C)", forget=not run.committed_any)
    elif isinstance(exc, NlibuildError):
        _end(tx, run, FAILED, str(exc), forget=not run.committed_any)
    elif refusal is not None:
        # Out of space or a damaged store: a user error, so the run leaves no row unless it
        # committed steps. Recording the end may need room too; if it cannot be written,
        # the row stays `running` and shows as `interrupted` once this process ends.
        with suppress(sqlite3.Error):
            _end(tx, run, FAILED, str(refusal), forget=not run.committed_any)
    elif not is_damage(exc):  # a store SQLite finds damaged is written no more
        _end(tx, run, FAILED, f"{type(exc).__name__}: {exc}", forget=False)


def out_of_space(
    exc: BaseException, conn: sqlite3.Connection, run: RecordedRun | None
) -> NlibuildError | None:
    """The user error for a run stopped by a full disk or a file-size limit, naming the
    store or the file that could not be written; None for any other error."""
    kept = f"the steps run {run.id} committed are kept" if run and run.committed_any else None
    cause = out_of_space_cause(exc)
    if isinstance(cause, sqlite3.Error):
        return no_room(_store_file(conn), cause, kept or "the store is unchanged")
    if isinstance(cause, OSError):
        where = cause.filename or "a file this command writes"
        return OutputError(
            f"{where}: cannot write it ({cause.strerror}): {OUT_OF_SPACE_ADVICE} and run "
            f"the command again; {kept or 'the store is unchanged'}"
        )
    return None


def _store_file(conn: sqlite3.Connection) -> str:
    """The path of the store `conn` has open (its `main` database)."""
    try:
        for _, name, path in conn.execute("PRAGMA database_list"):
            if name == "main" and path:
                return str(path)
    except sqlite3.Error:
        pass
    return "the store"
