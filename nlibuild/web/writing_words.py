"""What the writing page says about a draft, in the page's language: the feedback of
`workbench.feedback.draft_feedback` (the rule code of `elicit import`) worded once, here,
through the page's catalog (nlibuild/workbench/messages.py). The template renders these
texts and the feedback route sends them as JSON, so write.js only puts them into the page.

A finding is worded from its rule and its values (`FeedbackFinding.values`), never from
the English `message` the store keeps: a pair is named by the field the writer sees
("蕴含 2"), a label by the name the batch gives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from nlibuild.models import (
    DraftFeedback,
    FeedbackFinding,
    FieldFeedback,
    FormSlot,
    ModelLoop,
    WritingTask,
)
from nlibuild.workbench.messages import Catalog, gettext_noop
from nlibuild.workbench.model_loop import FieldCheck, ModelCheck

MEASURE_WORDS = {
    "hypothesis": gettext_noop("of the hypothesis"),
    "premise": gettext_noop("of the premise"),
    "both": gettext_noop("of the hypothesis and of the premise, the smaller"),
}
"""How the overlap share reads for each `[elicit] overlap_measure` (OCNLI 3.2's 70% rule
is the hypothesis's share)."""

RULE_WORDS = {
    "overlap": gettext_noop("too much of the premise"),
    "negator": gettext_noop("negator"),
    "negated_entailment": gettext_noop("negator in an entailment"),
    "copy": gettext_noop("copy of the premise"),
    "duplicate": gettext_noop("duplicate of another field"),
    "missing_label": gettext_noop("label missing"),
    "too_few": gettext_noop("fewer than asked"),
    "too_many": gettext_noop("more than asked"),
    "empty": gettext_noop("empty field before a filled one"),
    "unusable_with_answers": gettext_noop("unusable, yet answered"),
    "too_short": gettext_noop("too short"),
}
"""What each finding is called on the page, by rule."""

RULE_DETAILS = {
    "overlap": gettext_noop("overlaps {share:.0%} with the premise; limit {limit:.0%}"),
    "negator": gettext_noop(
        "a second contradiction with a negator ({negators}) after {field}; MULTI_CONSTRAINT "
        "allows one"
    ),
    "negated_entailment": gettext_noop(
        "an entailment with a negator ({negators}); this protocol asks for entailments without one"
    ),
    "copy": gettext_noop("the hypothesis is the premise"),
    "duplicate": gettext_noop("the same text as {field}"),
    "missing_label": gettext_noop("no {label} written"),
    "too_few": gettext_noop("{count} of {wanted} {label} written"),
    "too_many": gettext_noop("the protocol asks for {wanted} {label} per premise"),
    "empty": gettext_noop("{fields} empty before a filled one"),
    "unusable_with_answers": gettext_noop(
        "marked unusable, yet {count} hypotheses are written; they are ignored"
    ),
    "too_short": gettext_noop("{count} characters; a hypothesis here has at least {least}"),
}
"""A finding's sentence, by rule, from its values (`FeedbackFinding.values`)."""

LEVEL_WORDS = {
    "easy": gettext_noop("easy"),
    "medium": gettext_noop("medium"),
    "hard": gettext_noop("hard"),
}
"""OCNLI's levels of a label's 1st, 2nd and 3rd hypothesis, as the page names them."""

SEVERITY_WORDS = {
    "error": gettext_noop("Error"),
    "warning": gettext_noop("Warning"),
    "info": gettext_noop("Note"),
}

EMPTY_HINT = gettext_noop(
    "Nothing written yet: write the hypotheses, or mark the premise unusable."
)
"""The one line of an untouched premise's feedback: a hint, not an error."""

UNUSABLE_LABEL = gettext_noop(
    "This premise is unusable (unreadable, offensive or not a statement): write nothing and submit"
)
"""The unusable box's label (the instructions name it too)."""


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


@dataclass(frozen=True)
class Wording:
    """The page's catalog, and the names the page shows for the batch's fields and labels."""

    words: Catalog
    slot_titles: dict[str, str]
    reason_titles: dict[str, str]
    label_names: dict[str, str]

    @classmethod
    def of(cls, task: WritingTask, words: Catalog) -> Wording:
        titles = {slot.name: slot_title(slot, words) for slot in task.slots}
        reasons = {slot.name: _with_level(slot, titles[slot.name], words) for slot in task.slots}
        return cls(words, titles, reasons, dict(task.label_names))

    def label(self, label: object) -> str:
        return self.label_names.get(str(label), str(label))

    def field(self, slot: object) -> str:
        return self.slot_titles.get(str(slot), str(slot))


def _with_level(slot: FormSlot, title: str, words: Catalog) -> str:
    """The field as a reason names it: "蕴含 2 (medium)" in the MULTI protocols."""
    if slot.level is None:
        return title
    level = words.text(LEVEL_WORDS[slot.level.value])
    return words.text("{field} ({level})", field=title, level=level)


def slot_title(slot: FormSlot, words: Catalog) -> str:
    """How a field is named in the page, the reasons and the instructions: "蕴含 2"."""
    return words.text("{label} {number}", label=slot.label_name, number=slot.k)


def finding_detail(finding: FeedbackFinding, wording: Wording) -> str:
    """A finding's sentence in the page's language; the store's English `message` for a
    rule the page has no words for, or values it lacks."""
    pattern = RULE_DETAILS.get(finding.rule)
    values = dict(finding.values)
    if "label" in values:
        values["label"] = wording.label(values["label"])
    if "slot" in values:
        values["field"] = wording.field(values["slot"])
    if finding.rule == "empty" and "numbers" in values:
        label = str(finding.values.get("label", ""))
        slots = [f"{label}_{n}" for n in str(values["numbers"]).split(",")]
        values["fields"] = wording.words.text(", ").join(map(wording.field, slots))
    try:
        return wording.words.text(pattern, **values) if pattern else finding.message
    except (KeyError, ValueError):
        return finding.message


def finding_note(finding: FeedbackFinding, wording: Wording) -> Note:
    words = wording.words
    lead = words.text(SEVERITY_WORDS.get(finding.severity, "Note"))
    if finding.blocks:
        lead = words.text("{severity} (blocks submitting)", severity=lead)
    rule = RULE_WORDS.get(finding.rule)
    text = words.text(
        "{lead}: {rule}: {detail}",
        lead=lead,
        rule=words.text(rule) if rule else finding.rule,
        detail=finding_detail(finding, wording),
    )
    return Note(severity=finding.severity, text=text, blocks=finding.blocks)


def overlap_text(share: float | None, feedback: DraftFeedback, words: Catalog) -> str:
    if share is None:
        return ""
    measure = MEASURE_WORDS.get(feedback.overlap_measure)
    over = share > feedback.max_overlap
    return words.text(
        "overlap {share:.0%} {measure}, limit {limit:.0%}: {verdict}",
        share=share,
        measure=words.text(measure) if measure else feedback.overlap_measure,
        limit=feedback.max_overlap,
        verdict=words.text("over the limit") if over else words.text("within the limit"),
    )


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


def shared_text(field: FieldFeedback, feedback: DraftFeedback, words: Catalog) -> str:
    """The lead of the highlighted copy: "Shared with the premise (3 words):"."""
    if not field.shared:
        return ""
    count = len(field.shared)
    if feedback.overlap_units == "characters":
        return words.plural(
            "Shared with the premise ({count} character):",
            "Shared with the premise ({count} characters):",
            count,
        )
    return words.plural(
        "Shared with the premise ({count} word):", "Shared with the premise ({count} words):", count
    )


def negator_notes(field: FieldFeedback, words: Catalog) -> list[Note]:
    """The protocol's word on negators in a contradiction (OCNLI 3.2: MULTI_ENCOURAGE asks
    writers to avoid them, MULTI_CONSTRAINT allows one negated contradiction a premise)."""
    found = words.text(", ").join(dict.fromkeys(m.negator for m in field.negators))
    notes = []
    if found:
        notes.append(Note(severity="info", text=words.text("Negator marked: {found}", found=found)))
    if field.negator_discouraged and found:
        text = words.text(
            "Warning: this protocol asks for contradictions without negators (MULTI_ENCOURAGE)"
        )
        notes.append(Note(severity="warning", text=text))
    if field.negator_forbidden and not found:
        text = words.text(
            "Note: another contradiction already has a negator; MULTI_CONSTRAINT allows one, "
            "so write this one without"
        )
        notes.append(Note(severity="info", text=text))
    return notes


def answer_view(feedback: DraftFeedback, wording: Wording) -> AnswerView:
    """The feedback as the page words it."""
    words = wording.words
    fields = {
        field.slot: FieldView(
            slot=field.slot,
            overlap=field.overlap,
            overlap_text=overlap_text(field.overlap, feedback, words),
            over_limit=field.overlap is not None and field.overlap > feedback.max_overlap,
            segments=segments_of(field),
            shared_segments=shared_segments_of(field),
            shared_text=shared_text(field, feedback, words),
            notes=[finding_note(f, wording) for f in field.findings] + negator_notes(field, words),
        )
        for field in feedback.fields
    }
    answer_notes = [finding_note(f, wording) for f in feedback.answer_findings]
    if feedback.empty:
        hint = words.text(
            "{severity}: {hint}", severity=words.text("Note"), hint=words.text(EMPTY_HINT)
        )
        answer_notes.append(Note(severity="info", text=hint))
    return AnswerView(
        fields=fields,
        answer_notes=answer_notes,
        blocked=feedback.blocked,
        blocked_reason=blocked_reason(feedback, wording),
        max_overlap=feedback.max_overlap,
        feedback=feedback,
    )


def blocked_reason(feedback: DraftFeedback, wording: Wording) -> str:
    """Why submitting is off, each problem named once: three labels missing are one
    "the answer: label missing", not three."""
    words = wording.words
    if feedback.empty:
        return words.text("Submitting is off: write the hypotheses, or mark the premise unusable.")
    blocking = [(f.slot, x) for f in feedback.fields for x in f.findings if x.blocks]
    blocking += [("", x) for x in feedback.answer_findings if x.blocks]
    whole = words.text("the answer")
    reasons = dict.fromkeys(
        words.text(
            "{where}: {rule}",
            where=wording.reason_titles.get(slot, whole),
            rule=words.text(RULE_WORDS[x.rule]) if x.rule in RULE_WORDS else x.rule,
        )
        for slot, x in blocking
    )
    if not reasons:
        return ""
    listed = words.text("; ").join(reasons)
    return words.text("Submitting is off until you fix: {reasons}", reasons=listed)


def saved_text(updated_at: str, words: Catalog) -> str:
    """A draft's save time as people read a clock, "saved 14:03:12", in the server's local
    time (the store keeps UTC ISO text); the time of day is enough beside a live page."""
    moment = datetime.fromisoformat(updated_at).astimezone()
    return words.text("saved {time}", time=f"{moment:%H:%M:%S}")


def stored_violation(severity: str, rule: str, detail: str, words: Catalog) -> str:
    """A violation the store keeps, as the answered premise's table lists it: its severity
    and rule in the page's language, its detail as recorded (the store's English)."""
    return words.text(
        "{lead}: {rule}: {detail}",
        lead=words.text(SEVERITY_WORDS.get(severity, "Note")),
        rule=words.text(RULE_WORDS[rule]) if rule in RULE_WORDS else rule,
        detail=detail,
    )


# --- the model in the loop (issue 29) ------------------------------------------------------


class ModelFieldView(_View):
    """What the page shows of the model's check of one field: the label and probabilities
    as the model gave them, worded (`label_text`, `shares_text`); in adversarial mode also
    whether it fooled the model (`fooled`, `verdict`) and the field's tries (None and ""
    in show mode)."""

    label: str
    probabilities: dict[str, float]
    fooled: bool | None
    tries: int | None
    label_text: str
    shares_text: str
    verdict: str
    tries_text: str


class ModelView(_View):
    """The JSON of the feedback's model part: `{"mode": ..., "model": {field: ...}}`."""

    mode: str
    model: dict[str, ModelFieldView]


def model_field_view(field: FieldCheck, mode: ModelLoop, wording: Wording) -> ModelFieldView:
    words = wording.words
    prediction = field.prediction
    label_text = words.text(
        "Model: {label} ({share:.0%})",
        label=wording.label(prediction.label),
        share=prediction.probabilities[prediction.label],
    )
    shares_text = " · ".join(
        words.text("{label} {share:.0%}", label=wording.label(label), share=share)
        for label, share in prediction.probabilities.items()
    )
    adversarial = mode is ModelLoop.ADVERSARIAL
    verdict = ""
    if adversarial and field.fooled:
        verdict = words.text(
            "Fooled the model: it says {label}, you meant {intended}",
            label=wording.label(prediction.label),
            intended=wording.label(field.intended),
        )
    elif adversarial:
        verdict = words.text("Not fooled: the model also says {label}",
                             label=wording.label(prediction.label))  # fmt: skip
    tries = words.plural("{count} try", "{count} tries", field.tries) if adversarial else ""
    return ModelFieldView(
        label=prediction.label,
        probabilities=prediction.probabilities,
        fooled=field.fooled if adversarial else None,
        tries=field.tries if adversarial else None,
        label_text=label_text,
        shares_text=shares_text,
        verdict=verdict,
        tries_text=tries,
    )


def model_view(check: ModelCheck, mode: ModelLoop, wording: Wording) -> ModelView:
    """The model's check of the filled fields as the page words it."""
    fields = {slot: model_field_view(field, mode, wording) for slot, field in check.fields.items()}
    return ModelView(mode=mode.value, model=fields)
