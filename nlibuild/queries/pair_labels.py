"""Per-pair label counts, author label and gold, read from `pair_labels` (schema 9).

The agreement statistics need, per pair with votes, how many votes each label got, which
label the author gave and the gold label: one narrow row a pair, instead of every vote. The
counts keep the three NLI labels apart and every extra label (OCNLI's `unrelated`,
`unknown`) in one column, which is exact for every statistic that rates the NLI labels
only, as long as no pair holds two votes outside them (one of which could be of another
extra label); `pair_label_table` says so by returning None, and the caller reads the votes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from nlibuild.agreement import VoteTable
from nlibuild.models import NLI_LABELS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from nlibuild.store import Store

EXTRA = len(NLI_LABELS)
"""The count column (and author code) of every label outside the NLI three."""

_CODE = (
    "CASE {column} WHEN 'entailment' THEN 0 WHEN 'neutral' THEN 1 "
    "WHEN 'contradiction' THEN 2 WHEN '-' THEN -1 ELSE "
    "CASE WHEN {column} IS NULL THEN -1 ELSE 3 END END"
)


@dataclass
class PairLabelTable:
    """Pairs with votes, in key order, and their `VoteTable`."""

    pair_pks: NDArray[np.int64]
    table: VoteTable


def merged_extras_are_exact(store: Store) -> bool:
    """Whether no pair holds two or more votes outside the NLI labels."""
    row = store.conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pair_labels "
        "WHERE n_votes - n_entailment - n_neutral - n_contradiction >= 2)"
    ).fetchone()
    return not row[0]


def pair_label_table(
    store: Store, min_agree: int, include_extra: bool = False
) -> PairLabelTable | None:
    """The agreement statistics' input from `pair_labels`, or None where only the votes
    can give it exactly (extra labels rated, or a pair with several extra votes).

    Gold is the stored majority where `aggregate-labels` wrote one, else the same rule on
    the counts, as the statistics computed from votes do."""
    import numpy as np

    from nlibuild.queries.votes import majority_codes

    if include_extra or not merged_extras_are_exact(store):
        return None
    pks, total, entailment, neutral, contradiction, author, gold = store.int_columns(
        "SELECT group_concat(pair_pk), group_concat(n_votes), group_concat(n_entailment), "
        "group_concat(n_neutral), group_concat(n_contradiction), "
        f"group_concat({_CODE.format(column='author_label')}), "
        f"group_concat(ifnull({_CODE.format(column='gold')}, -2)) "
        "FROM (SELECT * FROM pair_labels ORDER BY pair_pk)"
    )
    if not len(pks):
        return None  # no votes: the votes' reader says what to do
    extra = total - entailment - neutral - contradiction
    counts = np.stack([entailment, neutral, contradiction, extra], axis=1)
    computed = majority_codes(counts, min_agree)
    gold = np.where(gold == -2, computed, gold)
    return PairLabelTable(pks, VoteTable(counts, author, gold, EXTRA))
