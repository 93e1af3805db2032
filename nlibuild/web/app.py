"""`create_app(store_path, config)`: the workbench's Starlette application.

One process on the embedded store: each worker thread has its own connection with the
kernel's busy timeout, and the store is in WAL mode (nlibuild/web/context.py). Every
request passes the middleware of nlibuild/web/security.py before a page sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from nlibuild.models import ServeConfig
from nlibuild.web import api_pages, label_pages, lead_pages, pages, writing_pages
from nlibuild.web.context import STATIC, WebContext
from nlibuild.web.security import BodyLimit, CsrfCheck, Failsafe, SecurityHeaders, SessionGate


def create_app(store_path: Path, config: ServeConfig) -> Starlette:
    """The application over the store at `store_path` (which must exist: a `StoreError`
    otherwise, before anything listens)."""
    context = WebContext(store_path, config)

    def bound(page: Callable[[WebContext, Request], Response]) -> Callable[[Request], Response]:
        return partial(page, context)

    routes = [
        Route("/healthz", pages.healthz),
        Route("/t/{token}", bound(pages.login)),
        Route("/", bound(pages.home)),
        *writing_pages.routes(context),
        *label_pages.routes(context),
        Route("/logout", bound(pages.logout), methods=["POST"]),
        *api_pages.routes(context),
        *lead_pages.routes(context),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(Failsafe, context=context),
        Middleware(BodyLimit, context=context),
        Middleware(SessionGate, context=context),
        Middleware(CsrfCheck, context=context),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: partial(pages.http_error, context)},
    )
    app.state.context = context
    return app
