"""Signing in and out of the workbench (issue 26): the writes take the write lock votes take;
a link of another person does not replace a live session without the person's say (login
CSRF); failed links are counted per token prefix, with the address only where no proxy is
declared, and X-Forwarded-For counts only behind `serve --proxy-headers`."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest
from conftest import ok_result, query
from serve_stores import client_of, invite, signed_in, workbench_db, workbench_template
from starlette.testclient import TestClient

from nlibuild.models import Role, ServeConfig
from nlibuild.web.context import WebContext
from nlibuild.web.drive import running_server
from nlibuild.web.sign_in import LINK_COOKIE

__all__ = ["workbench_db", "workbench_template"]  # fixtures, used by name

SESSIONS = "SELECT count(*) FROM workbench_sessions"


def context_of(client: TestClient) -> WebContext:
    context = client.app.state.context  # type: ignore[attr-defined]
    assert isinstance(context, WebContext)
    return context


def csrf_of(client: TestClient) -> str:
    page = client.get("/").text
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def who(client: TestClient) -> str:
    """The name the page's header shows for the signed-in person."""
    return client.get("/").text.split('<span class="who">', 1)[1].split(" ", 1)[0]


def waits_for_the_write_lock(client: TestClient, send: object) -> None:
    """`send()` (a request) does not finish while the write lock is held, and does once it
    is released."""
    lock = context_of(client).write_lock
    answers: list[int] = []
    assert callable(send)
    worker = threading.Thread(target=lambda: answers.append(send().status_code))
    with lock:
        worker.start()
        worker.join(timeout=1.0)
        assert worker.is_alive() and answers == []
    worker.join(timeout=30)
    assert answers == [200]


# --- the write lock --------------------------------------------------------------------------


def test_a_sign_in_writes_its_session_with_the_write_lock_held(workbench_db: Path) -> None:
    client = client_of(workbench_db)
    link = f"/t/{invite(workbench_db, 'w01', Role.WRITER)}"
    waits_for_the_write_lock(client, lambda: client.get(link))
    assert query(workbench_db, SESSIONS) == [(1,)]


def test_a_sign_out_deletes_its_session_with_the_write_lock_held(workbench_db: Path) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    token = csrf_of(client)
    waits_for_the_write_lock(client, lambda: client.post("/logout", data={"csrf_token": token}))
    assert query(workbench_db, SESSIONS) == [(0,)]


# --- login CSRF: another person's link asks first --------------------------------------------


def test_another_persons_link_asks_before_replacing_the_session(workbench_db: Path) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    theirs = invite(workbench_db, "w02", Role.WRITER)
    page = client.get(f"/t/{theirs}")
    assert page.status_code == 200 and "set-cookie" not in page.headers
    assert "You are signed in as w01. The link you opened is w02&#39;s." in page.text
    assert 'action="/switch"' in page.text
    assert who(client) == "w01"  # nothing replaced
    assert query(workbench_db, SESSIONS) == [(1,)]


def test_confirming_signs_out_the_old_person_and_in_the_new_one(workbench_db: Path) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    theirs = invite(workbench_db, "w02", Role.WRITER)
    form = client.get(f"/t/{theirs}").text
    token = form.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    assert token == csrf_of(client)  # the live session's own token, which no other site reads
    switched = client.post("/switch", data={"csrf_token": token, "token": theirs})
    assert switched.status_code == 200 and "Welcome, w02" in switched.text
    assert who(client) == "w02"
    assert query(workbench_db, SESSIONS) == [(1,)]  # w01's session ended


def test_switching_needs_the_sessions_csrf_token(workbench_db: Path) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    theirs = invite(workbench_db, "w02", Role.WRITER)
    assert client.post("/switch", data={"token": theirs}).status_code == 403
    assert client.post("/switch", data={"csrf_token": "0" * 64, "token": theirs}).status_code == 403
    foreign = {"Origin": "https://evil.example"}
    response = client.post(
        "/switch", data={"csrf_token": csrf_of(client), "token": theirs}, headers=foreign
    )
    assert response.status_code == 403
    assert who(client) == "w01"


def test_a_bad_link_on_the_confirmation_form_is_403_and_keeps_the_session(
    workbench_db: Path,
) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    response = client.post("/switch", data={"csrf_token": csrf_of(client), "token": "forged"})
    assert response.status_code == 403 and "not valid" in response.text
    assert who(client) == "w01"


def test_the_same_link_again_just_goes_on(workbench_db: Path) -> None:
    client = client_of(workbench_db)
    link = f"/t/{invite(workbench_db, 'w01', Role.WRITER)}"
    assert client.get(link).status_code == 200
    again = client.get(link)
    assert again.status_code == 200 and "Welcome, w01" in again.text
    assert "set-cookie" not in again.headers and "/switch" not in again.text
    assert query(workbench_db, SESSIONS) == [(1,)]


def test_another_link_of_the_same_person_asks_too(workbench_db: Path) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    page = client.get(f"/t/{invite(workbench_db, 'w01', Role.VALIDATOR)}").text
    assert "another link of yours" in page and 'action="/switch"' in page


def test_a_link_opened_from_another_site_still_sees_the_live_session(workbench_db: Path) -> None:
    # A navigation another site starts carries no SameSite=Strict cookie: the Lax cookie
    # scoped to /t/ is what such a navigation brings, and it alone must be enough to ask.
    first = signed_in(workbench_db, "w01", Role.WRITER)
    session_id = first.cookies.get(LINK_COOKIE)
    assert session_id is not None
    arriving = client_of(workbench_db)
    link = f"/t/{invite(workbench_db, 'w02', Role.WRITER)}"
    page = arriving.get(link, headers={"Cookie": f"{LINK_COOKIE}={session_id}"})
    assert page.status_code == 200 and 'action="/switch"' in page.text
    assert "set-cookie" not in page.headers


def test_the_link_cookie_is_lax_http_only_and_only_for_links(workbench_db: Path) -> None:
    response = client_of(workbench_db).get(f"/t/{invite(workbench_db, 'w01', Role.WRITER)}")
    [link_cookie] = [c for c in response.headers.get_list("set-cookie") if LINK_COOKIE in c]
    assert "Path=/t/" in link_cookie and "SameSite=lax" in link_cookie
    assert "HttpOnly" in link_cookie


def test_signing_out_clears_both_cookies(workbench_db: Path) -> None:
    client = signed_in(workbench_db, "w01", Role.WRITER)
    response = client.post("/logout", data={"csrf_token": csrf_of(client)})
    cleared = response.headers.get_list("set-cookie")
    assert len(cleared) == 2 and all("Max-Age=0" in cookie for cookie in cleared)
    assert client.get(f"/t/{invite(workbench_db, 'w02', Role.WRITER)}").text.count("/switch") == 0


# --- the limit on failed links ---------------------------------------------------------------


def bad_tokens(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{'x' * 30}{k:05d}" for k in range(count)]


def test_eleven_bad_tokens_of_one_prefix_lock_that_prefix_not_another_link(
    workbench_db: Path,
) -> None:
    client = client_of(workbench_db)
    good = invite(workbench_db, "w01", Role.WRITER)
    prefix = "AAAAAAAA" if not good.startswith("AAAAAAAA") else "BBBBBBBB"
    *first, eleventh = bad_tokens(prefix, 11)
    assert [client.get(f"/t/{token}").status_code for token in first] == [403] * 10
    locked = client.get(f"/t/{eleventh}")
    assert locked.status_code == 429 and 1 <= int(locked.headers["retry-after"]) <= 60
    assert client.get(f"/t/{prefix}another-suffix").status_code == 429
    assert client.get(f"/t/{good}").status_code == 200  # same address, another prefix


def test_without_a_proxy_the_prefix_is_locked_for_that_address_only(workbench_db: Path) -> None:
    attacker = client_of(workbench_db)
    for token in bad_tokens("CCCCCCCC", 11):
        attacker.get(f"/t/{token}")
    assert attacker.get("/t/CCCCCCCCzz").status_code == 429
    elsewhere = TestClient(attacker.app, client=("192.0.2.7", 40000))
    assert elsewhere.get("/t/CCCCCCCCzz").status_code == 403


def test_x_forwarded_for_buys_no_attempts_without_proxy_headers(workbench_db: Path) -> None:
    # The real server (uvicorn), whose own default would trust the header from loopback.
    with running_server(workbench_db) as base, httpx.Client(base_url=base) as client:
        statuses = [
            client.get(f"/t/{token}", headers={"X-Forwarded-For": f"198.51.100.{k}"}).status_code
            for k, token in enumerate(bad_tokens("DDDDDDDD", 11))
        ]
    assert statuses == [403] * 10 + [429]


def test_behind_a_declared_proxy_rotating_x_forwarded_for_buys_no_attempts(
    workbench_db: Path,
) -> None:
    proxy = TestClient(client_of(workbench_db, proxy_headers=True).app, client=("127.0.0.1", 40000))
    statuses = [
        proxy.get(f"/t/{token}", headers={"X-Forwarded-For": f"198.51.100.{k}"}).status_code
        for k, token in enumerate(bad_tokens("EEEEEEEE", 11))
    ]
    assert statuses == [403] * 10 + [429]
    # What the option is for: the proxy's scheme, so that the cookies are Secure behind TLS.
    link = f"/t/{invite(workbench_db, 'w01', Role.WRITER)}"
    response = proxy.get(link, headers={"X-Forwarded-Proto": "https"})
    assert all("Secure" in c for c in response.headers.get_list("set-cookie"))


def test_proxy_headers_from_an_untrusted_address_are_ignored(workbench_db: Path) -> None:
    app = client_of(workbench_db, proxy_headers=True).app
    outsider = TestClient(app, client=("203.0.113.9", 40000))
    link = f"/t/{invite(workbench_db, 'w01', Role.WRITER)}"
    response = outsider.get(link, headers={"X-Forwarded-Proto": "https"})
    assert response.status_code == 200
    assert not any("Secure" in c for c in response.headers.get_list("set-cookie"))


@pytest.mark.parametrize(("flags", "trusted"), [((), False), (("--proxy-headers",), True)])
def test_serve_proxy_headers_is_off_unless_given(
    workbench_db: Path, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...], trusted: bool
) -> None:
    served: list[ServeConfig] = []
    monkeypatch.setattr("nlibuild.cli.serve.run_server", lambda db, cfg, *_: served.append(cfg))
    ok_result("--db", workbench_db, "serve", *flags)
    assert [config.proxy_headers for config in served] == [trusted]


def test_a_burst_of_sign_ins_opens_every_session(workbench_db: Path) -> None:
    app = client_of(workbench_db).app
    links = [f"/t/{invite(workbench_db, 'w01', Role.WRITER)}" for _ in range(12)]
    answers: list[int] = []
    workers = [
        threading.Thread(target=lambda at=link: answers.append(TestClient(app).get(at).status_code))
        for link in links
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert answers == [200] * len(links)
    assert query(workbench_db, SESSIONS) == [(len(links),)]
