"""Time the scoring job's loop against transformers' `Trainer` on the CPU, one run each.

    python bench/bench_score.py [--train 2000] [--eval-per-split 125] [--epochs 1]
                                [--eval-every 0.02] [--hidden 128] [--layers 4]
                                [--threads 1] [--append-results]

Both train the same small random BERT-like model (nlibuild.scoring.tiny: a WordPiece
tokenizer trained on the data, hidden 128, 4 layers) on the same synthetic pairs, from the
same token IDs (tokenised once, before either clock starts), with the same settings (global
batch 32, AdamW at 5e-4 without weight decay, constant schedule, clipping at 1.0, the same
number of steps) and evaluate the same rows (4 languages x dev and test) at the same steps:
every `--eval-every` of an epoch, as Keung et al. (2020) do. Trainer keeps its defaults
otherwise (its collator pads each batch to its longest row; batches are not grouped by
length; evaluation in batches of the training batch size, in row order). Timed: the wall
time of loading the model, training and every evaluation. Printed: both times, the ratio,
and both runs' final accuracy (the two runs differ in batch order and dropout, so their
accuracies are close, not equal).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_import import append_results  # noqa: E402

from nlibuild.scoring import batching  # noqa: E402
from nlibuild.scoring.job_files import JobSpec, PairRecord, read_checkpoints, write_job  # noqa: E402
from nlibuild.scoring.loop import plan_steps  # noqa: E402

LANGS = ("en", "de", "fr", "zh")
WORDS = [f"{a}{b}" for a in "bcdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]


def synthetic_pairs(train: int, per_eval_split: int, seed: int = 11) -> list[PairRecord]:
    """Made-up words, lengths spread like NLI pairs (premises 5 to 40 words), and a label
    decided by marker words on both sides, so that the model has something to learn."""
    rng = random.Random(seed)
    groups = [("en", "train", train)]
    groups += [(lang, split, per_eval_split) for lang in LANGS for split in ("dev", "test")]
    pairs = []
    for lang, split, count in groups:
        for n in range(count):
            premise = [rng.choice(WORDS) for _ in range(int(rng.triangular(5, 40, 12)))]
            hypothesis = [rng.choice(WORDS) for _ in range(rng.randint(3, 12))]
            label = rng.randrange(3)
            if label == 0 or (label == 2 and rng.random() < 0.5):
                premise.insert(rng.randint(0, len(premise)), "sure")
            if label == 2:
                hypothesis.insert(rng.randint(0, len(hypothesis)), "not")
            pairs.append(
                PairRecord(
                    f"{lang}-{split}-{n}",
                    lang,
                    split,
                    " ".join(premise),
                    " ".join(hypothesis),
                    label,
                )
            )
    return pairs


class EvaluateAtSteps:
    """A Trainer callback that evaluates exactly after the given steps (the loop's list),
    where Trainer's own `eval_steps` would take a fixed interval."""

    def __new__(cls, steps: tuple[int, ...]) -> Any:
        from transformers import TrainerCallback

        wanted = frozenset(steps)

        class _Callback(TrainerCallback):  # type: ignore[misc]
            def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
                control.should_evaluate = state.global_step in wanted
                return control

        return _Callback()


def features(
    tokens: batching.TokenizedRows, rows: np.ndarray, labels: np.ndarray, segments: bool
) -> list[dict[str, Any]]:
    """Trainer's dataset: one dict of token lists a row, from the same token IDs as ours."""
    out = []
    for row, label in zip(rows, labels, strict=True):
        begin, end = tokens.starts[row], tokens.starts[row + 1]
        item: dict[str, Any] = {
            "input_ids": tokens.ids[begin:end].tolist(),
            "attention_mask": [1] * int(end - begin),
            "labels": int(label),
        }
        if segments:
            item["token_type_ids"] = tokens.segments[begin:end].tolist()
        out.append(item)
    return out


def run_trainer(
    model_folder: Path,
    spec: JobSpec,
    train_set: list[dict[str, Any]],
    eval_set: list[dict[str, Any]],
    eval_groups: np.ndarray,
    group_names: tuple[str, ...],
    *,
    out: Path,
    bf16: bool = False,
    eval_batch_size: int | None = None,
) -> tuple[float, list[dict[str, float]]]:
    """Trainer with the job's settings and its own defaults otherwise; returns the wall
    seconds of loading, training and evaluating, and the accuracies at every checkpoint."""
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        DataCollatorWithPadding,
        Trainer,
        TrainingArguments,
    )

    plan = plan_steps(len(train_set), spec)
    labels = np.array([item["labels"] for item in eval_set])
    history: list[dict[str, float]] = []

    def accuracy(prediction: Any) -> dict[str, float]:
        correct = prediction.predictions.argmax(-1) == labels
        scores = {
            name: float(correct[eval_groups == code].mean())
            for code, name in enumerate(group_names)
        }
        history.append(scores)
        return {"accuracy": float(correct.mean())}

    started = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(str(model_folder), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        str(model_folder), num_labels=len(spec.labels), local_files_only=True
    )
    arguments = TrainingArguments(
        output_dir=str(out),
        per_device_train_batch_size=spec.batch_size,
        per_device_eval_batch_size=eval_batch_size or spec.batch_size,
        learning_rate=spec.lr,
        lr_scheduler_type=spec.schedule,
        warmup_steps=plan.warmup_steps,
        max_steps=plan.total_steps,
        weight_decay=0.0,
        max_grad_norm=1.0,
        eval_strategy="no",  # EvaluateAtSteps decides
        save_strategy="no",
        logging_strategy="no",
        report_to="none",
        disable_tqdm=True,
        seed=spec.seed,
        bf16=bf16,
    )
    trainer = Trainer(
        model=model,
        args=arguments,
        train_dataset=train_set,
        eval_dataset=eval_set,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=accuracy,
        callbacks=[EvaluateAtSteps(plan.checkpoints)],
    )
    trainer.train()
    return time.perf_counter() - started, history


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--train", type=int, default=2000)
    parser.add_argument("--eval-per-split", type=int, default=125)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--eval-every", type=float, default=0.02)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--append-results", action="store_true")
    return parser.parse_args(argv)


def job_spec(model: Path, options: argparse.Namespace, **changes: Any) -> JobSpec:
    settings: dict[str, Any] = {
        "name": "bench",
        "model": str(model),
        "mode": "zero-shot",
        "seed": 1,
        "train_langs": ("en",),
        "eval_langs": LANGS,
        "epochs": options.epochs,
        "lr": 5e-4,
        "schedule": "constant",
        "batch_size": 32,
        "max_length": 128,
        "eval_every": options.eval_every,
        "save_every": 1.0,
    }
    return JobSpec(**(settings | changes))


def trainer_inputs(
    pairs: list[PairRecord], tokens: batching.TokenizedRows, segments: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], np.ndarray, tuple[str, ...]]:
    """Trainer's training and evaluation sets, and each evaluation row's group."""
    is_train = np.array([p.split == "train" for p in pairs])
    labels = np.array([p.label for p in pairs])
    train_rows, eval_rows = np.flatnonzero(is_train), np.flatnonzero(~is_train)
    keys = [f"{pairs[r].lang}/{pairs[r].split}" for r in eval_rows]
    group_names = tuple(dict.fromkeys(keys))
    groups = np.array([group_names.index(k) for k in keys])
    return (
        features(tokens, train_rows, labels[train_rows], segments),
        features(tokens, eval_rows, labels[eval_rows], segments),
        groups,
        group_names,
    )


def time_both(
    work: Path, model: Path, pairs: list[PairRecord], spec: JobSpec
) -> tuple[float, list[dict[str, float]], float, list[dict[str, float]]]:
    """Wall seconds and accuracies per checkpoint of our job and of Trainer; the token IDs
    are computed (and cached for our job) before either clock starts."""
    from nlibuild.scoring.job import run_job
    from nlibuild.scoring.model import load_tokenizer

    write_job(work / "job", spec, pairs)
    tokenizer = load_tokenizer(model)
    cache = batching.cache_path(work / "job", tokenizer, spec.max_length, False)
    tokens = batching.load_or_tokenize(
        cache,
        tokenizer,
        [p.premise for p in pairs],
        [p.hypothesis for p in pairs],
        max_length=spec.max_length,
        hypothesis_only=False,
    )
    started = time.perf_counter()
    run_job(work / "job", device="cpu")
    ours_s = time.perf_counter() - started
    ours = [
        {key: correct / total for key, (correct, total) in record.accuracy.items()}
        for record in read_checkpoints(work / "job")
    ]
    segments = "token_type_ids" in tokenizer.model_input_names
    train_set, eval_set, groups, names = trainer_inputs(pairs, tokens, segments)
    trainer_s, theirs = run_trainer(
        model, spec, train_set, eval_set, groups, names, out=work / "trainer"
    )
    return ours_s, ours, trainer_s, theirs


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    import torch
    import transformers

    from nlibuild.scoring.tiny import build_tiny_model

    torch.set_num_threads(options.threads)
    pairs = synthetic_pairs(options.train, options.eval_per_split)
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-score-") as scratch:
        work = Path(scratch)
        model = build_tiny_model(
            work / "model",
            [f"{p.premise} {p.hypothesis}" for p in pairs],
            hidden=options.hidden,
            layers=options.layers,
            heads=max(options.hidden // 32, 1),
        )
        # Warm-up, not reported: the first run in a process pays for lazy imports and
        # first-call set-up that the second would not.
        warm = synthetic_pairs(64, 8)
        time_both(work / "warm", model, warm, job_spec(model, options, eval_every=0.5))
        ours_s, ours, trainer_s, theirs = time_both(
            work / "timed", model, pairs, job_spec(model, options)
        )
    evaluated = len(pairs) - options.train
    lines = [
        f"- Date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; torch {torch.__version__}, "
        f"transformers {transformers.__version__}, Python {platform.python_version()}, "
        f"{options.threads} CPU thread(s) of {os.cpu_count()}",
        f"- Model: random BERT-like, hidden {options.hidden}, {options.layers} layers; "
        f"{options.train:,} training pairs x {options.epochs:g} epoch(s), batch 32; "
        f"{evaluated:,} evaluation rows ({len(LANGS)} languages x dev, test) at every "
        f"{options.eval_every:.0%} of an epoch: {len(ours)} checkpoints (Trainer: {len(theirs)})",
        "",
        "| run | wall s | en/dev at the end | mean accuracy at the end |",
        "|---|---:|---:|---:|",
        f"| nlibuild.scoring (run_job) | {ours_s:.1f} | {ours[-1]['en/dev']:.3f} | "
        f"{np.mean(list(ours[-1].values())):.3f} |",
        f"| transformers Trainer | {trainer_s:.1f} | {theirs[-1]['en/dev']:.3f} | "
        f"{np.mean(list(theirs[-1].values())):.3f} |",
        "",
        f"Ratio, Trainer / ours: {trainer_s / ours_s:.2f}x",
    ]
    text = "\n".join(lines)
    print(text)
    if options.append_results:
        append_results(text, "the scoring loop against HF Trainer, CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
