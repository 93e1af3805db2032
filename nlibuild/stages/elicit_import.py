"""`nlibuild elicit import`: writers' answers back from a platform, checked, into pairs.

Each answer is one writer's work on one premise of a batch. It is mapped to our IDs (the
platform's worker ID through `--annotator-map FILE` or the aliases stored by an earlier import),
checked against its batch (the right writer, a premise the batch holds) and against the
protocol's rules (`elicitation.check_answer`), and becomes pairs `<premise>-<e|n|c><k>` with
the author's label, level, protocol and batch, and the author's vote.

A premise may be in one batch per protocol (OCNLI 3.2 gave the same premises to its four
protocols), so pair IDs must tell a premise's batches apart: the pairs of its first
elicitation batch keep `<premise>-<e|n|c><k>` (every store written before keeps its IDs),
those of a later batch carry the protocol's tag, `<premise>-<tag>-<e|n|c><k>` (`m`, `me`,
`mc`, `s`). An answer that names no batch goes to the premise's batch of its writer.

What the checks find is stored in `violations`; `--on-violation reject` keeps a pair with an
error out of `pairs`.

Importing the same answers again changes nothing (each assignment keeps a hash of its
answer); a different answer for an item already answered is an error naming both.

A lead may reopen an answered premise (`reopen_answer`, the stage `elicit-reopen`, a run of
its own that the lead page starts): the answer's pairs leave the corpus for
`reopened_answers`, so the premise is open again and its next answer makes the same pair
IDs anew.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from nlibuild.core.registry import ELICIT_IMPORT, ELICIT_REOPEN
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError, ConflictError, InputError, NotFoundError, in_file
from nlibuild.formats.input_files import require_regular_file
from nlibuild.formats.platforms import import_platform
from nlibuild.formats.platforms.base import AnswerFile, RawAnswer, left_open
from nlibuild.labelling.annotators import platform_annotators
from nlibuild.labelling.label_names import label_names_default
from nlibuild.labelling.labels import LabelNormaliser
from nlibuild.models import (
    ElicitImportConfig,
    ElicitImportResult,
    ElicitReopenConfig,
    ElicitReopenResult,
    Label,
    OnViolation,
    Protocol,
    Rule,
    RuleCount,
    WriterReport,
)
from nlibuild.protocol.batches import ELICIT_BATCH
from nlibuild.protocol.elicitation import (
    PROTOCOL_TAGS,
    CheckedAnswer,
    Finding,
    Severity,
    answer_key,
    check_answer,
)
from nlibuild.queries.batches import (
    Assignment,
    BatchPremise,
    BatchRow,
    assignments_of_items,
    batch_premises,
    batches_of_kind,
)
from nlibuild.queries.pairs import answer_pair_ids, existing_pair_ids, pair_uses
from nlibuild.render import NamedTable, counted, run_note
from nlibuild.store import ElicitedPairRow, Store, ViolationRow
from nlibuild.text.lang import normalise_text
from nlibuild.text.negators import NegatorLexicon, negator_lexicon

_ANSWERED = "answered"
_UNUSABLE = "unusable"


@dataclass
class _Tally:
    """Counts for the report, per rule and per writer."""

    rules: Counter[tuple[str, str]] = field(default_factory=Counter)
    rule_kept: Counter[tuple[str, str]] = field(default_factory=Counter)
    rule_rejected: Counter[tuple[str, str]] = field(default_factory=Counter)
    writers: dict[str, Counter[str]] = field(default_factory=dict)

    def writer(self, writer: str) -> Counter[str]:
        return self.writers.setdefault(writer, Counter())

    def finding(self, writer: str, finding: Finding, kept: bool | None) -> None:
        key = (finding.rule.value, finding.severity.value)
        self.rules[key] += 1
        if kept is True:
            self.rule_kept[key] += 1
        elif kept is False:
            self.rule_rejected[key] += 1
        self.writer(writer)["errors" if finding.severity is Severity.ERROR else "warnings"] += 1


class _Importer:
    def __init__(self, store: Store, cfg: ElicitImportConfig, run_id: int) -> None:
        self.store = store
        self.cfg = cfg
        self.run_id = run_id
        self.platform = cfg.format.value
        self.tally = _Tally()
        self.pairs: list[ElicitedPairRow] = []
        self.votes: list[tuple[int, int, int, str]] = []
        self.violations: list[ViolationRow] = []
        self.answered: list[tuple[str, str, int, int, str]] = []
        self.unchanged = 0
        self.unusable = 0
        self.rejected = 0
        self.answers_refused = 0  # whole answers: not in their batch, another writer's
        self.warnings: list[str] = []
        self._lexicons: dict[str, NegatorLexicon] = {}
        self._batch_premises: dict[
            int, tuple[dict[str, BatchPremise], dict[str, BatchPremise]]
        ] = {}
        self._seen: dict[tuple[str, str], tuple[str, str]] = {}
        self.next_pair_pk = store.next_pk("pairs")

    # --- resolving platform terms to ours ---------------------------------------------

    def writers(self, answers: list[RawAnswer]) -> dict[str | None, str]:
        """platform worker ID -> our annotator ID for every worker in the file."""
        mapping = platform_annotators(self.store, self.platform, self.cfg.annotator_map)
        workers = {a.worker for a in answers}
        known = self.store.annotator_pks(w for w in workers if w is not None)
        resolved: dict[str | None, str] = {}
        unknown: dict[str, str] = {}
        for worker in workers:
            ours = mapping.get(worker) if worker is not None else self.cfg.writer
            if ours is None and worker is not None and worker in known:
                ours = worker
            if ours is None:
                first = next(a.where for a in answers if a.worker == worker)
                unknown[str(worker)] = first
                continue
            resolved[worker] = ours
        if unknown:
            worker, where = sorted(unknown.items())[0]
            if worker == "None":
                raise InputError(
                    self.cfg.path,
                    f"{where}: no writer is named; add a writer column or pass --writer ID",
                )
            raise InputError(
                self.cfg.path,
                f"{where}: {self.platform} worker {worker!r} (and {len(unknown) - 1} more) is not "
                "an annotator of this store; pass --annotator-map FILE, a csv with the header "
                f"platform,platform_id,annotator and rows like {self.platform},{worker},w01",
            )
        return resolved

    def lexicon(self, lang: str) -> NegatorLexicon:
        if lang not in self._lexicons:
            lexicon = negator_lexicon(lang, self.cfg.negators)
            if lexicon.empty:
                self.warnings.append(
                    f"no negator lexicon for {lang!r}: negators are not checked; add "
                    f"nlibuild/resources/negators/{lang}.txt or pass --negators FILE"
                )
            self._lexicons[lang] = lexicon
        return self._lexicons[lang]

    def premises_of(
        self, batch: BatchRow
    ) -> tuple[dict[str, BatchPremise], dict[str, BatchPremise]]:
        """The batch's premises by ID and by normalised, case-folded text."""
        if batch.pk not in self._batch_premises:
            premises = batch_premises(self.store, batch.pk)
            self._batch_premises[batch.pk] = (
                {p.id: p for p in premises},
                {normalise_text(p.text).casefold(): p for p in premises},
            )
        return self._batch_premises[batch.pk]

    # --- one answer -------------------------------------------------------------------

    def reject_answer(
        self, answer: RawAnswer, writer: str, writer_pk: int, batch: BatchRow | None,
        item: str, finding: Finding,
    ) -> None:  # fmt: skip
        self.tally.finding(writer, finding, None)
        self.tally.writer(writer)["answers"] += 1
        self.answers_refused += 1
        self.violations.append(
            (batch.pk if batch else None, writer_pk, item, None, finding.rule.value,
             finding.severity.value, finding.detail, False)
        )  # fmt: skip

    def add(
        self,
        answer: RawAnswer,
        writer: str,
        writer_pk: int,
        batch: BatchRow,
        premise: BatchPremise,
        assignment: Assignment,
        first_batch: bool,
    ) -> None:
        key = answer_key(answer.unusable, answer.hypotheses)
        seen = self._seen.get((batch.id, premise.id))
        if seen is not None:
            if seen[0] != key:
                raise InputError(
                    self.cfg.path,
                    f"{answer.where}: a second, different answer for {premise.id} in batch "
                    f"{batch.id} (the first is at {seen[1]}); keep one",
                )
            self.unchanged += 1
            return
        # The place within this same file (`line 1`), which the error names once.
        self._seen[(batch.id, premise.id)] = (
            key,
            answer.where.removeprefix(f"{self.cfg.path.name}, "),
        )
        if assignment.status != "open":
            if assignment.answer_key == key:
                self.unchanged += 1
                return
            raise ConflictError(
                in_file(
                    self.cfg.path,
                    f"{answer.where}: {premise.id} in batch {batch.id} was already answered "
                    f"(run {assignment.answered_run_id}) and this answer differs; nlibuild "
                    "keeps the first answer: remove this one from the file",
                )
            )
        protocol = Protocol(batch.protocol or Protocol.SINGLE)
        checked = check_answer(
            premise.id, premise.text, premise.lang, protocol, answer.unusable,
            answer.hypotheses, self.lexicon(premise.lang), self.cfg.max_overlap,
            None if first_batch else PROTOCOL_TAGS[protocol],
            overlap_measure=self.cfg.overlap_measure, overlap_severity=self.cfg.overlap_severity,
            overlap_units=self.cfg.overlap_units,
            negator_in_entailment=self.cfg.negator_in_entailment,
        )  # fmt: skip
        self.answered.append(
            (_UNUSABLE if answer.unusable else _ANSWERED, key, self.run_id, batch.pk, premise.id)
        )
        counts = self.tally.writer(writer)
        counts["answers"] += 1
        if answer.unusable:
            self.unusable += 1
            counts["unusable"] += 1
        self._keep(checked, answer, writer, writer_pk, batch, premise, protocol)

    def _keep(
        self, checked: CheckedAnswer, answer: RawAnswer, writer: str, writer_pk: int,
        batch: BatchRow, premise: BatchPremise, protocol: Protocol,
    ) -> None:  # fmt: skip
        counts = self.tally.writer(writer)
        for finding in checked.findings:
            self.tally.finding(writer, finding, None)
            self.violations.append(
                (batch.pk, writer_pk, premise.id, None, finding.rule.value,
                 finding.severity.value, finding.detail, False)
            )  # fmt: skip
        reject = self.cfg.on_violation is OnViolation.REJECT
        for pair in checked.pairs:
            kept = not (reject and pair.has_error)
            if pair.label is Label.CONTRADICTION:
                counts["contradictions"] += 1
                counts["negated_contradictions"] += bool(pair.negators)
            for finding in pair.findings:
                self.tally.finding(writer, finding, kept)
                self.violations.append(
                    (batch.pk, writer_pk, premise.id, pair.id, finding.rule.value,
                     finding.severity.value, f"{finding.detail}: {pair.hypothesis}", kept)
                )  # fmt: skip
            if not kept:
                self.rejected += 1
                counts["pairs_rejected"] += 1
                continue
            pk = self.next_pair_pk
            self.next_pair_pk += 1
            self.pairs.append(
                (pk, pair.id, premise.pk, pair.hypothesis, premise.lang, protocol.value,
                 pair.level.value if pair.level else None, writer_pk, pair.label.value, batch.pk)
            )  # fmt: skip
            self.votes.append((pk, writer_pk, 0, pair.label.value))
            counts["pairs_added"] += 1

    # --- the whole file ---------------------------------------------------------------

    def _writers_batch(self, answer: RawAnswer, writer: str, found: list[Assignment]) -> str:
        """The batch of an answer that names none: the premise's batch given to its writer
        (a premise may be in one batch per protocol, each perhaps another writer's)."""
        own = [a.batch_id for a in found if a.annotator == writer]
        if len(own) > 1:
            raise InputError(
                self.cfg.path,
                f"{answer.where}: {answer.premise_id} is in {writer}'s batches "
                f"{', '.join(own)} (one per protocol) and the answer names no batch; add a "
                "batch column or pass --batch B",
            )
        # No batch of this writer: the first batch, whose writer check then reports it.
        return own[0] if own else found[0].batch_id

    def run(self, answers: list[RawAnswer]) -> None:
        writers = self.writers(answers)
        writer_pks = self.store.ensure_annotators(writers.values())
        named = sorted({b for a in answers if (b := a.batch or self.cfg.batch) is not None})
        # Only the batches the answers name: a workbench answer names one of many.
        batches = (
            {b.id: b for b in batches_of_kind(self.store, ELICIT_BATCH, named)} if named else {}
        )
        for answer in answers:
            batch_id = answer.batch or self.cfg.batch
            if batch_id is not None and batch_id not in batches:
                raise InputError(
                    self.cfg.path,
                    f"{answer.where}: batch {batch_id!r} is not an elicitation batch of this "
                    "store; were these answers exported from another store?",
                )
        needed = [a.premise_id for a in answers if a.premise_id]
        assignments: dict[tuple[str, str], Assignment] = {}
        batches_of: dict[str, list[Assignment]] = {}
        for found in assignments_of_items(self.store, ELICIT_BATCH, needed):
            assignments[(found.batch_id, found.item_id)] = found
            batches_of.setdefault(found.item_id, []).append(found)
        # An answer without a batch goes to its writer's batch of the premise: those too.
        inferred = sorted(
            {a.batch_id for found in batches_of.values() for a in found} - set(batches)
        )
        if inferred:
            batches |= {b.id: b for b in batches_of_kind(self.store, ELICIT_BATCH, inferred)}
        for answer in answers:
            writer = writers[answer.worker]
            writer_pk = writer_pks[writer]
            batch_id = answer.batch or self.cfg.batch
            if batch_id is None and answer.premise_id in batches_of:
                batch_id = self._writers_batch(answer, writer, batches_of[answer.premise_id])
            batch = batches.get(batch_id) if batch_id else None
            premise_id = answer.premise_id
            premise = None
            if batch is not None:
                by_id, by_text = self.premises_of(batch)
                if premise_id is None and answer.premise is not None:
                    premise = by_text.get(normalise_text(answer.premise).casefold())
                    premise_id = premise.id if premise else None
                elif premise_id is not None:
                    premise = by_id.get(premise_id)
            item = premise_id or f"text: {(answer.premise or '')[:40]}"
            if batch is None or premise is None:
                where = f"batch {batch.id}" if batch else "any batch"
                self.reject_answer(
                    answer, writer, writer_pk, batch, item,
                    Finding(Rule.NOT_IN_BATCH, f"{item} is not in {where}"),
                )  # fmt: skip
                continue
            if batch.annotator != writer:
                self.reject_answer(
                    answer, writer, writer_pk, batch, item,
                    Finding(
                        Rule.OTHER_WRITER,
                        f"{writer} answered {item}, but batch {batch.id} is {batch.annotator}'s",
                    ),
                )  # fmt: skip
                continue
            if premise.id not in batches_of:  # found by its text
                batches_of[premise.id] = assignments_of_items(
                    self.store, ELICIT_BATCH, [premise.id]
                )
            of_premise = batches_of[premise.id]
            assignment = next(a for a in of_premise if a.batch_pk == batch.pk)
            # Batches come in creation order: the first keeps the plain pair IDs.
            first_batch = of_premise[0].batch_pk == batch.pk
            self.add(answer, writer, writer_pk, batch, premise, assignment, first_batch)
        new_ids = Counter(p[1] for p in self.pairs)
        twice = sorted(i for i, n in new_ids.items() if n > 1)
        if twice:
            # Only a premise ID that ends like a protocol tag (`p1-m` beside `p1`) can do this.
            raise ConflictError(
                f"two answers of this file would both make pair {twice[0]} (a premise ID "
                "that ends in a protocol tag, like p1-m beside p1?); import them in two files"
            )
        clashes = existing_pair_ids(self.store, list(new_ids))
        if clashes:
            raise ConflictError(
                f"pair {sorted(clashes)[0]} is already in the store (imported with a corpus, or "
                "made for another premise whose ID ends in a protocol tag?); its premise "
                "cannot be elicited again under this ID"
            )
        self.store.add_elicited_pairs(self.pairs, self.run_id)
        self.store.add_votes(self.votes, self.run_id)
        self.store.mark_answered(self.answered)


def run(store: Store, cfg: ElicitImportConfig) -> ElicitImportResult:
    normaliser = LabelNormaliser(label_order=cfg.label_order)
    platform = import_platform(cfg.format, cfg.columns, {})
    # The negator files are read only once the first pair of their language is checked, and
    # the map once the answers are read: a wrong path is refused before any of that work.
    for negators in cfg.negators:
        require_regular_file(negators, "negator file")
    if cfg.annotator_map is not None:
        require_regular_file(cfg.annotator_map, "annotator map")
    parsed = platform.read_answers(cfg.path, normaliser, cfg.label_names)
    if platform.names_workers and cfg.writer:
        raise ConfigError("--writer is for jsonl and csv files; platforms name their workers")
    return run_answers(store, cfg, parsed)


def run_answers(store: Store, cfg: ElicitImportConfig, parsed: AnswerFile) -> ElicitImportResult:
    """The answers of a file read (`run`), or given in memory (the workbench's one answer,
    with `cfg.source` set), checked and recorded as one run."""
    with store.recorded_run(ELICIT_IMPORT, cfg) as run:
        run_id = run.id
        importer = _Importer(store, cfg, run_id)
        importer.run(parsed.answers)
        added = store.add_violations(importer.violations, run_id)
        tally = importer.tally
        result = ElicitImportResult(
            run_id=run_id,
            signature=run.signature,
            answers=len(parsed.answers),
            dropped=dict(parsed.dropped),
            left_open=parsed.empty,
            unchanged=importer.unchanged,
            unusable=importer.unusable,
            pairs_added=len(importer.pairs),
            pairs_rejected=importer.rejected,
            answers_refused=importer.answers_refused,
            violations_added=added,
            rules=[
                RuleCount(
                    rule=rule,
                    severity=severity,
                    found=n,
                    pairs_kept=tally.rule_kept[(rule, severity)],
                    pairs_rejected=tally.rule_rejected[(rule, severity)],
                )
                for (rule, severity), n in sorted(tally.rules.items())
            ],
            writers=[
                WriterReport(
                    writer=writer,
                    **{
                        name: counts[name] for name in WriterReport.model_fields if name != "writer"
                    },
                )
                for writer, counts in sorted(tally.writers.items())
            ],
            warnings=importer.warnings,
        )
        run.finish({"answers": result.answers, "left_open": result.left_open,
             "unchanged": result.unchanged,
             "pairs_added": result.pairs_added, "pairs_rejected": result.pairs_rejected,
             "unusable": result.unusable, "violations_added": added},
        )  # fmt: skip
    return result


def summary(_cfg: ElicitImportConfig, result: ElicitImportResult) -> str:
    """What was read, what was added, what was refused (`tables`, above it, shows the checks
    per rule and the answers per writer)."""
    dropped = "".join(f", {n} {why}" for why, n in sorted(result.dropped.items()))
    if result.left_open:
        dropped += f", {left_open(result.left_open)}"
    # An answer refused whole (its premise not in its batch, or the batch another writer's)
    # adds no pair to reject: without this count the line read as if nothing was refused.
    refused = (
        f", {counted(result.answers_refused, 'answer')} refused whole (see the checks)"
        if result.answers_refused
        else ""
    )
    return (
        f"Imported {counted(result.answers, 'answer')}{dropped}: "
        f"{counted(result.pairs_added, 'pair')} added, {result.pairs_rejected} rejected{refused}, "
        f"{result.unusable} marked x, {result.unchanged} already imported; "
        f"{counted(result.violations_added, 'violation')} stored {run_note(result)}"
    )


def tables(_cfg: ElicitImportConfig, result: ElicitImportResult) -> list[NamedTable]:
    """The checks per rule (what each found, and what became of the pairs it found), then
    each writer's answers: what a lead reads before paying or briefing a writer. `x` is the
    answers a writer marked unusable."""
    checks = [(r.rule, r.severity, r.found, r.pairs_kept, r.pairs_rejected) for r in result.rules]
    writers = [
        (w.writer, w.answers, w.unusable, w.pairs_added, w.pairs_rejected, w.errors, w.warnings,
         w.contradictions, w.negated_contradictions)
        for w in result.writers
    ]  # fmt: skip
    return [
        NamedTable("elicit-checks", "Checks",
                   ["rule", "severity", "found", "pairs_kept", "pairs_rejected"], checks),
        NamedTable("elicit-writers", "Writers",
                   ["writer", "answers", "x", "pairs_added", "rejected", "errors", "warnings",
                    "contradictions", "with_negator"], writers),
    ]  # fmt: skip


def reopen_answer(store: Store, cfg: ElicitReopenConfig) -> ElicitReopenResult:
    """Reopen a premise its writer answered or marked unusable (the lead page's reopen), as a
    run of its own, so that the writer can answer it again: the answer's pairs, with their
    author's votes, and the violations found in it leave the corpus for `reopened_answers`
    (`Store.set_aside_answer`), where they stay as they were. Refused, with nothing
    written, for a premise not answered yet and for an answer later work rests on (a pair
    relabelled, given gold, split, translated or scored): taking those pairs away would
    take that work with them."""
    with store.recorded_run(ELICIT_REOPEN, cfg) as run:
        batch = next(iter(batches_of_kind(store, ELICIT_BATCH, [cfg.batch])), None)
        if batch is None:
            raise NotFoundError(f"there is no elicitation batch {cfg.batch!r} in this store")
        assignment = next(
            (a for a in assignments_of_items(store, ELICIT_BATCH, [cfg.premise])
             if a.batch_pk == batch.pk),
            None,
        )  # fmt: skip
        if assignment is None:
            raise NotFoundError(f"premise {cfg.premise!r} is not in batch {batch.id}")
        if assignment.status == "open":
            raise ConflictError(
                f"premise {cfg.premise} of batch {batch.id} is not answered yet: there is "
                "nothing to reopen"
            )
        uses = pair_uses(store, answer_pair_ids(store, batch.pk, cfg.premise))
        if uses:
            pair, what = uses[0]
            raise ConflictError(
                f"pair {pair} of that answer is in {what}: work rests on the answer, so it "
                "is kept; reopen only answers whose pairs are not yet relabelled"
            )
        pairs, violations = store.set_aside_answer(batch.pk, cfg.premise, run.id)
        run.finish({"pairs_removed": pairs, "violations_removed": violations})
    return ElicitReopenResult(
        run_id=run.id,
        signature=run.signature,
        writer=batch.annotator,
        former_status=assignment.status,
        pairs_removed=pairs,
        violations_removed=violations,
    )


def reopen_summary(cfg: ElicitReopenConfig, result: ElicitReopenResult) -> str:
    """`elicit-reopen` has no command of its own: its line on the lead page, in the Python
    API and a recipe's log."""
    former = "'unusable' mark" if result.former_status == _UNUSABLE else "answer"
    return (
        f"Reopened premise {cfg.premise} of batch {cfg.batch} for {result.writer}: their "
        f"{former} ({counted(result.pairs_removed, 'pair')}, "
        f"{counted(result.violations_removed, 'violation')}) is kept in reopened_answers, "
        f"out of the corpus {run_note(result)}"
    )


STAGE = Stage(
    ELICIT_IMPORT,
    settings=ElicitImportConfig,
    run=run,
    summary=summary,
    tables=tables,
    warnings=lambda result: result.warnings,
    defaults=label_names_default,
)

REOPEN_STAGE = Stage(
    ELICIT_REOPEN, settings=ElicitReopenConfig, run=reopen_answer, summary=reopen_summary
)
