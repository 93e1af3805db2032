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

from nlibuild.core.registry import AGGREGATE_LABELS, CHECK_REPAIR
from nlibuild.labelling.agreement import VoteTable
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
    store: Store, min_agree: int | float, include_extra: bool = False
) -> PairLabelTable | None:
    """The agreement statistics' input from `pair_labels`, or None where only the votes
    can give it exactly (extra labels rated, or a pair with several extra votes).

    Gold is the stored majority where `aggregate-labels` wrote one, else the same rule on
    the counts, as the statistics computed from votes do."""
    import numpy as np

    from nlibuild.labelling.labels import majority_codes

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


# --- `nlibuild check`: pair_labels and the majority gold recomputed from the votes ---------

COUNTS_DIFFER = "counts"
"""A pair whose `pair_labels` counts or author label differ from its votes."""
ROW_MISSING = "missing"
"""A pair with votes and no `pair_labels` row."""
ROW_WITHOUT_VOTES = "extra"
"""A `pair_labels` row of a pair without votes."""
GOLD_STALE = "gold-stale"
"""A pair whose majority gold differs from the rule, after votes came in since it was written."""
GOLD_DIFFERS = "gold-differs"
"""A pair whose majority gold differs from the rule on the very votes it was computed from."""
GOLD_MISSING = "gold-missing"
"""A pair without majority gold although `aggregate-labels` ran after its last vote: its row
was lost and restored (`check --repair` writes counts, never gold)."""


def _differences_sql() -> str:
    """Every pair where the hot path disagrees with its source rows: (kind, pair_pk).

    The counts come from the votes through `PAIR_LABEL_COUNTS`, the definition every
    writer of `pair_labels` uses, and the gold through `majority_gold_case` with the
    `min_agree` of the run that wrote it, so the check applies the same rules and not a copy.
    A pair's gold is stale when one of its votes came from a run later than that one (votes
    are only ever added, by runs with higher IDs). A row without gold is only wrong once
    `aggregate-labels` has run: a store never aggregated has none anywhere. Whether it ran
    is read from `runs`, not from the rows' `gold_run_id`, which a store whose every row was
    lost and restored no longer holds.
    """
    from nlibuild.models import AggregateConfig
    from nlibuild.queries.gold_sql import majority_gold_case
    from nlibuild.store import PAIR_LABEL_COUNTS

    default_min_agree = AggregateConfig.model_fields["min_agree"].default
    columns = "n_votes, n_entailment, n_neutral, n_contradiction, author_label"
    recomputed = majority_gold_case(f"coalesce(g.min_agree, {int(default_min_agree)})")
    return (
        f"WITH counted(pair_pk, {columns}, last_vote_run) AS MATERIALIZED "
        f"(SELECT {PAIR_LABEL_COUNTS}, max(run_id) FROM votes GROUP BY pair_pk), "
        "gold_runs(run_id, min_agree) AS (SELECT id, json_extract(config_json, '$.min_agree') "
        "FROM runs WHERE id IN (SELECT gold_run_id FROM pair_labels)), "
        "latest(run_id) AS (SELECT max(id) FROM runs "
        f"WHERE stage = '{AGGREGATE_LABELS.name}' AND status = 'ok') "
        # 1. counts and author label
        f"SELECT '{COUNTS_DIFFER}' AS kind, c.pair_pk AS pair_pk FROM counted c "
        "JOIN pair_labels l ON l.pair_pk = c.pair_pk "
        f"WHERE (l.n_votes, l.n_entailment, l.n_neutral, l.n_contradiction, l.author_label) "
        "IS NOT (c.n_votes, c.n_entailment, c.n_neutral, c.n_contradiction, c.author_label) "
        # 2. rows missing, rows without votes
        f"UNION ALL SELECT '{ROW_MISSING}', pair_pk FROM counted "
        "WHERE pair_pk NOT IN (SELECT pair_pk FROM pair_labels) "
        f"UNION ALL SELECT '{ROW_WITHOUT_VOTES}', pair_pk FROM pair_labels l "
        "WHERE NOT EXISTS (SELECT 1 FROM votes v WHERE v.pair_pk = l.pair_pk) "
        # 3. the stored gold against the rule (x keeps the count columns unambiguous)
        "UNION ALL SELECT CASE WHEN x.last_vote_run > coalesce(x.gold_run_id, "
        f"(SELECT run_id FROM latest), 0) THEN '{GOLD_STALE}' "
        f"WHEN x.gold IS NULL THEN '{GOLD_MISSING}' ELSE '{GOLD_DIFFERS}' END, "
        "x.pair_pk FROM (SELECT c.*, l.gold, l.gold_run_id FROM counted c "
        "JOIN pair_labels l ON l.pair_pk = c.pair_pk) x "
        "LEFT JOIN gold_runs g ON g.run_id = x.gold_run_id "
        "WHERE (SELECT run_id FROM latest) IS NOT NULL "
        f"AND x.gold IS NOT ({recomputed})"
    )


def pair_label_differences(store: Store) -> list[tuple[str, int, str]]:
    """(kind, pair_pk, public pair ID) of every difference `nlibuild check` reports, by
    kind and pair key; a row whose pair is gone shows its key as `#pk`."""
    rows = store.conn.execute(
        f"SELECT d.kind, d.pair_pk, coalesce(p.id, '#' || d.pair_pk) "
        f"FROM ({_differences_sql()}) d "
        "LEFT JOIN pairs p ON p.pk = d.pair_pk ORDER BY d.kind, d.pair_pk"
    ).fetchall()
    return [(str(kind), int(pk), str(pair_id)) for kind, pk, pair_id in rows]


def pair_label_row_count(store: Store) -> int:
    """Rows of `pair_labels`: pairs with votes, as the hot path knows them."""
    return int(store.conn.execute("SELECT count(*) FROM pair_labels").fetchone()[0])


def latest_check_repair_run(store: Store) -> int:
    """The newest `check --repair` run that finished (0 without one): the gold written
    before it may rest on the counts it repaired, so `aggregate-labels` computes it again."""
    row = store.conn.execute(
        "SELECT max(id) FROM runs WHERE stage = ? AND status = 'ok'", (CHECK_REPAIR.name,)
    ).fetchone()
    return int(row[0] or 0)
