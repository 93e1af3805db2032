"""The models a job keeps for `score export-model` (issue 29): the weights at the checkpoint
a selection rule picks, each in a model folder `from_pretrained` loads
(job_files.kept_model_folder).

Which checkpoint stands for a job is the question of Keung et al. (2020): `en-dev` is the
best dev accuracy in the training language (the usual practice, and XTREME's), `last` the
final checkpoint. `score report` picks them from the stored accuracies; the job cannot wait
for the report, so it keeps the weights as it trains: each time a checkpoint's dev accuracy
beats every earlier one (strictly, so that the earliest of equals stays, as
`score_report.selected_position` picks), and at the last step. A checkpoint is kept from
the training thread through the saver's copy (nlibuild.scoring.saving), written in the
background as the training state is.

A resumed run drops the checkpoints after its saved state and evaluates them again; a
kept model of a dropped checkpoint is deleted then (`score export-model` would otherwise
find weights no stored checkpoint has), and the best so far is taken from the checkpoints
kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nlibuild.scoring import ScoringError
from nlibuild.scoring.job_files import (
    CHECKPOINT_KEY,
    EN_DEV,
    KEPT_RULES,
    KEPT_WEIGHTS_FILE,
    LAST,
    STEP_KEY,
    CheckpointRecord,
    JobSpec,
    kept_model_folder,
    source_dev_key,
    weights_metadata,
)

SaveWeights = Callable[[Path, dict[str, str]], None]
"""Queue the model's current weights to be written to a path with that metadata."""


def dev_accuracy(record: CheckpointRecord, key: str) -> float | None:
    correct, total = record.accuracy.get(key, (0, 0))
    return correct / total if total else None


class KeptModels:
    """The kept models of one job (its main process keeps them)."""

    def __init__(self, folder: Path, spec: JobSpec, config: Any, tokenizer: Any) -> None:
        unknown = [rule for rule in spec.keep_models if rule not in KEPT_RULES]
        if unknown:
            raise ScoringError(
                f"{folder}: keep_models {unknown[0]!r} is not one of {', '.join(KEPT_RULES)}"
            )
        self.folder, self.rules = folder, spec.keep_models
        self.config, self.tokenizer = config, tokenizer
        self.dev_key = source_dev_key(spec)
        self.best: float | None = None
        self.best_index: int | None = None

    def after_checkpoint(self, record: CheckpointRecord, *, last: bool, save: SaveWeights) -> None:
        """Keep the model of `record` where it is the best on dev so far, and where it is
        the last (unless it is the best too: model-en-dev holds it then)."""
        accuracy = dev_accuracy(record, self.dev_key)
        if accuracy is not None and (self.best is None or accuracy > self.best):
            self.best, self.best_index = accuracy, record.index
            if EN_DEV in self.rules:
                self._keep(EN_DEV, record, save)
        if (
            last
            and LAST in self.rules
            and not (EN_DEV in self.rules and self.best_index == record.index)
        ):
            self._keep(LAST, record, save)

    def resume(self, kept: Sequence[CheckpointRecord]) -> None:
        """After a resume kept the checkpoints `kept`: the best of them, and no model of a
        checkpoint that was dropped."""
        self.best = self.best_index = None
        for record in kept:
            accuracy = dev_accuracy(record, self.dev_key)
            if accuracy is not None and (self.best is None or accuracy > self.best):
                self.best, self.best_index = accuracy, record.index
        for rule in KEPT_RULES:
            weights = kept_model_folder(self.folder, rule) / KEPT_WEIGHTS_FILE
            if weights.exists() and kept_index(weights) not in range(len(kept)):
                weights.unlink()

    def _keep(self, rule: str, record: CheckpointRecord, save: SaveWeights) -> None:
        target = kept_model_folder(self.folder, rule)
        if not (target / "config.json").exists():
            self.config.save_pretrained(str(target))
            self.tokenizer.save_pretrained(str(target))
        metadata = {CHECKPOINT_KEY: str(record.index), STEP_KEY: str(record.step)}
        save(target / KEPT_WEIGHTS_FILE, metadata)


def kept_index(weights: Path) -> int | None:
    """The checkpoint a kept model.safetensors holds; None when it cannot be read."""
    try:
        return int(weights_metadata(weights)[CHECKPOINT_KEY])
    except (OSError, ValueError, KeyError, RecursionError):
        return None
