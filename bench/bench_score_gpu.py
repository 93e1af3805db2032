"""The scoring loop at XNLI's scale on one GPU, against transformers' `Trainer` defaults.

    python bench/bench_score_gpu.py [--quick] [--scale 1.0] [--trainer-checkpoints 3]
                                    [--device cuda] [--smoke] [--append-results]

Needs only torch and transformers (and numpy): the working tree's `nlibuild/scoring` is put
on the path; nothing is installed, nothing downloaded, no polars, no store.

The workload of the issue: an XLM-R-base-shaped model (`XLMRobertaConfig()`'s defaults:
vocabulary 250,002, 12 layers, hidden 768) with random weights, MNLI's 392,702 training
pairs x 3 epochs in batches of 32, and XNLI's 15 languages x (2,490 dev + 5,010 test) =
112,500 evaluation rows evaluated every 2% of an epoch (Keung et al. 2020): 150 checkpoints.
The inputs are random token IDs with XNLI-like lengths (a log-normal around 45 tokens, cut
to 10..128, max_length 128), so there is nothing to tokenise and nothing to learn: what is
timed is training plus evaluation.

- Ours: `TrainingRun` (the job's loop: length-grouped batches, dynamic padding, bf16
  autocast, fused AdamW, length-sorted evaluation on device under inference_mode), the
  whole run at `--scale`, the training state saved once an epoch.
- Trainer: its defaults (fp32, no length grouping, evaluation batches of 8 in row order)
  with the job's batch size, learning rate, schedule and evaluation steps, padded per batch
  by a collator like DataCollatorWithPadding. A whole run would take hours, so it runs the
  steps up to its `--trainer-checkpoints`-th checkpoint, and its time is extrapolated:
  training seconds a step (between its first and last checkpoint) x all steps + mean
  evaluation seconds x all checkpoints.

`--quick` is `--scale 0.05` (5% of the training and of the evaluation rows, the same 150
checkpoints): a few minutes. `--smoke` runs a tiny config on the CPU to check the script.
The aim (issue 17): >= 2x faster than Trainer, and the whole run in <= 10 minutes on one H100.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_import import append_results  # noqa: E402

from nlibuild.scoring import batching, ddp  # noqa: E402
from nlibuild.scoring.job_files import JobSpec  # noqa: E402
from nlibuild.scoring.loop import LoopData, TrainingRun, plan_steps  # noqa: E402

TRAIN_PAIRS = 392_702  # MNLI's training set, which XNLI trains on
XNLI_LANGS = 15
DEV_PER_LANG, TEST_PER_LANG = 2_490, 5_010
PAD_ID = 1  # XLM-R's


def synthetic_rows(
    count: int, vocab: int, generator: np.random.Generator
) -> batching.TokenizedRows:
    lengths = np.clip(np.rint(generator.lognormal(np.log(45), 0.45, count)), 10, 128)
    starts = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths.astype(np.int64), out=starts[1:])
    ids = generator.integers(5, vocab, size=int(starts[-1]), dtype=np.int32)
    ids[starts[:-1]] = 0  # <s>
    ids[starts[1:] - 1] = 2  # </s>
    return batching.TokenizedRows(ids, np.zeros(len(ids), dtype=np.int8), starts)


def loop_data(scale: float, vocab: int, seed: int = 0) -> LoopData:
    generator = np.random.default_rng(seed)
    n_train = max(round(TRAIN_PAIRS * scale), 64)
    per_group = [max(round(n * scale), 4) for n in (DEV_PER_LANG, TEST_PER_LANG)]
    group_sizes = per_group * XNLI_LANGS
    n_eval = sum(group_sizes)
    tokens = synthetic_rows(n_train + n_eval, vocab, generator)
    labels = generator.integers(0, 3, size=n_train + n_eval)
    names = tuple(f"l{lang:02d}/{split}" for lang in range(XNLI_LANGS) for split in ("dev", "test"))
    return LoopData(
        tokens=tokens,
        train_rows=np.arange(n_train),
        train_labels=labels[:n_train],
        eval_rows=np.arange(n_train, n_train + n_eval),
        eval_labels=labels[n_train:],
        eval_groups=np.repeat(np.arange(len(names)), group_sizes),
        group_names=names,
        pad_id=PAD_ID,
        use_segments=False,
    )


def make_model(smoke: bool, seed: int) -> Any:
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaForSequenceClassification

    torch.manual_seed(seed)
    if smoke:
        config = XLMRobertaConfig(
            vocab_size=1000,
            hidden_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=128,
            num_labels=3,
        )
    else:
        config = XLMRobertaConfig(num_labels=3)
    return XLMRobertaForSequenceClassification(config)


def job_spec(epochs: float) -> JobSpec:
    return JobSpec(
        name="xlmr-base-shaped",
        model="(random weights)",
        mode="zero-shot",
        seed=1,
        train_langs=("en",),
        eval_langs=tuple(f"l{n:02d}" for n in range(XNLI_LANGS)),
        epochs=epochs,
        lr=2e-5,
        schedule="linear",
        batch_size=32,
        max_length=128,
        eval_every=0.02,
        save_every=1.0,
    )


def time_ours(data: LoopData, spec: JobSpec, device: str, smoke: bool, folder: Path) -> float:
    import torch

    model = make_model(smoke, spec.seed)
    processes = ddp.Processes(0, 1, torch.device(device))
    _synchronize(device)
    started = time.perf_counter()
    run = TrainingRun(model, data, spec, folder, processes, None)
    run.run()
    _synchronize(device)
    return time.perf_counter() - started


def time_trainer(
    data: LoopData, spec: JobSpec, device: str, smoke: bool, checkpoints: int, folder: Path
) -> tuple[float, float, int]:
    """Trainer up to its `checkpoints`-th checkpoint (at least 2): (training seconds a
    step, between its first and last checkpoint, less the evaluations, so that its set-up
    is not counted; mean evaluation seconds; steps run)."""
    from bench_score import EvaluateAtSteps
    from transformers import Trainer, TrainerCallback, TrainingArguments

    plan = plan_steps(len(data.train_rows), spec)
    wanted = plan.checkpoints[: max(checkpoints, 2)]
    clock: list[tuple[int, float]] = []
    evaluations: list[float] = []

    class Clock(TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if state.global_step in wanted:
                _synchronize(device)
                clock.append((state.global_step, time.perf_counter()))
            if state.global_step >= wanted[-1]:
                control.should_training_stop = True
            return control

        def on_evaluate(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            evaluations.append(float(kwargs["metrics"]["eval_runtime"]))

    arguments = TrainingArguments(
        output_dir=str(folder),
        per_device_train_batch_size=spec.batch_size,
        learning_rate=spec.lr,
        lr_scheduler_type=spec.schedule,
        max_steps=plan.total_steps,
        eval_strategy="no",
        save_strategy="no",
        logging_strategy="no",
        report_to="none",
        disable_tqdm=True,
        seed=spec.seed,
        use_cpu=device == "cpu",
    )
    trainer = Trainer(
        model=make_model(smoke, spec.seed),
        args=arguments,
        train_dataset=_rows(data, data.train_rows, data.train_labels),
        eval_dataset=_rows(data, data.eval_rows, data.eval_labels),
        data_collator=_pad,
        callbacks=[EvaluateAtSteps(plan.checkpoints), Clock()],
    )
    trainer.train()
    (first_step, first_time), (last_step, last_time) = clock[0], clock[-1]
    training = last_time - first_time - sum(evaluations[: len(clock) - 1])
    return training / (last_step - first_step), float(np.mean(evaluations)), last_step


def _synchronize(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _rows(data: LoopData, rows: np.ndarray, labels: np.ndarray) -> list[dict[str, Any]]:
    starts, ids = data.tokens.starts, data.tokens.ids
    return [
        {"input_ids": ids[starts[r] : starts[r + 1]], "labels": int(label)}
        for r, label in zip(rows, labels, strict=True)
    ]


def _pad(items: list[dict[str, Any]]) -> dict[str, Any]:
    """What DataCollatorWithPadding does with a tokenizer: pad to the batch's longest."""
    import torch

    width = max(len(item["input_ids"]) for item in items)
    input_ids = torch.full((len(items), width), PAD_ID, dtype=torch.long)
    mask = torch.zeros((len(items), width), dtype=torch.long)
    for slot, item in enumerate(items):
        input_ids[slot, : len(item["input_ids"])] = torch.from_numpy(item["input_ids"])
        mask[slot, : len(item["input_ids"])] = 1
    labels = torch.tensor([item["labels"] for item in items])
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="--scale 0.05")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--trainer-checkpoints", type=int, default=3)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--smoke", action="store_true", help="a tiny model on the CPU")
    parser.add_argument("--append-results", action="store_true")
    options = parser.parse_args(argv)
    scale = 0.05 if options.quick else options.scale
    device = "cpu" if options.smoke else options.device
    if options.smoke:
        scale = min(scale, 0.002)

    import torch
    import transformers

    spec = job_spec(options.epochs)
    data = loop_data(scale, 1000 if options.smoke else 250_002)
    plan = plan_steps(len(data.train_rows), spec)
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-gpu-") as scratch:
        ours_s = time_ours(data, spec, device, options.smoke, Path(scratch) / "ours")
        step_s, eval_s, steps = time_trainer(
            data,
            spec,
            device,
            options.smoke,
            options.trainer_checkpoints,
            Path(scratch) / "trainer",
        )
    trainer_s = step_s * plan.total_steps + eval_s * len(plan.checkpoints)
    name = torch.cuda.get_device_name() if device.startswith("cuda") else "cpu"
    lines = [
        f"- Date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; {name}; torch "
        f"{torch.__version__}, transformers {transformers.__version__}",
        f"- {'tiny smoke-test' if options.smoke else 'XLM-R-base-shaped'} model, random "
        f"weights; {len(data.train_rows):,} training pairs x {options.epochs:g} epochs "
        f"({plan.total_steps:,} steps of 32); {len(data.eval_rows):,} evaluation rows "
        f"({XNLI_LANGS} languages, dev + test) at {len(plan.checkpoints)} checkpoints "
        f"(every 2% of an epoch); scale {scale:g}",
        f"- Trainer (defaults: fp32, eval batch 8, no length grouping) run for {steps:,} "
        f"steps and {max(options.trainer_checkpoints, 2)} evaluations: {step_s * 1000:.1f} ms a "
        f"step, {eval_s:.2f} s an evaluation; extrapolated to the whole run",
        "",
        "| run | wall s |",
        "|---|---:|",
        f"| nlibuild.scoring TrainingRun, whole run | {ours_s:,.1f} |",
        f"| transformers Trainer, extrapolated | {trainer_s:,.1f} |",
        "",
        f"Ratio, Trainer / ours: {trainer_s / ours_s:.2f}x",
    ]
    text = "\n".join(lines)
    print(text)
    if options.append_results:
        append_results(text, "the scoring loop at XNLI scale against HF Trainer, GPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
