"""The store's votes as arrays, for the label aggregation and the agreement statistics:
per vote its pair, annotator, position and label code; per pair with votes its label
counts, the author's label and the gold label (the stored majority, else the same rule
computed here)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nlibuild.errors import ConfigError
from nlibuild.labelling.agreement import VoteTable
from nlibuild.labelling.labels import majority_codes
from nlibuild.models import NLI_LABELS
from nlibuild.store import Store, VoteArrays


def _label_values(store: Store) -> list[str]:
    """NLI labels first, then the extra values the store declares or its votes hold."""
    declared = [e for e in store.meta().get("extra_labels", "").split(",") if e]
    extras = sorted((set(declared) | set(store.vote_labels())) - set(NLI_LABELS))
    return [*NLI_LABELS, *extras]


@dataclass
class VotesByPair:
    """Every vote (arrays in pair order) and, per pair with votes, its label counts, the
    author's label and the gold label (indexes into `values`; -1 for none or `-`)."""

    values: list[str]
    votes: VoteArrays
    items: NDArray[np.int64]  # per vote: the index of its pair among `pair_pks`
    pair_pks: NDArray[np.int64]
    table: VoteTable


def read_votes(store: Store, min_agree: int | float = 3, annotators: bool = True) -> VotesByPair:
    """The store's votes as arrays. Gold is the stored majority (`aggregate-labels`), or
    for pairs without one the same rule computed here."""
    declared = [e for e in store.meta().get("extra_labels", "").split(",") if e]
    values = [*NLI_LABELS, *sorted(set(declared) - set(NLI_LABELS))]
    votes = store.vote_arrays(values, annotators)
    if (votes.codes < 0).any():  # a label value the store does not declare
        values = _label_values(store)
        votes = store.vote_arrays(values, annotators)
    if not len(votes.pair_pks):
        raise ConfigError("the store has no votes; import a corpus or relabel pairs first")
    new_pair = np.empty(len(votes.pair_pks), dtype=bool)
    new_pair[0] = True
    np.not_equal(votes.pair_pks[1:], votes.pair_pks[:-1], out=new_pair[1:])
    items = np.cumsum(new_pair) - 1
    pair_pks = votes.pair_pks[new_pair]
    k = len(values)
    counts = np.bincount(items * k + votes.codes, minlength=len(pair_pks) * k).reshape(-1, k)
    author = np.full(len(pair_pks), -1, dtype=np.int64)
    first = votes.positions == 0
    author[items[first]] = votes.codes[first]
    gold = majority_codes(counts, min_agree)
    gold_pks, gold_codes = store.gold_arrays("majority", values)
    if len(gold_pks):
        at = np.minimum(np.searchsorted(gold_pks, pair_pks), len(gold_pks) - 1)
        stored = gold_pks[at] == pair_pks
        gold = np.where(stored, gold_codes[at], gold)
    return VotesByPair(
        values, votes, items, pair_pks, VoteTable(counts, author, gold, len(NLI_LABELS))
    )
