"""The writing page (issue 19): a writer's elicitation batch, one premise at a time, with
the protocol's feedback under every field as they type.

- `GET /write/<batch>[?premise=ID]`: the protocol's instructions, progress ("3 of 50"),
  the premise (the first open one unless asked for another), one field per requested
  hypothesis (the label's name from `[labels.names]`, and the level in the MULTI
  protocols), "unusable premise", and the saved draft with its feedback.
- `POST /write/<batch>/<premise>/feedback`: JSON fields in, the feedback out
  (`workbench.feedback.draft_feedback`, the rule code of `elicit import`), with the draft
  saved when asked (`save`): static/write.js calls it ~250 ms after the last keystroke.
- `POST /write/<batch>/<premise>/feedback/model`: JSON fields in, the served model's
  prediction of each filled field out (issue 29, `[workbench] model_loop` show or
  adversarial with `serve --model`): `{"mode": ..., "model": {field: {"label": ...,
  "probabilities": {...}, "fooled": ..., ...}}}`, each check of a changed text recorded as
  a try. It is the feedback's model part, fetched beside the findings (write.js sends both
  at once), so the protocol's findings never wait for the model. 404 where no model is in
  the loop, 503 when the model fails (the findings still come).
- `POST /write/<batch>/<premise>`: the form. `action=check` saves the draft and shows the
  feedback (the page works without JavaScript); `action=submit` records the answer as
  `elicit import` would (`workbench.writing.submit_answer`) and shows the next open
  premise with what was recorded. A blocking finding is refused with 422 and the findings
  shown, a different answer for an answered premise with 409. With a model in the loop,
  `check` shows its predictions too, and a submission stores them with the pairs
  (`workbench.model_loop.submit_with_model`).

What a field's feedback says is worded once, in the page's language (nlibuild/web/
writing_words.py: `FieldView`, `AnswerView`): the template renders it and the JSON carries
it, so write.js only puts the given texts into the page. The page's language is the batch's,
unless the writer chose another (nlibuild/web/language.py); the instructions are read in it
where written, each field named as the form shows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import anyio.to_thread
from markupsafe import Markup
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from nlibuild.errors import ConflictError, NotFoundError, SubmissionRefused
from nlibuild.formats.platforms.mturk import instructions_html
from nlibuild.models import (
    ModelLoop,
    Role,
    StoredViolation,
    SubmissionResult,
    SubmittedAnswer,
    WritingPremise,
    WritingTask,
)
from nlibuild.presets import elicit_instructions, instruction_languages
from nlibuild.store import Store
from nlibuild.web.auth import current_person, own_batch_or_404, require_role
from nlibuild.web.bodies import (
    BadRequest,
    DraftRequest,
    ModelRequest,
    WriteForm,
    form_body,
    json_body,
)
from nlibuild.web.context import WebContext
from nlibuild.web.language import words_of
from nlibuild.web.writing_words import (
    UNUSABLE_LABEL,
    AnswerView,
    ModelView,
    Wording,
    answer_view,
    finding_note,
    model_view,
    saved_text,
    stored_violation,
)
from nlibuild.workbench.feedback import draft_feedback, hypotheses_of
from nlibuild.workbench.messages import Catalog, Text
from nlibuild.workbench.model_loop import (
    ModelCheck,
    ModelUnavailable,
    counted_tries,
    model_check,
    model_loop,
    new_tries,
    record_tries,
    submission_check,
    submit_with_model,
)
from nlibuild.workbench.writing import (
    save_draft,
    submitted_answer,
    writing_task,
)


def routes(context: WebContext) -> list[Route]:
    """The writing page's routes, bound to the application's context."""
    return [
        Route("/write/{batch_id}", partial(write_page, context)),
        Route(
            "/write/{batch_id}/{premise_id}/feedback",
            partial(feedback_json, context),
            methods=["POST"],
        ),
        Route(
            "/write/{batch_id}/{premise_id}/feedback/model",
            partial(model_json, context),
            methods=["POST"],
        ),
        Route("/write/{batch_id}/{premise_id}", partial(post_answer, context), methods=["POST"]),
    ]


def _premise_or_404(task: WritingTask, premise_id: str) -> WritingPremise:
    found = next((p for p in task.premises if p.id == premise_id), None)
    if found is None:
        message = Text("There is no premise {premise} in batch {batch}.", premise=premise_id,
                       batch=task.batch)  # fmt: skip
        raise HTTPException(404, message)
    return found


def _next_open(task: WritingTask, after: str | None) -> WritingPremise | None:
    """The first open premise after `after` in the batch's order, wrapping round."""
    order = task.premises
    start = next((i + 1 for i, p in enumerate(order) if p.id == after), 0)
    for premise in order[start:] + order[:start]:
        if not premise.answered:
            return premise
    return None


SLOT_IN_INSTRUCTIONS = re.compile(r"`(entailment|neutral|contradiction)_([1-9])`")
"""A field as the shared instructions name it (`entailment_2`, for `elicit export`)."""
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef"  # not Hangul: Korean spaces words
CJK_LINE_BREAK = re.compile(f"(?<=[{_CJK}])\n[ \t]*(?=[{_CJK}])")
"""A line break of the Markdown source between two Chinese or Japanese characters: HTML
shows it as a space, which such text does not have between its characters."""


def instructions_language(task: WritingTask, page_lang: str) -> str:
    """The page's language where the instructions are written in it, else the batch's
    (`WritingTask.instructions_lang`: its language where written, else English)."""
    return page_lang if page_lang in instruction_languages() else task.instructions_lang


def _instructions(task: WritingTask, lang: str, wording: Wording) -> Markup:
    """The protocol's instructions as read beside the page's form, in `lang`: each field
    named as the form shows it ("**蕴含 2**", not `entailment_2`, issue 26)."""
    text = elicit_instructions(task.protocol.value, lang, form="workbench")
    # The first line is elicit_instructions' own title; the page has its heading.
    body = text.split("\n", 1)[1] if text.startswith("# ") else text

    def shown(found: re.Match[str]) -> str:
        name = wording.words.text(
            "{label} {number}", label=wording.label(found[1]), number=int(found[2])
        )
        return f"**{name}**"

    text = CJK_LINE_BREAK.sub("", SLOT_IN_INSTRUCTIONS.sub(shown, body))
    return instructions_markup(text)


@lru_cache(maxsize=64)
def instructions_markup(markdown: str) -> Markup:
    """The instructions as HTML (raw HTML off), rendered once per text: rendering the
    Markdown took 5.6 ms of the writing page's 8, and every submit renders the next page
    (bench/bench_serve_mix.py's profile). A text changed on disk is another key."""
    return Markup(instructions_html(markdown))


def _store_call(context: WebContext, work: Callable[[Store], Any], writes: bool = False) -> Any:
    """Run a library call on this thread's store (one that `writes` under the process's
    write lock, `WebContext.writing`); its NotFound is the page's 404."""
    try:
        return context.writing(work) if writes else context.with_store(work)
    except NotFoundError as exc:
        raise HTTPException(404, Text("Not found: {what}", what=str(exc))) from exc


def render(
    context: WebContext,
    request: Request,
    wording: Wording,
    task: WritingTask,
    premise: WritingPremise | None,
    *,
    fields: dict[str, str] | None = None,
    unusable: bool = False,
    view: AnswerView | None = None,
    submitted: SubmissionResult | None = None,
    submitted_id: str = "",
    answer: SubmittedAnswer | None = None,
    model: ModelView | None = None,
    model_summary: str = "",
    problem: str = "",
    status: int = 200,
) -> Response:
    """The page for one premise (or the batch's end, `premise` None), in the language of
    `wording`'s catalog."""
    words = wording.words
    draft = premise.draft if premise is not None else None
    shown_fields = fields if fields is not None else (draft.fields if draft else {})
    position = task.premises.index(premise) + 1 if premise is not None else 0
    instructions_lang = instructions_language(task, words.lang)
    here = f"/write/{task.batch}" + (f"?premise={premise.id}" if premise is not None else "")
    values = {
        "title": words.text("Writing: batch {batch}", batch=task.batch),
        "lang": words.lang,
        "here": here,
        "task": task,
        "instructions": _instructions(task, instructions_lang, wording),
        "instructions_lang": instructions_lang,
        "premise": premise,
        "position": position,
        "answered": sum(p.answered for p in task.premises),
        "slots": [(slot, wording.field(slot.name)) for slot in task.slots],
        "fields": shown_fields,
        "unusable": unusable or bool(draft and draft.unusable and fields is None),
        "unusable_label": words.text(UNUSABLE_LABEL),
        "view": view,
        "submitted": submitted,
        "submitted_notes": [finding_note(f, wording) for f in submitted.findings]
        if submitted
        else [],
        "submitted_id": submitted_id,
        "answer": answer,
        "stored_violation": lambda v: _stored(v, words),
        "draft_saved": saved_text(draft.updated_at, words) if draft else "",
        "problem": problem,
        "model_mode": model_mode(context).value,
        "model": model,
        "model_summary": model_summary,
    }
    return context.page(request, "write.html", values, status)


def _stored(violation: StoredViolation, words: Catalog) -> str:
    return stored_violation(violation.severity, violation.rule, violation.detail, words)


def _task(context: WebContext, request: Request) -> tuple[str, WritingTask, Wording]:
    """The writer, their batch's task and the page's wording (in the batch's language, or
    the one the writer chose: nlibuild/web/language.py)."""
    require_role(request, Role.WRITER)
    batch = own_batch_or_404(context, request, request.path_params["batch_id"])
    writer = current_person(request).name
    task = _store_call(context, lambda store: writing_task(store, writer, batch.id))
    return writer, task, Wording.of(task, words_of(request, task.lang))


def _feedback_of(
    context: WebContext,
    writer: str,
    wording: Wording,
    task: WritingTask,
    premise_id: str,
    fields: dict[str, str],
    unusable: bool,
) -> AnswerView:
    feedback = _store_call(
        context,
        lambda store: draft_feedback(store, writer, task.batch, premise_id, fields, unusable),
    )
    return answer_view(feedback, wording)


def write_page(context: WebContext, request: Request) -> Response:
    """The batch's page at the premise asked for, else the first open one."""
    writer, task, wording = _task(context, request)
    asked = request.query_params.get("premise")
    premise = _premise_or_404(task, asked) if asked else _next_open(task, None)
    view = None
    if premise is not None and premise.draft is not None and not premise.answered:
        draft = premise.draft
        view = _feedback_of(
            context, writer, wording, task, premise.id, draft.fields, draft.unusable
        )
    answer = None
    if premise is not None and premise.answered:
        shown = premise.id
        answer = _store_call(context, lambda s: submitted_answer(s, writer, task.batch, shown))
    return render(context, request, wording, task, premise, view=view, answer=answer)


async def feedback_json(context: WebContext, request: Request) -> Response:
    """The feedback on the fields sent (and the draft saved when `save` is true), worded in
    the page's language."""
    sent = await json_body(request, DraftRequest)
    premise_id = request.path_params["premise_id"]

    def work() -> AnswerView:
        writer, task, wording = _task(context, request)
        view = _feedback_of(context, writer, wording, task, premise_id, sent.fields, sent.unusable)
        if not sent.save:
            return view
        saved = _store_call(
            context,
            lambda s: save_draft(s, writer, task.batch, premise_id, sent.fields, sent.unusable),
            writes=True,
        )
        shown = saved_text(saved.updated_at, wording.words)
        return view.model_copy(update={"saved_at": saved.updated_at, "saved_text": shown})

    view = await anyio.to_thread.run_sync(work)
    return Response(view.model_dump_json(), media_type="application/json")


def model_mode(context: WebContext) -> ModelLoop:
    """The page's model loop: the preset's `[workbench] model_loop` where a model is
    served (`serve --model`), else off."""
    if context.predictor is None:
        return ModelLoop.OFF
    return context.with_store(model_loop)


def _model_of(
    context: WebContext,
    writer: str,
    wording: Wording,
    task: WritingTask,
    premise_id: str,
    fields: dict[str, str],
    mode: ModelLoop,
) -> ModelView:
    """The model's check of the filled fields (its forward pass outside the write lock),
    the changed texts recorded as tries (under it), worded for the page. A check that
    changed nothing since the last (the writer paused without typing) takes no write lock:
    this route is called at every pause."""
    predictor = context.predictor
    assert predictor is not None, "called only with a model in the loop"

    def checked(store: Store) -> tuple[ModelCheck, bool]:
        check = model_check(store, predictor, writer, task.batch, premise_id, fields)
        new, tries = new_tries(store, writer, task.batch, premise_id, check)
        return (check, True) if new else (counted_tries(check, tries), False)

    check, changed = _store_call(context, checked)
    if changed:
        check = _store_call(
            context, lambda s: record_tries(s, writer, task.batch, premise_id, check), writes=True
        )
    return model_view(check, mode, wording)


async def model_json(context: WebContext, request: Request) -> Response:
    """The model's part of the feedback: its prediction of each filled field (write.js
    asks for it beside the findings, which thus never wait for the model)."""
    sent = await json_body(request, ModelRequest)
    premise_id = request.path_params["premise_id"]

    def work() -> ModelView:
        writer, task, wording = _task(context, request)
        mode = model_mode(context)
        if mode is ModelLoop.OFF:
            raise HTTPException(404, Text("There is no model in this workbench's loop."))
        try:
            return _model_of(context, writer, wording, task, premise_id, sent.fields, mode)
        except ModelUnavailable as exc:
            message = Text("The model did not answer; the protocol's checks still run.")
            raise HTTPException(503, message) from exc

    view = await anyio.to_thread.run_sync(work)
    return Response(view.model_dump_json(), media_type="application/json")


async def post_answer(context: WebContext, request: Request) -> Response:
    """The form, sent by its buttons: check (save and show) or submit."""
    sent = await form_body(request, WriteForm)
    return await anyio.to_thread.run_sync(lambda: _answer(context, request, sent))


def _answer(context: WebContext, request: Request, sent: WriteForm) -> Response:
    writer, task, wording = _task(context, request)
    words = wording.words
    premise = _premise_or_404(task, request.path_params["premise_id"])
    slots = [slot.name for slot in task.slots]
    stray = sorted(set(sent.texts) - set(slots))
    if stray:
        raise BadRequest(f"{stray[0]!r} is not a field of this batch's form.")
    fields = {name: sent.texts.get(name, "") for name in slots}
    unusable = sent.unusable is not None
    again = partial(
        render, context, request, wording, task, premise, fields=fields, unusable=unusable
    )
    if premise.answered and sent.action != "submit":
        return again(problem=words.text("This premise is already submitted."))
    if sent.action != "submit":
        _store_call(
            context,
            lambda s: save_draft(s, writer, task.batch, premise.id, fields, unusable),
            writes=True,
        )
        view = _feedback_of(context, writer, wording, task, premise.id, fields, unusable)
        return again(view=view, model=_model_shown(context, writer, wording, task, premise, fields))
    try:
        result, check = _submit(context, writer, task, premise, fields, unusable)
    except SubmissionRefused as refused:
        view = _feedback_of(context, writer, wording, task, premise.id, fields, unusable)
        _store_call(
            context,
            lambda s: save_draft(s, writer, task.batch, premise.id, fields, unusable),
            writes=True,
        )
        return again(view=view, problem=_refusal(refused, view, words), status=422)
    except ConflictError:
        problem = words.text(
            "Not submitted: premise {premise} was already answered, with another answer. Your "
            "first answer stands.",
            premise=premise.id,
        )
        return again(problem=problem, status=409)
    task = _store_call(context, lambda store: writing_task(store, writer, task.batch))
    following = _next_open(task, premise.id)
    summary = _fooled_summary(context, check, result, words)
    return render(context, request, wording, task, following, submitted=result,
                  submitted_id=premise.id, model_summary=summary)  # fmt: skip


def _submit(
    context: WebContext,
    writer: str,
    task: WritingTask,
    premise: WritingPremise,
    fields: dict[str, str],
    unusable: bool,
) -> tuple[SubmissionResult, ModelCheck | None]:
    """Submit the answer, with the model's check of it (its forward pass before the write
    lock; None where no model is in the loop) stored with the pairs."""
    check: ModelCheck | None = _store_call(
        context,
        lambda s: submission_check(
            s, context.predictor, writer, task.batch, premise.id, unusable, fields
        ),
    )
    hypotheses = hypotheses_of(fields, task.protocol)
    result: SubmissionResult = _store_call(
        context,
        lambda s: submit_with_model(s, writer, task.batch, premise.id, unusable, hypotheses, check),
        writes=True,
    )
    return result, check


def _model_shown(
    context: WebContext,
    writer: str,
    wording: Wording,
    task: WritingTask,
    premise: WritingPremise,
    fields: dict[str, str],
) -> ModelView | None:
    """The model's check for the page without script (`action=check`); None where no model
    is in the loop or it failed (the findings are shown all the same)."""
    mode = model_mode(context)
    if mode is ModelLoop.OFF:
        return None
    try:
        return _model_of(context, writer, wording, task, premise.id, fields, mode)
    except ModelUnavailable:
        return None


def _fooled_summary(
    context: WebContext, check: ModelCheck | None, result: SubmissionResult, words: Catalog
) -> str:
    """How many of the hypotheses just submitted fooled the model (adversarial mode)."""
    if check is None or result.unchanged or model_mode(context) is not ModelLoop.ADVERSARIAL:
        return ""
    count = len(check.fields)
    return words.plural(
        "The model was fooled by {fooled} of your {count} hypothesis.",
        "The model was fooled by {fooled} of your {count} hypotheses.",
        count,
        fooled=sum(field.fooled for field in check.fields.values()),
    )


def _refusal(refused: SubmissionRefused, view: AnswerView, words: Catalog) -> str:
    """Why a submission was refused, in the page's words: the blocked reason the feedback
    gives (the same rules refused it), else nothing was written."""
    if not refused.findings or not view.blocked_reason:
        return words.text(
            "Not submitted: nothing written and not marked unusable; write the hypotheses or "
            "mark the premise unusable."
        )
    return words.text("Not submitted. {reason}", reason=view.blocked_reason)
