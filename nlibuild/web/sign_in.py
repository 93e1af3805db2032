"""Signing in and out of the workbench (issue 26).

- A personal link, `GET /t/<token>`, opens a session (the cookie) for a live invite, with
  the process's write lock held as a vote's is (`WebContext.writing`): a burst of people
  opening their links queues there instead of in SQLite's polling busy handler.
- A browser that already holds a live session of ANOTHER invite is not switched silently:
  a page of another site could send it the attacker's link, and the person's work would be
  recorded under the attacker's ID (login CSRF). It gets a page asking whether to go on as
  the link's person, whose button is a POST to `/switch` carrying the session's CSRF token,
  which no other site can read. The same invite's link just goes on to the person's work.
- The session cookie is SameSite=Strict, which a browser withholds from a navigation that
  another site started, so the link route could not see it there. A second cookie holding
  the same session ID, SameSite=Lax and scoped to `/t/`, is sent on such a navigation, and
  only to the link route, which uses it for nothing but noticing a live session.
- Failed tokens are counted per `attempt_key`: the token's prefix (the characters the store
  keeps), with the client's address where no proxy is declared. Guessing the rest of a
  link whose prefix is known (from `serve invites`, or a link cut short) waits once the
  prefix has failed `token_attempts_per_minute` times; other links behind the same address
  (a NAT) go on working. Behind a declared proxy (`serve --proxy-headers`) the address a
  header names is not part of the key, so rotating X-Forwarded-For buys no attempts;
  without the option the header is ignored altogether (nlibuild/web/app.py).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from nlibuild.store import Store
from nlibuild.web.bodies import RequestBody, form_body, json_body
from nlibuild.web.context import SESSION_COOKIE, WebContext, error_response
from nlibuild.workbench.access import (
    SELECTOR_LENGTH,
    Person,
    check_invite,
    close_session,
    csrf_token,
    start_session,
)
from nlibuild.workbench.messages import Text

LINK_COOKIE = "nlibuild_link_session"
"""The session ID again, SameSite=Lax and for /t/ only (see the module's docstring)."""
LINK_PATH = "/t/"
MAX_TOKEN_CHARS = 200

REFUSALS = {
    "unknown": Text("This link is not valid. Check that you copied all of it, or ask your lead."),
    "expired": Text("This link has expired. Ask your lead for a new one."),
    "revoked": Text("This link has been withdrawn. Ask your lead for a new one."),
}


class SwitchForm(RequestBody):
    """The confirmation page's button: go on as the person of the link `token`."""

    csrf_token: str = ""
    token: Annotated[str, Field(min_length=1, max_length=MAX_TOKEN_CHARS)]


def attempt_key(context: WebContext, request: Request, token: str) -> str:
    """What a failed attempt with `token` counts against (see the module's docstring)."""
    prefix = token[:SELECTOR_LENGTH]
    if context.config.proxy_headers:
        return f"prefix {prefix}"
    address = request.client.host if request.client else "unknown"
    return f"prefix {prefix} from {address}"


def checked_invite(context: WebContext, request: Request, token: str) -> Person | Response:
    """The person of a live invite; else the 429 of a prefix that failed too often, or
    the 403 saying why the link does not work (a failed attempt, counted)."""
    key = attempt_key(context, request, token)
    wait = context.failed_logins.retry_after(key)
    if wait is not None:
        message = Text(
            "Too many links that did not work; wait {seconds} seconds and try again.", seconds=wait
        )
        return error_response(context, request.scope, 429, message, {"Retry-After": str(wait)})
    found = context.with_store(lambda store: check_invite(store, token))
    if found.person is None:
        context.failed_logins.record(key)
        return error_response(context, request.scope, 403, REFUSALS[found.refusal or ""])
    return found.person


def current_session(context: WebContext, request: Request) -> tuple[str, Person] | None:
    """The browser's live session (its ID and person), if it has one."""
    session_id = request.cookies.get(SESSION_COOKIE) or request.cookies.get(LINK_COOKIE)
    if not session_id:
        return None
    person = context.session_person(session_id)
    return (session_id, person) if person is not None else None


def login(context: WebContext, request: Request) -> Response:
    """`GET /t/<token>`: a session for a live invite; the same invite's live session goes
    on; another invite's live session is kept until the person confirms (`switch`)."""
    token = request.path_params["token"]
    person = checked_invite(context, request, token)
    if isinstance(person, Response):
        return person
    current = current_session(context, request)
    if current is not None and current[1].token_pk == person.token_pk:
        return signed_in_page(context, request, person, current[0])
    if current is not None:
        return confirmation_page(context, request, current, person, token)
    session_id = context.writing(
        lambda store: start_session(store, person, context.session_lifetime)
    )
    return with_session_cookies(
        context, request, signed_in_page(context, request, person, session_id), session_id
    )


def confirmation_page(
    context: WebContext,
    request: Request,
    current: tuple[str, Person],
    person: Person,
    token: str,
) -> Response:
    session_id, signed_in_as = current
    values = {
        "title": Text("Continue as someone else?"),
        "person": signed_in_as,
        "csrf_token": csrf_token(session_id),
        "new": person,
        "token": token,
    }
    return context.page(request, "confirm_switch.html", values)


async def switch(context: WebContext, request: Request) -> Response:
    """`POST /switch` (the confirmation page's button): end this browser's session and
    open one for the link's person."""
    form = await form_body(request, SwitchForm)
    return await run_in_threadpool(replace_session, context, request, form.token)


def replace_session(context: WebContext, request: Request, token: str) -> Response:
    person = checked_invite(context, request, token)
    if isinstance(person, Response):
        return person
    old_session = request.scope["state"]["session_id"]

    def replace(store: Store) -> str:
        with store.atomic():
            close_session(store, old_session)
            return start_session(store, person, context.session_lifetime)

    session_id = context.writing(replace)
    page = signed_in_page(context, request, person, session_id)
    return with_session_cookies(context, request, page, session_id)


def signed_in_page(
    context: WebContext, request: Request, person: Person, session_id: str
) -> Response:
    # A page that moves on to / rather than a 303: after a link followed from an e-mail (a
    # navigation another site started), browsers withhold SameSite=Strict cookies from the
    # redirects of that navigation, so / would not see the new session; a navigation this
    # page starts is same-site (RFC 6265bis, 5.2.1).
    values = {
        "title": Text("Signed in"),
        "who": person,
        "person": person,
        "csrf_token": csrf_token(session_id),
    }
    return context.page(request, "signed_in.html", values)


def with_session_cookies(
    context: WebContext, request: Request, response: Response, session_id: str
) -> Response:
    lifetime = int(context.session_lifetime.total_seconds())
    secure = request.url.scheme == "https"
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=lifetime,
        path="/",
        httponly=True,
        samesite="strict",
        secure=secure,
    )
    response.set_cookie(
        LINK_COOKIE,
        session_id,
        max_age=lifetime,
        path=LINK_PATH,
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    return response


class LogoutForm(RequestBody):
    """The page's sign-out button: its CSRF token and nothing else."""

    csrf_token: str = ""


class LogoutCall(RequestBody):
    """A script's sign-out (`fetch` with the token in its header): an empty JSON object."""


async def logout(context: WebContext, request: Request) -> Response:
    """`POST /logout` (every page's button): end this browser's session. A body that is not
    the button's form, or a script's empty JSON object, is refused (400) and the session
    stays open."""
    if request.headers.get("content-type", "").startswith("application/json"):
        await json_body(request, LogoutCall)
    else:
        await form_body(request, LogoutForm)
    return await run_in_threadpool(sign_out, context, request)


def sign_out(context: WebContext, request: Request) -> Response:
    session_id = request.scope.get("state", {}).get("session_id")
    if session_id:
        context.writing(lambda store: close_session(store, session_id))
    response = context.page(
        request, "signed_out.html", {"title": Text("Signed out"), "person": None}
    )
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    response.delete_cookie(LINK_COOKIE, path=LINK_PATH, httponly=True, samesite="lax")
    return response
