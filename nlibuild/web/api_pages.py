"""The workbench's JSON routes, for the pages' fetch() calls and for scripted drives (the
load bench, `make demo`): a validator's vote and a writer's answer, each through the same
library call a page's form makes, so a vote sent here is recorded as `relabel import`
records one and an answer as `elicit import` records one.

- `POST /api/label/<batch>` `{"position": 3, "label": "neutral", "seconds": 4.2}`: the
  vote for the batch's item at `position` (as the batch lists its pairs);
- `POST /api/write/<batch>` `{"premise": ID, "unusable": false, "hypotheses":
  {"entailment": [...], ...}}`: one premise's answer.

Both need the session's CSRF token in `X-CSRF-Token` (nlibuild/web/security.py). Answers
are JSON: what was recorded (200), or `{"error": message}` with 400 (a body that is not
the expected object), 404 (not the person's batch or item, as the pages answer), 409 (a
different answer or vote than the one recorded) or 422 (the preset's blocking rules, or a
label the store does not have), and nothing written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from nlibuild.errors import ConflictError, NlibuildError, NotFoundError, SubmissionRefused
from nlibuild.models import Label, Role
from nlibuild.store import Store
from nlibuild.web.auth import require_role
from nlibuild.web.context import WebContext
from nlibuild.workbench.relabelling import pair_at_position, record_vote
from nlibuild.workbench.writing import submit_answer

STATUS_OF_ERROR: tuple[tuple[type[NlibuildError], int], ...] = (
    (NotFoundError, 404),
    (ConflictError, 409),
    (SubmissionRefused, 422),
)


class BadBody(Exception):
    """A request body that is not the object a route expects (400)."""


def error_json(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def answered(work: Callable[[], Any]) -> Response:
    """`work`'s result as JSON, or its domain error as `{"error": ...}` with its status."""
    try:
        result = work()
    except BadBody as exc:
        return error_json(400, str(exc))
    except NlibuildError as exc:
        status = next((code for kind, code in STATUS_OF_ERROR if isinstance(exc, kind)), 422)
        findings = getattr(exc, "findings", ())
        return error_json(status, str(exc), findings=[list(f) for f in findings])
    return JSONResponse(result.model_dump(mode="json"))


async def json_object(request: Request) -> dict[str, Any]:
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        body = None
    if not isinstance(body, dict):
        raise BadBody("send a JSON object")
    return body


def field_of(body: dict[str, Any], name: str, kind: type) -> Any:
    """`body[name]` if it is a `kind` (JSON's true is no number here)."""
    value = body.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BadBody(f"{name!r} is missing or not a {kind.__name__}")
    return value


def vote_at_position(
    store: Store, validator: str, batch_id: str, position: int, label: str, seconds: float | None
) -> Any:
    """Vote on the item at `position` of the validator's own batch (404 for any other)."""
    pair_id = pair_at_position(store, validator, batch_id, position)
    return record_vote(store, validator, batch_id, pair_id, label, seconds)


async def label_vote(context: WebContext, request: Request) -> Response:
    person = require_role(request, Role.VALIDATOR)
    batch_id = request.path_params["batch_id"]
    try:
        body = await json_object(request)
        position = field_of(body, "position", int)
        label = field_of(body, "label", str)
        seconds = body.get("seconds")
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, int | float)
        ):
            raise BadBody("'seconds' is not a number")
    except BadBody as exc:
        return error_json(400, str(exc))
    return await anyio.to_thread.run_sync(
        lambda: answered(
            lambda: context.writing(
                lambda store: vote_at_position(
                    store, person.name, batch_id, position, label, seconds
                )
            )
        )
    )


def hypotheses_of(body: dict[str, Any]) -> dict[Label, list[str]]:
    given = body.get("hypotheses", {})
    if not isinstance(given, dict):
        raise BadBody("'hypotheses' is not an object of label -> list of texts")
    hypotheses: dict[Label, list[str]] = {}
    for name, texts in given.items():
        if name not in {label.value for label in Label}:
            raise BadBody(f"{name!r} is not a label: entailment, neutral or contradiction")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise BadBody(f"hypotheses of {name!r} are not a list of texts")
        hypotheses[Label(name)] = texts
    return hypotheses


async def write_answer(context: WebContext, request: Request) -> Response:
    person = require_role(request, Role.WRITER)
    batch_id = request.path_params["batch_id"]
    try:
        body = await json_object(request)
        premise = field_of(body, "premise", str)
        unusable = bool(body.get("unusable", False))
        hypotheses = hypotheses_of(body)
    except BadBody as exc:
        return error_json(400, str(exc))
    return await anyio.to_thread.run_sync(
        lambda: answered(
            lambda: context.writing(
                lambda store: submit_answer(
                    store, person.name, batch_id, premise, unusable, hypotheses
                )
            )
        )
    )


def routes(context: WebContext) -> list[Route]:
    """This module's routes, bound to the application's context."""

    async def label(request: Request) -> Response:
        return await label_vote(context, request)

    async def write(request: Request) -> Response:
        return await write_answer(context, request)

    return [
        Route("/api/label/{batch_id}", label, methods=["POST"]),
        Route("/api/write/{batch_id}", write, methods=["POST"]),
    ]
