"""Live protocol feedback on a writer's draft: what `elicit import` would find in it now.

The findings come from `elicitation.check_answer`, the very function `elicit import` runs,
with the settings it runs with (the store's `[elicit]`: `max_overlap`, `overlap_measure`,
`overlap_severity`, `overlap_units`), so a page never says something the import would not.
On top of them, per field: the overlap share under the measure whatever its size (OCNLI
3.2's 70% rule, so a writer sees how near the limit they are), where its negators stand in
the text as typed, and whether the protocol forbids a negator there (MULTI_CONSTRAINT
allows one among a premise's contradictions) or asks for none (MULTI_ENCOURAGE); and the
units it shares with the premise, as spans to highlight. `too_short` is the workbench's own warning
([workbench] min_hypothesis_chars, per language); the preset's `blocking_rules` say which
findings refuse a submission. Each finding carries what it says as values
(`FeedbackFinding.values`: the label, the counts, the share, the field a pair was typed in)
beside the English text the store keeps, so a page words it in its own language
(nlibuild/web/writing_words.py).

A page asks for feedback as the person types, so it must be quick: the settings and the
negator lexicon are read once per store and preset (`protocol_settings`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from nlibuild.errors import NotFoundError
from nlibuild.labelling.label_names import LabelNames
from nlibuild.models import (
    TOO_SHORT,
    DraftFeedback,
    ElicitImportConfig,
    FeedbackFinding,
    FieldFeedback,
    Label,
    NegatorMark,
    PlatformFormat,
    Protocol,
    SharedUnit,
    WorkbenchConfig,
)
from nlibuild.options import store_label_names, store_settings
from nlibuild.protocol.elicitation import (
    LABEL_ORDER,
    CheckedAnswer,
    Finding,
    Severity,
    check_answer,
    hypotheses_per_label,
    slot_name,
)
from nlibuild.queries.batches import (
    BatchPremise,
    BatchRow,
    batch_of_annotator,
    batch_premises,
    batches_of_kind,
)
from nlibuild.store import Store
from nlibuild.text.lang import normalise_text
from nlibuild.text.negators import NegatorLexicon, negator_lexicon
from nlibuild.text.overlap import (
    overlap_share,
    overlap_unit_name,
    shared_unit_spans,
    table_overlap_units,
)
from nlibuild.text.words import load_segmenter

WORKBENCH_SOURCE = "workbench"
"""What the runs of the workbench's submissions give as their source (settings, signature)."""
WORKBENCH_PATH = Path("(workbench)")
"""The `path` of those runs' settings: no file was read."""


@dataclass(frozen=True)
class ProtocolSettings:
    """What the checks of one store run with, read once per store and preset."""

    elicit: ElicitImportConfig
    workbench: WorkbenchConfig
    label_names: LabelNames

    def lexicon(self, lang: str) -> NegatorLexicon:
        return negator_lexicon(lang)  # cached per language by negators.py

    def blocks(self, rule: str, severity: Severity) -> bool:
        rules = self.workbench.blocking_rules
        return rule in rules if rules is not None else severity is Severity.ERROR


_SETTINGS: dict[tuple[str, str, str], ProtocolSettings] = {}
_SETTINGS_LOCK = threading.Lock()


def protocol_settings(store: Store) -> ProtocolSettings:
    """The store's elicitation and workbench settings as `elicit import` builds them from
    its preset (no flags: the page has none), cached by store file and preset text."""
    meta = store.meta()
    key = (str(store.path.resolve()), meta.get("preset_toml", ""), meta.get("lang", "en"))
    found = _SETTINGS.get(key)
    if found is None:
        found = ProtocolSettings(
            elicit=store_settings(
                store,
                ElicitImportConfig,
                "elicit",
                path=WORKBENCH_PATH,
                format=PlatformFormat.JSONL,
                source=WORKBENCH_SOURCE,
            ),
            workbench=store_settings(store, WorkbenchConfig, "workbench"),
            label_names=store_label_names(store),
        )
        with _SETTINGS_LOCK:
            _SETTINGS[key] = found
    return found


def prepare_feedback(store: Store) -> None:
    """Load now what the feedback of the store's open writing batches needs: the settings,
    and each language's negator lexicon and segmenter. `nlibuild serve` calls it before it
    listens: otherwise the first Chinese feedback built jieba's dictionary (about a second
    of CPU) while every writer who had just opened a page waited behind it (the serve mix
    bench, bench/bench_serve_mix.py: feedback p95 1.8 s after a burst of sign-ins)."""
    settings = protocol_settings(store)
    for lang in sorted({batch.lang for batch in batches_of_kind(store, "elicit") if batch.open}):
        settings.lexicon(lang)
        load_segmenter(lang)


def writers_batch(store: Store, annotator_id: str, batch_id: str) -> BatchRow:
    """The writer's elicitation batch, or NotFound (another's batch, or not elicitation)."""
    batch = batch_of_annotator(store, annotator_id, "elicit", batch_id)
    if batch is None:
        raise NotFoundError(f"no elicitation batch {batch_id!r} of {annotator_id}")
    return batch


def batch_premise(store: Store, batch: BatchRow, premise_id: str) -> BatchPremise:
    premise = next((p for p in batch_premises(store, batch.pk) if p.id == premise_id), None)
    if premise is None:
        raise NotFoundError(f"no premise {premise_id!r} in batch {batch.id}")
    return premise


def hypotheses_of(fields: dict[str, str], protocol: Protocol) -> dict[Label, list[str]]:
    """The form's fields (`contradiction_2`: text) as `check_answer` takes them: per label,
    every slot in order, empty strings for the empty ones."""
    per_label = hypotheses_per_label(protocol)
    return {
        label: [fields.get(slot_name(label, k), "") for k in range(1, per_label + 1)]
        for label in LABEL_ORDER
    }


def check_draft(
    settings: ProtocolSettings,
    premise: BatchPremise,
    protocol: Protocol,
    unusable: bool,
    hypotheses: dict[Label, list[str]],
) -> CheckedAnswer:
    """`check_answer` with the settings `elicit import` uses (pair IDs without a protocol
    tag: the findings, not the IDs, are what a page shows)."""
    cfg = settings.elicit
    return check_answer(
        premise.id,
        premise.text,
        premise.lang,
        protocol,
        unusable,
        hypotheses,
        settings.lexicon(premise.lang),
        cfg.max_overlap,
        overlap_measure=cfg.overlap_measure,
        overlap_severity=cfg.overlap_severity,
        overlap_units=cfg.overlap_units,
        negator_in_entailment=cfg.negator_in_entailment,
    )


def shown_finding(
    settings: ProtocolSettings,
    finding: Finding,
    slot_of_pair: dict[tuple[Label, int], str] | None = None,
) -> FeedbackFinding:
    """A finding as the workbench shows it; a pair it names (`label` and its `k`) is also
    given as the field it was typed in (`slot`), which is what the page shows."""
    rule, severity = finding.rule.value, finding.severity
    values = dict(finding.values)
    if slot_of_pair and "label" in values and "k" in values:
        pair = (Label(str(values["label"])), int(values["k"]))
        if pair in slot_of_pair:
            values["slot"] = slot_of_pair[pair]
    return FeedbackFinding(
        rule=rule,
        severity=severity.value,
        message=finding.detail,
        values=values,
        blocks=settings.blocks(rule, severity),
    )


def too_short(settings: ProtocolSettings, text: str, lang: str) -> FeedbackFinding | None:
    """The workbench's length warning for a filled field under its language's length."""
    least = settings.workbench.least_hypothesis_chars(lang)
    length = len(normalise_text(text))
    if not 0 < length < least:
        return None
    return FeedbackFinding(
        rule=TOO_SHORT,
        severity=Severity.WARNING.value,
        message=f"{length} characters; a hypothesis in {lang} has at least {least}",
        values={"count": length, "least": least},
        blocks=settings.blocks(TOO_SHORT, Severity.WARNING),
    )


def draft_feedback(
    store: Store,
    annotator_id: str,
    batch_id: str,
    premise_id: str,
    fields: dict[str, str],
    unusable: bool = False,
) -> DraftFeedback:
    """What the checks of `elicit import` find in a draft, per field and for the whole
    answer; NotFound unless the batch is the writer's and holds the premise. A draft with
    nothing written (and not marked unusable) has no findings: a premise just opened is
    not yet wrong, though it cannot be submitted (`empty`)."""
    batch = writers_batch(store, annotator_id, batch_id)
    premise = batch_premise(store, batch, premise_id)
    settings = protocol_settings(store)
    protocol = Protocol(batch.protocol or Protocol.SINGLE)
    hypotheses = hypotheses_of(fields, protocol)
    empty = not unusable and not any(map(normalise_text, fields.values()))
    checked = check_draft(settings, premise, protocol, unusable, hypotheses)
    slot_of_pair = slots_of_pairs(hypotheses)
    per_slot: dict[str, list[FeedbackFinding]] = {}
    for pair in checked.pairs:
        per_slot[slot_of_pair[(pair.label, pair.k)]] = [
            shown_finding(settings, f, slot_of_pair) for f in pair.findings
        ]
    lexicon = settings.lexicon(premise.lang)
    negated = [slot for slot in _filled_contradictions(hypotheses) if lexicon.find(fields[slot])]
    shown = [
        _field_feedback(settings, premise, protocol, unusable, slot, text, per_slot, negated)
        for label in LABEL_ORDER
        for slot, text in (
            (slot_name(label, k), text) for k, text in enumerate(hypotheses[label], 1)
        )
    ]
    answer_findings = (
        [] if empty else [shown_finding(settings, f, slot_of_pair) for f in checked.findings]
    )
    every = answer_findings + [f for field in shown for f in field.findings]
    cfg = settings.elicit
    return DraftFeedback(
        overlap_measure=cfg.overlap_measure.value,
        overlap_units=overlap_unit_name(
            premise.lang, table_overlap_units(premise.lang, cfg.overlap_units)
        ),
        max_overlap=cfg.max_overlap,
        fields=shown,
        answer_findings=answer_findings,
        blocked=empty or any(f.blocks for f in every),
        empty=empty,
    )


def _field_feedback(
    settings: ProtocolSettings,
    premise: BatchPremise,
    protocol: Protocol,
    unusable: bool,
    slot: str,
    text: str,
    per_slot: dict[str, list[FeedbackFinding]],
    negated: list[str],
) -> FieldFeedback:
    """One field's feedback: its findings, its overlap share and the units it shares with
    the premise, its negators and the protocol's word on them."""
    cfg = settings.elicit
    contradiction = slot.startswith(Label.CONTRADICTION.value)
    findings = list(per_slot.get(slot, []))
    short = too_short(settings, text, premise.lang) if not unusable else None
    if short is not None:
        findings.append(short)
    marks = settings.lexicon(premise.lang).find_spans(text) if contradiction else []
    typed = normalise_text(text)
    folded_premise = normalise_text(premise.text)
    units = table_overlap_units(premise.lang, cfg.overlap_units)  # as `check_answer` counts
    return FieldFeedback(
        slot=slot,
        text=text,
        overlap=(
            overlap_share(typed, folded_premise, premise.lang, cfg.overlap_measure, units)
            if typed
            else None
        ),
        # Spans in the text as typed (the share is of its normalised form: the same units).
        shared=[
            SharedUnit(unit=span.unit, start=span.start, end=span.end)
            for span in shared_unit_spans(text, folded_premise, premise.lang, units)
        ],
        negators=[NegatorMark(negator=m.negator, start=m.start, end=m.end) for m in marks],
        negator_forbidden=(
            contradiction
            and protocol is Protocol.MULTI_CONSTRAINT
            and any(other != slot for other in negated[:1])
        ),
        negator_discouraged=contradiction and protocol is Protocol.MULTI_ENCOURAGE,
        findings=findings,
    )


def slots_of_pairs(hypotheses: dict[Label, list[str]]) -> dict[tuple[Label, int], str]:
    """(label, k of the pair) -> the slot it was typed in: `check_answer` numbers the filled
    fields of a label, so a pair's k moves up past an empty field before it."""
    slots = {}
    for label, texts in hypotheses.items():
        filled = [k for k, text in enumerate(texts, 1) if normalise_text(text)]
        for pair_k, k in enumerate(filled, 1):
            slots[(label, pair_k)] = slot_name(label, k)
    return slots


def _filled_contradictions(hypotheses: dict[Label, list[str]]) -> list[str]:
    texts = hypotheses.get(Label.CONTRADICTION, [])
    return [slot_name(Label.CONTRADICTION, k) for k, t in enumerate(texts, 1) if t.strip()]
