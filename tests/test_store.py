"""The store: schema version, migrations, WAL, foreign keys, one transaction per stage."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from pydantic import BaseModel

from nlibuild.core.database import SCHEMA_VERSION, connect, migrate
from nlibuild.core.registry import IMPORT
from nlibuild.errors import StoreError
from nlibuild.queries.translations import human_translations_of
from nlibuild.store import Store


def test_a_new_store_is_at_the_current_schema_in_wal_with_foreign_keys(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert store.meta() == {"lang": "en"}


def test_a_store_from_a_newer_nlibuild_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Store.create(path, {"lang": "en"}).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="upgrade nlibuild"):
        Store.open(path)


def store_at_schema(path: Path, version: int) -> sqlite3.Connection:
    """A store as an older nlibuild left it: migrated only up to `version`, one run row."""
    conn = connect(path)
    migrate(conn, path, target=version)
    conn.execute("INSERT INTO meta(key, value) VALUES ('lang', 'en')")
    conn.execute(
        "INSERT INTO runs(id, stage, config_json, signature, started_at, status, version) "
        "VALUES (1, 'test', '{}', 'stage:test', '2026-01-01T00:00:00', 'ok', '0')"
    )
    return conn


def test_an_older_store_is_migrated_on_open(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store_at_schema(path, 1).close()
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
        assert {"sentences", "batches", "splits", "translation_checks"} <= tables
        assert [r.stage for r in store.runs()] == ["test"]


def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are not the pages of a database" * 200)
    with pytest.raises(StoreError, match="not an nlibuild store"):
        Store.open(path)


def test_a_missing_store_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"nlibuild --db .* init"):
        Store.open(tmp_path / "absent.db")


class ImportSettings(BaseModel):
    format: str = "mnli"


def test_atomic_rolls_back_everything_on_error(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        with pytest.raises(RuntimeError), store.atomic():
            store.set_meta("lang", "de")
            raise RuntimeError("the stage failed half-way")
        assert store.meta()["lang"] == "en"


def test_runs_record_config_signature_times_status_and_counts(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        with store.recorded_run(IMPORT, ImportSettings()) as run:
            run.finish({"pairs_added": 3})
        (record,) = store.runs()
    assert record.stage == "import"
    assert record.config == {"format": "mnli"}
    assert record.signature == "stage:import|format:mnli|version:0.1.0"
    assert record.status == "ok"
    assert record.finished_at is not None and record.finished_at >= record.started_at
    assert record.counts == {"pairs_added": 3}
    assert record.version == "0.1.0"
    assert record.pid == os.getpid() and record.error is None


def premise(pk: int, premise_id: str) -> tuple[object, ...]:
    return (pk, premise_id, "news", "en", f"Sentence {pk}.", 2, None)


def index_names(store: Store) -> set[str]:
    rows = store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    return {row[0] for row in rows}


def test_deferred_indexes_are_dropped_for_the_bulk_and_built_again(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        before = index_names(store)
        with (
            store.recorded_run(IMPORT, ImportSettings()) as run,
            store.deferred_indexes(["premises_id"]),
        ):
            assert "premises_id" not in index_names(store)
            store.insert("premises", [premise(1, "news_1"), premise(2, "news_2")], run.id)
        assert index_names(store) == before
        assert store.count("premises") == 2


def test_a_duplicate_id_slipped_in_while_its_index_was_down_rolls_back(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        before = index_names(store)
        with (
            pytest.raises(StoreError, match="share an ID"),
            store.recorded_run(IMPORT, ImportSettings()) as run,
            store.deferred_indexes(["premises_id"]),
        ):
            store.insert("premises", [premise(1, "news_1"), premise(2, "news_1")], run.id)
        assert store.count("premises") == 0
        assert store.runs() == []
        assert index_names(store) == before


def test_deferred_indexes_refuse_unknown_names_and_work_only_in_a_transaction(
    tmp_path: Path,
) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        with pytest.raises(RuntimeError, match="outside"), store.deferred_indexes(["pairs_id"]):
            pass
        with (
            pytest.raises(ValueError, match="no such index"),
            store.atomic(),
            store.deferred_indexes(["pairs_id", "no_such_index"]),
        ):
            pass


def test_schema_7_rekeys_translations_language_first_and_keeps_them(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with closing(store_at_schema(path, 6)) as conn:
        conn.executemany(
            "INSERT INTO translations(unit_id, lang, kind, text, run_id) VALUES (?, ?, ?, ?, 1)",
            [("h:1", "de", "human", "Ein Hund."), ("p:1", "zh", "mt", "一只狗。")],
        )
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        rows = store.conn.execute("SELECT unit_id, lang, kind, text FROM translations").fetchall()
        assert sorted(rows) == [
            ("h:1", "de", "human", "Ein Hund."),
            ("p:1", "zh", "mt", "一只狗。"),
        ]
        key = [
            r[2]
            for r in store.conn.execute("PRAGMA index_xinfo('sqlite_autoindex_translations_1')")
        ]
        # Language first; schema 16 keys the source of a translation before its unit.
        assert key[:4] == ["lang", "kind", "source_lang", "unit_id"]
        assert human_translations_of(store, [("h:1", "de"), ("p:1", "zh"), ("x", "de")]) == {
            ("h:1", "de"): "Ein Hund."
        }
