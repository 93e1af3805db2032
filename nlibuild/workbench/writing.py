"""The writing page's library: a writer's elicitation batches, a batch's task (the
protocol's instructions, the premises, the form's fields), drafts, and submitting one
premise's answer.

A submission is recorded by `elicit import`'s own logic (`stages.elicit_import.run_answers`)
with the answer as an in-memory record, named as `--batch B --writer W` would name it, so
its run, pairs, votes, violations and answer key are what an import of the same answer in a
jsonl file writes; the run's settings say `source: workbench`. The same answer submitted
again records nothing; a different one for an answered premise is refused, as the import
refuses it. Findings of the rules the preset's `[workbench] blocking_rules` name refuse
the submission before anything is written.
"""

from __future__ import annotations

import orjson

from nlibuild.errors import ConflictError, SubmissionRefused
from nlibuild.formats.platforms.base import AnswerFile, RawAnswer, is_empty_submission
from nlibuild.labelling.label_names import shown_name
from nlibuild.models import (
    Draft,
    FeedbackFinding,
    FormSlot,
    Label,
    Level,
    Protocol,
    StoredPair,
    StoredViolation,
    SubmissionResult,
    SubmittedAnswer,
    WorkBatch,
    WritingPremise,
    WritingTask,
)
from nlibuild.presets import elicit_instructions, instruction_languages
from nlibuild.protocol.elicitation import (
    LABEL_ORDER,
    LEVELS,
    answer_key,
    hypotheses_per_label,
    slot_name,
)
from nlibuild.queries.batches import (
    BatchPremise,
    assignments_of_items,
    batch_premises,
    batches_of_annotator,
)
from nlibuild.queries.workbench_work import (
    ViolationRow,
    answer_of_item,
    draft,
    drafts_of_batch,
    pair_ids_of_run,
)
from nlibuild.stages.elicit_import import run_answers
from nlibuild.store import Store
from nlibuild.text.lang import primary_language
from nlibuild.workbench.feedback import (
    WORKBENCH_SOURCE,
    ProtocolSettings,
    batch_premise,
    check_draft,
    protocol_settings,
    shown_finding,
    slots_of_pairs,
    too_short,
    writers_batch,
)

_UNUSABLE_FIELD = "unusable"
"""The draft's key for the premise marked unusable (`x`)."""


def writer_batches(store: Store, annotator_id: str) -> list[WorkBatch]:
    """The writer's own elicitation batches, with how many premises are still open."""
    return [
        WorkBatch(
            id=b.id,
            kind=b.kind,
            protocol=b.protocol and Protocol(b.protocol),
            lang=b.lang,
            items=b.items,
            open=b.open,
        )
        for b in batches_of_annotator(store, annotator_id, "elicit")
    ]


def form_slots(protocol: Protocol, names: dict[str, str]) -> list[FormSlot]:
    """The form's fields, as the export's forms name them: per label in order, the 1st to
    n-th hypothesis, with the MULTI protocols' levels."""
    per_label = hypotheses_per_label(protocol)
    return [
        FormSlot(
            name=slot_name(label, k),
            label=label,
            label_name=names.get(label.value, label.value),
            k=k,
            level=LEVELS[k - 1] if protocol is not Protocol.SINGLE else None,
        )
        for label in LABEL_ORDER
        for k in range(1, per_label + 1)
    ]


def writing_task(store: Store, annotator_id: str, batch_id: str) -> WritingTask:
    """The batch's protocol, language, instructions (in its language where written, else
    English), label names, form fields and premises in order with their drafts; NotFound
    when the batch is not this writer's elicitation batch."""
    batch = writers_batch(store, annotator_id, batch_id)
    protocol = Protocol(batch.protocol or Protocol.SINGLE)
    settings = protocol_settings(store)
    lang = primary_language(batch.lang)
    instructions_lang = lang if lang in instruction_languages() else "en"
    names = {label: shown_name(label, settings.label_names) for label in Label}
    drafts = drafts_of_batch(store, batch.pk)
    premises = [
        WritingPremise(
            id=p.id,
            genre=p.genre,
            lang=p.lang,
            text=p.text,
            answered=p.status != "open",
            # A draft left from before the answer (a submission removes it) is not shown.
            draft=_draft(*drafts[p.id]) if p.id in drafts and p.status == "open" else None,
        )
        for p in batch_premises(store, batch.pk)
    ]
    return WritingTask(
        batch=batch.id,
        protocol=protocol,
        lang=batch.lang,
        instructions=elicit_instructions(protocol.value, instructions_lang),
        instructions_lang=instructions_lang,
        label_names={label.value: name for label, name in names.items()},
        slots=form_slots(protocol, {label.value: n for label, n in names.items()}),
        premises=premises,
    )


def _draft(fields_json: str, updated_at: str) -> Draft:
    stored = orjson.loads(fields_json)
    unusable = bool(stored.pop(_UNUSABLE_FIELD, False))
    return Draft(
        fields={k: str(v) for k, v in stored.items()}, unusable=unusable, updated_at=updated_at
    )


def save_draft(
    store: Store,
    annotator_id: str,
    batch_id: str,
    premise_id: str,
    fields: dict[str, str],
    unusable: bool = False,
) -> Draft:
    """Keep the writer's fields for one premise (autosave; never a run). Only the form's
    own fields are kept."""
    batch = writers_batch(store, annotator_id, batch_id)
    premise = batch_premise(store, batch, premise_id)
    protocol = Protocol(batch.protocol or Protocol.SINGLE)
    known = {slot.name for slot in form_slots(protocol, {})}
    kept: dict[str, object] = {k: v for k, v in fields.items() if k in known}
    kept[_UNUSABLE_FIELD] = unusable
    saved = store.save_draft(batch.pk, premise.id, orjson.dumps(kept).decode())
    return _draft(orjson.dumps(kept).decode(), saved)


def load_draft(store: Store, annotator_id: str, batch_id: str, premise_id: str) -> Draft | None:
    """The writer's saved draft of one premise, if any."""
    batch = writers_batch(store, annotator_id, batch_id)
    premise = batch_premise(store, batch, premise_id)
    found = draft(store, batch.pk, premise.id)
    return _draft(*found) if found else None


def submit_answer(
    store: Store,
    annotator_id: str,
    batch_id: str,
    premise_id: str,
    unusable: bool,
    hypotheses: dict[Label, list[str]],
) -> SubmissionResult:
    """Record the writer's answer for one premise as `elicit import` would; see the module
    docstring. `SubmissionRefused` when a blocking rule finds something (nothing written)."""
    batch = writers_batch(store, annotator_id, batch_id)
    premise = batch_premise(store, batch, premise_id)
    settings = protocol_settings(store)
    protocol = Protocol(batch.protocol or Protocol.SINGLE)
    key = answer_key(unusable, hypotheses)
    assignment = next(
        a for a in assignments_of_items(store, "elicit", [premise.id]) if a.batch_pk == batch.pk
    )
    if assignment.status != "open":
        if assignment.answer_key == key:
            store.delete_draft(batch.pk, premise.id)
            return SubmissionResult(
                run_id=None, unchanged=True, pairs_added=[], violations_added=0, findings=[]
            )
        raise ConflictError(
            f"{premise.id} in batch {batch.id} was already answered (run "
            f"{assignment.answered_run_id}); nlibuild keeps the first answer"
        )
    answer = RawAnswer(
        where=f"{WORKBENCH_SOURCE}, batch {batch.id}, premise {premise.id}",
        worker=None,
        batch=batch.id,
        premise_id=premise.id,
        premise=None,
        unusable=unusable,
        hypotheses={label: list(texts) for label, texts in hypotheses.items()},
    )
    if is_empty_submission(answer):
        raise SubmissionRefused(
            f"{premise.id}: nothing written and not marked unusable; write the hypotheses "
            "or mark the premise unusable"
        )
    findings = _findings(settings, premise, protocol, unusable, hypotheses)
    blocking = [f for f in findings if f.blocks]
    if blocking:
        listed = "; ".join(f"{f.rule}: {f.message}" for f in blocking)
        raise SubmissionRefused(
            f"{premise.id} was not submitted: {listed}",
            tuple((f.rule, f.message) for f in blocking),
        )
    cfg = settings.elicit.model_copy(update={"batch": batch.id, "writer": annotator_id})
    result = run_answers(store, cfg, AnswerFile([answer]))
    store.delete_draft(batch.pk, premise.id)  # the answer is now the record
    return SubmissionResult(
        run_id=result.run_id,
        unchanged=result.unchanged > 0,
        pairs_added=pair_ids_of_run(store, result.run_id),
        violations_added=result.violations_added,
        findings=findings,
    )


def submitted_answer(
    store: Store, annotator_id: str, batch_id: str, premise_id: str
) -> SubmittedAnswer | None:
    """The writer's stored answer for one premise (None while it is open): the pairs it
    added with their labels, levels and violations, to show read-only."""
    batch = writers_batch(store, annotator_id, batch_id)
    premise = batch_premise(store, batch, premise_id)
    found = answer_of_item(store, batch.pk, premise.id)
    if found is None:
        return None
    status, pairs, violations = found
    stored_ids = {pair.id for pair in pairs}
    return SubmittedAnswer(
        unusable=status == "unusable",
        pairs=[
            StoredPair(
                id=pair.id,
                label=Label(pair.label),
                level=Level(pair.level) if pair.level else None,
                hypothesis=pair.hypothesis,
                violations=[_violation(v) for v in violations if v.pair_id == pair.id],
            )
            for pair in pairs
        ],
        other_violations=[_violation(v) for v in violations if v.pair_id not in stored_ids],
    )


def _violation(row: ViolationRow) -> StoredViolation:
    return StoredViolation(
        rule=row.rule, severity=row.severity, detail=row.detail, kept=bool(row.kept)
    )


def _findings(
    settings: ProtocolSettings,
    premise: BatchPremise,
    protocol: Protocol,
    unusable: bool,
    hypotheses: dict[Label, list[str]],
) -> list[FeedbackFinding]:
    """Everything the import's checks and the length warning find in an answer."""
    checked = check_draft(settings, premise, protocol, unusable, hypotheses)
    slot_of_pair = slots_of_pairs(hypotheses)
    found = [shown_finding(settings, f, slot_of_pair) for f in checked.all_findings()]
    if not unusable:
        texts = [text for texts in hypotheses.values() for text in texts]
        shorts = (too_short(settings, text, premise.lang) for text in texts)
        found += [short for short in shorts if short is not None]
    return found
