"""A big file is read by a worker process while this one writes: same store, same errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, SAMPLE_MNLI, fails, new_store, query, requires_fixtures, table_counts

from nlibuild.errors import ConflictError, InputError
from nlibuild.models import ImportConfig, InitConfig
from nlibuild.stages import import_corpus
from nlibuild.stages.init import create as init_store
from nlibuild.store import Store

CONTENT_QUERIES = {
    "premises": "SELECT pk, id, genre, lang, text, length, extra_json FROM premises ORDER BY pk",
    "pairs": "SELECT pk, id, premise_pk, hypothesis, lang, author_pk, author_label, extra_json "
    "FROM pairs ORDER BY pk",
    "votes": "SELECT pair_pk, annotator_pk, position, label FROM votes ORDER BY pair_pk, position",
    "gold": "SELECT pair_pk, method, label, n_votes, n_top FROM gold ORDER BY pair_pk",
    "annotators": "SELECT pk, id, anonymous FROM annotators ORDER BY pk",
    "translations": "SELECT unit_id, lang, text FROM translations ORDER BY unit_id, lang",
}


def import_into(tmp_path: Path, name: str, files: list[tuple[Path, str]], parallel: bool) -> Path:
    db = tmp_path / f"{name}.db"
    init_store(db, InitConfig())
    with Store.open(db) as store:
        for path, fmt in files:
            import_corpus.run(store, ImportConfig(path=path, format=fmt), parallel=parallel)
    return db


def content(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {table: query(db, sql) for table, sql in CONTENT_QUERIES.items()}


def test_parallel_and_serial_imports_build_the_same_store(tmp_path: Path) -> None:
    files = [(SAMPLE_MNLI, "mnli")]
    serial = import_into(tmp_path, "serial", files, parallel=False)
    parallel = import_into(tmp_path, "parallel", files, parallel=True)
    assert content(parallel) == content(serial)


@requires_fixtures
def test_parallel_import_of_real_corpora_matches_serial(tmp_path: Path) -> None:
    files = [
        (FIXTURES / "snli_prefix" / "snli_1.0_dev.jsonl", "snli"),
        (FIXTURES / "myxnli" / "my.genre.dev.tsv", "xnli"),
    ]
    serial = import_into(tmp_path, "serial", files, parallel=False)
    parallel = import_into(tmp_path, "parallel", files, parallel=True)
    assert content(parallel) == content(serial)


def test_errors_cross_from_the_worker_and_leave_the_store_unchanged(tmp_path: Path) -> None:
    db = import_into(tmp_path, "s", [(SAMPLE_MNLI, "mnli")], parallel=False)
    before = table_counts(db)
    broken = tmp_path / "broken.jsonl"
    lines = (SAMPLE_MNLI).read_text(encoding="utf-8").splitlines()
    broken.write_text("\n".join([*lines[:3], "{not json", *lines[3:]]) + "\n", encoding="utf-8")
    with Store.open(db) as store, pytest.raises(InputError) as error:
        import_corpus.run(store, ImportConfig(path=broken, format="mnli"), parallel=True)
    assert error.value.line == 4
    assert str(error.value).startswith(f"{broken}, line 4: not a valid JSON line")
    assert table_counts(db) == before


def write_sample_with(tmp_path: Path, *extra_lines: str) -> Path:
    """data/sample_mnli.jsonl with `extra_lines` appended."""
    lines = (SAMPLE_MNLI).read_text(encoding="utf-8").splitlines()
    path = tmp_path / "copy" / "sample_mnli.jsonl"  # same name: same anonymous annotator IDs
    path.parent.mkdir()
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path


def sample_line(number: int) -> str:
    return (SAMPLE_MNLI).read_text(encoding="utf-8").splitlines()[number - 1]


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_a_repeated_pair_id_within_a_file_names_both_lines(tmp_path: Path, parallel: bool) -> None:
    db = import_into(tmp_path, "r", [], parallel)
    changed = sample_line(1).replace('"sentence2": "', '"sentence2": "Changed: ', 1)
    twice = write_sample_with(tmp_path, sample_line(2), changed)
    before = table_counts(db)
    with (
        Store.open(db) as store,
        pytest.raises(ConflictError, match=r"line 50: .* on line 1 with different hypothesis"),
    ):
        import_corpus.run(store, ImportConfig(path=twice, format="mnli"), parallel=parallel)
    assert table_counts(db) == before


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "parallel"])
def test_a_pair_repeated_word_for_word_within_a_file_is_stored_once(
    tmp_path: Path, parallel: bool
) -> None:
    db = import_into(tmp_path, "r", [], parallel)
    twice = write_sample_with(tmp_path, sample_line(5), sample_line(1))
    with Store.open(db) as store:
        result = import_corpus.run(
            store, ImportConfig(path=twice, format="mnli"), parallel=parallel
        )
    assert (result.pairs_added, result.pairs_unchanged) == (48, 2)
    assert content(db) == content(import_into(tmp_path, "once", [(SAMPLE_MNLI, "mnli")], parallel))


def test_a_bulk_import_that_leaves_a_row_without_its_parent_is_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bulk load checks foreign keys once at the end: a fault the row-by-row checks would
    have caught still stops the import, with one Error line, and nothing is written."""
    new_annotator_pks = import_corpus._Importer._annotator_pks

    def wrong_pks(importer: import_corpus._Importer, ids: list[str], anonymous: bool) -> list[int]:
        return [pk + 1000 for pk in new_annotator_pks(importer, ids, anonymous)]

    monkeypatch.setattr(import_corpus._Importer, "_annotator_pks", wrong_pks)
    db = new_store(tmp_path / "s.db")
    orphan = "row 1 of pairs (author_pk = 1001) refers to a row of annotators that does not exist"
    fails(db, "import", SAMPLE_MNLI, "--format", "mnli", says=(f"Error: {orphan}; nothing was",))
