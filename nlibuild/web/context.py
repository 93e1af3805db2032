"""What every request of the workbench shares: its settings, the store (one connection per
worker thread), the templates and the failed-login counter."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import jinja2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.templating import Jinja2Templates
from starlette.types import Scope

from nlibuild.models import ServeConfig, parse_lifetime
from nlibuild.store import Store
from nlibuild.web.language import error_language, switch_values
from nlibuild.workbench.access import Person, csrf_token, session_person
from nlibuild.workbench.messages import Text, catalog, localised
from nlibuild.workbench.model_loop import Predictor

SESSION_COOKIE = "nlibuild_session"
TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

ResultT = TypeVar("ResultT")


class ThreadStores:
    """One open `Store` per thread: sqlite3 connections are not shared between threads, and
    Starlette runs each page's function in a worker thread. Every connection has the
    kernel's busy timeout and the store is in WAL mode, so readers never wait for a writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        Store.open(path).close()  # a missing or foreign file fails now, not on a page

    def get(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            store = Store.open(self.path)
            self._local.store = store
        return store


class FailedLogins:
    """Failed token attempts per key (nlibuild/web/sign_in.py `attempt_key`: the token's
    prefix, with the client's address where no proxy is declared) over the last minute, in
    memory: one process serves the workbench, so memory sees every attempt, and a guess
    costs no write to the store (whose one write lock the annotators' submissions need). A
    restart forgets them, which a 256-bit token can afford."""

    WINDOW_S = 60.0
    SWEEP_AT = 10_000
    """Keys kept before the ones with no attempt within the window are dropped: guesses
    of random prefixes each make a key, and memory must not grow with them."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._attempts: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        attempts = self._attempts.setdefault(key, deque())
        while attempts and attempts[0] <= now - self.WINDOW_S:
            attempts.popleft()
        return attempts

    def retry_after(self, key: str) -> int | None:
        """Seconds until `key` may be tried again, or None if it may now."""
        now = time.monotonic()
        with self._lock:
            attempts = self._attempts.get(key)
            if attempts is None:
                return None
            attempts = self._recent(key, now)
            if len(attempts) < self.per_minute:
                return None
            return max(1, int(attempts[0] + self.WINDOW_S - now + 0.999))

    def record(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            if len(self._attempts) >= self.SWEEP_AT:
                since = now - self.WINDOW_S
                stale = [k for k, at in self._attempts.items() if not at or at[-1] <= since]
                for old in stale:
                    del self._attempts[old]
            self._recent(key, now).append(now)


class Flashes:
    """What a POST did, kept for the page its 303 leads to (redirect-after-post: a reload of
    that page re-sends a GET, never the form). One message per session, read once, in
    memory: one process serves every request, and a message not read within `TTL_S` (a
    browser that never followed the redirect) is dropped rather than shown later."""

    TTL_S = 60.0

    def __init__(self) -> None:
        self._messages: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def put(self, session_id: str, message: str) -> None:
        now = time.monotonic()
        with self._lock:
            stale = [k for k, (at, _) in self._messages.items() if at <= now - self.TTL_S]
            for key in stale:
                del self._messages[key]
            self._messages[session_id] = (now, message)

    def pop(self, session_id: str) -> str:
        """The session's message (once), or "" when there is none or it is too old."""
        with self._lock:
            at, message = self._messages.pop(session_id, (0.0, ""))
        return message if at > time.monotonic() - self.TTL_S else ""


def _templates() -> Jinja2Templates:
    # Autoescape on for every template: a premise holding `<script>` shows as text.
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return Jinja2Templates(env=env)


@dataclass
class WebContext:
    store_path: Path
    config: ServeConfig
    predictor: Predictor | None = None
    """The model `serve --model` loaded (issue 29), or None."""
    stores: ThreadStores = field(init=False)
    templates: Jinja2Templates = field(init=False)
    failed_logins: FailedLogins = field(init=False)
    write_lock: threading.Lock = field(init=False)
    flashes: Flashes = field(init=False)

    def __post_init__(self) -> None:
        self.stores = ThreadStores(self.store_path)
        self.write_lock = threading.Lock()
        self.flashes = Flashes()
        self.templates = _templates()
        self.failed_logins = FailedLogins(self.config.token_attempts_per_minute)
        self.session_lifetime = parse_lifetime(self.config.session_lifetime)

    def session_person(self, session_id: str) -> Person | None:
        return session_person(self.stores.get(), session_id)

    def with_store(self, work: Callable[[Store], ResultT]) -> ResultT:
        return work(self.stores.get())

    def writing(self, work: Callable[[Store], ResultT]) -> ResultT:
        """`work` (a submission, a vote: a recorded run) with the process's write lock held.
        The threads queue here, asleep, for SQLite's one write lock: left to SQLite's busy
        handler, which polls with growing sleeps, 50 voters at once starved some of them
        past the 5 s busy timeout (bench/bench_serve_load.py)."""
        with self.write_lock:
            return work(self.stores.get())

    def page(
        self,
        request: Request,
        template: str,
        values: dict[str, Any],
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """A page of `template` with what every page's layout needs, in the language
        `values["lang"]` names (else the one the request chose, `error_language`): its
        catalog's `_` and `_n` for the template, and every `Text` of `values` in it."""
        state = request.scope.get("state", {})
        session_id = state.get("session_id")
        lang = str(values.get("lang") or error_language(request.scope))
        words = catalog(lang)
        common = {
            "person": state.get("person"),
            "csrf_token": csrf_token(session_id) if session_id else "",
            "_": words.text,
            "_n": words.plural,
            **switch_values(request),
        }
        shown = {k: localised(v, words) if isinstance(v, Text) else v for k, v in values.items()}
        return self.templates.TemplateResponse(
            request,
            template,
            common | shown | {"lang": lang},
            status_code=status,
            headers=headers,
        )


def wants_json(scope: Scope) -> bool:
    """A request answered in JSON: the /api/ routes, and a page's route called by its
    script with a JSON body (label.js, write.js), which shows the error's sentence."""
    content_type = Request(scope).headers.get("content-type", "")
    return scope["path"].startswith("/api/") or content_type.startswith("application/json")


def error_response(
    context: WebContext,
    scope: Scope,
    status: int,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The error page (401, 403, 404, 413, 429, ...) with one sentence of what to do; for
    a request that wants JSON (`wants_json`), `{"error": sentence}`."""
    if wants_json(scope):
        words = catalog(error_language(scope))
        shown = localised(message, words)
        return JSONResponse({"error": shown}, status_code=status, headers=headers)
    titles = {
        401: Text("Please sign in"),
        403: Text("Not allowed"),
        404: Text("Not found"),
        413: Text("Too much at once"),
        429: Text("Too many attempts"),
        500: Text("Something went wrong"),
    }
    values = {"title": titles.get(status, Text("Error")), "message": message, "status": status}
    return context.page(Request(scope), "error.html", values, status, headers)
