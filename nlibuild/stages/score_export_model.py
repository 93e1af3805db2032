"""`nlibuild score export-model JOB --select en-dev|target-dev|last --out DIR`: a checkpoint
of a finished `score train` / `score import` job as a model folder that `nlibuild serve
--model DIR` loads (issue 29: the model in the writers' loop, as ANLI's rounds serve the
previous round's model).

The checkpoint is the one `score report` picks by the same rule from the stored accuracies
(`score_report.selected_position`: ties the earliest); the weights are those the job kept
for it (nlibuild/scoring/kept_models.py: at the best training-language dev checkpoint and
the last). A rule whose checkpoint the job kept no weights of (target-dev picking another
checkpoint, a job run before jobs kept weights) is refused, naming what was kept. The
folder gets the kept config, tokenizer and weights, and `nlibuild.json`: the store, the
job, the checkpoint and its accuracies, the labels and how the job read its pairs, and the
weights' SHA-256. No torch is needed: the files are copied, their header read as JSON.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from nlibuild._version import VERSION
from nlibuild.core.registry import SCORE_EXPORT_MODEL
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError, InputError, OutputError
from nlibuild.formats.input_files import require_regular_file
from nlibuild.formats.tabular import write_package
from nlibuild.models import (
    ExportSelect,
    ScoreExportModelConfig,
    ScoreExportModelResult,
    SelectRule,
)
from nlibuild.queries.score_results import (
    ScoreJob,
    checkpoint_step,
    model_job_names,
    model_jobs_named,
    whole_accuracy,
)
from nlibuild.render import run_note
from nlibuild.scores.score_jobs import COPY_BACK, corpus_lang
from nlibuild.scores.score_report import job_series, selected_position
from nlibuild.scoring.job_files import (
    CHECKPOINT_KEY,
    KEPT_RULES,
    KEPT_WEIGHTS_FILE,
    STEP_KEY,
    JobSpec,
    kept_model_folder,
    weights_metadata,
)
from nlibuild.store import Store

MODEL_FILE = "nlibuild.json"
"""nlibuild.scoring.served.MODEL_FILE: what `serve --model` reads (named here too, as this
module may not import the torch side)."""


def run(store: Store, cfg: ScoreExportModelConfig) -> ScoreExportModelResult:
    if cfg.out.exists() and (not cfg.out.is_dir() or any(cfg.out.iterdir())):
        raise OutputError(
            f"--out {cfg.out}: already exists and is not an empty folder (another model's "
            "files would mix with this one's); name a new folder"
        )
    job = finished_job(store, cfg)
    lang = target_lang(store, cfg, job)
    rows = whole_accuracy(store, job.pk)
    series = job_series(job, rows)
    position = selected_position(series, SelectRule(cfg.select.value), lang)
    if position is None:
        raise ConfigError(
            f"job {job.name}: {cfg.select.value} picks no checkpoint for {lang} (the job has "
            f"no {lang} dev or test rows); choose another --select or --lang"
        )
    index = series.indexes[position]
    step, epoch = checkpoint_step(store, job.pk, index)
    source = kept_folder(job, index, step, cfg.select)
    accuracy = {f"{lg}/{split}": correct / total
                for idx, lg, split, correct, total in rows if idx == index and total}  # fmt: skip
    with store.recorded_run(SCORE_EXPORT_MODEL, cfg) as run:
        digest: list[str] = []

        def write(staging: Path) -> list[Path]:
            written = copy_kept(source, staging, digest)
            description = describe(store, job, cfg, lang, (index, step, epoch), accuracy)
            description |= {"export_run": run.id, "weights_sha256": digest[0]}
            text = json.dumps(description, ensure_ascii=False, indent=2) + "\n"
            (staging / MODEL_FILE).write_text(text, encoding="utf-8")
            return [*written, staging / MODEL_FILE]

        write_package(cfg.out, write)
        run.finish({"checkpoint": index, "step": step})
    return ScoreExportModelResult(
        run_id=run.id, signature=run.signature, out=str(cfg.out), job=job.name,
        job_run=job.run_id, select=cfg.select, lang=lang, checkpoint=index, step=step,
        epoch=epoch, accuracy=accuracy, identity=f"{job.name}@{step} sha256:{digest[0][:12]}",
    )  # fmt: skip


def finished_job(store: Store, cfg: ScoreExportModelConfig) -> ScoreJob:
    """The job `cfg` names (of run `cfg.run`, else the newest), which must have finished."""
    found = model_jobs_named(store, cfg.job)
    if cfg.run is not None:
        found = [(job, done) for job, done in found if job.run_id == cfg.run]
    if not found:
        names = model_job_names(store)
        guess = difflib.get_close_matches(cfg.job, names, n=1)
        where = f" of run {cfg.run}" if cfg.run is not None else ""
        hint = f"did you mean {guess[0]}? " if guess else ""
        raise ConfigError(
            f"no job {cfg.job!r}{where} in this store; {hint}the jobs of `score train` and "
            f"`score import`: {', '.join(names) or 'none'}"
        )
    job, finished = found[0]
    if not finished:
        raise ConfigError(
            f"job {job.name} (run {job.run_id}) has not finished; finish it (`nlibuild score "
            f"train --resume`, or `python -m nlibuild.scoring.job {job.folder} --resume` and "
            "`score import`), then export it"
        )
    return job


def target_lang(store: Store, cfg: ScoreExportModelConfig, job: ScoreJob) -> str:
    """The language the rule reads: target-dev's --lang (default the corpus language, the
    writers'); en-dev and last read the job's training language."""
    if cfg.select is not ExportSelect.TARGET_DEV:
        if cfg.lang is not None:
            raise ConfigError(
                f"--lang {cfg.lang}: only --select target-dev reads a target language "
                f"({cfg.select.value} reads the job's training language)"
            )
        return job.train_langs[0]
    lang = cfg.lang or corpus_lang(store)
    if lang not in job.eval_langs:
        raise ConfigError(
            f"--lang {lang}: job {job.name} evaluated {', '.join(job.eval_langs)}; choose one"
        )
    return lang


def kept_folder(job: ScoreJob, index: int, step: int, select: ExportSelect) -> Path:
    """The job's kept model folder of checkpoint `index` (at `step`), or a refusal naming
    the checkpoints the job kept."""
    kept = {}
    for rule in KEPT_RULES:
        weights = kept_model_folder(job.folder, rule) / KEPT_WEIGHTS_FILE
        if os.path.lexists(weights):
            kept[rule] = kept_checkpoint(weights)
    for rule, (kept_index, kept_step) in kept.items():
        if kept_index == index:
            if kept_step != step:
                raise InputError(
                    kept_model_folder(job.folder, rule) / KEPT_WEIGHTS_FILE,
                    f"holds checkpoint {index} at step {kept_step}, the store's is at step "
                    f"{step}: the job folder is not the one imported; {COPY_BACK}",
                )
            return kept_model_folder(job.folder, rule)
    listed = ", ".join(f"{i} ({rule})" for rule, (i, _) in kept.items()) or "none"
    raise ConfigError(
        f"job {job.name}: {select.value} picks checkpoint {index}, whose weights the job did "
        f"not keep (it kept checkpoints: {listed}; a job keeps its best {job.train_langs[0]} "
        "dev checkpoint and its last); export one of those, or train the job again with "
        "this nlibuild"
    )


def kept_checkpoint(weights: Path) -> tuple[int, int]:
    """(index, step) of the checkpoint a kept model.safetensors holds, from its header."""
    require_regular_file(weights, "model weights file")
    try:
        metadata = weights_metadata(weights)
        return int(metadata[CHECKPOINT_KEY]), int(metadata[STEP_KEY])
    except (OSError, ValueError, KeyError, RecursionError) as exc:
        raise InputError(weights, f"not a kept model ({exc}); {COPY_BACK}") from None


def copy_kept(source: Path, staging: Path, digest: list[str]) -> list[Path]:
    """Copy the regular files of the kept folder (links and partial files left out);
    appends the weights' SHA-256 to `digest`."""
    written = []
    for path in sorted(source.iterdir()):
        if not stat.S_ISREG(path.lstat().st_mode) or path.name.endswith(".partial"):
            continue
        target = staging / path.name
        hashed = hashlib.sha256()
        with path.open("rb") as reader, target.open("wb") as writer:
            for block in iter(lambda: reader.read(1 << 20), b""):
                writer.write(block)
                if path.name == KEPT_WEIGHTS_FILE:
                    hashed.update(block)
        if path.name == KEPT_WEIGHTS_FILE:
            digest.append(hashed.hexdigest())
        written.append(target)
    return written


def describe(
    store: Store,
    job: ScoreJob,
    cfg: ScoreExportModelConfig,
    lang: str,
    checkpoint: tuple[int, int, float],
    accuracy: dict[str, float],
) -> dict[str, Any]:
    """nlibuild.json less the export's run and the weights' digest."""
    spec = JobSpec.from_json(job.spec)
    index, step, epoch = checkpoint
    return {
        "nlibuild": VERSION,
        "store": str(store.path.resolve()),
        "job": {"name": job.name, "run": job.run_id, "folder": str(job.folder),
                "model": job.model, "mode": job.mode, "seed": job.seed,
                "train_langs": list(job.train_langs), "eval_langs": list(job.eval_langs)},
        "checkpoint": {"index": index, "step": step, "epoch": epoch},
        "select": {"rule": cfg.select.value, "lang": lang},
        "accuracy": accuracy,
        "labels": list(spec.labels),
        "max_length": spec.max_length,
        "hypothesis_only": spec.hypothesis_only,
    }  # fmt: skip


def summary(_cfg: ScoreExportModelConfig, result: ScoreExportModelResult) -> str:
    shown = ", ".join(f"{key} {value:.3f}" for key, value in sorted(result.accuracy.items()))
    return (
        f"Exported job {result.job}'s checkpoint {result.checkpoint} (step {result.step}, "
        f"{result.select.value} for {result.lang}; {shown}) to {result.out} as "
        f"{result.identity}: serve it with `nlibuild serve --model {result.out}` "
        f"{run_note(result)}"
    )


STAGE = Stage(SCORE_EXPORT_MODEL, settings=ScoreExportModelConfig, run=run, summary=summary)
