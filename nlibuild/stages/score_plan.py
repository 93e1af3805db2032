"""`nlibuild score plan`: the job matrix (models x modes x configurations x seeds) as job
folders and a script that runs them on GPU nodes, which need only these files, torch,
transformers and nlibuild.scoring (no store). `score import` brings their results back. All
or nothing: the folder is written beside --out and moved into place once whole
(formats/tabular.write_package).

A configuration is a learning rate x batch size of the sweep (`--lr 1e-5,2e-5,3e-5
--batch-size 16,32`; XTREME section 4 picks it on English dev); each job's settings are in
its job.json and plan.json (`score_jobs.configuration_key` groups the seeds of one). Model
folders are named by their absolute path, or copied into the plan (`--copy-models`) and
named relative to the job folder, so the scripts (scores/plan_scripts.py) run from
anywhere."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from itertools import product
from pathlib import Path
from typing import Any

from nlibuild._version import VERSION
from nlibuild.core.registry import SCORE_PLAN
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError, OutputError
from nlibuild.formats.tabular import write_package
from nlibuild.models import ScorePlanConfig, ScorePlanResult, ScoreTrainConfig, ScoreTraining
from nlibuild.render import counted, run_note
from nlibuild.scores.plan_scripts import PLAN_FILE, SCRIPTS, launch_script
from nlibuild.scores.score_jobs import (
    ModeJob,
    absolute,
    check_model,
    configuration_key,
    job_name,
    merged_left_out,
    mode_jobs,
    pairs_digest,
    read_corpus,
    resolve_langs,
    spec_of,
)
from nlibuild.scoring.job_files import JobSpec, write_job
from nlibuild.store import Store

MODELS_DIR = "models"
"""Where `--copy-models` puts the model folders, in the plan."""


def run(store: Store, cfg: ScorePlanConfig) -> ScorePlanResult:
    for model in cfg.models:
        check_model(model)
    if (cfg.out / PLAN_FILE).exists():
        raise OutputError(
            f"--out {cfg.out}: already holds a plan ({PLAN_FILE}); its jobs' results would "
            "be taken for the new plan's: choose another --out, or delete that folder"
        )
    check_model_names(cfg)
    grid = sweep(cfg)
    with store.recorded_run(SCORE_PLAN, cfg) as run:
        train, evals = resolve_langs(store, cfg.langs)
        corpus = read_corpus(store, evals)
        # A per-language mode (translate-train-each, hyp-only) is one job per language.
        planned = {mode: mode_jobs(corpus, mode, train, evals) for mode in cfg.modes}
        specs = [
            (job_spec(cfg, job, seed, mode_job), mode_job.rows)
            for job in jobs_of(cfg, grid) for mode_job in planned[job.mode].jobs
            for seed in cfg.training.seeds
        ]  # fmt: skip
        digest = pairs_digest(r for m in planned.values() for j in m.jobs
                              for r in j.rows.records)  # fmt: skip
        plan = plan_json(cfg, [spec for spec, _ in specs], {
            "path": str(store.path.resolve()), "run": run.id, "pair_ids_sha256": digest,
        })  # fmt: skip
        script = SCRIPTS[cfg.launcher]

        def write(staging: Path) -> list[Path]:
            written = _copy_models(cfg, staging) if cfg.copy_models else []
            for spec, job in specs:
                write_job(staging / spec.name, spec, job.records)
                written += [p for p in (staging / spec.name).rglob("*") if p.is_file()]
            (staging / PLAN_FILE).write_text(json.dumps(plan, indent=2) + "\n", encoding="utf-8")
            (staging / script).write_text(launch_script(cfg, [s.name for s, _ in specs]))
            (staging / script).chmod(0o755)
            return [*written, staging / PLAN_FILE, staging / script]

        write_package(cfg.out, write)
        run.finish({"jobs": len(specs), "configurations": len(grid)})
    return ScorePlanResult(
        run_id=run.id, signature=run.signature, out=str(cfg.out), jobs=[s.name for s, _ in specs],
        configurations=len(grid), script=str(cfg.out / script),
        left_out=merged_left_out([m.left_out for m in planned.values()]),
    )  # fmt: skip


def sweep(cfg: ScorePlanConfig) -> list[ScoreTraining]:
    """The training settings of each configuration: every learning rate x batch size of the
    sweep (the training's own where none is swept), in the order given."""
    lrs = cfg.lrs or (cfg.training.lr,)
    batch_sizes = cfg.batch_sizes or (cfg.training.batch_size,)
    return [
        cfg.training.model_copy(update={"lr": lr, "batch_size": batch_size})
        for lr, batch_size in product(lrs, batch_sizes)
    ]


def swept_part(cfg: ScorePlanConfig, training: ScoreTraining) -> str:
    """What a job's name says of its configuration: the values of the settings the plan
    sweeps over more than one value (`lr1e-05-bs16`); nothing without a sweep."""
    parts = []
    if len(cfg.lrs) > 1:
        parts.append(f"lr{training.lr!r}")
    if len(cfg.batch_sizes) > 1:
        parts.append(f"bs{training.batch_size}")
    return "-".join(parts)


def check_model_names(cfg: ScorePlanConfig) -> None:
    """Jobs are named (and models copied) by the model folder's name: two models of one
    name, or one model named twice, would write one job folder twice."""
    names = [absolute(model).name for model in cfg.models]
    twice = next((name for n, name in enumerate(names) if name in names[:n]), None)
    if twice is not None:
        raise ConfigError(
            f"--models {','.join(str(m) for m in cfg.models)}: {twice} is named twice, and the "
            "plan names its jobs by a model's folder name; name each model once, in a folder "
            "of its own name (a link named otherwise will do)"
        )


def jobs_of(cfg: ScorePlanConfig, grid: list[ScoreTraining]) -> list[ScoreTrainConfig]:
    """The plan's models x modes x configurations, each as `score train` would run it."""
    return [
        ScoreTrainConfig(model=model, mode=mode, langs=cfg.langs, training=training)
        for model, mode, training in product(cfg.models, cfg.modes, grid)
    ]


def job_spec(cfg: ScorePlanConfig, job: ScoreTrainConfig, seed: int, mode_job: ModeJob) -> JobSpec:
    """A job of the plan, named by its model, mode, swept settings and seed; its model
    folder copied into the plan (`../models/NAME`, relative to the job folder) or by its
    absolute path."""
    spec = spec_of(job, seed, mode_job)
    name = job_name(
        job.model, job.mode.value, seed, mode_job.name_lang, swept_part(cfg, job.training)
    )
    folder = f"../{MODELS_DIR}/{absolute(job.model).name}" if cfg.copy_models else spec.model
    return replace(spec, name=name, model=folder)


def plan_json(cfg: ScorePlanConfig, specs: list[JobSpec], store: dict[str, Any]) -> dict[str, Any]:
    """plan.json: the store it is of, the launcher, the sweep and each job's settings."""
    return {
        "nlibuild": VERSION,
        "store": store,
        "launcher": cfg.launcher.value,
        "sweep": {"lr": list(cfg.lrs), "batch_size": list(cfg.batch_sizes)},
        "jobs": [{"name": spec.name, "folder": spec.name, "model": spec.model,
                  "mode": spec.mode, "seed": spec.seed,
                  "configuration": dict(configuration_key(spec))} for spec in specs],
    }  # fmt: skip


def _copy_models(cfg: ScorePlanConfig, staging: Path) -> list[Path]:
    """Each model folder into the plan's models/ (links followed: a hub cache's files are
    links into its blobs)."""
    written: list[Path] = []
    for model in cfg.models:
        copy = staging / MODELS_DIR / absolute(model).name
        try:
            shutil.copytree(model, copy)
        except (OSError, shutil.Error) as exc:
            raise OutputError(
                f"--copy-models: {model} cannot be copied into the plan ({exc})"
            ) from None
        written += [p for p in copy.rglob("*") if p.is_file()]
    return written


def summary(_cfg: ScorePlanConfig, result: ScorePlanResult) -> str:
    swept = (
        f" ({counted(result.configurations, 'configuration')} of the sweep)"
        if result.configurations > 1
        else ""
    )
    missing = "; ".join(
        f"{mode} {', '.join(langs)}" for mode, langs in result.left_out.not_available.items()
    )
    return (
        f"Planned {counted(len(result.jobs), 'job')}{swept} in {result.out}: run "
        f"{result.script} (from any folder), then `nlibuild score import {result.out}`"
        + (f"; n.a. for want of train text: {missing}" if missing else "")
        + f" {run_note(result)}"
    )


STAGE = Stage(SCORE_PLAN, settings=ScorePlanConfig, run=run, summary=summary)
