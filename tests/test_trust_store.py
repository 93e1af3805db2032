"""The store is never harmed by what a command is asked to do: an output path that is the
store, a `--db` that is some other file, a seed too large to use."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import assert_user_error, fails, refused, run_cli

import nlibuild
from nlibuild.api import Corpus
from nlibuild.errors import NlibuildError
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
    refused(
        sample_db,
        lambda corpus: corpus.export(format="mnli-jsonl", out=target),
        "--out",
        str(target),
    )
    assert _store_files(sample_db) == before
    assert nlibuild.open(sample_db).info().pairs == 48


def test_export_refuses_the_store_named_another_way_or_through_a_symlink(
    sample_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = sample_db.parent / "link.jsonl"
    link.symlink_to(sample_db)
    before = _store_files(sample_db)
    refused(sample_db, lambda corpus: corpus.export(format="mnli-jsonl", out=link), "--out", "link")
    monkeypatch.chdir(sample_db.parent)
    refused(
        Path(sample_db.name),
        lambda corpus: corpus.export(format="jsonl", out=Path("sub/..") / sample_db.name),
        "--out",
    )
    assert _store_files(sample_db) == before


def test_translate_export_refuses_to_write_over_the_store(sample_db: Path) -> None:
    refused(
        sample_db,
        lambda corpus: corpus.translate_export(lang="de", format="tsv", out=sample_db),
        "--out",
        str(sample_db),
    )


@pytest.mark.parametrize("stage", ["elicit", "relabel"])
def test_a_work_package_folder_cannot_be_the_store(sample_db: Path, stage: str) -> None:
    def export_over_the_store(corpus: Corpus) -> object:
        export = corpus.elicit_export if stage == "elicit" else corpus.relabel_export
        return export(all=True, format="jsonl", out=sample_db)

    refused(sample_db, export_over_the_store, "--out", str(sample_db))


def test_an_export_beside_the_store_is_still_written(sample_db: Path) -> None:
    out = sample_db.parent / f"{sample_db.name}.jsonl"
    assert nlibuild.open(sample_db).export(format="mnli-jsonl", out=out).rows > 0
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
    with pytest.raises(NlibuildError) as raised:
        nlibuild.open(other)
    assert str(other) in str(raised.value)
    assert "not an nlibuild store" in str(raised.value)
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
    db = nlibuild.create(tmp_path / "corpus.db").path
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    assert _journal_mode(db) == "delete"
    nlibuild.open(db).info()
    assert _journal_mode(db) == "wal"


def test_sample_refuses_a_seed_too_large_to_use(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "corpus.db")
    source = tmp_path / "news.txt"
    source.write_text(
        "The city council approved a new budget for public parks on Monday.\n\n"
        "Heavy rain flooded several streets in the old town overnight.\n",
        encoding="utf-8",
    )
    corpus.ingest(paths=(source,), genre="news")

    def sample_with(seed: int) -> Callable[[Corpus], object]:
        return lambda corpus: corpus.sample(genres=("news",), n=1, min_len=3, max_len=40, seed=seed)

    refused(corpus.path, sample_with(HUGE_SEED), "seed")
    refused(corpus.path, sample_with(-1), "seed")


DRAWING_CALLS: dict[str, Callable[[Corpus, int], object]] = {
    "split": lambda corpus, seed: corpus.split(dev=4, test=4, draw_from="labelled", seed=seed),
    "relabel create": lambda corpus, seed: corpus.relabel_create(
        annotators=("v01", "v02", "v03"), fraction=0.5, seed=seed
    ),
    "stats agreement": lambda corpus, seed: corpus.stats(
        "agreement", ci=0.9, resamples=10, seed=seed
    ),
    "elicit create": lambda corpus, seed: corpus.elicit_create(
        protocol="SINGLE", annotators=("w01",), seed=seed
    ),
    "bias hypothesis-only": lambda corpus, seed: corpus.bias_hypothesis_only(
        cross_validate=2, seed=seed
    ),
}
"""Every call that draws at random, with the other settings it needs on sample_db."""


@pytest.mark.parametrize("call", DRAWING_CALLS.values(), ids=DRAWING_CALLS.keys())
def test_a_seed_too_large_to_use_is_refused_naming_the_seed(
    sample_db: Path, call: Callable[[Corpus, int], object]
) -> None:
    refused(sample_db, lambda corpus: call(corpus, HUGE_SEED), "seed")


def test_a_seed_too_large_to_use_is_one_error_line(sample_db: Path) -> None:
    fails(
        sample_db,
        "split",
        "--dev",
        4,
        "--test",
        4,
        "--from",
        "labelled",
        "--seed",
        HUGE_SEED,
        says=("seed",),
    )


def test_the_largest_seed_is_still_used(sample_db: Path) -> None:
    split = nlibuild.open(sample_db).split(dev=4, test=4, draw_from="labelled", seed=SEED_LIMIT - 1)
    assert split.counts["dev"] > 0
    assert split.counts["test"] > 0
