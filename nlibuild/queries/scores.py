"""Read paths for scoring: the pairs of the splits with what a job and its slices need,
and the score jobs and checkpoints already stored."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

import orjson

from nlibuild.labelling.labels import GOLD
from nlibuild.queries.gold_sql import gold_sql
from nlibuild.store import Store


class SplitPair(NamedTuple):
    """A pair of the train, dev or test split, with its gold (`labels.GOLD`) and slices."""

    pk: int
    id: str
    premise_id: str
    lang: str
    split: str
    premise: str
    hypothesis: str
    gold: str | None
    genre: str | None
    protocol: str | None
    level: str | None
    relabelled: bool  # votes beyond its author's (OCNLI's relabelled subset)
    round: int | None = None  # the adversarial round of its batch (`elicit create --round`)


def split_pairs(store: Store) -> list[SplitPair]:
    """Every pair that has a split, in the order of its public ID."""
    return [
        SplitPair(
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], bool(r[11]), r[12]
        )
        for r in store.conn.execute(
            "SELECT p.pk, p.id, pr.id, p.lang, s.split, pr.text, p.hypothesis, "
            f"{gold_sql(GOLD)}, pr.genre, p.protocol, p.level, "
            "EXISTS (SELECT 1 FROM votes v WHERE v.pair_pk = p.pk AND v.position >= 1), "
            "b.round "
            "FROM splits s JOIN pairs p ON p.pk = s.pair_pk "
            "JOIN premises pr ON pr.pk = p.premise_pk "
            "LEFT JOIN batches b ON b.pk = p.batch_pk ORDER BY p.id"
        )
    ]


def translated_langs(store: Store, kind: str) -> list[str]:
    """The languages the store has translations of `kind` of the pairs' own texts into."""
    return [
        r[0]
        for r in store.conn.execute(
            "SELECT DISTINCT lang FROM translations WHERE kind = ? AND source_lang = '' "
            "ORDER BY lang",
            (kind,),
        )
    ]


def pair_keys(store: Store, ids: Iterable[str]) -> dict[str, int]:
    """Public pair ID -> key, for those of `ids` the store holds."""
    return dict(
        store.conn.execute(
            "SELECT p.id, p.pk FROM json_each(?) j JOIN pairs p ON p.id = j.value",
            (orjson.dumps(sorted(set(ids))).decode(),),
        )
    )


class StoredJob(NamedTuple):
    pk: int
    run_id: int
    name: str
    mode: str
    seed: int
    finished: bool


def job_in_run(store: Store, run_id: int, name: str) -> StoredJob | None:
    row = store.conn.execute(
        "SELECT pk, run_id, name, mode, seed, finished FROM score_jobs "
        "WHERE run_id = ? AND name = ?",
        (run_id, name),
    ).fetchone()
    return StoredJob(row[0], row[1], row[2], row[3], row[4], bool(row[5])) if row else None


def job_of_folder(store: Store, folder: str) -> StoredJob | None:
    """The job stored from `folder` (a resolved path) by an earlier run, if any."""
    row = store.conn.execute(
        "SELECT pk, run_id, name, mode, seed, finished FROM score_jobs "
        "WHERE folder = ? ORDER BY pk LIMIT 1",
        (folder,),
    ).fetchone()
    return StoredJob(row[0], row[1], row[2], row[3], row[4], bool(row[5])) if row else None


def checkpoint_indexes(store: Store, job_pk: int) -> set[int]:
    return {
        r[0]
        for r in store.conn.execute("SELECT idx FROM score_checkpoints WHERE job_pk = ?", (job_pk,))
    }


def last_accuracy(store: Store, job_pk: int) -> dict[str, float]:
    """ "<lang>/<split>" -> accuracy over all rows at the job's last stored checkpoint."""
    return {
        f"{lang}/{split}": correct / total
        for lang, split, correct, total in store.conn.execute(
            "SELECT lang, split, correct, total FROM score_accuracy WHERE job_pk = :job "
            "AND slice = 'all' AND total > 0 AND idx = "
            "(SELECT max(idx) FROM score_checkpoints WHERE job_pk = :job) ORDER BY lang, split",
            {"job": job_pk},
        )
    }


def corpus_texts(store: Store) -> Iterator[str]:
    """Every text of the corpus: premises, hypotheses and translations (a tokenizer's
    training data for `score tiny-model`)."""
    for table, column in (("premises", "text"), ("pairs", "hypothesis"), ("translations", "text")):
        for (text,) in store.conn.execute(f"SELECT {column} FROM {table}"):
            yield text
