"""A model folder written by `score export-model`, loaded once to predict for the
workbench (issue 29): `nlibuild serve --model DIR` hands it to the web context as its
`predictor` (nlibuild/workbench/model_loop.Predictor).

A writer's feedback request asks about a few hypotheses at once; `predict` reads them as
one batch, padded to its longest pair, in one forward pass under `inference_mode`, with the
tokenization the job evaluated with (the longer side truncated first to its `max_length`,
the hypothesis alone for a hypothesis-only job), so that the served model predicts what the
job's checkpoint predicted for the same pair. The web server calls it from its worker
threads: one pass runs at a time (a lock), as the threads would only share the same cores.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nlibuild.scoring import ScoringError
from nlibuild.scoring.job_files import KEPT_WEIGHTS_FILE
from nlibuild.scoring.model import check_model_folder, load_tokenizer

MODEL_FILE = "nlibuild.json"
"""What `score export-model` writes beside the weights: the store, job, checkpoint, its
accuracies, the labels and how the job read its pairs."""


def weights_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class ServedModel:
    """A classifier of (premise, hypothesis) pairs: `predict` gives each pair's probability
    of every label, in `labels` order."""

    def __init__(self, model: Any, tokenizer: Any, description: dict[str, Any], device: Any):
        self.model, self.tokenizer, self.device = model, tokenizer, device
        self.labels: tuple[str, ...] = tuple(description["labels"])
        self.max_length = int(description["max_length"])
        self.hypothesis_only = bool(description["hypothesis_only"])
        job, checkpoint = description["job"], description["checkpoint"]
        self.identity: str = (
            f"{job['name']}@{checkpoint['step']} sha256:{description['weights_sha256'][:12]}"
        )
        self._lock = threading.Lock()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """Each pair's probabilities by label, from one batched forward pass."""
        if not pairs:
            return []
        import torch

        premises = [premise for premise, _ in pairs]
        hypotheses = [hypothesis for _, hypothesis in pairs]
        if self.hypothesis_only:
            encoded = self.tokenizer(
                hypotheses, truncation=True, max_length=self.max_length, padding=True,
                return_tensors="pt",
            )  # fmt: skip
        else:
            encoded = self.tokenizer(
                premises, hypotheses, truncation="longest_first", max_length=self.max_length,
                padding=True, return_tensors="pt",
            )  # fmt: skip
        inputs = {name: tensor.to(self.device) for name, tensor in encoded.items()}
        with self._lock, torch.inference_mode():
            logits = self.model(**inputs).logits
            rows = torch.softmax(logits.float(), dim=-1).cpu().tolist()
        return [dict(zip(self.labels, row, strict=True)) for row in rows]


def load_served_model(folder: Path, device: str | None = None) -> ServedModel:
    """The model of an exported folder, on `device` (default: the GPU if there is one, else
    the CPU), ready to predict. A folder that is missing, not an export, altered since
    (its weights' SHA-256 is in nlibuild.json) or that transformers cannot load is a
    `ScoringError` naming it and what to do."""
    description = read_description(folder)
    check_model_folder(folder)
    weights = folder / KEPT_WEIGHTS_FILE
    if not weights.is_file() or weights_sha256(weights) != description["weights_sha256"]:
        raise ScoringError(
            f"{weights}: not the weights `score export-model` wrote (their SHA-256 differs "
            f"from {MODEL_FILE}'s); export the model again"
        )
    import torch

    chosen = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    tokenizer = load_tokenizer(folder)
    model = _classifier(folder, tuple(description["labels"])).to(chosen).eval()
    return ServedModel(model, tokenizer, description, chosen)


_DESCRIPTION_KEYS = {
    "labels": list,
    "max_length": int,
    "hypothesis_only": bool,
    "job": dict,
    "checkpoint": dict,
    "weights_sha256": str,
}


def read_description(folder: Path) -> dict[str, Any]:
    """nlibuild.json of an exported folder, with the keys serving reads."""
    path = folder / MODEL_FILE
    if not folder.is_dir():
        raise ScoringError(
            f"{folder}: no such model folder; write one with `nlibuild score export-model`"
        )
    try:
        description = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScoringError(
            f"{folder}: no {MODEL_FILE}: not a folder written by `nlibuild score export-model`;"
            " export the job's checkpoint with it"
        ) from None
    except (OSError, ValueError, RecursionError) as error:
        raise ScoringError(f"{path}: cannot be read ({error}); export the model again") from None
    wrong = [
        key
        for key, kind in _DESCRIPTION_KEYS.items()
        if not isinstance(description, dict) or not isinstance(description.get(key), kind)
    ]
    if not wrong and not isinstance(description["job"].get("name"), str):
        wrong.append("job name")
    if not wrong and not isinstance(description["checkpoint"].get("step"), int):
        wrong.append("checkpoint step")
    if wrong:
        raise ScoringError(f"{path}: no {', no '.join(wrong)}; export the model again")
    return dict(description)


def _classifier(folder: Path, labels: tuple[str, ...]) -> Any:
    """The fine-tuned classifier as saved: a head of another size, or weights the folder
    lacks, would be made up at random by transformers, so either is refused."""
    from transformers import AutoConfig, AutoModelForSequenceClassification
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    try:
        config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
        if [config.id2label[n] for n in range(config.num_labels)] != list(labels):
            raise ScoringError(
                f"{folder / 'config.json'}: its labels {list(config.id2label.values())} are "
                f"not {list(labels)} of {MODEL_FILE}; export the model again"
            )
        model, info = AutoModelForSequenceClassification.from_pretrained(
            str(folder), config=config, local_files_only=True, output_loading_info=True
        )
    except (OSError, ValueError, KeyError) as error:
        raise ScoringError(f"{folder}: the model cannot be loaded: {error}") from error
    if info.get("missing_keys"):
        missing = sorted(info["missing_keys"])
        raise ScoringError(
            f"{folder / KEPT_WEIGHTS_FILE}: lacks {len(missing)} of the model's weights "
            f"({missing[0]}, ...); export the model again"
        )
    return model
