"""`nlibuild score plan`: the job matrix (models x modes x seeds) as job folders and a
script that runs them on GPU nodes, which need only these files, torch, transformers and
nlibuild.scoring (no store). `score import` brings their results back. All or nothing:
the folder is written beside --out and moved into place once whole
(formats/tabular.write_package)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from nlibuild._version import VERSION
from nlibuild.core.registry import SCORE_PLAN
from nlibuild.core.stage import Stage
from nlibuild.formats.tabular import write_package
from nlibuild.models import Launcher, ScorePlanConfig, ScorePlanResult, ScoreTrainConfig
from nlibuild.render import run_note
from nlibuild.scores.score_jobs import (
    check_model,
    merged_left_out,
    mode_jobs,
    pairs_digest,
    read_corpus,
    resolve_langs,
    spec_of,
)
from nlibuild.scoring.job_files import JobSpec, write_job
from nlibuild.store import Store

PLAN_FILE = "plan.json"
SCRIPTS = {Launcher.TORCHRUN: "run.sh", Launcher.SLURM: "slurm.sh"}


def run(store: Store, cfg: ScorePlanConfig) -> ScorePlanResult:
    for model in cfg.models:
        check_model(model)
    with store.recorded_run(SCORE_PLAN, cfg) as run:
        train, evals = resolve_langs(store, cfg.langs)
        corpus = read_corpus(store, evals)
        # A per-language mode (translate-train-each, hyp-only) is one job per language.
        planned = {mode: mode_jobs(corpus, mode, train, evals) for mode in cfg.modes}
        specs = [
            (spec_of(ScoreTrainConfig(model=model, mode=mode, langs=cfg.langs,
                                      training=cfg.training), seed, job), job.rows)
            for model in cfg.models for mode in cfg.modes for job in planned[mode].jobs
            for seed in cfg.training.seeds
        ]  # fmt: skip
        plan = {
            "nlibuild": VERSION,
            "store": {"path": str(store.path.resolve()), "run": run.id,
                      "pair_ids_sha256": pairs_digest(r for m in planned.values()
                                                      for j in m.jobs for r in j.rows.records)},
            "launcher": cfg.launcher.value,
            "jobs": [{"name": spec.name, "folder": spec.name, "model": spec.model,
                      "mode": spec.mode, "seed": spec.seed} for spec, _ in specs],
        }  # fmt: skip
        script = SCRIPTS[cfg.launcher]

        def write(staging: Path) -> list[Path]:
            written = []
            for spec, job in specs:
                write_job(staging / spec.name, spec, job.records)
                written += [p for p in (staging / spec.name).rglob("*") if p.is_file()]
            (staging / PLAN_FILE).write_text(json.dumps(plan, indent=2) + "\n", encoding="utf-8")
            (staging / script).write_text(launch_script(cfg, [s for s, _ in specs]))
            (staging / script).chmod(0o755)
            return [*written, staging / PLAN_FILE, staging / script]

        write_package(cfg.out, write)
        run.finish({"jobs": len(specs)})
    return ScorePlanResult(
        run_id=run.id, signature=run.signature, out=str(cfg.out), jobs=[s.name for s, _ in specs],
        script=str(cfg.out / script),
        left_out=merged_left_out([m.left_out for m in planned.values()]),
    )  # fmt: skip


def launch_script(cfg: ScorePlanConfig, specs: list[JobSpec]) -> str:
    """run.sh (torchrun, one job after another) or slurm.sh (an sbatch array, one task a
    job); each job is `python -m nlibuild.scoring.job FOLDER` under torchrun, which splits
    the global batch across the job's GPUs."""
    gpus = cfg.gpus_per_job
    launch = f"torchrun --standalone --nproc_per_node={gpus} -m nlibuild.scoring.job"
    names = [shlex.quote(spec.name) for spec in specs]
    header = (
        "#!/usr/bin/env bash\n"
        f"# Written by nlibuild {VERSION} `score plan`: {len(specs)} jobs, {gpus} GPU(s) each.\n"
        "# Each job writes its results into its folder; bring them back with\n"
        "# `nlibuild score import THIS_FOLDER` on the machine that has the store.\n"
    )
    if cfg.launcher is Launcher.TORCHRUN:
        lines = [f"{launch} {name}" for name in names]
        return header + 'set -euo pipefail\ncd "$(dirname "$0")"\n' + "\n".join(lines) + "\n"
    return (
        header + f"#SBATCH --job-name=nlibuild-score\n#SBATCH --array=0-{len(specs) - 1}\n"
        f"#SBATCH --ntasks=1\n#SBATCH --gpus-per-task={gpus}\n"
        "# Submit from this folder: cd PLAN_FOLDER && sbatch slurm.sh\n"
        'set -euo pipefail\ncd "${SLURM_SUBMIT_DIR:-.}"\n'
        f"JOBS=({' '.join(names)})\n"
        f'{launch} "${{JOBS[$SLURM_ARRAY_TASK_ID]}}"\n'
    )


def summary(_cfg: ScorePlanConfig, result: ScorePlanResult) -> str:
    missing = "; ".join(
        f"{mode} {', '.join(langs)}" for mode, langs in result.left_out.not_available.items()
    )
    return (
        f"Planned {len(result.jobs)} jobs in {result.out}: run {result.script}, then "
        f"`nlibuild score import {result.out}`"
        + (f"; n.a. for want of train text: {missing}" if missing else "")
        + f" {run_note(result)}"
    )


STAGE = Stage(SCORE_PLAN, settings=ScorePlanConfig, run=run, summary=summary)
