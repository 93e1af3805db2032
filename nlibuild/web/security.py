"""The workbench's safety, as ASGI middleware around every route, outermost first:

1. `SecurityHeaders`: a strict Content-Security-Policy (scripts and styles only from
   /static, no inline script, no framing) and the headers that keep a page's URL (holding a
   token) out of Referer and the browser from sniffing types, on every response.
2. `Failsafe`: no answer leaves without those headers. An HTTPException raised in a
   middleware below (a form the CSRF check cannot read: 400), which Starlette's own
   exception handling (inside the middleware) never sees, is its error page; any other
   exception is logged with its traceback and answered with a 500 page that names no
   detail. Starlette's own last resort answers outside every middleware, without them.
3. `BodyLimit`: a body over the limit is refused with 413 as soon as it is seen to be (by
   its Content-Length, else while it streams in), before the application reads it; the rest
   is buffered once and replayed, so the CSRF check can read a form and the page again.
4. `SessionGate`: every path but the personal links, /static and /healthz needs a live
   session (the cookie), else 401 with a page saying to open the personal link.
5. `CsrfCheck`: every POST carries the session's CSRF token (a hidden form field, or the
   `X-CSRF-Token` header for the page's fetch() calls), and its Origin or Referer, when
   sent, is this server; 403 otherwise. The session cookie is SameSite=Strict as well. A
   form is read with the routes' bounds (nlibuild/web/bodies.py: 64 fields, each once, no
   file), so a form of thousands of fields is a 400 before any route sees it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nlibuild.web.bodies import form_fields
from nlibuild.web.context import SESSION_COOKIE, WebContext, error_response
from nlibuild.workbench.access import csrf_matches
from nlibuild.workbench.messages import Text

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
PUBLIC_PREFIXES = ("/t/", "/static/")
PUBLIC_PATHS = frozenset({"/healthz"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
UNEXPECTED = Text(
    "Something went wrong on the server; it has been logged. Reload the page and try "
    "again; if it happens again, tell your lead what you did."
)
LOG = logging.getLogger("nlibuild.web")


class _ContextMiddleware:
    """An ASGI middleware of the workbench: the application it wraps, and the server's
    context (settings, stores, templates)."""

    def __init__(self, app: ASGIApp, context: WebContext) -> None:
        self.app = app
        self.context = context


def sends_a_body(scope: Scope) -> bool:
    """An HTTP request that may change something (POST and the like): the body limit and
    the CSRF check are for these alone."""
    return scope["type"] == "http" and scope["method"] not in SAFE_METHODS


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(SECURITY_HEADERS)
                if not static:  # pages show a person's own work: no shared caches
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Failsafe(_ContextMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_noting_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, send_noting_start)
        except Exception as exc:
            if started:  # a response half sent: nothing can follow it but the server's close
                raise
            await self._answer_failure(exc, scope)(scope, receive, send)

    def _answer_failure(self, exc: Exception, scope: Scope) -> Response:
        if isinstance(exc, HTTPException):
            return error_response(self.context, scope, exc.status_code, exc.detail, exc.headers)
        LOG.error("unexpected error on %s %s", scope["method"], scope["path"], exc_info=exc)
        try:
            return error_response(self.context, scope, 500, UNEXPECTED)
        except Exception as page_failure:  # the error page itself failed (a template)
            LOG.error("the error page failed too", exc_info=page_failure)
            return PlainTextResponse(UNEXPECTED, status_code=500)


class BodyTooLarge(Exception):
    pass


class BodyLimit(_ContextMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not sends_a_body(scope):
            await self.app(scope, receive, send)
            return
        limit = self.context.config.body_limit
        declared = Request(scope).headers.get("content-length", "")
        try:
            if declared.isdigit() and int(declared) > limit:
                raise BodyTooLarge
            body = await _read_body(receive, limit)
        except BodyTooLarge:
            message = Text(
                "A request may carry at most {size} KiB; send less at once.", size=limit // 1024
            )
            await error_response(self.context, scope, 413, message)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Callable[[], Awaitable[MutableMapping[str, Any]]]:
    """A `receive` that gives the buffered body once, then the client's own messages (its
    disconnect, which a streaming response listens for)."""
    sent = False

    async def replayed() -> MutableMapping[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def session_id_of(scope: Scope) -> str | None:
    return Request(scope).cookies.get(SESSION_COOKIE) or None


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


class SessionGate(_ContextMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_public(scope["path"]):
            await self.app(scope, receive, send)
            return
        session_id = session_id_of(scope)
        person = None
        if session_id is not None:
            person = await anyio.to_thread.run_sync(self.context.session_person, session_id)
        if person is None:
            message = Text(
                "You are not signed in, or your session has ended. Open the personal link "
                "your lead sent you (it looks like /t/...) to sign in."
            )
            await error_response(self.context, scope, 401, message)(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state["person"] = person
        state["session_id"] = session_id
        await self.app(scope, receive, send)


class CsrfCheck(_ContextMiddleware):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not sends_a_body(scope):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = await request.body()  # already buffered and bounded by BodyLimit
        problem = _foreign_origin(request) or await _csrf_problem(request, scope)
        if problem:
            await error_response(self.context, scope, 403, problem)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


def _foreign_origin(request: Request) -> str | None:
    """Whether an Origin or Referer header names a site other than this server."""
    here = f"{request.url.scheme}://{request.url.netloc}"
    origin = request.headers.get("origin")
    if origin == "null":
        # A form POST from a page under `Referrer-Policy: no-referrer` carries `Origin: null`
        # (Fetch standard, "append a request `Origin` header"), as does Chromium's: it names
        # no site, so the CSRF token alone decides, as for a request without the header.
        origin = None
    if origin is not None and origin != here:
        return Text("This form was sent from another site; open the page here and send it again.")
    referer = request.headers.get("referer")
    if origin is None and referer is not None:
        parts = urlsplit(referer)
        if f"{parts.scheme}://{parts.netloc}" != here:
            return Text(
                "This form was sent from another site; open the page here and send it again."
            )
    return None


async def _csrf_problem(request: Request, scope: Scope) -> str | None:
    session_id = scope.get("state", {}).get("session_id")
    given = request.headers.get(CSRF_HEADER)
    if given is None:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            given = (await form_fields(request)).get(CSRF_FIELD)
    if session_id is None or not csrf_matches(session_id, given):
        return Text(
            "This form has expired or did not come from this page; reload it and try again."
        )
    return None
