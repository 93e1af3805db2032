"""The lead page: progress per batch and annotator, violations, agreement so far, and the
buttons for what the CLI does: create elicitation batches (`elicit create`), create
relabelling batches (`relabel create`), aggregate labels (`aggregate-labels`); and one the
CLI has not: reopen a premise a writer answered (the stage `elicit-reopen`), so that they
can answer it again.

Each button is a POST form (with the CSRF token, as every form) whose values go through
`invoke`, as the CLI's options do (the form's values, then the store's preset, then the
settings model's defaults), so it makes the same recorded run and the page says what the
CLI prints: the stage's summary line. A value the model or the stage refuses comes back on
the page as the `Error:` line the CLI would print, beside the form that was sent and with
what was typed kept, with nothing written. A button's run records which lead pressed it
(its command is `serve: lead ID`, as `nlibuild runs` shows). The page also lists the
invites as `serve invites` does (the first characters of each token, never the token) and
revokes them as `serve revoke --token-prefix` does. Only the lead may see or use it (403).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from nlibuild.core.runs import acting_as
from nlibuild.errors import ConfigError, NlibuildError
from nlibuild.invoke import invoke, option_problem, settings_for
from nlibuild.models import AggregateConfig, AggregateMethod, AgreementStat, Protocol, Role
from nlibuild.options import min_agree_option, store_facts
from nlibuild.queries.pair_labels import pair_label_row_count
from nlibuild.stats import StatsOptions
from nlibuild.stats.agreement import agreement_settings, compute_agreement, rule_note
from nlibuild.store import Store
from nlibuild.web.auth import require_role
from nlibuild.web.bodies import BadRequest, form_fields
from nlibuild.web.context import WebContext
from nlibuild.web.security import CSRF_FIELD
from nlibuild.workbench.access import (
    list_invites,
    progress_per_batch,
    revoke_invites,
    violation_counts,
)

Form = dict[str, str]

# The fields of templates/lead.html's three forms, besides the CSRF token.
FIELDS: dict[str, tuple[str, ...]] = {
    "elicit-batches": ("protocol", "writers", "batch_size", "max_per_writer"),
    "relabel-batches": ("annotators", "fraction", "validators", "batch_size"),
    "aggregate": ("method", "min_agree"),
    "revoke": ("token_prefix",),
    "reopen": ("batch", "premise"),
}
"""The fields each button's form has (besides the CSRF token)."""


def lead(context: WebContext, request: Request) -> Response:
    require_role(request, Role.LEAD)
    session_id = request.scope.get("state", {}).get("session_id")
    return lead_page(context, request, done=context.flashes.pop(session_id or ""))


def lead_page(
    context: WebContext,
    request: Request,
    done: str = "",
    refused: Refusal | None = None,
    status: int = 200,
) -> Response:
    """Progress per batch and annotator, violations per rule, agreement so far, the invites,
    the forms; `done` says what the last button did, `refused` which form was refused, why,
    and what it held (shown in it again)."""
    progress = context.with_store(progress_per_batch)
    agreement, agreement_note = context.with_store(agreement_so_far)
    per_annotator: dict[tuple[str, str], list[int]] = {}
    for row in progress:
        counts = per_annotator.setdefault((row.annotator, row.kind), [0, 0])
        counts[0] += row.open
        counts[1] += row.answered
    values = {
        "title": "Lead",
        "lang": "en",  # the lead page is in English (nlibuild/web/language.py)
        "done": done,
        "refused": refused or Refusal("", "", {}),
        "protocols": [p.value for p in Protocol],
        "methods": [m.value for m in AggregateMethod],
        "preset_method": context.with_store(preset_method),
        "invites": context.with_store(list_invites),
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


@dataclass(frozen=True)
class Refusal:
    """A refused form: which (its action, `aggregate`), the `Error:` line, and the values it
    was sent with, so that what was typed is not lost."""

    form: str
    error: str
    values: Form


def preset_method(store: Store) -> str:
    """The aggregation method an empty method field means, as `aggregate-labels` without
    `--method` takes it: the preset's `[aggregate] method`, else the settings model's
    default. (A preset the model refuses is refused when the button runs; the page still
    shows, naming the default.)"""
    from nlibuild.stages.aggregate import STAGE

    try:
        return settings_for(STAGE, store_facts(store), {}).method.value
    except NlibuildError:
        return AggregateMethod(AggregateConfig.model_fields["method"].default).value


def agreement_so_far(store: Store) -> tuple[list[AgreementStat], str]:
    """`stats --table agreement` with its defaults, and the note it prints on stderr: the
    majority rule that gives gold to the pairs without a stored one."""
    settings = agreement_settings(StatsOptions(), store)
    if pair_label_row_count(store) == 0:  # no vote at all (none yet, or all reopened)
        return [], rule_note(settings)
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


def revoke_invite(store: Store, form: Form) -> str:
    """`serve revoke --token-prefix`: the prefix the invites table shows."""
    prefix = given(form, "token_prefix")
    if prefix is None:
        raise ConfigError("name the invite to revoke: the first characters of its token")
    revoked = revoke_invites(store, None, prefix)
    return f"Revoked {revoked} live {'invite' if revoked == 1 else 'invites'}."


def reopen_answer(store: Store, form: Form) -> str:
    """A writer's answer of a premise taken back so that they can answer it again: the
    stage `elicit-reopen` (its pairs leave the corpus, kept with the answer)."""
    from nlibuild.stages.elicit_import import REOPEN_STAGE

    batch, premise = given(form, "batch"), given(form, "premise")
    if batch is None or premise is None:
        raise ConfigError("name the premise to reopen: its batch's ID and its own")
    return invoke(REOPEN_STAGE, store, batch=batch, premise=premise).summary


def action(context: WebContext, name: str, stage: Callable[[Store, Form], str]) -> Any:
    """A lead's button: the form's values through `stage`, under the write lock, with the
    run recorded as the lead's (`serve: lead ID`: the server's own command line would not
    say who pressed it). What was made goes to the session's flash and the answer is a 303
    to /lead, so reloading the page that follows shows it without running the stage again.
    A refusal is the lead page with the one `Error:` line beside the form `name` and the
    values it was sent with (400): nothing was written, so a re-sent form costs nothing.
    The form is read as every page's is (bounded, each field once), and a field the button's
    form does not have (`FIELDS`) is refused, not ignored (nlibuild/web/bodies.py)."""

    async def page(request: Request) -> Response:
        lead_id = require_role(request, Role.LEAD).name
        form = await form_fields(request)
        stray = [field for field in form if field not in (CSRF_FIELD, *FIELDS[name])]
        if stray:
            raise BadRequest(f"{stray[0]!r} is not a field of this form.")

        def work() -> Response:
            try:
                with acting_as(f"serve: lead {lead_id}"):
                    done = context.writing(lambda store: stage(store, form))
            except NlibuildError as exc:
                error = f"Error: {exc}"
            except ValidationError as exc:
                error = f"Error: {option_problem(exc)}"
            else:
                context.flashes.put(request.scope["state"]["session_id"], done)
                return RedirectResponse("/lead", status_code=303)
            kept = {k: v for k, v in form.items() if k != "csrf_token"}
            return lead_page(context, request, refused=Refusal(name, error, kept), status=400)

        return await anyio.to_thread.run_sync(work)

    return page


def routes(context: WebContext) -> list[Route]:
    """The lead page and its buttons, bound to the application's context."""

    def page(request: Request) -> Response:
        return lead(context, request)

    return [
        Route("/lead", page),
        *(
            Route(f"/lead/{name}", action(context, name, stage), methods=["POST"])
            for name, stage in BUTTONS.items()
        ),
    ]


BUTTONS: dict[str, Callable[[Store, Form], str]] = {
    "elicit-batches": create_elicit_batches,
    "relabel-batches": create_relabel_batches,
    "aggregate": aggregate_labels,
    "revoke": revoke_invite,
    "reopen": reopen_answer,
}
