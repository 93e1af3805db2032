"""The workbench under concurrent load, and the JSON routes the load drives (issue 19).

The load bench (bench/bench_serve_load.py: 50 validators x 200 votes, timed) in small: 5
validators at once, 20 votes each, through the real server (`nlibuild serve` in a
subprocess) and `POST /api/label/<batch>` with the CSRF header, as the relabel page's
script sends them; afterwards every vote is in the store, each with its time, each its own
`relabel-import` run. No timing is asserted here: a test machine's load varies.

The routes answer a vote or an answer as the library records it, and refuse what a page
would refuse, with a JSON error and nothing written.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import SAMPLE_MNLI, ok, query
from serve_stores import batches_of, signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient

from nlibuild.models import Role
from nlibuild.store import Store
from nlibuild.web.drive import label_batch, running_server
from nlibuild.workbench.access import create_invite

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name

VALIDATORS = [f"load{k:03d}" for k in range(1, 6)]
ITEMS = 20
LABELS = ("entailment", "neutral", "contradiction")


def labels_for(validator: int) -> list[str]:
    """What each validator votes: a different cycle each, so a mixed-up vote shows."""
    return [LABELS[(k + validator) % 3] for k in range(ITEMS)]


@pytest.fixture
def load_store(tmp_path: Path) -> Path:
    """20 bundled MNLI pairs, each in the batch of all 5 validators (20 items each)."""
    db = tmp_path / "load.db"
    ok("--db", db, "init", "--preset", "mnli")
    ok("--db", db, "import", SAMPLE_MNLI, "--format", "mnli")
    pair_ids = [row[0] for row in query(db, "SELECT id FROM pairs ORDER BY pk LIMIT ?", ITEMS)]
    (tmp_path / "pairs.txt").write_text("\n".join(pair_ids) + "\n", encoding="utf-8")
    ok("--db", db, "relabel", "create", "--pairs", tmp_path / "pairs.txt", "--annotators",
       ",".join(VALIDATORS), "--validators", 5, "--batch-size", ITEMS)  # fmt: skip
    return db


def test_five_validators_voting_at_once_lose_no_vote(load_store: Path) -> None:
    batch_of = {who: batches_of(load_store, who, "relabel")[0] for who in VALIDATORS}
    with Store.open(load_store) as store:
        tokens = [
            create_invite(store, who, Role.VALIDATOR, timedelta(hours=1)).token
            for who in VALIDATORS
        ]
    with running_server(load_store) as base, ThreadPoolExecutor(len(VALIDATORS)) as pool:
        sessions = [
            pool.submit(label_batch, f"{base}/t/{token}", batch_of[who], labels_for(k), 2.5)
            for k, (who, token) in enumerate(zip(VALIDATORS, tokens, strict=True))
        ]
        timings = [timing for session in sessions for timing in session.result()]

    assert sum(1 for route, _ in timings if route == "vote") == len(VALIDATORS) * ITEMS
    stored = query(
        load_store,
        "SELECT a.id, s.position, v.label FROM votes v JOIN annotators a "
        "ON a.pk = v.annotator_pk JOIN pairs p ON p.pk = v.pair_pk JOIN assignments s "
        "ON s.item_id = p.id JOIN batches b ON b.pk = s.batch_pk AND b.annotator_pk = a.pk "
        "WHERE v.position >= 1",
    )
    sent = {(who, k + 1, label) for n, who in enumerate(VALIDATORS)
            for k, label in enumerate(labels_for(n))}  # fmt: skip
    assert set(stored) == sent
    assert query(load_store, "SELECT count(*), min(seconds) FROM vote_times") == [(100, 2.5)]
    runs = "SELECT count(*) FROM runs WHERE stage = 'relabel-import' AND status = 'ok'"
    assert query(load_store, runs) == [(len(VALIDATORS) * ITEMS,)]


# --- the routes ----------------------------------------------------------------------------


def csrf(client: TestClient) -> dict[str, str]:
    page = client.get("/").text
    return {"X-CSRF-Token": page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]}


@pytest.fixture
def validator(workbench_db: Path) -> TestClient:
    return signed_in(workbench_db, "v01", Role.VALIDATOR)


def test_a_vote_is_recorded_as_relabel_import_records_it(
    workbench_db: Path, validator: TestClient
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    body = {"position": 1, "label": "neutral", "seconds": 4.5}
    response = validator.post(f"/api/label/{batch}", json=body, headers=csrf(validator))
    assert response.status_code == 200, response.text
    assert response.json()["label"] == "neutral" and not response.json()["unchanged"]
    run = response.json()["run_id"]
    assert query(workbench_db, "SELECT stage, status FROM runs WHERE id = ?", run) == [
        ("relabel-import", "ok")
    ]
    again = validator.post(f"/api/label/{batch}", json=body, headers=csrf(validator))
    assert again.json()["unchanged"] is True


def test_a_different_second_vote_is_409_and_changes_nothing(
    workbench_db: Path, validator: TestClient
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    url, headers = f"/api/label/{batch}", csrf(validator)
    assert validator.post(url, json={"position": 1, "label": "neutral"}, headers=headers).is_success
    votes = query(workbench_db, "SELECT count(*) FROM votes")
    second = validator.post(url, json={"position": 1, "label": "entailment"}, headers=headers)
    assert second.status_code == 409 and "undo" in second.json()["error"]
    assert query(workbench_db, "SELECT count(*) FROM votes") == votes


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"position": 999, "label": "neutral"}, 404),
        ({"position": 1, "label": "maybe"}, 422),
        ({"position": "1", "label": "neutral"}, 400),
        ({"position": True, "label": "neutral"}, 400),
        ({"position": 1, "label": "neutral", "seconds": "long"}, 400),
        ([1, "neutral"], 400),
    ],
)
def test_a_vote_the_page_could_not_send_is_refused_with_nothing_written(
    workbench_db: Path, validator: TestClient, body: object, status: int
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    before = query(workbench_db, "SELECT count(*) FROM runs")
    response = validator.post(f"/api/label/{batch}", json=body, headers=csrf(validator))
    assert response.status_code == status
    assert response.json()["error"]
    assert query(workbench_db, "SELECT count(*) FROM runs") == before


def test_another_validators_batch_is_404_and_a_writer_gets_403(
    workbench_db: Path, validator: TestClient
) -> None:
    theirs = batches_of(workbench_db, "v02", "relabel")[0]
    body = {"position": 1, "label": "neutral"}
    assert (
        validator.post(f"/api/label/{theirs}", json=body, headers=csrf(validator)).status_code
        == 404
    )
    writer = signed_in(workbench_db, "w01", Role.WRITER)
    own = batches_of(workbench_db, "v01", "relabel")[0]
    assert writer.post(f"/api/label/{own}", json=body, headers=csrf(writer)).status_code == 403


def test_the_routes_need_the_csrf_token(workbench_db: Path, validator: TestClient) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    response = validator.post(f"/api/label/{batch}", json={"position": 1, "label": "neutral"})
    assert response.status_code == 403
    assert query(workbench_db, "SELECT count(*) FROM vote_times") == [(0,)]


def test_an_answer_is_recorded_as_elicit_import_records_it(workbench_db: Path) -> None:
    writer = signed_in(workbench_db, "w01", Role.WRITER)
    batch = batches_of(workbench_db, "w01", "elicit")[0]
    premise = query(
        workbench_db,
        "SELECT s.item_id FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
        "WHERE b.id = ? ORDER BY s.position LIMIT 1",
        batch,
    )[0][0]
    body = {"premise": premise, "unusable": True, "hypotheses": {}}
    response = writer.post(f"/api/write/{batch}", json=body, headers=csrf(writer))
    assert response.status_code == 200, response.text
    run = response.json()["run_id"]
    assert query(workbench_db, "SELECT stage FROM runs WHERE id = ?", run) == [("elicit-import",)]
    empty = {"premise": premise, "hypotheses": {}}
    refused = writer.post(f"/api/write/{batch}", json=empty, headers=csrf(writer))
    assert refused.status_code == 409  # answered: the first answer is kept
    bad = {"premise": premise, "hypotheses": {"maybe": ["x"]}}
    assert writer.post(f"/api/write/{batch}", json=bad, headers=csrf(writer)).status_code == 400
