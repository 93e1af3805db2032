"""The relabel page (issue 19): `/label/<batch>`, a validator's pairs one at a time.

The page shows the first pair the validator has not labelled yet: its premise and
hypothesis, the store's labels (and the preset's extra labels) by the names people read,
each a button with its key (1..n), progress through the assignment, and an undo of the
last vote. Blind, as the papers' validation was (MNLI, XNLI, OCNLI: validators saw the two
sentences only): never the pair's author, its intended label, its ID (an OCNLI pair ID ends
in the intended label, `-c2`) or other votes; items are numbered by their place in the
batch.

Every choice is a submit button of a plain POST form, so the page works without script
(each post answered by a 303 back to the page). static/label.js adds the keys, posts the
vote as JSON with the seconds spent on the item, and shows the next item without a
reload: it fetches the page the JSON names (`next`) and swaps its content in, with the
focus on the item (`section.pair`, tabindex -1: never a label button, where a stray Enter
would vote) and "recorded: <name>" or "taken back: <name>" in the status line (the
sentences are the template's `data-recorded`/`data-undone`, so they are worded where the
page's other words are). A vote goes through `workbench.relabelling.record_vote` (a
`relabel import` run of one vote, its seconds capped there for this route and the JSON API
alike); undo through `undo_vote`. Both bodies, form or JSON, are strict
(nlibuild/web/bodies.py). The items before the one shown are all labelled (the page always
shows the first open one), so "the last vote" is the item just before it, or the batch's
last item once all are labelled: undo needs no state beyond the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from nlibuild.errors import ConflictError, NotFoundError, SubmissionRefused
from nlibuild.models import RelabelItem, RelabelPage, Role
from nlibuild.web.auth import require_role
from nlibuild.web.bodies import PageUndo, PageVote, UndoForm, VoteForm, form_body, json_body
from nlibuild.web.context import WebContext
from nlibuild.web.language import error_language, words_of
from nlibuild.workbench.messages import Text, catalog, localised
from nlibuild.workbench.relabelling import pair_numbered, record_vote, relabel_items, undo_vote


@dataclass(frozen=True)
class LabelView:
    """What the page shows of a batch: the item to label now (None once all are) and its
    number, the number of the item an undo takes back (None when none is labelled)."""

    page: RelabelPage
    current: RelabelItem | None
    number: int | None
    undo_number: int | None

    @classmethod
    def of(cls, page: RelabelPage) -> LabelView:
        items = page.items
        number = next((n for n, item in enumerate(items, 1) if item.own_vote is None), None)
        last_labelled = (number - 1) if number is not None else len(items)
        return cls(
            page=page,
            current=items[number - 1] if number is not None else None,
            number=number,
            undo_number=last_labelled or None,
        )

    @property
    def answered(self) -> int:
        return sum(item.own_vote is not None for item in self.page.items)


@dataclass(frozen=True)
class Answer:
    """A vote or undo as posted: by the form (no time) or by label.js (JSON, with time)."""

    number: int
    label: str
    seconds: float | None
    wants_json: bool


def routes(context: WebContext) -> list[Route]:
    """The relabel page's routes, bound to the application's context."""
    return [
        Route("/label/{batch_id}", partial(label_page, context)),
        Route("/label/{batch_id}/vote", partial(vote, context), methods=["POST"]),
        Route("/label/{batch_id}/undo", partial(undo, context), methods=["POST"]),
    ]


def _items(context: WebContext, person: str, batch_id: str) -> RelabelPage:
    try:
        return context.with_store(lambda store: relabel_items(store, person, batch_id))
    except NotFoundError:
        raise HTTPException(
            404, Text("There is no batch {batch} of yours.", batch=batch_id)
        ) from None


def label_page(context: WebContext, request: Request) -> Response:
    person = require_role(request, Role.VALIDATOR)
    batch_id = request.path_params["batch_id"]
    view = LabelView.of(_items(context, person.name, batch_id))
    words = words_of(request, view.page.lang)
    values = {
        "title": words.text("Batch {batch}", batch=batch_id),
        "lang": words.lang,
        "view": view,
        "total": len(view.page.items),
        "labels": view.page.labels,
    }
    return context.page(request, "label.html", values)


async def vote(context: WebContext, request: Request) -> Response:
    """One label for the item numbered `item`: 303 back to the page (a form), or JSON
    saying where to go next (label.js). The same label again changes nothing; a different
    one for a labelled item is 409 (undo it first)."""
    person = require_role(request, Role.VALIDATOR)
    batch_id = request.path_params["batch_id"]
    answer = await _answer(request)
    max_seconds = context.config.max_seconds_per_item

    def record() -> Response:
        pair = _pair(context, person.name, batch_id, answer)
        try:
            context.writing(
                lambda s: record_vote(
                    s,
                    person.name,
                    batch_id,
                    pair,
                    answer.label,
                    answer.seconds,
                    max_seconds=max_seconds,
                )
            )
        except ConflictError:
            message = Text(
                "Item {item} is labelled already; undo that label to change it.",
                item=answer.number,
            )
            return _refused(request, answer, 409, message)
        except SubmissionRefused:
            message = Text("{label!r} is not one of this batch's labels.", label=answer.label)
            return _refused(request, answer, 400, message)
        return _moved_on(batch_id, answer, {"label": answer.label})

    return await run_in_threadpool(record)


async def undo(context: WebContext, request: Request) -> Response:
    """Take back the label of the item numbered `item` (nothing when it has none); JSON
    says whether there was one and which label it was, for label.js's "taken back" line."""
    person = require_role(request, Role.VALIDATOR)
    batch_id = request.path_params["batch_id"]
    answer = await _answer(request, undoing=True)

    def take_back() -> Response:
        pair = _pair(context, person.name, batch_id, answer)
        label = context.writing(lambda s: undo_vote(s, person.name, batch_id, pair))
        return _moved_on(batch_id, answer, {"undone": label is not None, "label": label})

    return await run_in_threadpool(take_back)


def _pair(context: WebContext, person: str, batch_id: str, answer: Answer) -> str:
    """The ID of the item numbered `answer.number` (the page never shows pair IDs), read
    alone rather than with the batch's every item."""
    try:
        return context.with_store(
            lambda store: pair_numbered(store, person, batch_id, answer.number)
        )
    except NotFoundError:
        message = Text("Batch {batch} has no item {item}.", batch=batch_id, item=answer.number)
        raise HTTPException(404, message) from None


async def _answer(request: Request, undoing: bool = False) -> Answer:
    """The vote or undo as sent: label.js's JSON, else the page's form (strict models of
    nlibuild/web/bodies.py; a `BadRequest` naming the field for anything else)."""
    if request.headers.get("content-type", "").startswith("application/json"):
        if undoing:
            undo = await json_body(request, PageUndo)
            return Answer(number=undo.item, label="", seconds=None, wants_json=True)
        vote = await json_body(request, PageVote)
        return Answer(number=vote.item, label=vote.label, seconds=vote.seconds, wants_json=True)
    if undoing:
        undo_form = await form_body(request, UndoForm)
        return Answer(number=undo_form.item, label="", seconds=None, wants_json=False)
    vote_form = await form_body(request, VoteForm)
    return Answer(number=vote_form.item, label=vote_form.label, seconds=None, wants_json=False)


def _moved_on(batch_id: str, answer: Answer, result: dict[str, Any]) -> Response:
    page = f"/label/{batch_id}"
    if answer.wants_json:
        return JSONResponse(result | {"next": page})
    return RedirectResponse(page, status_code=303)


def _refused(request: Request, answer: Answer, status: int, message: str) -> Response:
    if answer.wants_json:
        shown = localised(message, catalog(error_language(request.scope)))
        return JSONResponse({"error": shown}, status_code=status)
    raise HTTPException(status, message)
