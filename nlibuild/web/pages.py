"""The workbench's pages. Each is a plain function Starlette runs in a worker thread (the
store's calls block); what it shows comes from nlibuild/workbench/ and the stats tables."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from nlibuild.web.auth import current_person
from nlibuild.web.context import WebContext, error_response
from nlibuild.web.language import page_language, shared_language
from nlibuild.workbench.access import own_batches
from nlibuild.workbench.messages import Text


def healthz(request: Request) -> Response:
    return PlainTextResponse("ok")


def home(context: WebContext, request: Request) -> Response:
    """The signed-in person's own batches, with a link to each (the lead: the lead page), in
    the language their batches share (else English, unless they chose one)."""
    person = current_person(request)
    batches = context.with_store(lambda store: own_batches(store, person))
    values = {
        "title": Text("Your work"),
        "lang": page_language(request, shared_language([b.lang for b in batches])),
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
        else Text("There is no such page. Go back to your work.")
    )
    return error_response(context, request.scope, exc.status_code, message, exc.headers)
