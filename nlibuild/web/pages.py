"""The workbench's pages. Each is a plain function Starlette runs in a worker thread (the
store's calls block); what it shows comes from nlibuild/workbench/ and the stats tables."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from nlibuild.web.auth import current_person
from nlibuild.web.context import SESSION_COOKIE, WebContext, error_response
from nlibuild.workbench.access import (
    close_session,
    open_session,
    own_batches,
)

REFUSALS = {
    "unknown": "This link is not valid. Check that you copied all of it, or ask your lead.",
    "expired": "This link has expired. Ask your lead for a new one.",
    "revoked": "This link has been withdrawn. Ask your lead for a new one.",
}


def healthz(request: Request) -> Response:
    return PlainTextResponse("ok")


def login(context: WebContext, request: Request) -> Response:
    """A personal link: a session for a live token; 403 for any other, 429 once an address
    has failed `token_attempts_per_minute` times within a minute."""
    address = request.client.host if request.client else "unknown"
    wait = context.failed_logins.retry_after(address)
    if wait is not None:
        message = f"Too many links that did not work; wait {wait} seconds and try again."
        return error_response(context, request.scope, 429, message, {"Retry-After": str(wait)})
    token = request.path_params["token"]
    result = context.with_store(lambda s: open_session(s, token, context.session_lifetime))
    if result.person is None or result.session_id is None:
        context.failed_logins.record(address)
        return error_response(context, request.scope, 403, REFUSALS[result.refusal or ""])
    # A page that moves on to / rather than a 303: after a link followed from an e-mail (a
    # navigation another site started), browsers withhold SameSite=Strict cookies from the
    # redirects of that navigation, so / would not see the new session; a navigation this
    # page starts is same-site (RFC 6265bis, 5.2.1).
    response = context.page(request, "signed_in.html", {"title": "Signed in", "who": result.person})
    response.set_cookie(
        SESSION_COOKIE,
        result.session_id,
        max_age=int(context.session_lifetime.total_seconds()),
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


def logout(context: WebContext, request: Request) -> Response:
    session_id = request.scope.get("state", {}).get("session_id")
    if session_id:
        context.with_store(lambda store: close_session(store, session_id))
    response = context.page(request, "signed_out.html", {"title": "Signed out", "person": None})
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response


def home(context: WebContext, request: Request) -> Response:
    """The signed-in person's own batches, with a link to each (the lead: the lead page)."""
    person = current_person(request)
    batches = context.with_store(lambda store: own_batches(store, person))
    values = {
        "title": "Your work",
        "open_batches": [b for b in batches if b.open],
        "done_batches": [b for b in batches if not b.open],
        "links": {"elicit": "/write/", "relabel": "/label/"},
    }
    return context.page(request, "home.html", values)


def http_error(context: WebContext, request: Request, exc: Exception) -> Response:
    """Starlette's HTTP errors (a page's 403 and 404, an unknown path) as the error page."""
    assert isinstance(exc, HTTPException)
    message = (
        exc.detail
        if exc.status_code != 404 or exc.detail != "Not Found"
        else ("There is no such page. Go back to your work.")
    )
    return error_response(context, request.scope, exc.status_code, message, exc.headers)
