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
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from nlibuild.models import ServeConfig
from nlibuild.web import api_pages, label_pages, lead_pages, pages, sign_in, writing_pages
from nlibuild.web.context import STATIC, WebContext
from nlibuild.web.language import choose_language
from nlibuild.web.security import BodyLimit, CsrfCheck, Failsafe, SecurityHeaders, SessionGate
from nlibuild.workbench.model_loop import Predictor


def create_app(
    store_path: Path, config: ServeConfig, predictor: Predictor | None = None
) -> Starlette:
    """The application over the store at `store_path` (which must exist: a `StoreError`
    otherwise, before anything listens), with the model `serve --model` loaded, if any."""
    context = WebContext(store_path, config, predictor)

    def bound(page: Callable[[WebContext, Request], Response]) -> Callable[[Request], Response]:
        return partial(page, context)

    routes = [
        Route("/healthz", pages.healthz),
        Route("/t/{token}", bound(sign_in.login)),
        Route("/switch", partial(sign_in.switch, context), methods=["POST"]),
        Route("/", bound(pages.home)),
        *writing_pages.routes(context),
        *label_pages.routes(context),
        Route("/logout", partial(sign_in.logout, context), methods=["POST"]),
        Route("/language", choose_language, methods=["POST"]),
        *api_pages.routes(context),
        *lead_pages.routes(context),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        *proxy_headers(config),
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


def proxy_headers(config: ServeConfig) -> list[Middleware]:
    """Where a reverse proxy is declared (`serve --proxy-headers`), the client's address and
    scheme from the X-Forwarded-For and X-Forwarded-Proto headers the trusted proxies send;
    nothing otherwise, so that a client cannot name its own address (the login limit of
    nlibuild/web/sign_in.py counts per address then). The server runs uvicorn with its own
    proxy handling off (nlibuild/cli/serve.py): the decision is made here alone."""
    if not config.proxy_headers:
        return []
    return [Middleware(ProxyHeadersMiddleware, trusted_hosts=config.trusted_proxies)]
