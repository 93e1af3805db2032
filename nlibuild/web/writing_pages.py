"""The writing page (issue 19): a writer's elicitation batch, one premise at a time, with
the protocol's feedback under every field as they type.

- `GET /write/<batch>[?premise=ID]`: the protocol's instructions, progress ("3 of 50"),
  the premise (the first open one unless asked for another), one field per requested
  hypothesis (the label's name from `[labels.names]`, and the level in the MULTI
  protocols), "unusable premise", and the saved draft with its feedback.
- `POST /write/<batch>/<premise>/feedback`: JSON fields in, the feedback out
  (`workbench.feedback.draft_feedback`, the rule code of `elicit import`), with the draft
  saved when asked (`save`): static/write.js calls it ~250 ms after the last keystroke.
- `POST /write/<batch>/<premise>`: the form. `action=check` saves the draft and shows the
  feedback (the page works without JavaScript); `action=submit` records the answer as
  `elicit import` would (`workbench.writing.submit_answer`) and shows the next open
  premise with what was recorded. A blocking finding is refused with 422 and the findings
  shown, a different answer for an answered premise with 409.

What a field's feedback says is worded here once (`FieldView`, `AnswerView`): the template
renders it and the JSON carries it, so write.js only puts the given texts into the page.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import lru_cache, partial
from typing import Any

import anyio.to_thread
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from nlibuild.errors import ConflictError, NotFoundError, SubmissionRefused
from nlibuild.formats.platforms.mturk import instructions_html
from nlibuild.models import (
    DraftFeedback,
    FeedbackFinding,
    FieldFeedback,
    FormSlot,
    Role,
    SubmissionResult,
    SubmittedAnswer,
    WritingPremise,
    WritingTask,
)
from nlibuild.store import Store
from nlibuild.web.auth import current_person, own_batch_or_404, require_role
from nlibuild.web.bodies import BadRequest, DraftRequest, WriteForm, form_body, json_body
from nlibuild.web.context import WebContext
from nlibuild.workbench.feedback import draft_feedback, hypotheses_of
from nlibuild.workbench.writing import (
    save_draft,
    submit_answer,
    submitted_answer,
    writing_task,
)

MEASURE_WORDS = {
    "hypothesis": "of the hypothesis",
    "premise": "of the premise",
    "both": "of the hypothesis and of the premise, the smaller",
}
"""How the overlap share reads for each `[elicit] overlap_measure` (OCNLI 3.2's 70% rule
is the hypothesis's share)."""


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class Note(_View):
    """One line of feedback: `severity` (error, warning, info) is also written out in
    `text`'s lead word, so colour is never the only sign."""

    severity: str
    text: str
    blocks: bool = False


class Segment(_View):
    """A run of a field's text: a negator, or a unit shared with the premise (`marked`),
    or the text between."""

    text: str
    marked: bool


class FieldView(_View):
    slot: str
    overlap: float | None
    overlap_text: str
    over_limit: bool
    segments: list[Segment]
    shared_segments: list[Segment]
    shared_text: str
    notes: list[Note]


class AnswerView(_View):
    """What the page shows for a draft; the JSON of the feedback route."""

    fields: dict[str, FieldView]
    answer_notes: list[Note]
    blocked: bool
    blocked_reason: str
    max_overlap: float
    saved_at: str | None = None
    saved_text: str = ""
    feedback: DraftFeedback


def routes(context: WebContext) -> list[Route]:
    """The writing page's routes, bound to the application's context."""
    return [
        Route("/write/{batch_id}", partial(write_page, context)),
        Route(
            "/write/{batch_id}/{premise_id}/feedback",
            partial(feedback_json, context),
            methods=["POST"],
        ),
        Route("/write/{batch_id}/{premise_id}", partial(post_answer, context), methods=["POST"]),
    ]


# What each finding is called on the page, by rule.
RULE_WORDS = {
    "overlap": "too much of the premise",
    "negator": "negator",
    "copy": "copy of the premise",
    "duplicate": "duplicate of another field",
    "missing_label": "label missing",
    "too_few": "fewer than asked",
    "too_many": "more than asked",
    "empty": "empty field before a filled one",
    "unusable_with_answers": "unusable, yet answered",
    "too_short": "too short",
}


def finding_note(finding: FeedbackFinding) -> Note:
    lead = {"error": "Error", "warning": "Warning"}.get(finding.severity, "Note")
    effect = " (blocks submitting)" if finding.blocks else ""
    rule = RULE_WORDS.get(finding.rule, finding.rule)
    return Note(
        severity=finding.severity,
        text=f"{lead}{effect}: {rule}: {finding.message}",
        blocks=finding.blocks,
    )


def overlap_text(share: float | None, feedback: DraftFeedback) -> str:
    if share is None:
        return ""
    words = MEASURE_WORDS.get(feedback.overlap_measure, feedback.overlap_measure)
    verdict = "over the limit" if share > feedback.max_overlap else "within the limit"
    return f"overlap {share:.0%} {words}, limit {feedback.max_overlap:.0%}: {verdict}"


def cut_at(text: str, spans: list[tuple[int, int]]) -> list[Segment]:
    """`text` cut at the [start, end) spans (code points, as Python counts them), each span
    a marked segment; spans that touch are one (a run of shared Chinese characters), and
    of two that overlap the first one wins."""
    cut: list[Segment] = []
    at = 0
    for start, end in sorted(spans):
        if start < at:
            continue
        if start == at and cut and cut[-1].marked:
            cut[-1] = Segment(text=cut[-1].text + text[start:end], marked=True)
        else:
            if start > at:
                cut.append(Segment(text=text[at:start], marked=False))
            cut.append(Segment(text=text[start:end], marked=True))
        at = end
    if at < len(text):
        cut.append(Segment(text=text[at:], marked=False))
    return cut


def segments_of(field: FieldFeedback) -> list[Segment]:
    """The field's text cut at its negators."""
    return cut_at(field.text, [(mark.start, mark.end) for mark in field.negators])


def shared_segments_of(field: FieldFeedback) -> list[Segment]:
    """The field's text cut at the units it shares with the premise (empty when none)."""
    if not field.shared:
        return []
    return cut_at(field.text, [(unit.start, unit.end) for unit in field.shared])


def shared_text(field: FieldFeedback, feedback: DraftFeedback) -> str:
    """The lead of the highlighted copy: "Shared with the premise (3 words):"."""
    if not field.shared:
        return ""
    count = len(field.shared)
    units = feedback.overlap_units if count != 1 else feedback.overlap_units.rstrip("s")
    return f"Shared with the premise ({count} {units}):"


def negator_notes(field: FieldFeedback) -> list[Note]:
    """The protocol's word on negators in a contradiction (OCNLI 3.2: MULTI_ENCOURAGE asks
    writers to avoid them, MULTI_CONSTRAINT allows one negated contradiction a premise)."""
    found = ", ".join(dict.fromkeys(m.negator for m in field.negators))
    notes = []
    if found:
        notes.append(Note(severity="info", text=f"Negator marked: {found}"))
    if field.negator_discouraged and found:
        text = "Warning: this protocol asks for contradictions without negators (MULTI_ENCOURAGE)"
        notes.append(Note(severity="warning", text=text))
    if field.negator_forbidden and not found:
        text = (
            "Note: another contradiction already has a negator; MULTI_CONSTRAINT allows one, "
            "so write this one without"
        )
        notes.append(Note(severity="info", text=text))
    return notes


EMPTY_HINT = "Nothing written yet: write the hypotheses, or mark the premise unusable."
"""The one line of an untouched premise's feedback: a hint, not an error."""


def answer_view(feedback: DraftFeedback, names: dict[str, str]) -> AnswerView:
    """The feedback as the page words it; `names` gives each slot's shown name."""
    fields = {
        field.slot: FieldView(
            slot=field.slot,
            overlap=field.overlap,
            overlap_text=overlap_text(field.overlap, feedback),
            over_limit=field.overlap is not None and field.overlap > feedback.max_overlap,
            segments=segments_of(field),
            shared_segments=shared_segments_of(field),
            shared_text=shared_text(field, feedback),
            notes=[finding_note(f) for f in field.findings] + negator_notes(field),
        )
        for field in feedback.fields
    }
    answer_notes = [finding_note(f) for f in feedback.answer_findings]
    if feedback.empty:
        answer_notes.append(Note(severity="info", text=f"Note: {EMPTY_HINT}"))
    return AnswerView(
        fields=fields,
        answer_notes=answer_notes,
        blocked=feedback.blocked,
        blocked_reason=blocked_reason(feedback, names),
        max_overlap=feedback.max_overlap,
        feedback=feedback,
    )


def blocked_reason(feedback: DraftFeedback, names: dict[str, str]) -> str:
    """Why submitting is off, each problem named once: three labels missing are one
    "the answer: label missing", not three."""
    if feedback.empty:
        return f"Submitting is off: {EMPTY_HINT.split(': ', 1)[1]}"
    blocking = [(f.slot, x) for f in feedback.fields for x in f.findings if x.blocks]
    blocking += [("", x) for x in feedback.answer_findings if x.blocks]
    reasons = dict.fromkeys(
        f"{names.get(slot, 'the answer')}: {RULE_WORDS.get(x.rule, x.rule)}" for slot, x in blocking
    )
    return "Submitting is off until you fix: " + "; ".join(reasons) if reasons else ""


def saved_text(updated_at: str) -> str:
    """A draft's save time as people read a clock, "saved 14:03:12", in the server's local
    time (the store keeps UTC ISO text); the time of day is enough beside a live page."""
    moment = datetime.fromisoformat(updated_at).astimezone()
    return f"saved {moment:%H:%M:%S}"


def slot_title(slot: FormSlot) -> str:
    """How a field is named in the page and in the reasons: "蕴含 2 (medium)"."""
    level = f" ({slot.level.value})" if slot.level is not None else ""
    return f"{slot.label_name} {slot.k}{level}"


def _premise_or_404(task: WritingTask, premise_id: str) -> WritingPremise:
    found = next((p for p in task.premises if p.id == premise_id), None)
    if found is None:
        raise HTTPException(404, f"There is no premise {premise_id} in batch {task.batch}.")
    return found


def _next_open(task: WritingTask, after: str | None) -> WritingPremise | None:
    """The first open premise after `after` in the batch's order, wrapping round."""
    order = task.premises
    start = next((i + 1 for i, p in enumerate(order) if p.id == after), 0)
    for premise in order[start:] + order[:start]:
        if not premise.answered:
            return premise
    return None


def _instructions(task: WritingTask) -> Markup:
    # The first line is elicit_instructions' own title; the page has its heading.
    body = task.instructions.split("\n", 1)[1] if task.instructions.startswith("# ") else ""
    return instructions_markup(body or task.instructions)


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
        raise HTTPException(404, f"Not found: {exc}") from exc


def render(
    context: WebContext,
    request: Request,
    task: WritingTask,
    premise: WritingPremise | None,
    *,
    fields: dict[str, str] | None = None,
    unusable: bool = False,
    view: AnswerView | None = None,
    submitted: SubmissionResult | None = None,
    submitted_id: str = "",
    answer: SubmittedAnswer | None = None,
    problem: str = "",
    status: int = 200,
) -> Response:
    """The page for one premise (or the batch's end, `premise` None)."""
    draft = premise.draft if premise is not None else None
    shown_fields = fields if fields is not None else (draft.fields if draft else {})
    position = task.premises.index(premise) + 1 if premise is not None else 0
    values = {
        "title": f"Writing: batch {task.batch}",
        "lang": task.lang,
        "task": task,
        "instructions": _instructions(task),
        "premise": premise,
        "position": position,
        "answered": sum(p.answered for p in task.premises),
        "slots": [(slot, slot_title(slot)) for slot in task.slots],
        "fields": shown_fields,
        "unusable": unusable or bool(draft and draft.unusable and fields is None),
        "view": view,
        "submitted": submitted,
        "submitted_notes": [finding_note(f) for f in submitted.findings] if submitted else [],
        "submitted_id": submitted_id,
        "answer": answer,
        "draft_saved": saved_text(draft.updated_at) if draft else "",
        "problem": problem,
    }
    return context.page(request, "write.html", values, status)


def _task(context: WebContext, request: Request) -> tuple[str, WritingTask]:
    require_role(request, Role.WRITER)
    batch = own_batch_or_404(context, request, request.path_params["batch_id"])
    writer = current_person(request).name
    return writer, _store_call(context, lambda store: writing_task(store, writer, batch.id))


def _feedback_of(
    context: WebContext,
    writer: str,
    task: WritingTask,
    premise_id: str,
    fields: dict[str, str],
    unusable: bool,
) -> AnswerView:
    feedback = _store_call(
        context,
        lambda store: draft_feedback(store, writer, task.batch, premise_id, fields, unusable),
    )
    return answer_view(feedback, {slot.name: slot_title(slot) for slot in task.slots})


def write_page(context: WebContext, request: Request) -> Response:
    """The batch's page at the premise asked for, else the first open one."""
    writer, task = _task(context, request)
    asked = request.query_params.get("premise")
    premise = _premise_or_404(task, asked) if asked else _next_open(task, None)
    view = None
    if premise is not None and premise.draft is not None and not premise.answered:
        draft = premise.draft
        view = _feedback_of(context, writer, task, premise.id, draft.fields, draft.unusable)
    answer = None
    if premise is not None and premise.answered:
        shown = premise.id
        answer = _store_call(context, lambda s: submitted_answer(s, writer, task.batch, shown))
    return render(context, request, task, premise, view=view, answer=answer)


async def feedback_json(context: WebContext, request: Request) -> Response:
    """The feedback on the fields sent (and the draft saved when `save` is true)."""
    sent = await json_body(request, DraftRequest)
    premise_id = request.path_params["premise_id"]

    def work() -> AnswerView:
        writer, task = _task(context, request)
        view = _feedback_of(context, writer, task, premise_id, sent.fields, sent.unusable)
        if not sent.save:
            return view
        saved = _store_call(
            context,
            lambda s: save_draft(s, writer, task.batch, premise_id, sent.fields, sent.unusable),
            writes=True,
        )
        update = {"saved_at": saved.updated_at, "saved_text": saved_text(saved.updated_at)}
        return view.model_copy(update=update)

    view = await anyio.to_thread.run_sync(work)
    return Response(view.model_dump_json(), media_type="application/json")


async def post_answer(context: WebContext, request: Request) -> Response:
    """The form, sent by its buttons: check (save and show) or submit."""
    sent = await form_body(request, WriteForm)
    return await anyio.to_thread.run_sync(lambda: _answer(context, request, sent))


def _answer(context: WebContext, request: Request, sent: WriteForm) -> Response:
    writer, task = _task(context, request)
    premise = _premise_or_404(task, request.path_params["premise_id"])
    slots = [slot.name for slot in task.slots]
    stray = sorted(set(sent.texts) - set(slots))
    if stray:
        raise BadRequest(f"{stray[0]!r} is not a field of this batch's form.")
    fields = {name: sent.texts.get(name, "") for name in slots}
    unusable = sent.unusable is not None
    again = partial(render, context, request, task, premise, fields=fields, unusable=unusable)
    if premise.answered and sent.action != "submit":
        return again(problem="This premise is already submitted.")
    if sent.action != "submit":
        _store_call(
            context,
            lambda s: save_draft(s, writer, task.batch, premise.id, fields, unusable),
            writes=True,
        )
        return again(view=_feedback_of(context, writer, task, premise.id, fields, unusable))
    hypotheses = hypotheses_of(fields, task.protocol)
    try:
        result: SubmissionResult = _store_call(
            context,
            lambda s: submit_answer(s, writer, task.batch, premise.id, unusable, hypotheses),
            writes=True,
        )
    except SubmissionRefused as refused:
        view = _feedback_of(context, writer, task, premise.id, fields, unusable)
        _store_call(
            context,
            lambda s: save_draft(s, writer, task.batch, premise.id, fields, unusable),
            writes=True,
        )
        return again(view=view, problem=f"Not submitted: {refused}", status=422)
    except ConflictError as conflict:
        return again(problem=f"Not submitted: {conflict}. Your first answer stands.", status=409)
    task = _store_call(context, lambda store: writing_task(store, writer, task.batch))
    following = _next_open(task, premise.id)
    return render(context, request, task, following, submitted=result, submitted_id=premise.id)
