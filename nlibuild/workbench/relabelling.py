"""The relabel page's library: a validator's batches, their items blind, and their votes.

Blind, as the papers' validation was (MNLI, XNLI, OCNLI: validators saw the premise and
the hypothesis only): an item holds the two sentences, its language and genre, and the
validator's own vote; never the pair's author, its intended label or anyone else's vote.
A pair the validator wrote is never among their items, nor can they vote on it.

A vote is recorded by `relabel import`'s own logic (`stages.relabel_import.run_votes`)
with an in-memory vote and the seconds spent on the item (stored in `vote_times`): a run
of `relabel-import`, as a file's would be, though not through `invoke`, whose settings
name a file to read. The same label again changes nothing. A vote is changed by undoing
it first (`undo_vote`: the stage `relabel-undo` through `invoke`, a run of its own that
removes the vote and reopens the item), then voting again: the import keeps a person's
first vote and refuses a different second one, and the page's undo is the explicit way to
take one back.
"""

from __future__ import annotations

import math

from nlibuild.errors import ConflictError, NotFoundError, SubmissionRefused
from nlibuild.formats.platforms.base import RawVote, VoteFile
from nlibuild.invoke import invoke
from nlibuild.labelling.label_names import shown_name
from nlibuild.models import (
    DEFAULT_MAX_SECONDS_PER_ITEM,
    LabelChoice,
    PlatformFormat,
    RelabelImportConfig,
    RelabelItem,
    RelabelPage,
    VoteResult,
    WorkBatch,
)
from nlibuild.options import store_label_names
from nlibuild.protocol.batches import RELABEL_BATCH
from nlibuild.queries.batches import BatchRow, batch_of_annotator, batches_of_annotator
from nlibuild.queries.meta import store_labels
from nlibuild.queries.workbench_work import (
    OwnPair,
    own_pair_at,
    own_pair_numbered,
    own_pair_of_id,
    own_pairs,
)
from nlibuild.stages.relabel_import import UNDO_STAGE, run_votes
from nlibuild.store import Store
from nlibuild.workbench.feedback import WORKBENCH_PATH, WORKBENCH_SOURCE


def validator_batches(store: Store, annotator_id: str) -> list[WorkBatch]:
    """The validator's own relabelling batches, with how many pairs are still open."""
    return [
        WorkBatch(id=b.id, kind=b.kind, protocol=None, lang=b.lang, items=b.items, open=b.open)
        for b in batches_of_annotator(store, annotator_id, RELABEL_BATCH)
    ]


def label_choices(store: Store) -> list[LabelChoice]:
    """The store's labels, then its extra labels, with the names people read and the keys
    1..n that choose them."""
    names = store_label_names(store)
    return [
        LabelChoice(label=label, name=shown_name(label, names), key=str(key))
        for key, label in enumerate(store_labels(store), 1)
    ]


def _validators_batch(store: Store, annotator_id: str, batch_id: str) -> BatchRow:
    batch = batch_of_annotator(store, annotator_id, RELABEL_BATCH, batch_id)
    if batch is None:
        raise NotFoundError(f"no relabelling batch {batch_id!r} of {annotator_id}")
    return batch


def relabel_items(store: Store, annotator_id: str, batch_id: str) -> RelabelPage:
    """The batch's pairs in order, blind (see the module docstring); NotFound when the
    batch is not this validator's."""
    batch = _validators_batch(store, annotator_id, batch_id)
    return RelabelPage(
        batch=batch.id,
        lang=batch.lang,
        labels=label_choices(store),
        items=[_item(pair) for pair in own_pairs(store, annotator_id, batch.pk)],
    )


def _item(pair: OwnPair) -> RelabelItem:
    return RelabelItem(
        pair_id=pair.id,
        position=pair.position,
        lang=pair.lang,
        genre=pair.genre,
        premise=pair.premise,
        hypothesis=pair.hypothesis,
        own_vote=pair.own_vote,
    )


def _own_pair(store: Store, annotator_id: str, batch_id: str, pair_id: str) -> OwnPair:
    batch = _validators_batch(store, annotator_id, batch_id)
    pair = own_pair_of_id(store, annotator_id, batch.pk, pair_id)
    if pair is None:
        raise NotFoundError(f"no pair {pair_id!r} in batch {batch_id} of {annotator_id}")
    return pair


def pair_at_position(store: Store, annotator_id: str, batch_id: str, position: int) -> str:
    """The ID of the pair at assignment `position` of the validator's batch (the JSON
    route's `position`); NotFound for a position not theirs to see."""
    batch = _validators_batch(store, annotator_id, batch_id)
    pair = own_pair_at(store, annotator_id, batch.pk, position)
    if pair is None:
        raise NotFoundError(f"there is no item {position} in batch {batch_id}")
    return pair.id


def pair_numbered(store: Store, annotator_id: str, batch_id: str, number: int) -> str:
    """The ID of the `number`-th item of the batch as `relabel_items` lists it (the page's
    "Item 12 of 40"); NotFound when there is none."""
    batch = _validators_batch(store, annotator_id, batch_id)
    pair = own_pair_numbered(store, annotator_id, batch.pk, number)
    if pair is None:
        raise NotFoundError(f"batch {batch_id} has no item {number}")
    return pair.id


def capped_seconds(given: object, max_seconds: float) -> float | None:
    """The seconds a browser says were spent on an item, at most `max_seconds` (a page left
    open over a break is not time spent labelling); None for anything not a time."""
    if isinstance(given, bool) or not isinstance(given, int | float):
        return None
    if not math.isfinite(given) or given < 0:
        return None
    return min(float(given), max_seconds)


def record_vote(
    store: Store,
    annotator_id: str,
    batch_id: str,
    pair_id: str,
    label: str,
    seconds_spent: float | None = None,
    *,
    max_seconds: float = DEFAULT_MAX_SECONDS_PER_ITEM,
) -> VoteResult:
    """Record the validator's label for a pair of their batch, with the seconds spent on it,
    as `relabel import` records a vote. The same label again changes nothing; another label
    for a pair they voted on is a conflict until they undo the vote. The seconds are capped
    here, for every route alike, at `max_seconds` (the server passes its
    `ServeConfig.max_seconds_per_item`); a negative or non-finite time is recorded as none."""
    pair = _own_pair(store, annotator_id, batch_id, pair_id)
    labels = store_labels(store)
    if label not in labels:
        raise SubmissionRefused(f"label {label!r} is not one of {', '.join(labels)}")
    if pair.own_vote is not None:
        if pair.own_vote == label:
            return VoteResult(run_id=None, unchanged=True, label=label)
        raise ConflictError(
            f"{annotator_id} labelled {pair_id} {pair.own_vote}; undo that vote to change it"
        )
    vote = RawVote(
        where=f"{WORKBENCH_SOURCE}, batch {batch_id}, pair {pair_id}",
        line=None,
        worker=None,  # the batch's annotator, as a file without an annotator column says
        batch=batch_id,
        pair_id=pair_id,
        label=label,
        seconds=capped_seconds(seconds_spent, max_seconds),
    )
    cfg = RelabelImportConfig(
        path=WORKBENCH_PATH, format=PlatformFormat.JSONL, source=WORKBENCH_SOURCE
    )
    result = run_votes(store, cfg, VoteFile([vote]))
    return VoteResult(run_id=result.run_id, unchanged=result.added == 0, label=label)


def undo_vote(store: Store, annotator_id: str, batch_id: str, pair_id: str) -> str | None:
    """Take back the validator's vote on a pair of their batch: the label taken back (the
    page says which), None when there was no vote to take back."""
    pair = _own_pair(store, annotator_id, batch_id, pair_id)
    outcome = invoke(UNDO_STAGE, store, annotator=annotator_id, batch=batch_id, pair=pair_id)
    return pair.own_vote if outcome.result is not None else None
