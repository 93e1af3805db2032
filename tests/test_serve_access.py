"""Who sees what in the workbench (issue 19): every page needs a session from a personal
link; a person sees only their own batches (another's is 404, as is one that does not
exist); a route of another role is 403; a validator never sees a pair's author, its
intended label or other votes; an expired or revoked link is 403, and revoking ends the
sessions a link opened."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import query
from serve_stores import (
    batches_of,
    client_of,
    invite,
    signed_in,
    workbench_db,
    workbench_template,
    writer,
)
from starlette.testclient import TestClient

from nlibuild.models import Role
from nlibuild.store import Store
from nlibuild.workbench.access import revoke_invites

__all__ = ["workbench_db", "workbench_template", "writer"]  # fixtures, used by name

PAGES = ["/", "/write/e0001", "/label/r0001", "/lead", "/no-such-page"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_without_a_session_is_401_saying_to_open_the_personal_link(
    workbench_db: Path, path: str
) -> None:
    response = client_of(workbench_db).get(path)
    assert response.status_code == 401
    assert "personal link" in response.text


def test_a_post_without_a_session_is_401(workbench_db: Path) -> None:
    assert client_of(workbench_db).post("/logout").status_code == 401


def test_a_made_up_session_cookie_is_401(workbench_db: Path) -> None:
    client = client_of(workbench_db)
    client.cookies.set("nlibuild_session", "made-up")
    assert client.get("/").status_code == 401


def test_health_and_static_files_need_no_session(workbench_db: Path) -> None:
    client = client_of(workbench_db)
    assert client.get("/healthz").text == "ok"
    assert client.get("/static/workbench.css").status_code == 200
    assert client.get("/static/workbench.js").status_code == 200


def test_the_link_sets_a_strict_http_only_session_cookie_and_moves_on_to_home(
    workbench_db: Path,
) -> None:
    client = client_of(workbench_db)
    response = client.get(f"/t/{invite(workbench_db, 'w01', Role.WRITER)}")
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert 'http-equiv="refresh" content="0; url=/"' in response.text
    assert client.get("/").status_code == 200


def test_a_writer_sees_their_own_elicitation_batches_and_no_one_elses(
    workbench_db: Path, writer: TestClient
) -> None:
    home = writer.get("/").text
    for batch in batches_of(workbench_db, "w01", "elicit"):
        assert f'href="/write/{batch}"' in home
    for batch in batches_of(workbench_db, "w02", "elicit"):
        assert batch not in home
    # w01 also validates, but a writer's link shows the writing work only.
    assert "/label/" not in home


def test_another_writers_batch_is_404_like_a_batch_that_does_not_exist(
    workbench_db: Path, writer: TestClient
) -> None:
    others = batches_of(workbench_db, "w02", "elicit")
    assert others
    for batch in others:
        assert writer.get(f"/write/{batch}").status_code == 404
    assert writer.get("/write/e9999").status_code == 404
    own = batches_of(workbench_db, "w01", "elicit")[0]
    assert writer.get(f"/write/{own}").status_code == 200


def test_a_writer_on_the_validators_and_leads_pages_is_403(
    workbench_db: Path, writer: TestClient
) -> None:
    # Refused for the role before any batch is looked up: the same for any batch ID.
    for batch in [*batches_of(workbench_db, "w01", "relabel"), "r9999"]:
        assert writer.get(f"/label/{batch}").status_code == 403
    assert writer.get("/lead").status_code == 403


def test_a_validator_sees_only_their_batches_and_the_writers_pages_are_403(
    workbench_db: Path,
) -> None:
    with signed_in(workbench_db, "v01", Role.VALIDATOR) as validator:
        own = batches_of(workbench_db, "v01", "relabel")
        assert own and f'href="/label/{own[0]}"' in validator.get("/").text
        assert validator.get(f"/label/{own[0]}").status_code == 200
        for batch in batches_of(workbench_db, "v02", "relabel"):
            assert validator.get(f"/label/{batch}").status_code == 404
        assert validator.get("/write/e0001").status_code == 403


def test_a_validator_sees_premise_and_hypothesis_but_never_author_label_or_votes(
    workbench_db: Path,
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    pairs = query(
        workbench_db,
        "SELECT p.id, p.hypothesis, a.id, p.author_label FROM assignments s "
        "JOIN batches b ON b.pk = s.batch_pk JOIN pairs p ON p.id = s.item_id "
        "JOIN annotators a ON a.pk = p.author_pk WHERE b.id = ? ORDER BY s.position",
        batch,
    )
    assert pairs
    with signed_in(workbench_db, "v01", Role.VALIDATOR) as validator:
        page = validator.get(f"/label/{batch}").text
    main = page[page.index("<main") :]
    # The page shows one pair at a time (tests/test_serve_labelling.py walks every item);
    # outside the label buttons it names no label.
    choices = main.index('class="choices"')
    shown = main[:choices] + main[main.index("</form>", choices) :]
    pair_id, hypothesis, author, _ = pairs[0]
    assert hypothesis in main
    for pair_id, _, author, _ in pairs:
        assert author not in main
        assert pair_id not in main  # OCNLI's pair IDs end in the intended label (-c2)
    for label in ("entailment", "neutral", "contradiction", "蕴含", "中立", "矛盾"):
        assert label not in shown


def test_the_lead_sees_progress_violations_and_agreement_of_every_batch(
    workbench_db: Path,
) -> None:
    with signed_in(workbench_db, "lead01", Role.LEAD) as lead:
        page = lead.get("/lead").text
    for (batch,) in query(workbench_db, "SELECT id FROM batches"):
        assert f"<td>{batch}</td>" in page
    rules = {rule for (rule,) in query(workbench_db, "SELECT DISTINCT rule FROM violations")}
    assert rules and all(f"<td>{rule}</td>" in page for rule in rules)
    assert "Agreement so far" in page


def test_an_expired_link_is_403_and_says_so(workbench_db: Path) -> None:
    token = invite(workbench_db, "w01", Role.WRITER)
    query(workbench_db, "UPDATE workbench_tokens SET expires = '2000-01-01T00:00:00.000000Z'")
    response = client_of(workbench_db).get(f"/t/{token}")
    assert response.status_code == 403
    assert "expired" in response.text
    assert "set-cookie" not in response.headers


def test_a_revoked_link_is_403_and_revoking_ends_its_open_session(workbench_db: Path) -> None:
    token = invite(workbench_db, "w01", Role.WRITER)
    client = client_of(workbench_db)
    assert client.get(f"/t/{token}").status_code == 200
    assert client.get("/").status_code == 200
    with Store.open(workbench_db) as store:
        assert revoke_invites(store, "w01", None) == 1
    assert client.get("/").status_code == 401
    response = client_of(workbench_db).get(f"/t/{token}")
    assert response.status_code == 403 and "withdrawn" in response.text


def test_signing_out_ends_the_session(workbench_db: Path, writer: TestClient) -> None:
    page = writer.get("/").text
    csrf = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    assert writer.post("/logout", data={"csrf_token": csrf}).status_code == 200
    assert writer.get("/").status_code == 401


def test_a_login_drops_expired_sessions(workbench_db: Path) -> None:
    client = client_of(workbench_db)
    assert client.get(f"/t/{invite(workbench_db, 'w01', Role.WRITER)}").status_code == 200
    query(workbench_db, "UPDATE workbench_sessions SET expires = '2000-01-01T00:00:00.000000Z'")
    assert client.get("/").status_code == 401
    assert signed_in(workbench_db, "w02", Role.WRITER).get("/").status_code == 200
    assert query(workbench_db, "SELECT count(*) FROM workbench_sessions") == [(1,)]
