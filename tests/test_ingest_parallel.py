"""A big ingest is read, split and hashed in a second thread while the first writes: the
same pool, the same counts, the same errors as one thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, query, requires_fixtures, table_counts

from nlibuild.errors import ConfigError, InputError
from nlibuild.models import IngestConfig, InitConfig, SourceFormat
from nlibuild.stages import ingest
from nlibuild.stages.init import create as init_store
from nlibuild.store import Store

POOL = "SELECT source_id, genre, lang, text, key, chars, tokens, length FROM sentences ORDER BY pk"


def ingest_into(db: Path, configs: list[IngestConfig], parallel: bool) -> list[Any]:
    init_store(db, InitConfig())
    results = []
    with Store.open(db) as store:
        for cfg in configs:
            result = ingest.run(store, cfg, parallel=parallel)
            results.append(result.model_dump(exclude={"run_id", "signature"}))
    return [results, query(db, POOL)]


def test_parallel_and_serial_ingests_build_the_same_pool(tmp_path: Path) -> None:
    texts = tmp_path / "texts.txt"
    texts.write_text(
        "Dr. Smith came home. It rained!\nThe end.\n\nA second paragraph? Yes.\n\n" * 50,
        encoding="utf-8",
    )
    configs = [
        IngestConfig(paths=(texts,), format=SourceFormat.TXT, genre="fiction", lang="en"),
        IngestConfig(paths=(texts, texts), format=SourceFormat.TXT, genre="news", lang="en"),
    ]
    serial = ingest_into(tmp_path / "serial.db", configs, parallel=False)
    assert ingest_into(tmp_path / "parallel.db", configs, parallel=True) == serial


@requires_fixtures
def test_parallel_ingest_of_conllu_with_genres_from_ids_matches_serial(tmp_path: Path) -> None:
    path = FIXTURES / "ud_pud" / "de_pud-ud-test.conllu"
    configs = [
        IngestConfig(
            paths=(path,), format=SourceFormat.CONLLU, genre_from=r"^([nw]\d\d)", lang="de"
        )
    ]
    serial = ingest_into(tmp_path / "serial.db", configs, parallel=False)
    assert ingest_into(tmp_path / "parallel.db", configs, parallel=True) == serial


def test_an_error_crosses_from_the_reader_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "Fine.", "genre": "news"}\n{"text": "No genre here."}\n')
    db = tmp_path / "pool.db"
    init_store(db, InitConfig())
    before = table_counts(db)
    cfg = IngestConfig(paths=(bad,), format=SourceFormat.JSONL, genre_field="genre", lang="en")
    with Store.open(db) as store, pytest.raises(InputError, match="no field 'genre'"):
        ingest.run(store, cfg, parallel=True)
    assert table_counts(db) == before


def test_a_refusal_before_reading_ends_the_reader(tmp_path: Path) -> None:
    texts = tmp_path / "texts.txt"
    texts.write_text("One sentence. Another one.\n", encoding="utf-8")
    db = tmp_path / "pool.db"
    init_store(db, InitConfig())
    cfg = IngestConfig(
        paths=(texts,),
        format=SourceFormat.TXT,
        genre="poetry",
        lang="en",
        known_genres=("news",),
        strict=True,
    )
    with Store.open(db) as store, pytest.raises(ConfigError, match="not among"):
        ingest.run(store, cfg, parallel=True)
    assert all(thread.name != "nlibuild-ingest-reader" for thread in threading.enumerate())
