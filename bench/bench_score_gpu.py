"""The scoring loop at XNLI's scale on one GPU: tokens a second for training and for
evaluation, and the minutes the whole run takes, against transformers' `Trainer` defaults.

    python3 bench/bench_score_gpu.py --quick [--compile both] [--no-trainer] [--budget-s 450]
    python3 bench/bench_score_gpu.py [--run-epochs 3] [--compile on] [--append-results]
    python3 bench/bench_score_gpu.py --smoke          # a tiny model on the CPU: checks the script

Needs only torch, transformers and numpy: the working tree's `nlibuild/scoring` is put on
the path; nothing is installed, nothing downloaded, no polars, no store.

The workload of issue 27: an XLM-R-base-shaped model (xlm-roberta-base's configuration:
vocabulary 250,002, 12 layers, hidden 768; 278M parameters) with random weights, MNLI's
392,702 training pairs x 3 epochs in batches of 32 (36,816 steps), and XNLI's 15 languages
x (2,490 dev + 5,010 test) = 112,500 evaluation rows evaluated every 2% of an epoch (Keung
et al. 2020): 150 checkpoints. The inputs are random token IDs with XNLI-like lengths (a
log-normal around 45 tokens, cut to 10..128, max_length 128): nothing to tokenise, nothing
to learn; what is timed is training plus evaluation plus saving.

- Ours: the job's own `TrainingRun` on the whole data set, for `--run-epochs` (`--quick`:
  0.2 of an epoch, 2,454 steps and 10 evaluations of all 112,500 rows, one state save).
  Rates come from the steps and evaluations after the first checkpoint (the first ones
  warm up, or compile), and project the whole run: steps x seconds a step + 150 x seconds
  an evaluation + saves x seconds a save keeps the training thread + the warm-up's excess.
  Ten training steps run under CUDA's sync debug mode: the synchronising calls they make
  are counted (the aim is 0). `--compile on|both` adds the run under torch.compile.
- Trainer: its defaults (fp32, no length grouping, evaluation batches of 8 in row order)
  with the job's batch size, learning rate, schedule and evaluation steps, padded per batch
  like DataCollatorWithPadding, up to its `--trainer-checkpoints`-th checkpoint, evaluating
  `--trainer-eval-share` of the rows (scaled up to all of them: in row order its time is
  linear in the rows). Skipped by `--no-trainer`, or when accelerate is missing.

Every part is printed when it ends; a part that would run past `--budget-s` (counted from
the start) is stopped and says so, so that the whole command ends within the budget plus
a minute. The aim (issue 27): the whole run in <= 10 minutes on one H100.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import gc
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from nlibuild.scoring import batching, ddp, saving  # noqa: E402
from nlibuild.scoring.job_files import JobSpec  # noqa: E402
from nlibuild.scoring.loop import LoopData, StepPlan, TrainingRun, plan_steps  # noqa: E402

TRAIN_PAIRS = 392_702  # MNLI's training set, which XNLI trains on
XNLI_LANGS = 15
DEV_PER_LANG, TEST_PER_LANG = 2_490, 5_010
PAD_ID = 1  # XLM-R's
XLMR_VOCAB = 250_002
SYNC_CHECKED_STEPS = 10
QUICK_RUN_EPOCHS = 0.2
QUICK_SAVE_EVERY = 0.1  # one save inside the quick run, to time what it costs the step


class OutOfTime(Exception):
    def __str__(self) -> str:
        return "the budget (--budget-s) ran out"


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise OutOfTime in the main thread after `seconds` (at least 1)."""

    def stop(_signal: int, _frame: Any) -> None:
        raise OutOfTime

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1.0))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
        # xlm-roberta-base's config.json (XLMRobertaConfig()'s own defaults are BERT's:
        # a vocabulary of 30,522).
        config = XLMRobertaConfig(
            vocab_size=XLMR_VOCAB,
            hidden_size=768,
            num_hidden_layers=12,
            num_attention_heads=12,
            intermediate_size=3072,
            max_position_embeddings=514,
            type_vocab_size=1,
            layer_norm_eps=1e-5,
            num_labels=3,
        )
    return XLMRobertaForSequenceClassification(config)


def job_spec(epochs: float, save_every: float | None) -> JobSpec:
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
        save_every=save_every,
    )


@dataclass
class Timings:
    """What one run of ours measured."""

    variant: str
    setup_s: float = 0.0  # building the TrainingRun: the model to the device, eval batches
    checkpoints: list[tuple[int, float, float]] = field(default_factory=list)  # step, begin, end
    step_tokens: list[tuple[int, int]] = field(default_factory=list)  # real, padded
    saves_s: list[float] = field(default_factory=list)  # time each save kept the loop
    syncs: int | None = None  # synchronising calls in SYNC_CHECKED_STEPS steps (CUDA only)
    eval_tokens: int = 0
    started: float = 0.0
    peak_gib: float = 0.0
    stopped: str = ""

    def training_rate(self) -> tuple[float, float, float, int] | None:
        """(seconds a step, real tokens/s, padded tokens/s, steps measured) over the
        steps between the first checkpoint's end and the last checkpoint's start."""
        if len(self.checkpoints) < 2:
            return None
        first_step, _, first_end = self.checkpoints[0]
        last_step, last_begin, _ = self.checkpoints[-1]
        between = sum(end - begin for _, begin, end in self.checkpoints[1:-1])
        seconds = last_begin - first_end - between
        steps = last_step - first_step
        real = sum(r for r, _ in self.step_tokens[first_step:last_step])
        padded = sum(p for _, p in self.step_tokens[first_step:last_step])
        return seconds / steps, real / seconds, padded / seconds, steps

    def evaluation_seconds(self) -> float | None:
        """The mean over the evaluations after the first (which warms up, or compiles)."""
        durations = [end - begin for _, begin, end in self.checkpoints]
        later = durations[1:] or durations
        return float(np.mean(later)) if later else None

    def warmup_excess(self) -> float:
        """What the first interval and evaluation took beyond the steady rates."""
        rate, evaluation = self.training_rate(), self.evaluation_seconds()
        if rate is None or evaluation is None:
            return 0.0
        first_step, begin, end = self.checkpoints[0]
        return max((begin - self.started) - first_step * rate[0], 0.0) + max(
            (end - begin) - evaluation, 0.0
        )


def timed_run_class(timings: Timings, device: str) -> type[TrainingRun]:
    import torch

    class TimedRun(TrainingRun):
        def train_step(self, batch: np.ndarray) -> None:
            lengths = self.data.tokens.lengths[self.data.train_rows[batch]]
            timings.step_tokens.append((int(lengths.sum()), int(lengths.max()) * len(batch)))
            checked = device.startswith("cuda") and 20 <= self.step < 20 + SYNC_CHECKED_STEPS
            if not checked:
                super().train_step(batch)
                return
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                torch.cuda.set_sync_debug_mode("warn")
                try:
                    super().train_step(batch)
                finally:
                    torch.cuda.set_sync_debug_mode("default")
            syncs = sum("synchroniz" in str(w.message) for w in caught)
            timings.syncs = (timings.syncs or 0) + syncs

        def evaluate(self) -> np.ndarray:
            _synchronize(device)
            begin = time.perf_counter()
            predicted = super().evaluate()  # ends reading the predictions back: a sync
            timings.checkpoints.append((self.step, begin, time.perf_counter()))
            return predicted

        def save_state(self) -> None:
            begin = time.perf_counter()
            super().save_state()
            timings.saves_s.append(time.perf_counter() - begin)

    return TimedRun


def time_ours(
    data: LoopData, spec: JobSpec, device: str, smoke: bool, folder: Path, compiled: bool
) -> Timings:
    import torch

    timings = Timings("torch.compile" if compiled else "eager")
    timings.eval_tokens = int(data.tokens.lengths[data.eval_rows].sum())
    model = make_model(smoke, spec.seed)
    processes = ddp.Processes(0, 1, torch.device(device))
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    begin = time.perf_counter()
    run_class = timed_run_class(timings, device)
    run = run_class(model, data, spec, folder, processes, None, compile_model=compiled)
    _synchronize(device)
    timings.started = time.perf_counter()
    timings.setup_s = timings.started - begin
    try:
        run.run()
    except Exception as error:  # a part that fails must not lose the others' numbers
        timings.stopped = f"failed at step {run.step:,}: {one_line(error)}"
        if _caused_by_budget(error):
            timings.stopped = f"stopped by the budget at step {run.step:,}"
        with contextlib.suppress(Exception):
            run.saver.join()
    if device.startswith("cuda"):
        timings.peak_gib = torch.cuda.max_memory_allocated() / 2**30
    del run, model
    gc.collect()
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return timings


def _caused_by_budget(error: BaseException | None) -> bool:
    """OutOfTime, or an error raised while handling it (torch.compile wraps it)."""
    while error is not None:
        if isinstance(error, OutOfTime):
            return True
        error = error.__cause__ or error.__context__
    return False


def one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def projected_seconds(timings: Timings, full: StepPlan) -> float | None:
    rate, evaluation = timings.training_rate(), timings.evaluation_seconds()
    if rate is None or evaluation is None:
        return None
    save = float(np.mean(timings.saves_s)) if timings.saves_s else 0.0
    return (
        timings.setup_s
        + timings.warmup_excess()
        + full.total_steps * rate[0]
        + len(full.checkpoints) * evaluation
        + len(full.saves) * save
    )


def ours_row(timings: Timings, full: StepPlan) -> str:
    rate, evaluation = timings.training_rate(), timings.evaluation_seconds()
    projection = projected_seconds(timings, full)
    if rate is None or evaluation is None or projection is None:
        return f"| {timings.variant} | {timings.stopped or 'too few checkpoints'} |"
    save = f"{np.mean(timings.saves_s):.2f}" if timings.saves_s else "n.a."
    syncs = "n.a." if timings.syncs is None else str(timings.syncs)
    cells = [
        timings.variant,
        f"{rate[1]:,.0f} / {rate[2]:,.0f}",
        f"{rate[0] * 1000:.2f}",
        f"{timings.eval_tokens / evaluation:,.0f}",
        f"{evaluation:.2f}",
        save,
        f"{timings.setup_s + timings.warmup_excess():.1f}",
        syncs,
        f"{timings.peak_gib:.1f}",
        f"**{projection / 60:.1f}**",
    ]
    note = f" ({timings.stopped})" if timings.stopped else ""
    return "| " + " | ".join(cells) + f" |{note}"


OURS_HEADER = (
    "| variant | train tokens/s (real / padded) | ms a step | eval tokens/s | s an evaluation "
    "| s a save keeps the loop | set-up + warm-up s | syncs in 10 steps | peak GiB "
    "| projected min |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def time_trainer(
    data: LoopData,
    spec: JobSpec,
    device: str,
    smoke: bool,
    checkpoints: int,
    eval_share: float,
    folder: Path,
) -> tuple[float, float, int, int]:
    """Trainer up to its `checkpoints`-th checkpoint (at least 2), evaluating a share of
    the rows: (training seconds a step between its first and last checkpoint, less the
    evaluations, so that its set-up is not counted; mean seconds an evaluation of the
    share; the rows evaluated; steps run)."""
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
    evaluated = max(round(len(data.eval_rows) * eval_share), 1)
    trainer = Trainer(
        model=make_model(smoke, spec.seed),
        args=arguments,
        train_dataset=_rows(data, data.train_rows, data.train_labels),
        eval_dataset=_rows(data, data.eval_rows[:evaluated], data.eval_labels[:evaluated]),
        data_collator=_pad,
        callbacks=[EvaluateAtSteps(plan.checkpoints), Clock()],
    )
    trainer.train()
    (first_step, first_time), (last_step, last_time) = clock[0], clock[-1]
    # Trainer evaluates after a step's callbacks: evaluations 0 .. n-2 fall between the marks.
    training = last_time - first_time - sum(evaluations[: len(clock) - 1])
    return training / (last_step - first_step), float(np.mean(evaluations)), evaluated, last_step


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


def parse_options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help=f"--run-epochs {QUICK_RUN_EPOCHS} (a few minutes)"
    )
    parser.add_argument("--run-epochs", type=float, default=3.0, help="epochs of ours to run")
    parser.add_argument("--scale", type=float, default=1.0, help="share of XNLI's rows")
    parser.add_argument("--compile", choices=("off", "on", "both"), default="off")
    parser.add_argument("--no-trainer", action="store_true", help="skip Trainer")
    parser.add_argument("--trainer-checkpoints", type=int, default=2)
    parser.add_argument("--trainer-eval-share", type=float, default=0.05)
    parser.add_argument("--budget-s", type=float, default=450.0, help="stop parts after this")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--smoke", action="store_true", help="a tiny model on the CPU")
    parser.add_argument("--append-results", action="store_true")
    options = parser.parse_args(argv)
    if options.quick:
        options.run_epochs = QUICK_RUN_EPOCHS
    if options.smoke:
        options.device = "cpu"
        options.scale = min(options.scale, 0.002)
        options.run_epochs = min(options.run_epochs, 0.4)
    return options


def workload_lines(
    options: argparse.Namespace, data: LoopData, measured: JobSpec, full: StepPlan, model: Any
) -> list[str]:
    import torch
    import transformers

    device = options.device
    name = torch.cuda.get_device_name() if device.startswith("cuda") else "cpu"
    parameters = sum(p.numel() for p in model.parameters())
    state_gb = saving.state_bytes(model) / 1e9
    run = plan_steps(len(data.train_rows), measured, saving.state_bytes(model))
    return [
        f"- {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; {name}; torch {torch.__version__}, "
        f"transformers {transformers.__version__}",
        f"- {'tiny smoke-test' if options.smoke else 'XLM-R-base-shaped'} model, "
        f"{parameters / 1e6:,.1f}M parameters (a saved state: {state_gb:.2f} GB), random "
        f"weights. Whole run: {len(data.train_rows):,} pairs x 3 epochs = "
        f"{full.total_steps:,} steps of 32; {len(data.eval_rows):,} evaluation rows "
        f"({XNLI_LANGS} languages, dev + test) at {len(full.checkpoints)} checkpoints (every 2% "
        f"of an epoch); {len(full.saves)} state saves (the default for this size); scale "
        f"{options.scale:g}",
        f"- Measured: the job's TrainingRun for {options.run_epochs:g} epoch(s): "
        f"{run.total_steps:,} steps, {len(run.checkpoints)} evaluations of every row, "
        f"{len(run.saves)} save(s); rates after the first checkpoint; projected = set-up + "
        "warm-up + steps x ms a step + checkpoints x s an evaluation + saves x s a save",
    ]


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    started = time.monotonic()

    def left() -> float:
        return float(options.budget_s) - (time.monotonic() - started)

    data = loop_data(options.scale, 1000 if options.smoke else XLMR_VOCAB)
    model = make_model(options.smoke, 1)
    full = plan_steps(len(data.train_rows), job_spec(3.0, None), saving.state_bytes(model))
    measured = job_spec(options.run_epochs, QUICK_SAVE_EVERY if options.run_epochs < 1 else None)
    report = [*workload_lines(options, data, measured, full, model), "", OURS_HEADER]
    del model
    print("\n".join(report), flush=True)
    variants = {"off": [False], "on": [True], "both": [False, True]}[options.compile]
    fastest: float | None = None
    with tempfile.TemporaryDirectory(prefix="nlibuild-bench-gpu-") as scratch:
        for compiled in variants:
            report.append(ours_line(options, data, measured, full, compiled, Path(scratch), left()))
            print(report[-1], flush=True)
            projection = PROJECTIONS.get(compiled)
            if projection is not None:
                fastest = projection if fastest is None else min(fastest, projection)
        report += ["", trainer_line(options, data, full, fastest, Path(scratch), left())]
    print(report[-1], flush=True)
    if options.append_results:
        from bench_import import append_results

        append_results("\n".join(report), "the scoring loop at XNLI scale on one GPU")
    return 0


PROJECTIONS: dict[bool, float] = {}  # compiled or not: the projected seconds of the whole run


def ours_line(
    options: argparse.Namespace,
    data: LoopData,
    measured: JobSpec,
    full: StepPlan,
    compiled: bool,
    scratch: Path,
    seconds_left: float,
) -> str:
    variant = "torch.compile" if compiled else "eager"
    if seconds_left < 60:
        return f"| {variant} | not run: {seconds_left:.0f} s of the budget left |"
    folder = scratch / variant
    try:
        with time_limit(seconds_left):
            timings = time_ours(data, measured, options.device, options.smoke, folder, compiled)
    except OutOfTime:
        return f"| {variant} | stopped by the budget while setting up |"
    projection = projected_seconds(timings, full)
    if projection is not None:
        PROJECTIONS[compiled] = projection
    return ours_row(timings, full)


def trainer_line(
    options: argparse.Namespace,
    data: LoopData,
    full: StepPlan,
    fastest: float | None,
    scratch: Path,
    seconds_left: float,
) -> str:
    if options.no_trainer:
        return "Trainer: not run (--no-trainer)."
    if seconds_left < 60:
        return f"Trainer: not run ({seconds_left:.0f} s of the budget left)."
    spec = job_spec(3.0, None)
    try:
        with time_limit(seconds_left):
            step_s, eval_s, evaluated, steps = time_trainer(
                data,
                spec,
                options.device,
                options.smoke,
                options.trainer_checkpoints,
                options.trainer_eval_share,
                scratch / "trainer",
            )
    except OutOfTime:
        return "Trainer: stopped by the budget."
    except Exception as error:  # e.g. ImportError: Trainer needs accelerate
        return f"Trainer: not run ({one_line(error)})."
    whole_eval_s = eval_s * len(data.eval_rows) / evaluated
    trainer_s = step_s * full.total_steps + whole_eval_s * len(full.checkpoints)
    ratio = f"; Trainer / ours (fastest): {trainer_s / fastest:.2f}x" if fastest else ""
    return (
        f"Trainer (defaults: fp32, eval batch 8 in row order, no length grouping), {steps:,} "
        f"steps and {options.trainer_checkpoints} evaluations of {evaluated:,} rows: "
        f"{step_s * 1000:.1f} ms a step, {whole_eval_s:.1f} s for all {len(data.eval_rows):,} "
        f"rows (scaled); projected whole run {trainer_s / 60:,.1f} min{ratio}"
    )


if __name__ == "__main__":
    sys.exit(main())
