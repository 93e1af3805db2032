"""Reads of the score tables (schema 10: score_jobs, score_checkpoints, score_accuracy,
score_dynamics) for `score report` and `stats --table cartography`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

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
    spec: str
    """The job's job.json as stored (`score_jobs.spec`, `{}` for a baseline): its training
    settings, of which `scores.score_jobs.stored_configuration` reads a sweep's configuration."""


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


_JOB_COLUMNS = "pk, run_id, name, model, mode, seed, train_langs, eval_langs, folder, spec"


def _job(store: Store, row: Sequence[Any]) -> ScoreJob:
    pk, run, name, model, mode, seed, train, evals, folder, spec = row
    return ScoreJob(
        pk=pk,
        run_id=run,
        name=name,
        model=model,
        mode=mode,
        seed=seed,
        train_langs=tuple(json.loads(train)),
        eval_langs=tuple(json.loads(evals)),
        folder=store.path.resolve().parent / folder,
        spec=spec,
    )


def score_jobs(store: Store, run_id: int) -> list[ScoreJob]:
    """The jobs of a run, by name."""
    rows = store.conn.execute(
        f"SELECT {_JOB_COLUMNS} FROM score_jobs WHERE run_id = ? ORDER BY name", (run_id,)
    ).fetchall()
    return [_job(store, row) for row in rows]


def model_jobs_named(store: Store, name: str) -> list[tuple[ScoreJob, bool]]:
    """The jobs called `name` of the model runs (score train, score import), newest run
    first, each with whether it finished."""
    if not _has_score_tables(store):
        raise ConfigError(_NO_SCORES)
    marks = ", ".join("?" for _ in MODEL_RUN_STAGES)
    rows = store.conn.execute(
        f"SELECT {', '.join('j.' + c for c in _JOB_COLUMNS.split(', '))}, j.finished "
        f"FROM score_jobs j JOIN runs r ON r.id = j.run_id "
        f"WHERE j.name = ? AND r.stage IN ({marks}) ORDER BY j.run_id DESC",
        (name, *MODEL_RUN_STAGES),
    ).fetchall()
    return [(_job(store, row[:-1]), bool(row[-1])) for row in rows]


def model_job_names(store: Store) -> list[str]:
    """The names of the model runs' jobs, as `score export-model` takes them."""
    marks = ", ".join("?" for _ in MODEL_RUN_STAGES)
    return [
        row[0]
        for row in store.conn.execute(
            f"SELECT DISTINCT j.name FROM score_jobs j JOIN runs r ON r.id = j.run_id "
            f"WHERE r.stage IN ({marks}) ORDER BY j.name",
            MODEL_RUN_STAGES,
        )
    ]


def checkpoint_step(store: Store, job_pk: int, idx: int) -> tuple[int, float]:
    """(step, epoch) of a stored checkpoint."""
    row = store.conn.execute(
        "SELECT step, epoch FROM score_checkpoints WHERE job_pk = ? AND idx = ?", (job_pk, idx)
    ).fetchone()
    return int(row[0]), float(row[1])


def whole_accuracy(store: Store, job_pk: int) -> list[tuple[int, str, str, int, int]]:
    """(checkpoint idx, lang, split, correct, total) of a job's whole-language rows."""
    return store.conn.execute(
        "SELECT idx, lang, split, correct, total FROM score_accuracy "
        "WHERE job_pk = ? AND slice = 'all' ORDER BY idx, lang, split",
        (job_pk,),
    ).fetchall()


def checkpoint_progress(store: Store, job_pk: int) -> dict[int, tuple[int, float]]:
    """checkpoint idx -> (step, epoch) of a job's checkpoints: where training was there."""
    rows = store.conn.execute(
        "SELECT idx, step, epoch FROM score_checkpoints WHERE job_pk = ?", (job_pk,)
    ).fetchall()
    return {idx: (step, epoch) for idx, step, epoch in rows}


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


class MappedPair(NamedTuple):
    """One training pair on a data map, its measures averaged over the mapped jobs."""

    id: str
    gold: str | None  # by GOLD_OR_AUTHOR
    premise: str
    hypothesis: str
    confidence: float
    variability: float
    correctness: float | None  # None: a mapped job did not record the argmax (files v1)
    jobs: int
    epochs: int | None  # the fewest epochs that reached it in a mapped job; None: unknown


class DynamicsJob(NamedTuple):
    """A job of a run that has training dynamics."""

    pk: int
    name: str
    model: str
    mode: str
    correctness: bool  # its dynamics have correctness (job files version 2 on)


def jobs_with_dynamics(store: Store, run_id: int) -> list[DynamicsJob]:
    """The run's jobs that have training dynamics, by name."""
    rows = store.conn.execute(
        "SELECT j.pk, j.name, j.model, j.mode, min(d.correctness IS NOT NULL) "
        "FROM score_jobs j JOIN score_dynamics d ON d.job_pk = j.pk "
        "WHERE j.run_id = ? GROUP BY j.pk ORDER BY j.name",
        (run_id,),
    ).fetchall()
    return [DynamicsJob(pk, name, model, mode, bool(has)) for pk, name, model, mode, has in rows]


def pair_dynamics(store: Store, job_pks: Sequence[int]) -> list[MappedPair]:
    """Per pair with training dynamics in any of the jobs, the three measures averaged over
    them (their seeds); correctness only when every one of them has it, epochs only when
    every one says. By pair ID."""
    marks = ", ".join("?" for _ in job_pks)
    rows = store.conn.execute(
        f"SELECT p.id, {gold_sql(GOLD_OR_AUTHOR)}, pr.text, p.hypothesis, avg(d.confidence), "
        "avg(d.variability), "
        "CASE WHEN count(d.correctness) = count(*) THEN avg(d.correctness) END, count(*), "
        "CASE WHEN count(d.epochs) = count(*) THEN min(d.epochs) END "
        "FROM score_dynamics d JOIN pairs p ON p.pk = d.pair_pk "
        "JOIN premises pr ON pr.pk = p.premise_pk "
        f"WHERE d.job_pk IN ({marks}) GROUP BY p.pk ORDER BY p.id",
        tuple(job_pks),
    ).fetchall()
    return [MappedPair(*row) for row in rows]
