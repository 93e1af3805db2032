"""Load a tokenizer and a sequence classifier from a local folder, never from a hub.

Works with transformers 5.x on PyTorch 2.11 or newer (what a GPU node has preinstalled).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nlibuild.scoring import ScoringError

CONFIG_FILES = ("config.json",)
# A fast tokenizer's own file, or the vocabularies a slow one is converted from
# (BERT's WordPiece, XLM-R's and mT5's SentencePiece).
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "sentencepiece.bpe.model", "spiece.model")
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)


def check_model_folder(folder: Path) -> None:
    """Raise a ScoringError naming `folder` and what it lacks, before transformers gives a
    less helpful message (or, with a hub name, tries the network)."""
    if not folder.is_dir():
        raise ScoringError(
            f"{folder}: no such model folder; give a local folder with config.json, "
            "a tokenizer and weights (nothing is downloaded)"
        )
    wanted = {
        "config (config.json)": CONFIG_FILES,
        "tokenizer (" + " or ".join(TOKENIZER_FILES) + ")": TOKENIZER_FILES,
        "weights (" + " or ".join(WEIGHT_FILES) + ")": WEIGHT_FILES,
    }
    missing = [
        what for what, names in wanted.items() if not any((folder / n).is_file() for n in names)
    ]
    if missing:
        raise ScoringError(
            f"{folder}: the model folder has no {', no '.join(missing)}; save the model "
            "there with save_pretrained() (tokenizer and model)"
        )


def load_tokenizer(folder: Path) -> Any:
    check_model_folder(folder)
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder), local_files_only=True)


def load_classifier(folder: Path, labels: tuple[str, ...]) -> Any:
    """The model with a head of `len(labels)` outputs named by `labels`; a head of another
    size (a model fine-tuned on other labels, or a bare encoder) is replaced by a new one."""
    check_model_folder(folder)
    from transformers import AutoConfig, AutoModelForSequenceClassification
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    head_differs = getattr(config, "num_labels", None) != len(labels)
    config.num_labels = len(labels)
    config.id2label = dict(enumerate(labels))
    config.label2id = {label: index for index, label in enumerate(labels)}
    try:
        return AutoModelForSequenceClassification.from_pretrained(
            str(folder),
            config=config,
            local_files_only=True,
            ignore_mismatched_sizes=head_differs,
        )
    except (OSError, ValueError) as error:
        raise ScoringError(f"{folder}: the model cannot be loaded: {error}") from error
