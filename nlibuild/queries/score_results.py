"""Reads of the score tables (schema 10: score_jobs, score_checkpoints, score_accuracy,
score_dynamics) for `score report` and `stats --table cartography`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from nlibuild.core.registry import SCORE_IMPORT, SCORE_TRAIN
from nlibuild.errors import ConfigError
from nlibuild.labelling.labels import GOLD_OR_AUTHOR
from nlibuild.queries.gold_sql import gold_sql
from nlibuild.store import Store

MODEL_RUN_STAGES = (SCORE_TRAIN.name, SCORE_IMPORT.name)
BASELINE_RUN_STAGE = "score-baselines"

_NO_SCORES = (
    "this store holds no score run; train with `nlibuild score train` (or merge jobs with "
    "`nlibuild score import`), and add the floor with `nlibuild score baselines`"
)


@dataclass(frozen=True)
class ScoreJob:
    pk: int
    run_id: int
    name: str
    model: str
    mode: str
    seed: int
    train_langs: tuple[str, ...]
    eval_langs: tuple[str, ...]
    folder: Path
    """Resolved against the store's folder when stored relative (jobs live beside it)."""


def _has_score_tables(store: Store) -> bool:
    row = store.conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'score_jobs'"
    ).fetchone()
    return bool(row[0])


def score_run(store: Store, run_id: int | None, stages: tuple[str, ...]) -> int:
    """`run_id` when it is a run of one of `stages`, else the newest such run; an error
    naming what to do when there is none."""
    if not _has_score_tables(store):
        raise ConfigError(_NO_SCORES)
    marks = ", ".join("?" for _ in stages)
    if run_id is None:
        row = store.conn.execute(
            f"SELECT max(r.id) FROM runs r WHERE r.stage IN ({marks}) "
            "AND EXISTS (SELECT 1 FROM score_jobs j WHERE j.run_id = r.id)",
            stages,
        ).fetchone()
        if row[0] is None:
            raise ConfigError(_NO_SCORES)
        return int(row[0])
    row = store.conn.execute("SELECT stage FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None or row[0] not in stages:
        raise ConfigError(
            f"--run {run_id} is not a score run ({', '.join(stages)}); "
            "`nlibuild runs` lists the runs"
        )
    return run_id


def newest_baseline_run(store: Store) -> int | None:
    row = store.conn.execute(
        "SELECT max(id) FROM runs WHERE stage = ?", (BASELINE_RUN_STAGE,)
    ).fetchone()
    return None if row[0] is None else int(row[0])


def score_jobs(store: Store, run_id: int) -> list[ScoreJob]:
    """The jobs of a run, by name."""
    base = store.path.resolve().parent
    rows = store.conn.execute(
        "SELECT pk, run_id, name, model, mode, seed, train_langs, eval_langs, folder "
        "FROM score_jobs WHERE run_id = ? ORDER BY name",
        (run_id,),
    ).fetchall()
    return [
        ScoreJob(
            pk=pk,
            run_id=run,
            name=name,
            model=model,
            mode=mode,
            seed=seed,
            train_langs=tuple(json.loads(train)),
            eval_langs=tuple(json.loads(evals)),
            folder=base / folder,
        )
        for pk, run, name, model, mode, seed, train, evals, folder in rows
    ]


def whole_accuracy(store: Store, job_pk: int) -> list[tuple[int, str, str, int, int]]:
    """(checkpoint idx, lang, split, correct, total) of a job's whole-language rows."""
    return store.conn.execute(
        "SELECT idx, lang, split, correct, total FROM score_accuracy "
        "WHERE job_pk = ? AND slice = 'all' ORDER BY idx, lang, split",
        (job_pk,),
    ).fetchall()


def slice_accuracy(
    store: Store, job_pk: int, idx: int, lang: str, split: str
) -> list[tuple[str, str, int, int]]:
    """(slice, value, correct, total) of one checkpoint, language and split, `all` left out."""
    return store.conn.execute(
        "SELECT slice, value, correct, total FROM score_accuracy "
        "WHERE job_pk = ? AND idx = ? AND lang = ? AND split = ? AND slice != 'all' "
        "ORDER BY slice, value",
        (job_pk, idx, lang, split),
    ).fetchall()


def dynamics_run(store: Store, run_id: int | None) -> int:
    """The run whose training dynamics to read: `run_id`, else the newest run with any."""
    run = score_run(store, run_id, MODEL_RUN_STAGES)
    if run_id is None:
        row = store.conn.execute(
            "SELECT max(j.run_id) FROM score_jobs j "
            "WHERE EXISTS (SELECT 1 FROM score_dynamics d WHERE d.job_pk = j.pk)"
        ).fetchone()
        return run if row[0] is None else int(row[0])
    return run


def pair_dynamics(
    store: Store, run_id: int
) -> list[tuple[str, str | None, str, str, float, float, float, int]]:
    """Per pair with training dynamics in the run: (pair ID, gold by GOLD_OR_AUTHOR,
    premise, hypothesis, confidence, variability, correctness, jobs), the three measures
    averaged over the run's jobs (its seeds). By pair ID."""
    return store.conn.execute(
        f"SELECT p.id, {gold_sql(GOLD_OR_AUTHOR)}, pr.text, p.hypothesis, avg(d.confidence), "
        "avg(d.variability), avg(d.correctness), count(*) "
        "FROM score_dynamics d JOIN score_jobs j ON j.pk = d.job_pk "
        "JOIN pairs p ON p.pk = d.pair_pk JOIN premises pr ON pr.pk = p.premise_pk "
        "WHERE j.run_id = ? GROUP BY p.pk ORDER BY p.id",
        (run_id,),
    ).fetchall()


def jobs_with_dynamics(store: Store, run_id: int) -> int:
    row = store.conn.execute(
        "SELECT count(DISTINCT d.job_pk) FROM score_dynamics d "
        "JOIN score_jobs j ON j.pk = d.job_pk WHERE j.run_id = ?",
        (run_id,),
    ).fetchone()
    return int(row[0])
