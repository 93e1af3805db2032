"""The kernel: transactions with savepoints, recorded runs, signatures from settings, locks."""

from __future__ import annotations

import csv
import io
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from enum import StrEnum
from pathlib import Path

import pytest
from conftest import DATA, assert_user_error, run_cli, table_counts
from pydantic import BaseModel, ConfigDict

from nlibuild.core.database import migration_scripts
from nlibuild.core.signature import OutputPath, input_paths, settings_signature
from nlibuild.core.stage import StageName
from nlibuild.errors import InputError, StoreError
from nlibuild.store import Store

DEMO_STAGE = StageName("demo", (), "a test's own stage", "tests")


class Unit(StrEnum):
    CHARS = "chars"
    TOKENS = "tokens"


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    out: OutputPath
    unit: Unit = Unit.CHARS
    genres: tuple[str, ...] = ()
    genre_map: tuple[tuple[str, str], ...] = ()
    strict: bool = False
    limit: float | None = None


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as opened:
        yield opened


def statuses(store: Store) -> list[tuple[str, str, str | None]]:
    return [(r.stage, r.status, r.error) for r in store.runs()]


# --- signatures ---------------------------------------------------------------------------


def test_the_signature_names_every_setting_with_input_files_by_content(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("Ein Hund.\n", encoding="utf-8")
    settings = Settings(
        path=source,
        out=tmp_path / "out.tsv",
        genres=("news", "gov"),
        genre_map=(("a", "news"), ("b", "gov")),
        limit=0.7,
    )
    assert settings_signature("demo", settings, "1.0") == (
        "stage:demo|path:306da5b77d2f|out:out.tsv|unit:chars|genres:news,gov|"
        "genre-map:a=news,b=gov|strict:no|limit:0.7|version:1.0"
    )
    before = settings_signature("demo", settings, "1.0")
    source.write_text("Ein Hund!\n", encoding="utf-8")
    assert settings_signature("demo", settings, "1.0") != before


def test_two_settings_that_differ_in_one_field_get_different_signatures(tmp_path: Path) -> None:
    base = Settings(path=tmp_path / "a", out=tmp_path / "b")
    changed = [
        base.model_copy(update={"unit": Unit.TOKENS}),
        base.model_copy(update={"genres": ("news",)}),
        base.model_copy(update={"genre_map": (("a", "b"),)}),
        base.model_copy(update={"strict": True}),
        base.model_copy(update={"limit": 0.5}),
        base.model_copy(update={"out": tmp_path / "c"}),
    ]
    signatures = {settings_signature("s", s) for s in [base, *changed]}
    assert len(signatures) == len(changed) + 1


class OptionalOutput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    out: OutputPath | None = None


def test_an_optional_output_is_signed_by_its_name_and_is_no_input(tmp_path: Path) -> None:
    # `OutputPath | None` keeps its marker in the type, not in the field's metadata.
    source, written = tmp_path / "in.txt", tmp_path / "ids.txt"
    source.write_text("x\n", encoding="utf-8")
    written.write_text("an earlier run's output\n", encoding="utf-8")
    settings = OptionalOutput(path=source, out=written)
    assert settings_signature("demo", settings, "1.0").endswith("|out:ids.txt|version:1.0")
    assert input_paths(settings) == [source]


# --- transactions and recorded runs -------------------------------------------------------


def test_an_inner_atomic_block_is_a_savepoint_that_rolls_back_alone(store: Store) -> None:
    with store.atomic():
        store.set_meta("a", "1")
        with pytest.raises(RuntimeError), store.atomic():
            store.set_meta("b", "2")
            raise RuntimeError("inner step failed")
        store.set_meta("c", "3")
    assert store.meta() == {"lang": "en", "a": "1", "c": "3"}


class Demo(BaseModel):
    size: int = 3


def test_a_run_ends_ok_with_its_counts_and_process(store: Store) -> None:
    with store.recorded_run(DEMO_STAGE, Demo()) as run:
        store.set_meta("written", "yes")
        run.finish({"rows": 3})
    (record,) = store.runs()
    assert (record.status, record.counts, record.error) == ("ok", {"rows": 3}, None)
    assert (record.host, record.pid) == (socket.gethostname(), os.getpid())
    assert record.signature == "stage:demo|size:3|version:0.1.0"


def test_a_refused_run_leaves_the_store_exactly_as_it_was(store: Store) -> None:
    with (
        pytest.raises(InputError),
        store.recorded_run(DEMO_STAGE, Demo()),
    ):
        store.set_meta("written", "yes")
        raise InputError("in.jsonl", "no pairs", line=3)
    assert store.runs() == [] and "written" not in store.meta()


def foreign_keys_enforced(store: Store) -> bool:
    return bool(store.conn.execute("PRAGMA foreign_keys").fetchone()[0])


def test_a_bulk_run_checks_foreign_keys_once_at_the_end_and_commits(store: Store) -> None:
    tables = ("annotators", "premises", "pairs")
    with store.recorded_run(
        DEMO_STAGE,
        Demo(),
        foreign_keys_checked_at_end=tables,
    ) as run:
        assert not foreign_keys_enforced(store)
        # A child before its parent is fine: only the end state is checked.
        store.insert("pairs", [(1, "x_1-e1", 1, "A dog.", "en", None, None, 1, "e", None)], run.id)
        store.insert("premises", [(1, "x_1", "g", "en", "A man.", 2, None)], run.id)
        store.insert("annotators", [(1, "w1", 0, None)])
    assert foreign_keys_enforced(store)
    assert statuses(store) == [("demo", "ok", None)]
    assert store.count("pairs") == 1


def test_a_bulk_run_with_a_row_missing_its_parent_rolls_back_and_names_the_row(
    store: Store,
) -> None:
    tables = ("annotators", "premises", "pairs", "votes")
    with (
        pytest.raises(StoreError) as raised,
        store.recorded_run(
            DEMO_STAGE,
            Demo(),
            foreign_keys_checked_at_end=tables,
        ) as run,
    ):
        store.insert("annotators", [(1, "w1", 0, None)])
        store.insert("premises", [(1, "x_1", "g", "en", "A man.", 2, None)], run.id)
        store.insert("pairs", [(1, "x_1-e1", 1, "A dog.", "en", None, None, 1, "e", None)], run.id)
        store.insert("votes", [(1, 1, 0, "entailment"), (1, 7, 1, "neutral")], run.id)
    message = str(raised.value)
    assert "a row of votes (annotator_pk = 7) refers to a row of annotators" in message
    assert "nothing was written" in message
    assert store.runs() == [] and store.count("pairs") == 0 and store.count("annotators") == 0
    assert foreign_keys_enforced(store)


def test_foreign_keys_cannot_be_checked_at_the_end_of_a_nested_block(store: Store) -> None:
    with store.atomic(), pytest.raises(RuntimeError, match="outside atomic"):  # noqa: SIM117
        with store.tx.atomic_with_foreign_keys_checked_at_end(("pairs",)):
            pass
    assert foreign_keys_enforced(store)


def test_an_unexpected_error_is_recorded_as_failed_with_its_text(store: Store) -> None:
    with (
        pytest.raises(ZeroDivisionError),
        store.recorded_run(DEMO_STAGE, Demo()),
    ):
        store.set_meta("written", "yes")
        _ = 1 / 0
    assert statuses(store) == [("demo", "failed", "ZeroDivisionError: division by zero")]
    assert "written" not in store.meta()


def test_a_stage_that_commits_in_steps_resumes_after_its_last_step(store: Store) -> None:
    done: list[str] = []
    with (
        pytest.raises(KeyboardInterrupt),
        store.recorded_run(DEMO_STAGE, Demo()) as run,
    ):
        for step in ("a", "b", "c"):
            if step == "c":
                raise KeyboardInterrupt
            store.set_meta(step, "done")
            run.commit_step(step)
    assert statuses(store) == [("demo", "interrupted", "interrupted (Ctrl-C)")]
    assert store.meta() == {"lang": "en", "a": "done", "b": "done"}

    with store.recorded_run(DEMO_STAGE, Demo(), resume=True) as run:
        assert run.done_steps == ("a", "b")
        for step in ("a", "b", "c"):
            if step not in run.done_steps:
                store.set_meta(step, "done")
                done.append(step)
                run.commit_step(step)
    assert done == ["c"]
    (record,) = store.runs()
    assert (record.status, record.steps) == ("ok", ["a", "b", "c"])


def test_resume_starts_afresh_when_no_interrupted_run_has_the_same_settings(store: Store) -> None:
    with (
        pytest.raises(KeyboardInterrupt),
        store.recorded_run(DEMO_STAGE, Demo()) as run,
    ):
        run.commit_step("a")
        raise KeyboardInterrupt
    with store.recorded_run(DEMO_STAGE, Demo(size=4), resume=True) as run:
        assert run.done_steps == ()
    assert [r.status for r in store.runs()] == ["interrupted", "ok"]


# --- a killed run and a held lock ---------------------------------------------------------


def dead_pid() -> int:
    """The ID of a process that has just ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def add_running_run(db: Path, pid: int, command: str) -> None:
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "INSERT INTO runs(stage, config_json, signature, started_at, status, version, "
            "command, host, pid) VALUES ('import', '{}', 'stage:import', "
            "'2026-11-25T06:00:00.000+00:00', 'running', '0.1.0', ?, ?, ?)",
            (command, socket.gethostname(), pid),
        )


def test_a_run_whose_process_died_shows_and_is_recorded_as_interrupted(db: Path) -> None:
    add_running_run(db, dead_pid(), "nlibuild import big.jsonl")
    result = run_cli("--db", db, "runs", "--format", "json")
    assert '"status":"interrupted"' in result.stdout
    assert (
        run_cli("--db", db, "import", DATA / "sample_mnli.jsonl", "--format", "mnli").exit_code == 0
    )
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute("SELECT stage, status, error FROM runs ORDER BY id").fetchall()
    assert (
        rows[1][:2] == ("import", "interrupted") and "ended before the run finished" in rows[1][2]
    )
    assert [status for _, status, _ in rows] == ["ok", "interrupted", "ok"]


def test_runs_shows_why_a_dead_run_stopped_without_recording_it(db: Path) -> None:
    pid = dead_pid()
    add_running_run(db, pid, "nlibuild import big.jsonl")
    result = run_cli("--db", db, "runs", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(r["stage"], r["status"], r["error"]) for r in rows] == [
        ("init", "ok", ""),
        ("import", "interrupted", f"process {pid} on {socket.gethostname()} ended before the "
         "run finished"),
    ]  # fmt: skip
    with closing(sqlite3.connect(db)) as conn:  # `runs` reads: the next writer sweeps
        assert conn.execute("SELECT status FROM runs WHERE id = 2").fetchone() == ("running",)


def test_a_store_locked_past_the_busy_timeout_names_the_run_that_holds_it(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLIBUILD_BUSY_TIMEOUT", "0.2")
    add_running_run(db, os.getpid(), "nlibuild --db corpus.db import big.jsonl --format mnli")
    before = table_counts(db)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        result = run_cli("--db", db, "import", DATA / "sample_mnli.jsonl", "--format", "mnli")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_user_error(
        result,
        f"{db}: the store is locked by run 2 (`nlibuild --db corpus.db import big.jsonl "
        f"--format mnli`, pid {os.getpid()} on {socket.gethostname()}, started 2026-11-25 "
        "06:00:00 UTC) after waiting 0.2 s;",
        "$NLIBUILD_BUSY_TIMEOUT",
    )
    assert table_counts(db) == before


def test_migrations_are_numbered_files_without_gaps() -> None:
    names = [name for _, name, _ in migration_scripts()]
    assert names[0] == "0001_corpus.sql"
    assert [int(name[:4]) for name in names] == list(range(1, len(names) + 1))
