"""Read paths over train/dev/test splits and what `nlibuild split` decides on."""

from __future__ import annotations

from typing import NamedTuple

from nlibuild.labelling.labels import GOLD_OR_AUTHOR, MAJORITY
from nlibuild.models import NLI_LABELS
from nlibuild.queries.gold_sql import gold_sql
from nlibuild.store import Store


class SplitCandidate(NamedTuple):
    """What `nlibuild split` reads of a pair."""

    pk: int
    id: str
    premise_pk: int
    premise_id: str
    protocol: str | None
    level: str | None
    validated: bool
    labelled: bool
    round: int | None  # the adversarial round of its batch (`elicit create --round`)


def split_candidates(store: Store) -> list[SplitCandidate]:
    """Every pair, in pair order, with what `split` decides on. Validated: a
    validator's vote (position >= 1) and a majority gold label that is not `-`;
    labelled: a label by `labels.GOLD_OR_AUTHOR` other than `-`."""
    return [
        SplitCandidate(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7] in NLI_LABELS, r[8])
        for r in store.conn.execute(
            "SELECT p.pk, p.id, p.premise_pk, pr.id, p.protocol, p.level, "
            "EXISTS (SELECT 1 FROM votes v WHERE v.pair_pk = p.pk AND v.position >= 1) "
            "AND EXISTS (SELECT 1 FROM gold g WHERE g.pair_pk = p.pk "
            "            AND g.method = :majority AND g.label <> '-'), "
            f"{gold_sql(GOLD_OR_AUTHOR)}, b.round "
            "FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
            "LEFT JOIN batches b ON b.pk = p.batch_pk ORDER BY p.pk",
            {"majority": MAJORITY},
        )
    ]


def pairs_per_split(store: Store) -> dict[str, int]:
    """Pairs per split (empty before `nlibuild split`)."""
    return dict(store.conn.execute("SELECT split, count(*) FROM splits GROUP BY split"))


class SplitsOfRun(NamedTuple):
    """The pairs one run put into splits (an earlier `split`, or an `import --split`)."""

    run_id: int
    stage: str
    pairs: int


def splits_by_run(store: Store) -> list[SplitsOfRun]:
    """How many pairs each run put into a split, by run ID (empty before any split)."""
    return [
        SplitsOfRun(r[0], r[1], r[2])
        for r in store.conn.execute(
            "SELECT s.run_id, r.stage, count(*) FROM splits s JOIN runs r ON r.id = s.run_id "
            "GROUP BY s.run_id ORDER BY s.run_id"
        )
    ]


def split_of_pairs(store: Store) -> dict[int, str]:
    """Pair key -> its split, for every pair in one (empty before `nlibuild split`)."""
    return dict(store.conn.execute("SELECT pair_pk, split FROM splits"))


def pair_keys_in_split(store: Store, split: str) -> set[int]:
    """Keys of the pairs of one split (empty before `nlibuild split`)."""
    return {
        r[0] for r in store.conn.execute("SELECT pair_pk FROM splits WHERE split = ?", (split,))
    }


def premises_in_several_splits(store: Store) -> list[str]:
    """IDs of premises whose pairs are in more than one split (a leak)."""
    return [
        r[0]
        for r in store.conn.execute(
            "SELECT pr.id FROM splits s JOIN pairs p ON p.pk = s.pair_pk "
            "JOIN premises pr ON pr.pk = p.premise_pk GROUP BY pr.pk "
            "HAVING count(DISTINCT s.split) > 1 ORDER BY pr.id"
        )
    ]
