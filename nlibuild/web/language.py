"""Which language a workbench page speaks (issue 26: pages a Chinese or Korean writer can use).

A page about a batch speaks the batch's language where the workbench has a catalog for it
(nlibuild/workbench/messages.py: English, Chinese, Korean), else English; the home page
speaks the language all of a person's batches share. A person's own choice overrides both:
the language switch on every page (`POST /language`) keeps it in a cookie, checked against
the catalogs' languages whenever it is read, so a forged value is ignored, never shown. An
error page speaks the language the route had chosen before it failed, else the choice,
else English. The lead page stays English.

The choice is a cookie rather than a setting of the session: it is the browser's reader's,
survives signing in again, and is no secret (SameSite=Lax, HttpOnly all the same).
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import Field
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import Scope

from nlibuild.web.bodies import RequestBody, form_body
from nlibuild.workbench.messages import (
    LANGUAGE_NAMES,
    SOURCE_LANGUAGE,
    Catalog,
    catalog,
    known_language,
)

LANGUAGE_COOKIE = "nlibuild_lang"
CHOICE_LIFETIME_S = 365 * 24 * 3600
_STATE_KEY = "page_lang"


def chosen_language(scope: Scope) -> str | None:
    """The person's own choice (the cookie), when it is one of the catalogs' languages."""
    given = Request(scope).cookies.get(LANGUAGE_COOKIE)
    return given if given in LANGUAGE_NAMES else None


def page_language(request: Request, batch_lang: str | None = None) -> str:
    """The language of a page about a batch in `batch_lang` (None: about no batch), kept
    in the request's state for an error page that follows (`error_language`)."""
    lang = chosen_language(request.scope) or known_language(batch_lang) or SOURCE_LANGUAGE
    request.scope.setdefault("state", {})[_STATE_KEY] = lang
    return lang


def shared_language(langs: list[str]) -> str | None:
    """The one language all of `langs` are in (by their primary subtag), else None."""
    primaries = {known_language(lang) for lang in langs}
    return primaries.pop() if len(primaries) == 1 else None


def error_language(scope: Scope) -> str:
    """The language of an error page: the page's, if its route had chosen one."""
    chosen = scope.get("state", {}).get(_STATE_KEY)
    return str(chosen) if chosen in LANGUAGE_NAMES else chosen_language(scope) or SOURCE_LANGUAGE


def words_of(request: Request, batch_lang: str | None = None) -> Catalog:
    """The catalog of the page `request` shows (`page_language`)."""
    return catalog(page_language(request, batch_lang))


class LanguageChoice(RequestBody):
    """The language switch: the language, and the page to go back to."""

    csrf_token: str = ""
    lang: Annotated[str, Field(pattern="^(" + "|".join(LANGUAGE_NAMES) + ")$")]
    back: Annotated[str, Field(max_length=2000)] = "/"


def local_path(given: str) -> str:
    """`given` when it is a path of this server ("/write/b1?premise=p2"), else "/": the
    switch never sends anyone to another site."""
    parts = urlsplit(given)
    plain = given.startswith("/") and not given.startswith(("//", "/\\"))
    if not plain or parts.scheme or parts.netloc or any(ord(c) < 32 for c in given):
        return "/"
    return given


async def choose_language(request: Request) -> Response:
    """`POST /language`: keep the person's choice and go back to the page they were on."""
    sent = await form_body(request, LanguageChoice)
    response = RedirectResponse(local_path(sent.back), status_code=303)
    response.set_cookie(
        LANGUAGE_COOKIE,
        sent.lang,
        max_age=CHOICE_LIFETIME_S,
        path="/",
        httponly=True,
        secure=request.url.scheme == "https",
        samesite="lax",
    )
    return response


def switch_values(request: Request) -> dict[str, object]:
    """What the layout's language switch needs: the languages and this page's address (a
    page a form's POST answered has none to go back to: the home page then, unless the
    page names its own `here`)."""
    url = request.url
    here = url.path + (f"?{url.query}" if url.query else "") if request.method == "GET" else "/"
    return {"languages": LANGUAGE_NAMES, "here": here}
