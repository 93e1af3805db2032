"""The workbench's JSON routes, for the pages' fetch() calls and for scripted drives (the
load bench, `make demo`): a validator's vote and a writer's answer, each through the same
library call a page's form makes, so a vote sent here is recorded as `relabel import`
records one and an answer as `elicit import` records one.

- `POST /api/label/<batch>` `{"position": 3, "label": "neutral", "seconds": 4.2}`: the
  vote for the batch's item at `position` (as the batch lists its pairs);
- `POST /api/write/<batch>` `{"premise": ID, "unusable": false, "hypotheses":
  {"entailment": [...], ...}}`: one premise's answer (with a model in the loop, stored
  with its predictions, as the page's submit stores them).

Both need the session's CSRF token in `X-CSRF-Token` (nlibuild/web/security.py). The
bodies are strict (nlibuild/web/bodies.py): `unusable` is `true` or `false`, `position` a
JSON integer from 1, no other field. The seconds are capped by `record_vote` at the
server's `max_seconds_per_item`, as the page's votes are. Answers are JSON: what was
recorded (200), or `{"error": message}` with 400 (a body that is not the expected object,
naming the field), 404 (not the person's batch or item, as the pages answer), 409 (a
different answer or vote than the one recorded) or 422 (the preset's blocking rules, or a
label the store does not have), and nothing written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from nlibuild.errors import ConflictError, NlibuildError, NotFoundError, SubmissionRefused
from nlibuild.models import Label, Role
from nlibuild.store import Store
from nlibuild.web.auth import require_role
from nlibuild.web.bodies import ApiAnswer, ApiVote, json_body
from nlibuild.web.context import WebContext
from nlibuild.workbench.model_loop import fields_of, submission_check, submit_with_model
from nlibuild.workbench.relabelling import pair_at_position, record_vote

STATUS_OF_ERROR: tuple[tuple[type[NlibuildError], int], ...] = (
    (NotFoundError, 404),
    (ConflictError, 409),
    (SubmissionRefused, 422),
)


def error_json(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def answered(work: Callable[[], Any]) -> Response:
    """`work`'s result as JSON, or its domain error as `{"error": ...}` with its status."""
    try:
        result = work()
    except NlibuildError as exc:
        status = next((code for kind, code in STATUS_OF_ERROR if isinstance(exc, kind)), 422)
        findings = getattr(exc, "findings", ())
        return error_json(status, str(exc), findings=[list(f) for f in findings])
    return JSONResponse(result.model_dump(mode="json"))


def vote_at_position(
    store: Store, validator: str, batch_id: str, vote: ApiVote, max_seconds: float
) -> Any:
    """Vote on the item at `position` of the validator's own batch (404 for any other)."""
    pair_id = pair_at_position(store, validator, batch_id, vote.position)
    return record_vote(
        store, validator, batch_id, pair_id, vote.label, vote.seconds, max_seconds=max_seconds
    )


async def label_vote(context: WebContext, request: Request) -> Response:
    person = require_role(request, Role.VALIDATOR)
    batch_id = request.path_params["batch_id"]
    vote = await json_body(request, ApiVote)
    max_seconds = context.config.max_seconds_per_item
    return await anyio.to_thread.run_sync(
        lambda: answered(
            lambda: context.writing(
                lambda store: vote_at_position(store, person.name, batch_id, vote, max_seconds)
            )
        )
    )


async def write_answer(context: WebContext, request: Request) -> Response:
    person = require_role(request, Role.WRITER)
    batch_id = request.path_params["batch_id"]
    sent = await json_body(request, ApiAnswer)
    hypotheses: dict[Label, list[str]] = {
        label: list(texts) for label, texts in sent.hypotheses.items()
    }

    def submit() -> Any:
        # The model's forward pass (issue 29) before the write lock, as the page's submit.
        check = context.with_store(
            lambda store: submission_check(
                store, context.predictor, person.name, batch_id, sent.premise,
                sent.unusable, fields_of(hypotheses),
            )
        )  # fmt: skip
        return context.writing(
            lambda store: submit_with_model(
                store, person.name, batch_id, sent.premise, sent.unusable, hypotheses, check
            )
        )

    return await anyio.to_thread.run_sync(lambda: answered(submit))


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
