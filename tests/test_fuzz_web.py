"""The workbench's routes fuzzed (issue 26): mutated valid bodies of every route that
writes (the JSON API, the relabel and writing pages' forms and their script's JSON, the
logout, the lead's buttons), raw bytes and huge or deeply nested JSON, all sent with a
valid session and CSRF token. Whatever arrives: never a 500, always the security headers,
a 2xx or 3xx only for a body the route takes (nlibuild/web/bodies.py's models are the
spec), and on any 4xx the store's votes, answers and batches exactly as they were.

`make test` runs a bounded, fixed set of examples a route; `make fuzz` many, random."""

from __future__ import annotations

import contextlib
import hashlib
import html
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import DATA_TABLES
from fuzz_checks import examples
from fuzz_inputs import FormFields, form_bytes, json_body_bytes, mutated_form, raw_bytes
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from serve_stores import batches_of, signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient
from test_serve_input import csrf_of, first_premise, with_security_headers

from nlibuild.models import Role
from nlibuild.web.bodies import (
    ApiAnswer,
    ApiVote,
    PageUndo,
    PageVote,
    UndoForm,
    VoteForm,
    WriteForm,
)
from nlibuild.web.language import LanguageChoice

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name

EXAMPLES_PER_ROUTE = 15
"""Mutated bodies a route under `make test` (12 routes, a few milliseconds each)."""
RAW_EXAMPLES_PER_ROUTE = 4

HUGE_JSON = b"[" + b"1," * 500_000 + b"1]"
"""A megabyte of JSON: well-formed, and no route's object."""
DEEP_JSON = b"[" * 20_000 + b"]" * 20_000

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
RECORDED_TABLES = (*DATA_TABLES, "vote_times")


@dataclass(frozen=True)
class WebRoute:
    """One route that writes: who sends it, the path (`{batch}`, `{premise}` filled from
    the person's first batch), its body as JSON or a form, a valid body (`{csrf}` is the
    session's token), and the model a body must pass to be taken (None: the lead's forms,
    which take only the `fields` named)."""

    id: str
    role: Role
    person: str
    path: str
    kind: str
    valid: dict[str, Any]
    model: type[BaseModel] | None
    fields: tuple[str, ...] = ()


WEB_ROUTES = [
    WebRoute("api-label", Role.VALIDATOR, "v01", "/api/label/{batch}", JSON,
             {"position": 1, "label": "neutral", "seconds": 3.5}, ApiVote),
    WebRoute("api-write", Role.WRITER, "w01", "/api/write/{batch}", JSON,
             {"premise": "{premise}", "unusable": True, "hypotheses": {}}, ApiAnswer),
    WebRoute("vote-json", Role.VALIDATOR, "v01", "/label/{batch}/vote", JSON,
             {"item": 1, "label": "neutral", "seconds": 2.0}, PageVote),
    WebRoute("vote-form", Role.VALIDATOR, "v01", "/label/{batch}/vote", FORM,
             {"csrf_token": "{csrf}", "item": "1", "label": "neutral"}, VoteForm),
    WebRoute("undo-json", Role.VALIDATOR, "v01", "/label/{batch}/undo", JSON,
             {"item": 1}, PageUndo),
    WebRoute("undo-form", Role.VALIDATOR, "v01", "/label/{batch}/undo", FORM,
             {"csrf_token": "{csrf}", "item": "1"}, UndoForm),
    WebRoute("write-form", Role.WRITER, "w01", "/write/{batch}/{premise}", FORM,
             {"csrf_token": "{csrf}", "action": "submit", "unusable": "yes"}, WriteForm),
    WebRoute("logout", Role.WRITER, "w01", "/logout", FORM, {"csrf_token": "{csrf}"}, None,
             ("csrf_token",)),
    WebRoute("language", Role.WRITER, "w01", "/language", FORM,
             {"csrf_token": "{csrf}", "lang": "ko", "back": "/write/e0001"}, LanguageChoice),
    WebRoute("lead-elicit", Role.LEAD, "lead01", "/lead/elicit-batches", FORM,
             {"csrf_token": "{csrf}", "protocol": "SINGLE", "writers": "w03",
              "batch_size": "5", "max_per_writer": ""}, None,
             ("csrf_token", "protocol", "writers", "batch_size", "max_per_writer")),
    WebRoute("lead-relabel", Role.LEAD, "lead01", "/lead/relabel-batches", FORM,
             {"csrf_token": "{csrf}", "annotators": "v05, v06", "fraction": "1",
              "validators": "2", "batch_size": ""}, None,
             ("csrf_token", "annotators", "fraction", "validators", "batch_size")),
    WebRoute("lead-aggregate", Role.LEAD, "lead01", "/lead/aggregate", FORM,
             {"csrf_token": "{csrf}", "method": "majority", "min_agree": "0.6"}, None,
             ("csrf_token", "method", "min_agree")),
]  # fmt: skip


def recorded(db: Path) -> str:
    """Every row of the tables that hold votes, answers and batches: equal digests mean
    nothing was recorded."""
    digest = hashlib.sha256()
    with contextlib.closing(sqlite3.connect(db)) as conn:
        present = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        for table in sorted(present.intersection(RECORDED_TABLES)):
            rows = sorted(repr(row) for row in conn.execute(f'SELECT * FROM "{table}"'))
            digest.update(f"{table}:{len(rows)}\n".encode())
            for row in rows:
                digest.update(row.encode("utf-8", errors="surrogatepass") + b"\n")
    return digest.hexdigest()


# --- what a route takes -------------------------------------------------------------------


def takes_json(route: WebRoute, body: bytes) -> bool:
    try:
        sent = orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    return isinstance(sent, dict) and passes(route, sent)


def takes_form(route: WebRoute, form: FormFields, token: str) -> bool:
    names = Counter(name for name, _ in form)
    if any(count > 1 for count in names.values()):
        return False
    fields = dict(form)
    if fields.get("csrf_token") != token:
        return False
    if any(_has_surrogate(text) for item in form for text in item):
        return False
    if route.model is None:
        return set(fields) <= set(route.fields)
    return passes(route, fields)


def passes(route: WebRoute, sent: dict[str, Any]) -> bool:
    assert route.model is not None
    try:
        route.model.model_validate(sent)
    except ValidationError:
        return False
    return True


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= char <= "\udfff" for char in text)


# --- the property -------------------------------------------------------------------------


class Visitor:
    """A signed-in client of `route`'s person on `db`, signed in again after a logout."""

    def __init__(self, db: Path, route: WebRoute) -> None:
        self.db = db
        self.route = route
        self.client, self.token = self.sign_in()
        batch = batches_of(db, "w01", "elicit")[0]
        premise = first_premise(db)[1]
        if route.role == Role.VALIDATOR:
            batch = batches_of(db, "v01", "relabel")[0]
        self.path = route.path.format(batch=batch, premise=premise)
        self.premise = premise

    def sign_in(self) -> tuple[TestClient, str]:
        client = signed_in(self.db, self.route.person, self.route.role)
        if self.route.role != Role.LEAD:
            return client, csrf_of(client)
        page = client.get("/lead").text
        return client, page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]

    def valid(self) -> dict[str, Any]:
        return {k: self.filled(v) for k, v in self.route.valid.items()}

    def filled(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.format(csrf=self.token, premise=self.premise)
        return value

    def headers(self, content_type: str) -> dict[str, str]:
        """The body's type, and for a JSON route the token as the page's script sends it (a
        form carries its own, in the `csrf_token` field)."""
        headers = {"Content-Type": content_type}
        if self.route.kind == JSON:
            headers["X-CSRF-Token"] = self.token
        return headers

    def send(self, body: bytes, content_type: str, takes: Callable[[], bool]) -> None:
        before, taken = recorded(self.db), takes()  # `takes` reads this session's token
        response = self.client.post(self.path, content=body, headers=self.headers(content_type),
                                    follow_redirects=False)  # fmt: skip
        status = response.status_code
        assert status < 500, (status, response.text[:500])
        assert with_security_headers(response), response.headers
        if status < 400:
            if self.route.id == "logout":  # signed in again first: the next example needs it
                self.client, self.token = self.sign_in()
            assert taken, f"{status} for a body the route does not take: {body[:300]!r}"
        else:
            assert recorded(self.db) == before, f"a {status} recorded something: {body[:300]!r}"


@pytest.fixture
def visitor_of(workbench_db: Path) -> Callable[[WebRoute], Visitor]:
    return lambda route: Visitor(workbench_db, route)


@pytest.mark.parametrize("route", WEB_ROUTES, ids=[r.id for r in WEB_ROUTES])
def test_a_mutated_body_is_taken_only_if_valid_and_never_a_500(
    route: WebRoute, visitor_of: Callable[[WebRoute], Visitor]
) -> None:
    visitor = visitor_of(route)
    valid = visitor.valid()
    body = json_body_bytes(valid) if route.kind == JSON else mutated_form(valid)

    @examples(EXAMPLES_PER_ROUTE)
    @given(sent=body)
    def property_holds(sent: bytes | FormFields) -> None:
        if isinstance(sent, bytes):
            visitor.send(sent, JSON, lambda: takes_json(route, sent))
        else:
            visitor.send(form_bytes(sent), FORM, lambda: takes_form(route, sent, visitor.token))

    property_holds()


@pytest.mark.parametrize("route", WEB_ROUTES, ids=[r.id for r in WEB_ROUTES])
def test_raw_huge_or_deep_bytes_are_refused_with_the_headers(
    route: WebRoute, visitor_of: Callable[[WebRoute], Visitor]
) -> None:
    visitor = visitor_of(route)
    odd = st.one_of(raw_bytes, st.sampled_from([HUGE_JSON, DEEP_JSON, b"", b"{}", b"null"]))

    @examples(RAW_EXAMPLES_PER_ROUTE)
    @given(sent=odd, content_type=st.sampled_from([JSON, FORM, "text/plain", ""]))
    def property_holds(sent: bytes, content_type: str) -> None:
        visitor.send(sent, content_type, lambda: False)

    property_holds()


@pytest.mark.parametrize("route", WEB_ROUTES, ids=[r.id for r in WEB_ROUTES])
def test_the_valid_bodies_are_taken(
    route: WebRoute, visitor_of: Callable[[WebRoute], Visitor]
) -> None:
    # The fuzzing starts from bodies each route takes: otherwise it would only ever test
    # the first check of a route.
    visitor = visitor_of(route)
    valid = visitor.valid()
    if route.kind == JSON:
        body, takes = orjson.dumps(valid), takes_json(route, orjson.dumps(valid))
    else:
        body, takes = (
            form_bytes(list(valid.items())),
            takes_form(route, list(valid.items()), visitor.token),
        )
    assert takes
    headers = visitor.headers(route.kind)
    response = visitor.client.post(visitor.path, content=body, headers=headers,
                                   follow_redirects=False)  # fmt: skip
    assert response.status_code < 400, response.text.split('role="alert">')[-1][:300]


# --- what the fuzzing found ---------------------------------------------------------------


@pytest.mark.parametrize("route", ["/logout", "/label/{batch}/undo"])
def test_a_csrf_token_of_non_ascii_text_is_403_not_500(workbench_db: Path, route: str) -> None:
    # hmac.compare_digest raises TypeError on a str that is not ASCII.
    batch = batches_of(workbench_db, "v01", "relabel")[0]
    client = signed_in(workbench_db, "v01", Role.VALIDATOR)
    form = {"csrf_token": "\x80", "item": "1"} if "undo" in route else {"csrf_token": "é"}
    response = client.post(route.format(batch=batch), data=form)
    assert response.status_code == 403
    assert with_security_headers(response)


def test_a_field_the_logout_button_does_not_have_is_400_and_the_session_stays(
    workbench_db: Path,
) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    form = {"csrf_token": csrf_of(client), "": "x"}
    response = client.post("/logout", data=form)
    assert response.status_code == 400 and with_security_headers(response)
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("stray", ["", "writers2", "premise_text"])
def test_a_field_the_leads_form_does_not_have_is_400_and_nothing_is_made(
    workbench_db: Path, stray: str
) -> None:
    client = signed_in(workbench_db, "lead01", Role.LEAD)
    page = client.get("/lead").text
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    before = recorded(workbench_db)
    form = {"csrf_token": token, "protocol": "SINGLE", "writers": "w03", stray: "w04"}
    response = client.post("/lead/elicit-batches", data=form, follow_redirects=False)
    assert response.status_code == 400
    assert (
        repr(stray) in html.unescape(response.text).split('role="alert">', 1)[1].split("</p>", 1)[0]
    )
    assert recorded(workbench_db) == before
