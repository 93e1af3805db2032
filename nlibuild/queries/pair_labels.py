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


_COUNT_BITS = 12
"""Bits of each count in the packed row: pairs of up to 4,095 votes (ChaosNLI has 100)."""


def _packable(store: Store) -> bool:
    """Whether the counts fit the packed read and the extra labels can share one column:
    no pair holds two or more votes outside the NLI labels (which could be of two kinds)."""
    most, extra = store.conn.execute(
        "SELECT max(n_votes), max(n_votes - n_entailment - n_neutral - n_contradiction) "
        "FROM pair_labels"
    ).fetchone()
    return most is not None and most < 1 << _COUNT_BITS and extra < 2


def pair_label_table(
    store: Store, min_agree: int, include_extra: bool = False
) -> PairLabelTable | None:
    """The agreement statistics' input from `pair_labels`, or None where only the votes
    can give it exactly (extra labels rated, or a pair with several extra votes).

    Gold is the stored majority where `aggregate-labels` wrote one, else the same rule on
    the counts, as the statistics computed from votes do."""
    import numpy as np

    from nlibuild.queries.votes import majority_codes

    if include_extra or not _packable(store):
        return None  # also when there are no votes: the votes' reader says what to do
    # One integer a pair: the four counts, then the author's and the gold's code (3 bits
    # each), so that SQLite writes one number a row and numpy parses one column.
    author = _CODE.format(column="author_label")
    gold = f"CASE WHEN gold IS NULL THEN -2 ELSE {_CODE.format(column='gold')} END"
    packed_counts = "n_votes"
    for count in ("n_entailment", "n_neutral", "n_contradiction"):
        packed_counts = f"({packed_counts}) * {1 << _COUNT_BITS} + {count}"
    pks, packed = store.int_columns(
        f"SELECT group_concat(pair_pk), group_concat((({packed_counts}) * 8 + {author} + 1) "
        f"* 8 + {gold} + 2) FROM pair_labels"  # a rowid table: read in pair key order
    )
    gold_codes = packed % 8 - 2
    author_codes = packed // 8 % 8 - 1
    counts = np.empty((len(pks), 4), dtype=np.int64)
    rest = packed // 64
    for index in (2, 1, 0):
        counts[:, index] = rest % (1 << _COUNT_BITS)
        rest //= 1 << _COUNT_BITS
    counts[:, 3] = rest - counts[:, :3].sum(axis=1)  # every vote outside the NLI labels
    computed = majority_codes(counts, min_agree)
    gold_codes = np.where(gold_codes == -2, computed, gold_codes)
    return PairLabelTable(pks, VoteTable(counts, author_codes, gold_codes, EXTRA))
