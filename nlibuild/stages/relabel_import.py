"""`nlibuild relabel import`: validators' labels back from a platform, checked, into votes.

Each vote is one annotator's label for one pair. Platform worker IDs are mapped to our
annotators as `elicit import` maps them (`--annotator-map FILE`, or the aliases stored by an
earlier import); a file without worker IDs (a jsonl or csv without `annotator`) is taken to
be by the annotator its batch belongs to. Labels are normalised (`e`, `Neutral`, integers
with `--label-order`, the store's extra labels); an unknown one is an error.

A validator's vote takes the position after the pair's highest so far (the author's label is
0). Two kinds of vote are not written but reported, and stored in `violations`:
- `author_vote`: by the pair's author, whose label is already the vote at position 0 (SNLI,
  MNLI and OCNLI never let writers validate their own pairs);
- `unassigned`: by an annotator no relabelling batch gave the pair to.
The same vote imported again changes nothing; a different label from the same annotator for
the same pair, in the store or earlier in the file, is an error naming both.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel

from nlibuild.core.registry import RELABEL_IMPORT, RELABEL_UNDO
from nlibuild.core.stage import Stage
from nlibuild.errors import ConflictError, InputError
from nlibuild.formats.platforms import import_platform
from nlibuild.formats.platforms.base import RawVote, VoteFile
from nlibuild.labelling.annotators import platform_annotators
from nlibuild.labelling.label_names import canonical_label, label_names_default
from nlibuild.labelling.labels import LabelNormaliser, UnknownLabel, unknown_label_hint
from nlibuild.models import (
    NLI_LABELS,
    RelabelImportConfig,
    RelabelImportResult,
    VoterReport,
    VoteUndoConfig,
)
from nlibuild.protocol.batches import RELABEL_BATCH
from nlibuild.queries.batches import Assignment, assignments_of_items, batches_of_kind
from nlibuild.queries.meta import store_labels
from nlibuild.queries.pairs import vote_targets
from nlibuild.render import NamedTable, counted, run_note
from nlibuild.store import Store, ViolationRow

AUTHOR_VOTE = "author_vote"
UNASSIGNED = "unassigned"
_ERROR = "error"


def _place(vote: RawVote) -> str:
    """Where a vote is in its file, without the file's name: `line 3`, `task 7, annotation 9`."""
    return vote.where.split(", ", 1)[-1]


@dataclass
class _Vote:
    """A vote resolved to our terms."""

    raw: RawVote
    annotator: str
    label: str


@dataclass
class _Importer:
    store: Store
    cfg: RelabelImportConfig
    run_id: int
    votes: list[tuple[int, int, int, str]] = field(default_factory=list)
    answered: list[tuple[str, str, int, int, str]] = field(default_factory=list)
    violations: list[ViolationRow] = field(default_factory=list)
    times: list[tuple[int, int, float]] = field(default_factory=list)
    tally: dict[str, Counter[str]] = field(default_factory=dict)
    annotator_pks: dict[str, int] = field(default_factory=dict)

    def resolve(self, raw_votes: list[RawVote]) -> list[_Vote]:
        """Our annotator and the normalised label of every labelled vote, checking that
        each names a pair of the store and a relabelling batch."""
        named = sorted({v.batch for v in raw_votes if v.batch is not None})
        # Only the batches the votes name: a workbench vote names one of many.
        batches = (
            {b.id: b for b in batches_of_kind(self.store, RELABEL_BATCH, named)} if named else {}
        )
        mapping = platform_annotators(self.store, self.cfg.format.value, self.cfg.annotator_map)
        known = self.store.annotator_pks(v.worker for v in raw_votes if v.worker)
        extra = store_labels(self.store)[len(NLI_LABELS) :]
        normaliser = LabelNormaliser(extra, self.cfg.label_order)
        resolved = []
        for vote in raw_votes:
            if vote.batch is not None and vote.batch not in batches:
                raise self.error(
                    vote,
                    f"batch {vote.batch!r} is not a relabelling batch of this store; were "
                    "these labels exported from another store?",
                )
            if vote.worker is None:
                if vote.batch is None:
                    raise self.error(vote, "no annotator and no batch; add an annotator column")
                annotator = batches[vote.batch].annotator
            elif vote.worker in mapping:
                annotator = mapping[vote.worker]
            elif vote.worker in known:
                annotator = vote.worker
            else:
                platform = self.cfg.format.value
                raise self.error(
                    vote,
                    f"{platform} worker {vote.worker!r} is not an annotator of this store; pass "
                    "--annotator-map FILE, a csv with the header platform,platform_id,annotator "
                    f"and rows like {platform},{vote.worker},v01",
                )
            assert vote.label is not None
            try:
                label = normaliser.vote(canonical_label(vote.label, self.cfg.label_names))
            except UnknownLabel:
                raise self.unknown_label(vote, normaliser) from None
            assert label is not None
            resolved.append(_Vote(vote, annotator, label))
        return resolved

    def unknown_label(self, vote: RawVote, normaliser: LabelNormaliser) -> InputError:
        raw = str(vote.label)
        if raw.lstrip("-").isdigit() and normaliser.label_order is None:
            todo = unknown_label_hint([raw], has_order=False)
        else:
            todo = (
                "correct it; an extra label must first be declared in the store "
                "(`nlibuild init --extra-labels`, or the preset's extra_labels)"
            )
        offered = ", ".join(store_labels(self.store))
        return self.error(vote, f"label {raw!r} is not one of {offered}; {todo}")

    def error(self, vote: RawVote, message: str) -> InputError:
        """An input error at the vote's line, or its task and annotation (Label Studio)."""
        place = "" if vote.line is not None else f"{_place(vote)}: "
        return InputError(self.cfg.path, place + message, vote.line)

    def refuse(self, vote: _Vote, rule: str, detail: str, batch_pk: int | None) -> None:
        self.violations.append(
            (batch_pk, self.annotator_pks[vote.annotator], vote.raw.pair_id, vote.raw.pair_id,
             rule, _ERROR, detail, False)
        )  # fmt: skip

    def run(self, raw_votes: list[RawVote]) -> None:
        votes = self.resolve(raw_votes)
        pair_ids = {v.raw.pair_id for v in votes}
        targets = vote_targets(self.store, pair_ids)
        missing = [v for v in votes if v.raw.pair_id not in targets]
        if missing:
            raise self.error(
                missing[0].raw,
                f"pair {missing[0].raw.pair_id!r} is not in this store; were these labels "
                "exported from another store?",
            )
        self.annotator_pks = self.store.ensure_annotators(v.annotator for v in votes)
        assigned: dict[tuple[str, str], Assignment] = {
            (a.item_id, a.annotator): a
            for a in assignments_of_items(self.store, RELABEL_BATCH, pair_ids)
        }
        # Validators take positions from 1 on, even on a pair without its author's vote.
        top = {pair_id: max(target[2], 0) for pair_id, target in targets.items()}
        seen: dict[tuple[str, str], _Vote] = {}
        for vote in votes:
            pair_id, annotator = vote.raw.pair_id, vote.annotator
            pair_pk, author, _, stored = targets[pair_id]
            counts = self.tally.setdefault(annotator, Counter())
            counts["votes"] += 1
            earlier = seen.get((pair_id, annotator))
            if earlier is not None:
                if earlier.label != vote.label:
                    raise ConflictError(
                        f"{vote.raw.where}: {annotator} labels {pair_id} {vote.label}, but "
                        f"{earlier.label} at {_place(earlier.raw)}; keep one"
                    )
                counts["unchanged"] += 1
                continue
            seen[(pair_id, annotator)] = vote
            assignment = assigned.get((pair_id, annotator))
            batch_pk = assignment.batch_pk if assignment else None
            if annotator == author:
                counts["author_votes"] += 1
                self.refuse(
                    vote, AUTHOR_VOTE,
                    f"{annotator} wrote {pair_id} and cannot validate it (voted {vote.label})",
                    batch_pk,
                )  # fmt: skip
                continue
            if annotator in stored:
                label, run_id = stored[annotator]
                if label != vote.label:
                    raise ConflictError(
                        f"{vote.raw.where}: {annotator} labels {pair_id} {vote.label}, "
                        f"but the store holds their vote {label} (run {run_id}); nlibuild "
                        "keeps the first vote: remove this one from the file"
                    )
                counts["unchanged"] += 1
                continue
            if assignment is None:
                counts["unassigned"] += 1
                self.refuse(
                    vote, UNASSIGNED,
                    f"{annotator} labelled {pair_id} ({vote.label}), which no relabelling "
                    "batch gave them",
                    None,
                )  # fmt: skip
                continue
            top[pair_id] += 1
            self.votes.append((pair_pk, self.annotator_pks[annotator], top[pair_id], vote.label))
            self.answered.append(
                ("answered", vote.label, self.run_id, assignment.batch_pk, pair_id)
            )
            if vote.raw.seconds is not None:
                self.times.append((pair_pk, self.annotator_pks[annotator], vote.raw.seconds))
            counts["added"] += 1
        self.store.add_votes(self.votes, self.run_id)
        self.store.add_vote_times(self.times, self.run_id)
        self.store.mark_answered(self.answered)


def run(store: Store, cfg: RelabelImportConfig) -> RelabelImportResult:
    platform = import_platform(cfg.format, cfg.columns, cfg.label_values)
    parsed = platform.read_votes(cfg.path, store_labels(store))
    return run_votes(store, cfg, parsed)


def run_votes(store: Store, cfg: RelabelImportConfig, parsed: VoteFile) -> RelabelImportResult:
    """The votes of a file read (`run`), or given in memory (the workbench's one vote, with
    `cfg.source` set), checked and recorded as one run."""
    unlabelled = [v for v in parsed.votes if v.label is None]
    if unlabelled:
        parsed.dropped["left without a label"] += len(unlabelled)
    labelled = [v for v in parsed.votes if v.label is not None]
    with store.recorded_run(RELABEL_IMPORT, cfg) as run:
        run_id = run.id
        importer = _Importer(store, cfg, run_id)
        importer.run(labelled)
        added = store.add_violations(importer.violations, run_id)
        totals: Counter[str] = Counter()
        for counts in importer.tally.values():
            totals.update(counts)
        fields = [name for name in VoterReport.model_fields if name != "annotator"]
        result = RelabelImportResult(
            run_id=run_id,
            signature=run.signature,
            votes=len(labelled),
            dropped=dict(parsed.dropped),
            added=totals["added"],
            unchanged=totals["unchanged"],
            author_votes=totals["author_votes"],
            unassigned=totals["unassigned"],
            violations_added=added,
            annotators=[
                VoterReport(
                    annotator=annotator,
                    **{name: counts[name] for name in fields},
                )
                for annotator, counts in sorted(importer.tally.items())
            ],
        )
        run.finish({"votes": result.votes, "added": result.added, "unchanged": result.unchanged,
             "author_votes": result.author_votes, "unassigned": result.unassigned,
             "violations_added": added},
        )  # fmt: skip
    return result


def summary(_cfg: RelabelImportConfig, result: RelabelImportResult) -> str:
    """What was read, added and refused (`tables`, above it, shows each annotator's)."""
    dropped = "".join(f", {n} {why}" for why, n in sorted(result.dropped.items()))
    return (
        f"Imported {counted(result.votes, 'vote')}{dropped}: {result.added} added, "
        f"{result.unchanged} already imported, {result.author_votes} refused (by the pair's "
        f"author), {result.unassigned} not assigned to their annotator; "
        f"{counted(result.violations_added, 'violation')} stored {run_note(result)}"
    )


def tables(_cfg: RelabelImportConfig, result: RelabelImportResult) -> list[NamedTable]:
    """Each annotator's votes: added, already in the store, refused on a pair they wrote
    themselves, or not assigned to them (both refusals stored as violations)."""
    rows = [(a.annotator, a.votes, a.added, a.unchanged, a.author_votes, a.unassigned)
            for a in result.annotators]  # fmt: skip
    columns = ["annotator", "votes", "added", "already_imported", "own_pairs_refused",
               "not_assigned"]  # fmt: skip
    return [NamedTable("relabel-annotators", "Annotators", columns, rows)]


class VoteUndoResult(BaseModel):
    """A vote taken back (the workbench's undo), by the run that removed it."""

    run_id: int
    signature: str
    removed: int


def undo_vote(store: Store, cfg: VoteUndoConfig) -> VoteUndoResult | None:
    """Take back an annotator's vote on a pair of their relabelling batch (the workbench's
    undo), as a run of its own: the vote, its time and the assignment's answer go, and the
    pair's counts are recounted. None, and no run, when they have no vote on it to undo."""
    annotator_pk = store.annotator_pks([cfg.annotator]).get(cfg.annotator)
    targets = vote_targets(store, [cfg.pair])
    assignment = next(
        (a for a in assignments_of_items(store, RELABEL_BATCH, [cfg.pair])
         if a.batch_id == cfg.batch and a.annotator == cfg.annotator),
        None,
    )  # fmt: skip
    if annotator_pk is None or cfg.pair not in targets or assignment is None:
        raise ConflictError(f"{cfg.annotator} has no pair {cfg.pair} in batch {cfg.batch}")
    if cfg.annotator not in targets[cfg.pair][3]:
        return None
    with store.recorded_run(RELABEL_UNDO, cfg) as run:
        removed = store.remove_vote(targets[cfg.pair][0], annotator_pk, assignment.batch_pk, run.id)
        run.finish({"removed": removed})
    return VoteUndoResult(run_id=run.id, signature=run.signature, removed=removed)


def undo_summary(cfg: VoteUndoConfig, result: VoteUndoResult | None) -> str:
    """`relabel-undo` has no command of its own: this is its line where every stage's run
    is shown (the Python API, a recipe's log)."""
    vote = f"{cfg.annotator}'s vote on pair {cfg.pair} of batch {cfg.batch}"
    if result is None:
        return f"Undid nothing: {vote} was not given, so no run was recorded"
    return f"Undid {vote} {run_note(result)}"


STAGE = Stage(
    RELABEL_IMPORT,
    settings=RelabelImportConfig,
    run=run,
    summary=summary,
    tables=tables,
    defaults=label_names_default,
)

UNDO_STAGE = Stage(RELABEL_UNDO, settings=VoteUndoConfig, run=undo_vote, summary=undo_summary)
