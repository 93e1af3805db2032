"""Read paths over stored gold labels (which gold a reader takes is `labels.GoldRule`).

The majority gold lies on `pair_labels` and every other method's in `gold_rows` (schema 9);
the view `gold` shows them together, but a scan or a join through a view of a union costs
about twice a scan of the table itself, so the hot path reads each where it lies.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from nlibuild.core.registry import AGGREGATE_LABELS
from nlibuild.labelling.labels import MAJORITY
from nlibuild.models import NLI_LABELS, NO_GOLD
from nlibuild.store import LAST_VOTE_RUN, Store


def _gold_of(method: str) -> tuple[str, tuple[str, ...]]:
    """A subquery of (pair_pk, label, n_votes) for one method, and its parameters."""
    if method == MAJORITY:
        return (
            "(SELECT pair_pk, gold AS label, n_votes FROM pair_labels WHERE gold IS NOT NULL)",
            (),
        )
    return "(SELECT pair_pk, label, n_votes FROM gold_rows WHERE method = ?)", (method,)


def gold_run(store: Store, method: str) -> tuple[int, dict[str, Any]] | None:
    """The run that wrote the gold rows of `method` (all of them: each run replaces
    them) and its config, or None when there are none."""
    row = store.conn.execute(
        "SELECT r.id, r.config_json FROM runs r "
        "WHERE r.id = (SELECT run_id FROM gold WHERE method = ? LIMIT 1)",
        (method,),
    ).fetchone()
    return (int(row[0]), orjson.loads(row[1])) if row else None


def latest_aggregate_rule(store: Store) -> tuple[int, int | float] | None:
    """The newest `aggregate-labels` run that finished and the `min_agree` it applied (a
    count, or a share: JSON keeps 3 and 0.6 apart), or None when no run has."""
    row = store.conn.execute(
        "SELECT id, json_extract(config_json, '$.min_agree') FROM runs "
        "WHERE stage = ? AND status = 'ok' "
        "AND json_extract(config_json, '$.min_agree') IS NOT NULL ORDER BY id DESC LIMIT 1",
        (AGGREGATE_LABELS.name,),
    ).fetchone()
    return (int(row[0]), row[1]) if row else None


def gold_disagreements(store: Store, method: str, other: str) -> int:
    """Pairs whose gold of `method` differs from their gold of `other` (both present)."""
    first, first_params = _gold_of(method)
    second, second_params = _gold_of(other)
    row = store.conn.execute(
        f"SELECT count(*) FROM {first} a JOIN {second} b ON b.pair_pk = a.pair_pk "
        "WHERE a.label <> b.label",
        (*first_params, *second_params),
    ).fetchone()
    return int(row[0])


class MajoritySummary(NamedTuple):
    """The majority gold: pairs per label (NLI labels and `-`), and how many are validated
    (2+ votes)."""

    by_label: dict[str, int]
    validated: int


def majority_summary(store: Store) -> MajoritySummary:
    """The majority gold's summary in one scan of `pair_labels`, without GROUP BY: the
    labels are known, and summing each is twice as fast as sorting a million rows."""
    labels = [*NLI_LABELS, NO_GOLD]
    sums = ", ".join(f"ifnull(sum(gold = ?{n}), 0)" for n in range(1, len(labels) + 1))
    row = store.conn.execute(
        f"SELECT {sums}, ifnull(sum(gold IS NOT NULL AND n_votes > 1), 0) FROM pair_labels",
        labels,
    ).fetchone()
    return MajoritySummary(dict(zip(labels, row[:-1], strict=True)), int(row[-1]))


def gold_label_counts(store: Store) -> list[tuple[str, str, int]]:
    """(method, label, pairs) for every gold method and label present."""
    return store.conn.execute(
        "SELECT method, label, count(*) FROM gold GROUP BY method, label"
    ).fetchall()


def latest_vote_run(store: Store) -> int:
    """The newest run that added votes (0 without votes): kept in the store's meta by
    every write of votes, else (a store from before it was kept) the newest vote's run."""
    kept = store.meta().get(LAST_VOTE_RUN)
    if kept is not None:
        return int(kept)
    row = store.conn.execute("SELECT max(run_id) FROM votes").fetchone()
    return int(row[0] or 0)


class ValidatedVotes(NamedTuple):
    """The validated pairs (2+ votes) as the majority rule saw them: how many pairs have
    each number of votes, the most votes one NLI label has on any of them, and how many
    got an NLI label as gold."""

    pairs_by_votes: dict[int, int]
    most_agreeing: int
    with_gold: int


def validated_votes(store: Store) -> ValidatedVotes:
    """`ValidatedVotes` in one scan of `pair_labels` (a few distinct vote counts)."""
    rows = store.conn.execute(
        "SELECT n_votes, count(*), max(max(n_entailment, n_neutral, n_contradiction)), "
        f"sum(gold IS NOT NULL AND gold <> '{NO_GOLD}') FROM pair_labels WHERE n_votes > 1 "
        "GROUP BY n_votes"
    ).fetchall()
    return ValidatedVotes(
        {int(row[0]): int(row[1]) for row in rows},
        max((int(row[2]) for row in rows), default=0),
        sum(int(row[3]) for row in rows),
    )
