"""The lead page: progress per batch and annotator, violations, agreement so far, and the
buttons for what the CLI does: create elicitation batches (`elicit create`), create
relabelling batches (`relabel create`), aggregate labels (`aggregate-labels`).

Each button is a POST form (with the CSRF token, as every form) whose values go through
`invoke`, as the CLI's options do (the form's values, then the store's preset, then the
settings model's defaults), so it makes the same recorded run and the page says what the
CLI prints: the stage's summary line. A value the model or the stage refuses comes back on
the page as the `Error:` line the CLI would print, with nothing written. Only the lead may
see or use them (403).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from nlibuild.errors import ConfigError, NlibuildError
from nlibuild.invoke import invoke, option_problem
from nlibuild.models import AggregateMethod, AgreementStat, Protocol, Role
from nlibuild.options import min_agree_option
from nlibuild.stats import StatsOptions
from nlibuild.stats.agreement import agreement_settings, compute_agreement, rule_note
from nlibuild.store import Store
from nlibuild.web.auth import require_role
from nlibuild.web.bodies import BadRequest, form_fields
from nlibuild.web.context import WebContext
from nlibuild.web.security import CSRF_FIELD
from nlibuild.workbench.access import progress_per_batch, violation_counts

Form = dict[str, str]

# The fields of templates/lead.html's three forms, besides the CSRF token.
ELICIT_FIELDS = ("protocol", "writers", "batch_size", "max_per_writer")
RELABEL_FIELDS = ("annotators", "fraction", "validators", "batch_size")
AGGREGATE_FIELDS = ("method", "min_agree")


def lead(context: WebContext, request: Request) -> Response:
    require_role(request, Role.LEAD)
    session_id = request.scope.get("state", {}).get("session_id")
    return lead_page(context, request, done=context.flashes.pop(session_id or ""))


def lead_page(
    context: WebContext, request: Request, done: str = "", error: str = "", status: int = 200
) -> Response:
    """Progress per batch and annotator, violations per rule, agreement so far, the forms;
    `done` or `error` says what the last button did."""
    progress = context.with_store(progress_per_batch)
    agreement, agreement_note = context.with_store(agreement_so_far)
    per_annotator: dict[tuple[str, str], list[int]] = {}
    for row in progress:
        counts = per_annotator.setdefault((row.annotator, row.kind), [0, 0])
        counts[0] += row.open
        counts[1] += row.answered
    values = {
        "title": "Lead",
        "done": done,
        "error": error,
        "protocols": [p.value for p in Protocol],
        "methods": [m.value for m in AggregateMethod],
        "per_annotator": [(*key, *counts) for key, counts in sorted(per_annotator.items())],
        "progress": [
            (r.id, r.kind, r.protocol or "", r.lang, r.annotator, r.items, r.open, r.answered)
            for r in progress
        ],
        "violations": context.with_store(violation_counts),
        "agreement": [
            (s.statistic, agreement_text(s), f"{s.denominator} pairs")
            for s in agreement
            if s.group == "all"
        ],
        "agreement_note": agreement_note,
    }
    return context.page(request, "lead.html", values, status)


def agreement_so_far(store: Store) -> tuple[list[AgreementStat], str]:
    """`stats --table agreement` with its defaults, and the note it prints on stderr: the
    majority rule that gives gold to the pairs without a stored one."""
    settings = agreement_settings(StatsOptions(), store)
    return compute_agreement(store, settings), rule_note(settings)


def agreement_text(stat: AgreementStat) -> str:
    """A statistic as `stats --table agreement` shows it: chance-corrected coefficients
    with three decimals, shares as percentages."""
    if stat.value is None:
        return "n.a."
    if "kappa" in stat.statistic or "alpha" in stat.statistic:
        return f"{stat.value:.3f}"
    return f"{stat.value:.1%}"


# --- the buttons -----------------------------------------------------------------------------


def given(form: Form, name: str) -> str | None:
    """A field's text, None when left empty (the preset's value or the default then)."""
    value = form.get(name, "").strip()
    return value or None


def number(form: Form, name: str, kind: Callable[[str], Any], label: str) -> Any:
    text = given(form, name)
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{label} {text!r} is not a number") from None


def id_list(form: Form, name: str, who: str) -> tuple[str, ...]:
    """Comma-separated IDs, as the CLI's `--annotators w01,w02` (a form has no file to
    name); none is refused here, in the page's words, since the settings model's own
    message names the CLI's option."""
    text = given(form, name) or ""
    ids = tuple(i.strip() for i in text.split(",") if i.strip())
    if not ids:
        raise ConfigError(f"name the {who}: their IDs, comma-separated")
    return ids


def create_elicit_batches(store: Store, form: Form) -> str:
    from nlibuild.stages.elicit_create import STAGE

    protocol = given(form, "protocol")
    outcome = invoke(
        STAGE,
        store,
        protocol=protocol.upper() if protocol else None,
        annotators=id_list(form, "writers", "writers"),
        batch_size=number(form, "batch_size", int, "batch size"),
        max_per_writer=number(form, "max_per_writer", int, "most premises per writer"),
    )
    return outcome.summary


def create_relabel_batches(store: Store, form: Form) -> str:
    from nlibuild.stages.relabel_create import STAGE

    outcome = invoke(
        STAGE,
        store,
        annotators=id_list(form, "annotators", "validators"),
        fraction=number(form, "fraction", float, "fraction"),
        validators=number(form, "validators", int, "validators per pair"),
        batch_size=number(form, "batch_size", int, "batch size"),
    )
    return outcome.summary


def aggregate_labels(store: Store, form: Form) -> str:
    from nlibuild.stages.aggregate import STAGE

    outcome = invoke(
        STAGE,
        store,
        min_agree=min_agree_option(given(form, "min_agree")),
        method=given(form, "method"),
    )
    return outcome.summary


def action(
    context: WebContext, stage: Callable[[Store, Form], str], fields: tuple[str, ...]
) -> Any:
    """A lead's button: the form's `fields` through `stage`, under the write lock (a form
    is read as every page's is, bounded, each field once; a field the form does not have is
    refused, not ignored: nlibuild/web/bodies.py). What was
    made goes to the session's flash and the answer is a 303 to /lead, so reloading the
    page that follows shows it without running the stage again. A refusal is the lead
    page with the one `Error:` line (400): nothing was written, so a re-sent form costs
    nothing, and the page can say what was wrong at once."""

    async def page(request: Request) -> Response:
        require_role(request, Role.LEAD)
        form = await form_fields(request)
        stray = [name for name in form if name not in (CSRF_FIELD, *fields)]
        if stray:
            raise BadRequest(f"{stray[0]!r} is not a field of this form.")

        def work() -> Response:
            try:
                done = context.writing(lambda store: stage(store, form))
            except NlibuildError as exc:
                return lead_page(context, request, error=f"Error: {exc}", status=400)
            except ValidationError as exc:
                error = f"Error: {option_problem(exc)}"
                return lead_page(context, request, error=error, status=400)
            context.flashes.put(request.scope["state"]["session_id"], done)
            return RedirectResponse("/lead", status_code=303)

        return await anyio.to_thread.run_sync(work)

    return page


def routes(context: WebContext) -> list[Route]:
    """The lead page and its buttons, bound to the application's context."""

    def page(request: Request) -> Response:
        return lead(context, request)

    return [
        Route("/lead", page),
        Route(
            "/lead/elicit-batches",
            action(context, create_elicit_batches, ELICIT_FIELDS),
            methods=["POST"],
        ),
        Route(
            "/lead/relabel-batches",
            action(context, create_relabel_batches, RELABEL_FIELDS),
            methods=["POST"],
        ),
        Route(
            "/lead/aggregate", action(context, aggregate_labels, AGGREGATE_FIELDS), methods=["POST"]
        ),
    ]
