"""The files of one scoring job: what `score plan` / `score train` write for a job to read,
and what the job writes back for `score import` / `score train` to put into the store.

This module is the contract between the two sides and the only module both import. It uses
the standard library and numpy only, because a job runs on a GPU node that has PyTorch and
transformers but neither the store nor polars nor pydantic.

A job folder holds:

    job.json                    the JobSpec, as JSON
    data/pairs.jsonl            one PairRecord a line: every training and evaluation row
    results/checkpoints.jsonl   one CheckpointRecord a line, appended as training goes
    results/predictions/NNNNN.npy  int8, the predicted label index of every evaluation row
                                (the rows of pairs.jsonl whose split is not `train`, in file
                                order) at checkpoint NNNNN
    results/dynamics.npy        float32 [epochs, training rows]: the probability the model
                                gave each training row's gold label in each epoch's training
                                pass (Swayamdipta et al. 2020, Dataset Cartography), rows in
                                file order; NaN where a partial last epoch did not reach a row
    results/gold_argmax.npy     int8 [epochs, training rows] (files version 2 on): 1 where the
                                gold label was the most probable one in that pass, 0 where it
                                was not, -1 where the epoch did not reach the row (the NaNs of
                                dynamics.npy)
    results/state/              the latest training state, for resuming (the job's own format)
    results/model-<rule>/       the model at the checkpoint a selection rule picks, for
                                `score export-model` (JobSpec.keep_models; absent from jobs
                                run before nlibuild kept them): config.json, the tokenizer's
                                files and model.safetensors, whose header's metadata names
                                the checkpoint (CHECKPOINT_KEY, STEP_KEY). `en-dev`: the best
                                dev accuracy in the first training language so far (ties: the
                                earliest), replaced when a checkpoint beats it; `last`: the
                                last checkpoint, left out when model-en-dev holds it
    results/running.json        a RunningRecord (host, process), there while a job's process
                                runs: a job without done.json and without a live process
                                stopped before it finished
    results/done.json           a DoneRecord, written last: its presence means the job finished

Label indexes follow `JobSpec.labels` (by default entailment, neutral, contradiction).

The files' version (`JOB_FILES_VERSION`) is written in done.json by the job that wrote the
results; a done.json without one is of version 1. Version 1 kept only the gold label's
probability, so a version-1 job's correctness (the share of epochs where the gold label was
the argmax) cannot be computed: the store marks it unavailable. Version 2 adds
results/gold_argmax.npy.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

JOB_FILE = "job.json"
PAIRS_FILE = "data/pairs.jsonl"
CHECKPOINTS_FILE = "results/checkpoints.jsonl"
PREDICTIONS_DIR = "results/predictions"
DYNAMICS_FILE = "results/dynamics.npy"
STATE_DIR = "results/state"
GOLD_ARGMAX_FILE = "results/gold_argmax.npy"
DONE_FILE = "results/done.json"
RUNNING_FILE = "results/running.json"
KEPT_MODEL_PREFIX = "results/model-"
KEPT_WEIGHTS_FILE = "model.safetensors"
EN_DEV = "en-dev"
LAST = "last"
KEPT_RULES = (EN_DEV, LAST)
"""The selection rules whose checkpoint a job keeps the weights of (the names of
`score report`'s rules). Not target-dev: it picks a checkpoint per target language, and a
job evaluating 15 languages would keep up to 15 copies of the model (3.3 GB each for
XLM-R base); its pick is exportable when it is one of these."""
CHECKPOINT_KEY = "nlibuild_checkpoint"
STEP_KEY = "nlibuild_step"
"""Keys of a kept model.safetensors' metadata: its checkpoint's index and step, written in
the same file as the weights, so that they never disagree."""

JOB_FILES_VERSION = 2
"""1: no gold_argmax.npy (and no version in done.json); 2: gold_argmax.npy."""
FIRST_VERSION = 1
NOT_REACHED = -1
"""gold_argmax.npy's value for a row a partial last epoch did not reach."""

TRAIN = "train"
EVAL_SPLITS = ("dev", "test")

MODES = ("zero-shot", "translate-train-all", "translate-train-each", "translate-test", "hyp-only")
"""XNLI section 5 (zero-shot cross-lingual transfer, TRANSLATE TRAIN per language or, as
XTREME's translate-train-all, for all at once, TRANSLATE TEST) and the
hypothesis-only baseline (OCNLI section 5, after Gururangan et al. 2018 and Poliak et al.
2018): what the training and evaluation rows of a job hold is decided when its pairs.jsonl is
written; the job itself only needs `hypothesis_only`."""

SCHEDULES = ("constant", "linear")


@dataclass(frozen=True)
class JobSpec:
    """One training run: one model, one mode, one seed."""

    name: str  # unique within a plan: <model folder name>-<mode>-s<seed>
    # A local folder with config, tokenizer and weights (nothing is downloaded): absolute,
    # or relative to the job folder.
    model: str
    mode: str  # one of MODES
    seed: int
    train_langs: tuple[str, ...]
    eval_langs: tuple[str, ...]
    labels: tuple[str, ...] = ("entailment", "neutral", "contradiction")
    epochs: float = 3.0
    lr: float = 2e-5
    schedule: str = "linear"  # one of SCHEDULES; linear decays to 0 after warmup
    warmup: float = 0.0  # share of all training steps
    batch_size: int = 32  # the global batch: split across processes under DDP, not multiplied
    max_length: int = 128
    eval_every: float = 0.02  # evaluate every this share of an epoch (Keung et al. 2020: 2%)
    # Save the training state every this share of an epoch; None: as often as the
    # model's size allows (nlibuild.scoring.saving.default_save_every).
    save_every: float | None = None
    hypothesis_only: bool = False
    # The rules (KEPT_RULES) whose checkpoint's weights the job keeps in results/model-<rule>/.
    keep_models: tuple[str, ...] = KEPT_RULES

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        raw: dict[str, Any] = json.loads(text)
        for key in ("train_langs", "eval_langs", "labels", "keep_models"):
            if key in raw:
                raw[key] = tuple(raw[key])
        return cls(**raw)


@dataclass(frozen=True)
class PairRecord:
    """One row of data/pairs.jsonl."""

    id: str  # the pair's public ID in the store
    lang: str  # the language of premise and hypothesis as given here
    split: str  # TRAIN or one of EVAL_SPLITS
    premise: str
    hypothesis: str
    label: int  # index into JobSpec.labels


@dataclass(frozen=True)
class CheckpointRecord:
    """One line of results/checkpoints.jsonl."""

    index: int  # 0, 1, 2, ... in training order
    step: int  # optimiser steps taken
    epoch: float  # steps / steps per epoch
    examples_seen: int
    train_loss: float | None  # mean over the steps since the previous checkpoint
    # "<lang>/<split>" -> [correct, total]
    accuracy: dict[str, list[int]] = field(default_factory=dict)
    seconds: float = 0.0  # wall time since the job started


@dataclass(frozen=True)
class DoneRecord:
    checkpoints: int
    seconds: float
    device: str
    processes: int
    versions: dict[str, str] = field(default_factory=dict)  # torch, transformers
    files_version: int = JOB_FILES_VERSION  # absent from version 1's done.json

    @classmethod
    def from_json_object(cls, raw: dict[str, Any]) -> DoneRecord:
        """The record of a parsed done.json; without `files_version` it is version 1's."""
        return cls(**({"files_version": FIRST_VERSION} | raw))


@dataclass(frozen=True)
class RunningRecord:
    """Who runs a job: written when its (main) process starts, removed when it ends."""

    host: str
    pid: int
    started: str  # ISO 8601, UTC


def write_running(folder: Path) -> None:
    record = RunningRecord(
        socket.gethostname(), os.getpid(), datetime.now(UTC).isoformat(timespec="seconds")
    )
    with _replaced(folder / RUNNING_FILE) as handle:
        handle.write(json.dumps(asdict(record)) + "\n")


def clear_running(folder: Path) -> None:
    (folder / RUNNING_FILE).unlink(missing_ok=True)


def accuracy_key(lang: str, split: str) -> str:
    return f"{lang}/{split}"


def source_dev_key(spec: JobSpec) -> str:
    """The accuracy key the `en-dev` rule picks by: dev in the first training language
    (`score report` calls it the job's source language)."""
    return accuracy_key(spec.train_langs[0], "dev")


def kept_model_folder(folder: Path, rule: str) -> Path:
    return folder / f"{KEPT_MODEL_PREFIX}{rule}"


MOST_HEADER_BYTES = 100 * 2**20
"""safetensors' own limit on a header."""


def weights_metadata(path: Path) -> dict[str, str]:
    """The `__metadata__` of a safetensors file's header (8 bytes of its length, little
    endian, then JSON), read without torch; a `ValueError` when it is not such a file."""
    with path.open("rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        if not 0 < size <= MOST_HEADER_BYTES:
            raise ValueError(f"not a safetensors file (a header of {size} bytes)")
        header = json.loads(handle.read(size))
    metadata = header.get("__metadata__", {}) if isinstance(header, dict) else None
    if not isinstance(metadata, dict):
        raise ValueError("not a safetensors file (its header is not a JSON object)")
    return {str(key): str(value) for key, value in metadata.items()}


def write_job(folder: Path, spec: JobSpec, pairs: Iterable[PairRecord]) -> int:
    """Write job.json and data/pairs.jsonl into `folder`; returns the number of pairs."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    count = 0
    with _replaced(folder / PAIRS_FILE) as handle:
        for pair in pairs:
            handle.write(json.dumps(asdict(pair), ensure_ascii=False) + "\n")
            count += 1
    with _replaced(folder / JOB_FILE) as handle:
        handle.write(spec.to_json())
    return count


def read_spec(folder: Path) -> JobSpec:
    return JobSpec.from_json((folder / JOB_FILE).read_text(encoding="utf-8"))


def read_pairs(folder: Path) -> Iterator[PairRecord]:
    with (folder / PAIRS_FILE).open(encoding="utf-8") as handle:
        for line in handle:
            yield PairRecord(**json.loads(line))


def append_checkpoint(folder: Path, record: CheckpointRecord) -> None:
    path = folder / CHECKPOINTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(asdict(record)) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def read_checkpoints(folder: Path) -> list[CheckpointRecord]:
    """The checkpoints written so far; a last line cut short by a crash is left out."""
    path = folder / CHECKPOINTS_FILE
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(CheckpointRecord(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            break
    return records


def predictions_path(folder: Path, index: int) -> Path:
    return folder / PREDICTIONS_DIR / f"{index:05d}.npy"


def write_done(folder: Path, record: DoneRecord) -> None:
    with _replaced(folder / DONE_FILE) as handle:
        handle.write(json.dumps(asdict(record), indent=2) + "\n")


def read_done(folder: Path) -> DoneRecord | None:
    path = folder / DONE_FILE
    if not path.exists():
        return None
    return DoneRecord.from_json_object(json.loads(path.read_text(encoding="utf-8")))


class _replaced:
    """A text file written beside its path and renamed over it once closed, so a reader
    never sees half of it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")
        path.parent.mkdir(parents=True, exist_ok=True)

    def __enter__(self) -> Any:
        self.handle = self.partial.open("w", encoding="utf-8")
        return self.handle

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        self.handle.close()
        if kind is None:
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)
