"""Run one scoring job folder: `python -m nlibuild.scoring.job FOLDER [--resume]`, or under
`torchrun --nproc-per-node N -m nlibuild.scoring.job FOLDER` for several GPUs.

A GPU node needs only the folder `score plan` wrote, torch, transformers and this package:
importing this module loads nothing of nlibuild outside `nlibuild.scoring` (and the package's
`_version` and `errors`), and neither polars nor pydantic nor the store
(`tests/test_scoring_loop.py` checks it in a fresh interpreter).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from nlibuild.scoring import ScoringError, batching, ddp
from nlibuild.scoring.job_files import (
    DONE_FILE,
    JOB_FILE,
    PAIRS_FILE,
    TRAIN,
    DoneRecord,
    JobSpec,
    PairRecord,
    accuracy_key,
    clear_running,
    read_checkpoints,
    read_done,
    read_pairs,
    read_spec,
    write_done,
    write_running,
)
from nlibuild.scoring.kept_models import KeptModels
from nlibuild.scoring.loop import CheckpointCallback, LoopData, TrainingRun
from nlibuild.scoring.model import load_classifier, load_tokenizer

RESULTS_DIR = "results"


def run_job(
    folder: Path,
    *,
    on_checkpoint: CheckpointCallback | None = None,
    resume: bool = False,
    device: str | None = None,
    compile_model: bool = False,
) -> DoneRecord:
    """Train and evaluate the job in `folder`, writing its results there; `on_checkpoint`
    is called (on rank 0) after each checkpoint is written, once per checkpoint index over
    every attempt: a resumed run does not call it again for a checkpoint it already
    reported. `resume` takes up the saved state (a finished job returns its DoneRecord);
    without it the job's results are cleared and it starts over. `compile_model` runs the
    model through torch.compile (faster steps on a GPU after a minute or two of compiling;
    the results are the job's either way, up to rounding)."""
    import torch

    spec, pairs = _read_job(folder)
    if resume:
        done = read_done(folder)
        if done is not None:
            return done
    started = time.monotonic()
    processes = ddp.start(device)
    try:
        if not resume and processes.is_main:
            shutil.rmtree(folder / RESULTS_DIR, ignore_errors=True)
        if processes.is_main:  # `score import` meanwhile: running, not stopped
            write_running(folder)
        ddp.barrier(processes)
        torch.manual_seed(spec.seed)
        model_folder = model_folder_of(folder, spec)
        tokenizer = load_tokenizer(model_folder)
        model = load_classifier(model_folder, spec.labels)
        data = _loop_data(folder, spec, pairs, tokenizer)
        kept = KeptModels(folder, spec, model.config, tokenizer)
        training = TrainingRun(
            model, data, spec, folder, processes, on_checkpoint,
            compile_model=compile_model, kept=kept,
        )  # fmt: skip
        if resume:
            training.resume()
        checkpoints = training.run()
        record = DoneRecord(
            checkpoints=checkpoints,
            seconds=time.monotonic() - started,
            device=_device_name(processes.device),
            processes=processes.world_size,
            versions=_versions(),
        )
        if processes.is_main:
            write_done(folder, record)
        ddp.barrier(processes)
        return record
    finally:
        if processes.is_main:
            clear_running(folder)
        ddp.stop(processes)


def model_folder_of(folder: Path, spec: JobSpec) -> Path:
    """The job's model folder: `spec.model` when absolute, else taken from the job folder
    (`score plan --copy-models` writes `../models/NAME`), so that a job runs from any
    current directory and its plan can be moved whole."""
    return folder / spec.model


def _read_job(folder: Path) -> tuple[JobSpec, list[PairRecord]]:
    for name in (JOB_FILE, PAIRS_FILE):
        if not (folder / name).is_file():
            raise ScoringError(
                f"{folder / name}: missing; a job folder is written by `nlibuild score plan`"
            )
    try:
        return read_spec(folder), list(read_pairs(folder))
    except (ValueError, TypeError, KeyError) as error:
        raise ScoringError(f"{folder}: the job files cannot be read ({error})") from error


def _loop_data(folder: Path, spec: JobSpec, pairs: list[PairRecord], tokenizer: Any) -> LoopData:
    cache = batching.cache_path(folder, tokenizer, spec.max_length, spec.hypothesis_only)
    tokens = batching.load_or_tokenize(
        cache,
        tokenizer,
        [pair.premise for pair in pairs],
        [pair.hypothesis for pair in pairs],
        max_length=spec.max_length,
        hypothesis_only=spec.hypothesis_only,
    )
    is_train = np.array([pair.split == TRAIN for pair in pairs], dtype=bool)
    labels = np.array([pair.label for pair in pairs], dtype=np.int64)
    train_rows = np.flatnonzero(is_train)
    eval_rows = np.flatnonzero(~is_train)
    if len(train_rows) == 0:
        raise ScoringError(f"{folder / PAIRS_FILE}: no training rows (split `{TRAIN}`)")
    bad = np.flatnonzero((labels < 0) | (labels >= len(spec.labels)))
    if len(bad):
        raise ScoringError(
            f"{folder / PAIRS_FILE}, line {bad[0] + 1}: label {labels[bad[0]]} is not an "
            f"index into the job's {len(spec.labels)} labels"
        )
    keys = [accuracy_key(pairs[row].lang, pairs[row].split) for row in eval_rows]
    group_names = tuple(dict.fromkeys(keys))
    codes = {name: code for code, name in enumerate(group_names)}
    return LoopData(
        tokens=tokens,
        train_rows=train_rows,
        train_labels=labels[train_rows],
        eval_rows=eval_rows,
        eval_labels=labels[eval_rows],
        eval_groups=np.array([codes[key] for key in keys], dtype=np.int64),
        group_names=group_names,
        pad_id=int(getattr(tokenizer, "pad_token_id", None) or 0),
        use_segments="token_type_ids" in getattr(tokenizer, "model_input_names", ()),
    )


def _device_name(device: Any) -> str:
    import torch

    if device.type == "cuda":
        return f"{device} ({torch.cuda.get_device_name(device)})"
    return str(device)


def _versions() -> dict[str, str]:
    import torch
    import transformers

    return {"torch": str(torch.__version__), "transformers": str(transformers.__version__)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nlibuild.scoring.job",
        description="Train and evaluate one scoring job folder written by `nlibuild score plan`.",
    )
    parser.add_argument("folder", type=Path, help="the job folder (job.json, data/pairs.jsonl)")
    parser.add_argument("--resume", action="store_true", help="go on from the saved training state")
    parser.add_argument(
        "--device", help="cpu, cuda, cuda:1, ... (default: the local GPU, else the CPU)"
    )
    parser.add_argument(
        "--compile",
        action="store_true",
        help="run the model through torch.compile (worth it on a GPU for a run of minutes)",
    )
    options = parser.parse_args(argv)
    try:
        done = run_job(
            options.folder,
            resume=options.resume,
            device=options.device,
            compile_model=options.compile,
        )
    except ScoringError as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    if os.environ.get("RANK", "0") == "0":
        written = len(read_checkpoints(options.folder))
        print(
            f"{options.folder}: {written} checkpoints in {done.seconds:.1f} s on {done.device} "
            f"({done.processes} process{'es' if done.processes > 1 else ''}); "
            f"{options.folder / DONE_FILE} written"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
