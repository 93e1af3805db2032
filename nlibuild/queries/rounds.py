"""Reads of adversarial rounds (issue 29; ANLI, Nie et al. 2020): the pairs written with a
model in the loop (`model_predictions`), by the round of their batch (`batches.round`), and
the accuracy a score job's checkpoint got on each round's test pairs (its `round` slice)."""

from __future__ import annotations

from typing import NamedTuple

from nlibuild.labelling.labels import GOLD
from nlibuild.queries.gold_sql import gold_sql
from nlibuild.store import Store

_VALIDATED = "EXISTS (SELECT 1 FROM votes v WHERE v.pair_pk = p.pk AND v.position >= 1)"
"""A validator voted on the pair (position 0 is its writer's own label)."""

_FOOLED = "mp.label <> p.author_label"
"""ANLI's "fooled the model": the model's label differs from the writer's intended one."""


class LoopKey(NamedTuple):
    round: int | None
    protocol: str | None
    writer: str | None
    model: str


class LoopGroup(NamedTuple):
    """The pairs of one round, protocol, writer and model with what the model said."""

    round: int | None
    protocol: str | None
    writer: str | None
    model: str
    pairs: int
    fooled: int
    verified: int
    """Fooled, validated, and the gold (`labels.GOLD`) is the writer's label: ANLI's
    verified model error."""
    fooled_unvalidated: int
    first_run: int
    """The earliest run that wrote one of these pairs: the model existed before it."""


def has_model_predictions(store: Store) -> bool:
    return store.conn.execute("SELECT 1 FROM model_predictions LIMIT 1").fetchone() is not None


def loop_groups(store: Store, round_number: int | None = None) -> list[LoopGroup]:
    """Per round, protocol, writer and model, the pairs the model predicted and what came of
    it (of round `round_number` alone, when given), in that order (no round last)."""
    where = "" if round_number is None else "WHERE b.round = :round "
    fooled = _FOOLED
    verified = f"{fooled} AND {_VALIDATED} AND {gold_sql(GOLD)} = p.author_label"
    return [
        LoopGroup(*row)
        for row in store.conn.execute(
            "SELECT b.round, p.protocol, a.id, mp.model, count(*), "
            f"sum({fooled}), sum({verified}), sum({fooled} AND NOT {_VALIDATED}), "
            "min(p.run_id) "
            "FROM model_predictions mp JOIN pairs p ON p.pk = mp.pair_pk "
            "LEFT JOIN batches b ON b.pk = p.batch_pk "
            "LEFT JOIN annotators a ON a.pk = p.author_pk "
            f"{where}GROUP BY b.round, p.protocol, a.id, mp.model "
            "ORDER BY b.round IS NULL, b.round, p.protocol, a.id, mp.model",
            {"round": round_number},
        )
    ]


def loop_tries(store: Store, round_number: int | None = None) -> dict[LoopKey, int]:
    """Per round, protocol, writer and model, every model check writers made of a
    hypothesis before submitting (`model_tries`, kept once the premise is answered: also of
    premises answered as unusable, and of fields left empty), of round `round_number` alone
    when given: ANLI's tries."""
    where = "" if round_number is None else "WHERE b.round = :round "
    return {
        LoopKey(*row[:4]): row[4]
        for row in store.conn.execute(
            "SELECT b.round, b.protocol, a.id, t.model, count(*) FROM model_tries t "
            "JOIN batches b ON b.pk = t.batch_pk JOIN annotators a ON a.pk = b.annotator_pk "
            f"{where}GROUP BY b.round, b.protocol, a.id, t.model",
            {"round": round_number},
        )
    }


def fooled_waiting(store: Store, round_number: int | None = None) -> list[str]:
    """IDs of the pairs that fooled the model (of round `round_number` alone, when given)
    that no validator has voted on and no relabelling batch holds: what ANLI sends to
    validators, in ID order."""
    where = "" if round_number is None else "AND b.round = :round "
    return [
        row[0]
        for row in store.conn.execute(
            "SELECT p.id FROM model_predictions mp JOIN pairs p ON p.pk = mp.pair_pk "
            "LEFT JOIN batches b ON b.pk = p.batch_pk "
            f"WHERE {_FOOLED} AND NOT {_VALIDATED} {where}"
            "AND NOT EXISTS (SELECT 1 FROM assignments s JOIN batches r ON r.pk = s.batch_pk "
            "                WHERE r.kind = 'relabel' AND s.item_id = p.id) "
            "ORDER BY p.id",
            {"round": round_number},
        )
    ]


def round_test_pairs(store: Store) -> dict[int, int]:
    """Round -> how many of its pairs are in the test split now."""
    return dict(
        store.conn.execute(
            "SELECT b.round, count(*) FROM splits s JOIN pairs p ON p.pk = s.pair_pk "
            "JOIN batches b ON b.pk = p.batch_pk "
            "WHERE s.split = 'test' AND b.round IS NOT NULL GROUP BY b.round"
        )
    )


class RoundAccuracy(NamedTuple):
    correct: int
    total: int


def checkpoint_of_job(
    store: Store, job_name: str, step: int, before_run: int
) -> tuple[int, int] | None:
    """(job key, checkpoint index) of the newest score job called `job_name`, recorded by a
    run before `before_run`, that kept a checkpoint at optimiser step `step`, if any. A job's
    name repeats (the next round's model is trained from the same folder, mode and seed): the
    model a pair was written against is the newest such job of the time it was written."""
    row = store.conn.execute(
        "SELECT j.pk, c.idx FROM score_jobs j JOIN score_checkpoints c ON c.job_pk = j.pk "
        "WHERE j.name = ? AND c.step = ? AND j.run_id < ? ORDER BY j.pk DESC, c.idx DESC "
        "LIMIT 1",
        (job_name, step, before_run),
    ).fetchone()
    return (row[0], row[1]) if row else None


def round_test_accuracy(store: Store, job_pk: int, idx: int, lang: str) -> dict[int, RoundAccuracy]:
    """Round -> the checkpoint's correct and total test pairs of that round, in `lang` (the
    pairs' own language; a translation of them is another evaluation)."""
    return {
        int(value): RoundAccuracy(correct, total)
        for value, correct, total in store.conn.execute(
            "SELECT value, sum(correct), sum(total) FROM score_accuracy "
            "WHERE job_pk = ? AND idx = ? AND lang = ? AND split = 'test' AND slice = 'round' "
            "GROUP BY value",
            (job_pk, idx, lang),
        )
    }
