"""The store: schema version, migrations, WAL, foreign keys, one transaction per stage."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nlibuild.errors import StoreError
from nlibuild.queries.translations import human_translations_of
from nlibuild.store import SCHEMA_VERSION, Store


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


def test_an_older_store_is_migrated_on_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.db"
    Store.create(path, {"lang": "en"}).close()
    extra = "CREATE TABLE later_feature (id INTEGER PRIMARY KEY)"
    import nlibuild.store as store_module

    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, extra))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with Store.open(path) as store:
        assert store.schema_version == SCHEMA_VERSION + 1
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master")}
        assert "later_feature" in tables


def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are not the pages of a database" * 200)
    with pytest.raises(StoreError, match="not an nlibuild store"):
        Store.open(path)


def test_a_missing_store_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"nlibuild --db .* init"):
        Store.open(tmp_path / "absent.db")


def test_atomic_rolls_back_everything_on_error(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        with pytest.raises(RuntimeError), store.atomic():
            run_id = store.start_run("import", {}, "stage:import", "0.1.0")
            store.set_meta("lang", "de")
            store.finish_run(run_id, {"pairs_added": 1})
            raise RuntimeError("the stage failed half-way")
        assert store.runs() == []
        assert store.meta()["lang"] == "en"


def test_runs_record_config_signature_times_status_and_counts(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        with store.atomic():
            run_id = store.start_run("import", {"format": "mnli"}, "stage:import|x", "0.1.0")
            store.finish_run(run_id, {"pairs_added": 3})
        (record,) = store.runs()
    assert record.stage == "import"
    assert record.config == {"format": "mnli"}
    assert record.signature == "stage:import|x"
    assert record.status == "ok"
    assert record.finished_at is not None and record.finished_at >= record.started_at
    assert record.counts == {"pairs_added": 3}
    assert record.version == "0.1.0"


def premise(pk: int, premise_id: str) -> tuple[object, ...]:
    return (pk, premise_id, "news", "en", f"Sentence {pk}.", 2, None)


def index_names(store: Store) -> set[str]:
    rows = store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    return {row[0] for row in rows}


def test_deferred_indexes_are_dropped_for_the_bulk_and_built_again(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        before = index_names(store)
        with store.atomic():
            run_id = store.start_run("import", {}, "stage:import", "0.1.0")
            with store.deferred_indexes(["premises_id"]):
                assert "premises_id" not in index_names(store)
                store.insert("premises", [premise(1, "news_1"), premise(2, "news_2")], run_id)
            store.finish_run(run_id, {})
        assert index_names(store) == before
        assert store.count("premises") == 2


def test_a_duplicate_id_slipped_in_while_its_index_was_down_rolls_back(tmp_path: Path) -> None:
    with Store.create(tmp_path / "s.db", {"lang": "en"}) as store:
        before = index_names(store)
        with pytest.raises(StoreError, match="share an ID"), store.atomic():
            run_id = store.start_run("import", {}, "stage:import", "0.1.0")
            with store.deferred_indexes(["premises_id"]):
                store.insert("premises", [premise(1, "news_1"), premise(2, "news_1")], run_id)
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


def test_schema_7_rekeys_translations_language_first_and_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nlibuild.store as store_module

    path = tmp_path / "s.db"
    monkeypatch.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS[:6])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 6)
    with Store.create(path, {"lang": "en"}) as store, store.atomic():
        run_id = store.start_run("test", {}, "stage:test", "0")
        store.insert("translations", [("h:1", "de", "human", "Ein Hund.", None),
                                      ("p:1", "zh", "mt", "一只狗。", None)], run_id)  # fmt: skip
    monkeypatch.undo()
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
        assert key[:3] == ["lang", "kind", "unit_id"]
        assert human_translations_of(store, [("h:1", "de"), ("p:1", "zh"), ("x", "de")]) == {
            ("h:1", "de"): "Ein Hund."
        }
