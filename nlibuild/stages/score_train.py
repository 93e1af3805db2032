"""`nlibuild score train`: fine-tune a local model on the store's train split, one job a
seed, evaluating every language's dev and test at every checkpoint (Keung et al. 2020:
every 2% of an epoch), and record each checkpoint's accuracy per language, split and slice
as it comes: one `score-train` run that commits a step per checkpoint, so that a crash
keeps what was done and `--resume` goes on from there.

The job runs in this process through `nlibuild.scoring.job.run_job`, imported only here
and only when it runs: the core install never imports torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from nlibuild.core.registry import SCORE_TRAIN
from nlibuild.core.runs import RecordedRun
from nlibuild.core.stage import Stage
from nlibuild.models import ScoreJobSummary, ScoreMode, ScoreResult, ScoreTrainConfig
from nlibuild.queries.scores import checkpoint_indexes, job_in_run, last_accuracy
from nlibuild.scores.score_jobs import (
    EvalGroups,
    JobRows,
    ModeJob,
    check_model,
    eval_groups,
    finished_dynamics,
    jobs_folder,
    merge_checkpoints,
    mode_jobs,
    read_corpus,
    require_torch,
    resolve_langs,
    score_summary,
    spec_of,
)
from nlibuild.scoring.job_files import JobSpec, read_done, write_job
from nlibuild.store import ScoreJobRow, Store

JobRunner = Callable[..., Any]
"""`run_job(folder, on_checkpoint=..., resume=...)` of nlibuild.scoring.job."""


def job_runner() -> JobRunner:
    """The in-process job runner, or a `ConfigError` saying what to install."""
    require_torch("score train")
    from nlibuild.scoring.job import run_job  # type: ignore[import-not-found,unused-ignore]

    runner: JobRunner = run_job
    return runner


def run(store: Store, cfg: ScoreTrainConfig, *, resume: bool = False) -> ScoreResult:
    """Train one job a seed (see the module docstring); with `resume`, take up the
    interrupted run of the same settings and skip what it stored."""
    check_model(cfg.model)
    run_job = job_runner()
    with store.recorded_run(SCORE_TRAIN, cfg, resume=resume) as run:
        train, evals = resolve_langs(store, cfg.langs)
        corpus = read_corpus(store, evals)
        planned = mode_jobs(corpus, cfg.mode, train, evals)
        text_lang = train if cfg.mode is ScoreMode.TRANSLATE_TEST else None
        pairs = {p.id: p for p in corpus.pairs}
        pair_pks = {p.id: p.pk for p in corpus.pairs}
        root = jobs_folder(store, run.id)
        jobs = []
        for job in planned.jobs:
            groups = eval_groups(job.rows.records, pairs, text_lang)
            for seed in cfg.training.seeds:
                spec = spec_of(cfg, seed, job)
                jobs.append(_train_seed(store, run, spec, root / spec.name, job, groups,
                                        pair_pks, run_job))  # fmt: skip
        run.finish({"jobs": len(jobs), "checkpoints": sum(j.checkpoints for j in jobs)})
    return ScoreResult(
        run_id=run.id, signature=run.signature, folder=str(root), jobs=jobs,
        left_out=planned.left_out,
    )  # fmt: skip


def _train_seed(
    store: Store,
    run: RecordedRun,
    spec: JobSpec,
    folder: Path,
    job: ModeJob,
    groups: EvalGroups,
    pair_pks: dict[str, int],
    run_job: JobRunner,
) -> ScoreJobSummary:
    """Train one job and store its checkpoints, and its dynamics once it finished."""
    job_pk, added = _train_job(store, run, spec, folder, job.rows, groups, run_job)
    dynamics = finished_dynamics(folder, job.rows.records, pair_pks)
    if dynamics is not None:
        store.finish_score_job(job_pk, dynamics)
        run.commit_step(f"{spec.name}:done")
    return _summary(store, spec, job_pk, job.rows, added, dynamics is not None)


def _train_job(
    store: Store,
    run: RecordedRun,
    spec: JobSpec,
    folder: Path,
    rows: JobRows,
    groups: EvalGroups,
    run_job: JobRunner,
) -> tuple[int, int]:
    """Write the job (unless resuming it), run it and store each checkpoint as it comes,
    committing each; returns the job's key and the checkpoints added."""
    stored = job_in_run(store, run.id, spec.name)
    if stored is None:
        write_job(folder, spec, rows.records)
        job_pk = store.add_score_job(
            ScoreJobRow(spec.name, spec.model, spec.mode, spec.seed, spec.train_langs,
                        spec.eval_langs, spec.to_json(), str(folder.resolve())),
            run.id,
        )  # fmt: skip
    else:
        job_pk = stored.pk
    added = [0]

    def merge(*_: object) -> None:
        added[0] += merge_checkpoints(
            store, job_pk, folder, groups, lambda idx: run.commit_step(f"{spec.name}:{idx}")
        )

    if read_done(folder) is None:
        run_job(folder, on_checkpoint=merge, resume=stored is not None)
    merge()  # what the job wrote after its last call, or before an earlier crash
    return job_pk, added[0]


def _summary(
    store: Store, spec: JobSpec, job_pk: int, rows: JobRows, added: int, finished: bool
) -> ScoreJobSummary:
    return ScoreJobSummary(
        name=spec.name, mode=spec.mode, seed=spec.seed, train_rows=rows.train_rows,
        eval_rows=rows.eval_rows, checkpoints=len(checkpoint_indexes(store, job_pk)),
        added=added, finished=finished, last_accuracy=last_accuracy(store, job_pk),
    )  # fmt: skip


def resumed(store: Store, cfg: ScoreTrainConfig) -> ScoreResult:
    """`run` taking up the interrupted run of these settings (`score train --resume`)."""
    return run(store, cfg, resume=True)


def summary(_cfg: ScoreTrainConfig, result: ScoreResult) -> str:
    return score_summary(result, "Trained")


STAGE = Stage(SCORE_TRAIN, settings=ScoreTrainConfig, run=run, summary=summary)
RESUMING_STAGE = replace(STAGE, run=resumed)
"""`score-train` taking up an interrupted run: the same stage and settings (resuming is not
a setting: the run it takes up is the one whose signature these settings give)."""
