"""Stores and clients for the workbench's tests (tests/test_serve_*.py).

The store is the one the README's elicitation walkthrough makes from the bundled data:
Chinese premises sampled from five genres, four MULTI_CONSTRAINT batches for writers w01
and w02, w02's first batch answered (data/elicit/zh_e0001.labelstudio.json), and the pairs
sent to validators w01, v01-v04 for relabelling. Built once per session, copied per test.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA, copy_store, query
from starlette.testclient import TestClient

import nlibuild
from nlibuild.models import Role, ServeConfig
from nlibuild.store import Store
from nlibuild.web.app import create_app
from nlibuild.web.language import LANGUAGE_COOKIE
from nlibuild.workbench.access import create_invite
from nlibuild.workbench.model_loop import Predictor

ZH_GENRES = ("gov", "news", "lit", "tv", "phone")


def build_workbench_store(db: Path) -> Path:
    """The store of the module's docstring, built through the Python API."""
    corpus = nlibuild.create(db, preset="ocnli")
    for genre in ZH_GENRES:
        corpus.ingest(paths=(DATA / "sources" / "zh" / f"{genre}.txt",), genre=genre)
    corpus.sample(n=10, all_genres=True, seed=13)  # --per-genre 10
    corpus.elicit_create(
        protocol="MULTI_CONSTRAINT", annotators=("w01", "w02"), batch_size=4, max_per_writer=8
    )
    corpus.elicit_import(
        path=DATA / "elicit" / "zh_e0001.labelstudio.json",
        format="labelstudio",
        annotator_map=DATA / "elicit" / "annotators.csv",
    )
    corpus.relabel_create(fraction=0.5, annotators=("w01", "v01", "v02", "v03", "v04"))
    return db


@pytest.fixture(scope="session")
def workbench_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_workbench_store(tmp_path_factory.mktemp("workbench") / "template.db")


@pytest.fixture
def workbench_db(workbench_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the workbench store."""
    return copy_store(workbench_template, tmp_path / "corpus.db")


def batches_of(db: Path, annotator: str, kind: str) -> list[str]:
    rows = query(
        db,
        "SELECT b.id FROM batches b JOIN annotators a ON a.pk = b.annotator_pk "
        "WHERE a.id = ? AND b.kind = ? ORDER BY b.pk",
        annotator,
        kind,
    )
    return [row[0] for row in rows]


def invite(db: Path, person: str, role: Role, lifetime: timedelta = timedelta(days=1)) -> str:
    """A new invite's token (what the personal link carries)."""
    with Store.open(db) as store:
        return create_invite(store, person, role, lifetime).token


def client_of(db: Path, predictor: Predictor | None = None, **settings: Any) -> TestClient:
    """An in-process client of the workbench over `db` (ServeConfig's defaults, or these),
    with `predictor` as the served model (`serve --model`)."""
    return TestClient(create_app(db, ServeConfig(**settings), predictor))


def signed_in(
    db: Path,
    person: str,
    role: Role,
    lang: str | None = "en",
    predictor: Predictor | None = None,
    **settings: Any,
) -> TestClient:
    """A client that has opened a new personal link of `person`, having chosen the pages'
    language `lang` (the language switch's cookie); None: no choice, so a page speaks its
    batch's language (the store here is Chinese). The tests of what the pages do read them
    in English; tests/test_serve_localised.py reads them as Chinese and Korean people do."""
    client = client_of(db, predictor, **settings)
    if lang is not None:
        client.cookies.set(LANGUAGE_COOKIE, lang)
    response = client.get(f"/t/{invite(db, person, role)}")
    assert response.status_code == 200, response.text
    return client


@pytest.fixture
def writer(workbench_db: Path) -> Iterator[TestClient]:
    with signed_in(workbench_db, "w01", Role.WRITER) as client:
        yield client


KOREAN_PREMISES = ["시의회는 월요일에 새 예산안을 승인했다.", "폭풍 때문에 항구가 문을 닫았다."]
KOREAN_ANSWER = {
    "entailment": ["무언가가 보도되었다."],
    "neutral": ["모두가 그 일에 기뻐했다."],
    "contradiction": ["그런 일은 전혀 일어나지 않았다."],
}


def relabel_store(
    folder: Path, premises: list[str], answer: dict[str, list[str]], lang: str
) -> Path:
    """Premises of `lang`, their three SINGLE pairs each by w01 (`answer`), all sent to
    validator v01 (the label names the language's built-in ones)."""
    from conftest import ok, write_jsonl
    from elicitation_data import premise_corpus

    db = premise_corpus(folder / "corpus.db", {"news": premises}, lang=lang).path
    ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01")
    batch = batches_of(db, "w01", "elicit")[0]
    answers = [
        {"batch": batch, "writer": "w01", "premise_id": premise} | answer
        for (premise,) in query(db, "SELECT id FROM premises ORDER BY id")
    ]
    ok("--db", db, "elicit", "import", write_jsonl(folder / "answers.jsonl", answers))
    ok("--db", db, "relabel", "create", "--annotators", "v01", "--fraction", 1,
       "--validators", 1)  # fmt: skip
    return db


def korean_relabel_store(folder: Path) -> Path:
    """A Korean store: two premises, their three SINGLE pairs each by w01, all six sent to
    validator v01 (the label names are the built-in Korean ones, 함의 중립 모순)."""
    return relabel_store(folder, KOREAN_PREMISES, KOREAN_ANSWER, "ko")
