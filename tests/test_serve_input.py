"""Malformed requests to the workbench (issue 26): booleans are booleans, integers are in
range, bodies are bounded in nesting and field count, and anything a page or a script could
not have sent is a 400 naming the field, with nothing written; never a 500 without the
security headers. An unexpected error in a route is a logged 500 page with the headers."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import query, table_counts
from httpx2 import Response
from serve_stores import batches_of, signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient

from nlibuild.models import Role
from nlibuild.web import pages, security
from nlibuild.web.security import SECURITY_HEADERS

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name

DEEP_JSON = "[" * 20_000 + "]" * 20_000
TOO_MANY_FIELDS = "&".join(f"f{n}=x" for n in range(1_001))


def csrf_of(client: TestClient) -> str:
    page = client.get("/").text
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def csrf_header(client: TestClient) -> dict[str, str]:
    return {"X-CSRF-Token": csrf_of(client)}


def with_security_headers(response: Response) -> bool:
    headers = response.headers
    return all(headers.get(name.decode()) == value.decode() for name, value in SECURITY_HEADERS)


def assert_refused(response: Response, status: int, *words: str, json: bool) -> None:
    """`status`, with the security headers, as JSON or as the error page, saying `words`."""
    assert response.status_code == status, response.text[:300]
    assert with_security_headers(response), response.headers
    if json:
        message = response.json()["error"]
    else:
        assert response.headers["content-type"].startswith("text/html")
        alert = response.text.split('role="alert">', 1)[1].split("</p>", 1)[0]
        message = html.unescape(alert)
    for word in words:
        assert word in message, message


@pytest.fixture
def writer(workbench_db: Path) -> Iterator[TestClient]:
    with signed_in(workbench_db, "w01", Role.WRITER) as client:
        yield client


@pytest.fixture
def validator(workbench_db: Path) -> Iterator[TestClient]:
    with signed_in(workbench_db, "v01", Role.VALIDATOR) as client:
        yield client


def first_premise(db: Path) -> tuple[str, str]:
    """w01's first elicitation batch and its first premise."""
    batch = batches_of(db, "w01", "elicit")[0]
    premise = query(
        db,
        "SELECT s.item_id FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
        "WHERE b.id = ? ORDER BY s.position LIMIT 1",
        batch,
    )[0][0]
    return batch, premise


def assignment_status(db: Path, batch: str, premise: str) -> str:
    rows = query(
        db,
        "SELECT s.status FROM assignments s JOIN batches b ON b.pk = s.batch_pk "
        "WHERE b.id = ? AND s.item_id = ?",
        batch,
        premise,
    )
    return str(rows[0][0])


@pytest.mark.parametrize("unusable", ["no", "false", "yes", 1, 0, None, [], {}])
def test_unusable_in_the_json_route_is_true_or_false_only(
    workbench_db: Path, writer: TestClient, unusable: object
) -> None:
    batch, premise = first_premise(workbench_db)
    before = table_counts(workbench_db)
    body = {"premise": premise, "unusable": unusable, "hypotheses": {}}
    response = writer.post(
        f"/api/write/{batch}", json=body, headers={"X-CSRF-Token": csrf_of(writer)}
    )
    assert_refused(response, 400, "'unusable'", "true or false", json=True)
    assert table_counts(workbench_db) == before
    assert assignment_status(workbench_db, batch, premise) == "open"


def test_unusable_true_in_the_json_route_is_recorded(
    workbench_db: Path, writer: TestClient
) -> None:
    batch, premise = first_premise(workbench_db)
    body = {"premise": premise, "unusable": True, "hypotheses": {}}
    response = writer.post(
        f"/api/write/{batch}", json=body, headers={"X-CSRF-Token": csrf_of(writer)}
    )
    assert response.status_code == 200, response.text
    assert assignment_status(workbench_db, batch, premise) != "open"


@pytest.mark.parametrize("unusable", ["no", "false", "0", "on", "", "YES"])
def test_the_forms_unusable_is_the_checkboxs_value_or_absent(
    workbench_db: Path, writer: TestClient, unusable: str
) -> None:
    batch, premise = first_premise(workbench_db)
    before = table_counts(workbench_db)
    form = {"csrf_token": csrf_of(writer), "action": "submit", "unusable": unusable}
    response = writer.post(f"/write/{batch}/{premise}", data=form)
    assert_refused(response, 400, "'unusable'", json=False)
    assert table_counts(workbench_db) == before
    assert assignment_status(workbench_db, batch, premise) == "open"


def test_the_checked_checkbox_marks_the_premise_unusable(
    workbench_db: Path, writer: TestClient
) -> None:
    batch, premise = first_premise(workbench_db)
    form = {"csrf_token": csrf_of(writer), "action": "submit", "unusable": "yes"}
    response = writer.post(f"/write/{batch}/{premise}", data=form)
    assert response.status_code == 200, response.text
    assert assignment_status(workbench_db, batch, premise) != "open"


def test_a_form_field_the_page_does_not_have_or_sent_twice_is_400(
    workbench_db: Path, writer: TestClient
) -> None:
    batch, premise = first_premise(workbench_db)
    before = table_counts(workbench_db)
    token = csrf_of(writer)
    url = f"/write/{batch}/{premise}"
    stray = {"csrf_token": token, "action": "submit", "unusable": "yes", "premise_text": "x"}
    assert_refused(writer.post(url, data=stray), 400, "'premise_text'", json=False)
    twice = f"csrf_token={token}&action=submit&unusable=yes&unusable=yes"
    form_type = {"Content-Type": "application/x-www-form-urlencoded"}
    response = writer.post(url, content=twice, headers=form_type)
    assert_refused(response, 400, "'unusable'", "once", json=False)
    action = {"csrf_token": token, "action": "publish"}
    assert_refused(writer.post(url, data=action), 400, "'action'", json=False)
    assert table_counts(workbench_db) == before


def test_a_file_in_a_form_is_400(workbench_db: Path, writer: TestClient) -> None:
    batch, premise = first_premise(workbench_db)
    before = table_counts(workbench_db)
    response = writer.post(
        f"/write/{batch}/{premise}",
        data={"csrf_token": csrf_of(writer), "action": "check"},
        files={"entailment_1": ("a.txt", b"text", "text/plain")},
    )
    assert_refused(response, 400, json=False)
    assert table_counts(workbench_db) == before


@pytest.mark.parametrize("path", ["/logout", "/label/{batch}/vote", "/write/{batch}/x"])
def test_a_form_of_more_than_a_thousand_fields_is_400_with_the_headers(
    workbench_db: Path, writer: TestClient, path: str
) -> None:
    batch = batches_of(workbench_db, "w01", "elicit")[0]
    body = f"csrf_token={csrf_of(writer)}&{TOO_MANY_FIELDS}"
    form_type = {"Content-Type": "application/x-www-form-urlencoded"}
    response = writer.post(path.format(batch=batch), content=body, headers=form_type)
    assert_refused(response, 400, "fields", json=False)
    assert writer.get("/").status_code == 200  # still signed in: the logout did not happen


@pytest.mark.parametrize(
    ("path", "json"),
    [("/api/label/{batch}", True), ("/label/{batch}/vote", True), ("/label/{batch}/undo", True)],
)
def test_json_nested_twenty_thousand_deep_is_400_with_the_headers(
    workbench_db: Path, validator: TestClient, path: str, json: bool
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    headers = {"X-CSRF-Token": csrf_of(validator), "Content-Type": "application/json"}
    response = validator.post(path.format(batch=batch), content=DEEP_JSON, headers=headers)
    assert_refused(response, 400, "JSON", json=json)


def test_a_nested_value_in_a_field_is_400_naming_the_field(
    workbench_db: Path, validator: TestClient
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    headers = {"X-CSRF-Token": csrf_of(validator)}
    nested = {"item": 1, "label": [[["neutral"]]]}
    response = validator.post(f"/label/{batch}/vote", json=nested, headers=headers)
    assert_refused(response, 400, "'label'", json=True)


@pytest.mark.parametrize("item", ["²", "٣", "1" * 5_000, "-1", "0", "1.0", " 1", "1e3", ""])
@pytest.mark.parametrize("route", ["vote", "undo"])
def test_an_item_number_not_of_ascii_digits_in_range_is_400_with_the_headers(
    workbench_db: Path, validator: TestClient, item: str, route: str
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    before = table_counts(workbench_db)
    form = {"csrf_token": csrf_of(validator), "item": item, "label": "neutral"}
    if route == "undo":
        del form["label"]
    response = validator.post(f"/label/{batch}/{route}", data=form)
    assert_refused(response, 400, "'item'", json=False)
    assert table_counts(workbench_db) == before


@pytest.mark.parametrize("position", [2**63, 2**63 - 1, 2**64, -(2**63) - 1, 0, 1.0, "1", True])
def test_a_json_position_out_of_range_or_not_an_integer_is_400(
    workbench_db: Path, validator: TestClient, position: object
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    before = table_counts(workbench_db)
    headers = {"X-CSRF-Token": csrf_of(validator)}
    body = {"position": position, "label": "neutral"}
    response = validator.post(f"/api/label/{batch}", json=body, headers=headers)
    assert_refused(response, 400, "'position'", json=True)
    page_body = {"item": position, "label": "neutral"}
    response = validator.post(f"/label/{batch}/vote", json=page_body, headers=headers)
    assert_refused(response, 400, "'item'", json=True)
    assert table_counts(workbench_db) == before


def test_the_seconds_cap_holds_on_both_vote_routes(
    workbench_db: Path, validator: TestClient
) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    headers = {"X-CSRF-Token": csrf_of(validator)}
    body = {"position": 1, "label": "neutral", "seconds": 1e300}
    assert validator.post(f"/api/label/{batch}", json=body, headers=headers).status_code == 200
    page_body = {"item": 2, "label": "neutral", "seconds": 1e300}
    assert validator.post(f"/label/{batch}/vote", json=page_body, headers=headers).is_success
    times = query(workbench_db, "SELECT seconds FROM vote_times")
    assert times == [(600.0,), (600.0,)]  # ServeConfig.max_seconds_per_item


def test_the_seconds_cap_is_the_settings_on_both_vote_routes(workbench_db: Path) -> None:
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    with signed_in(workbench_db, "v01", Role.VALIDATOR, max_seconds_per_item=30) as client:
        headers = {"X-CSRF-Token": csrf_of(client)}
        body = {"position": 1, "label": "neutral", "seconds": 45}
        assert client.post(f"/api/label/{batch}", json=body, headers=headers).is_success
        page_body = {"item": 2, "label": "neutral", "seconds": 45}
        assert client.post(f"/label/{batch}/vote", json=page_body, headers=headers).is_success
    assert query(workbench_db, "SELECT seconds FROM vote_times") == [(30.0,), (30.0,)]


def test_an_unexpected_error_in_a_route_is_a_logged_500_with_the_headers(
    workbench_db: Path,
    writer: TestClient,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pages, "own_batches", broken)
    response = writer.get("/")
    assert_refused(response, 500, "logged", json=False)
    assert "a bug" not in response.text and "Traceback" not in response.text
    assert any("a bug" in str(record.exc_info) for record in caplog.records)


def test_an_unexpected_error_in_a_json_route_is_a_500_json_with_the_headers(
    workbench_db: Path, validator: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("nlibuild.web.api_pages.pair_at_position", broken)
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    body = {"position": 1, "label": "neutral"}
    response = validator.post(
        f"/api/label/{batch}", json=body, headers={"X-CSRF-Token": csrf_of(validator)}
    )
    assert_refused(response, 500, "logged", json=True)


def test_when_even_the_error_page_fails_the_500_still_has_the_headers(
    writer: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(pages, "own_batches", broken)
    monkeypatch.setattr(security, "error_response", broken)
    response = writer.get("/")
    assert response.status_code == 500
    assert with_security_headers(response)
    assert "logged" in response.text and "a bug" not in response.text
