"""The training loop: plain PyTorch, evaluating every language's dev and test rows at every
checkpoint.

Keung et al. (2020, "Don't Use English Dev") evaluate every 2% of an epoch, because choosing
the checkpoint by English dev accuracy misleads in the target languages; evaluating 15
languages that often must cost little, so the evaluation rows are tokenised once, padded
once into length-sorted batches of one length each (no padding, so no mask, and SDPA takes
its fastest kernel) that stay on the device, and run under `inference_mode` (with bf16
autocast on CUDA) in one pass for all languages and splits, with no host sync until the
predictions are read back.

On CUDA the training step never waits for the device: its inputs, labels and row indexes
are copied from pinned memory without blocking, the loss is summed on the device and read
at checkpoints, and the padding mask is given in the form transformers would make of it
(see `TrainingRun.square_mask_works`), so that the host runs ahead and queues the next
step while the device computes this one. The training state is saved off the training
thread (nlibuild.scoring.saving).

Training dynamics (Swayamdipta et al. 2020, "Dataset Cartography") come for free from the
training forward passes: the probability the model gave each row's gold label, one row of
`dynamics.npy` per epoch, and whether the gold label was the most probable one (the paper's
correctness counts the epochs where the model's argmax is the gold label), one row of
`gold_argmax.npy` per epoch. An epoch that does not reach a row (a partial last epoch,
`--epochs 1.5`) leaves NaN and NOT_REACHED there: the row's dynamics are over the epochs that
reached it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nlibuild.scoring import ScoringError, batching, ddp, saving
from nlibuild.scoring.job_files import (
    CHECKPOINTS_FILE,
    DYNAMICS_FILE,
    GOLD_ARGMAX_FILE,
    NOT_REACHED,
    PREDICTIONS_DIR,
    STATE_DIR,
    CheckpointRecord,
    JobSpec,
    append_checkpoint,
    predictions_path,
    read_checkpoints,
)
from nlibuild.scoring.kept_models import KeptModels

CheckpointCallback = Callable[[CheckpointRecord], None]

CLIP_NORM = 1.0
# HF Trainer's default and XNLI's fine-tuning scripts' (run_xnli.py): no weight decay.
WEIGHT_DECAY = 0.0
# Evaluation keeps no activations for a backward pass, so on a GPU a batch holds this many
# times the tokens of a full training batch (65,536 for 32 x 128: fewer, larger kernels; an
# XLM-R-base layer's widest activation is then 400 MB in bf16). On a CPU smaller
# batches are faster (their activations stay in cache): bench_score.py's model evaluated
# 1,000 rows in 0.90 s with batches of 16,384 tokens, 0.61 s with 2,048.
EVAL_TOKENS_FACTOR_GPU = 16
EVAL_TOKENS_CPU = 2048
STATE_FILE = "state.pt"
REPORTED_FILE = "reported.json"


@dataclass(frozen=True)
class StepPlan:
    """Every step the run takes, computed once: where it evaluates and saves."""

    steps_per_epoch: int
    total_steps: int
    warmup_steps: int
    checkpoints: tuple[int, ...]  # steps after which to evaluate, increasing
    saves: frozenset[int]  # steps after which to save the training state


def plan_steps(train_rows: int, spec: JobSpec, state_bytes: int = 0) -> StepPlan:
    """The run's steps; a job that does not set `save_every` saves as often as
    `saving.default_save_every` allows a state of `state_bytes`. No save after the last
    step: the job is finished then, and done.json, not a state, is what a resume reads."""
    steps_per_epoch = max(math.ceil(train_rows / spec.batch_size), 1)
    total_steps = max(round(spec.epochs * steps_per_epoch), 1)
    save_every = spec.save_every
    if save_every is None:
        save_every = saving.default_save_every(state_bytes)
    saves = set(every_share(steps_per_epoch, total_steps, save_every)) - {total_steps}
    return StepPlan(
        steps_per_epoch=steps_per_epoch,
        total_steps=total_steps,
        warmup_steps=round(spec.warmup * total_steps),
        checkpoints=every_share(steps_per_epoch, total_steps, spec.eval_every),
        saves=frozenset(saves),
    )


def every_share(steps_per_epoch: int, total_steps: int, share: float) -> tuple[int, ...]:
    """The steps at every `share` of an epoch (k * share * steps per epoch, rounded), and
    the last step; never step 0, never twice."""
    interval = share * steps_per_epoch
    steps = {total_steps}
    k = 1
    while round(k * interval) < total_steps:
        steps.add(max(round(k * interval), 1))
        k += 1
    return tuple(sorted(steps))


def learning_rate_factor(step: int, plan: StepPlan, schedule: str) -> float:
    """The factor of the peak learning rate for the update after `step` steps; the same
    curve as transformers' get_linear_schedule_with_warmup / get_constant_schedule_with_warmup."""
    if step < plan.warmup_steps:
        return step / max(plan.warmup_steps, 1)
    if schedule == "constant":
        return 1.0
    return max(0.0, (plan.total_steps - step) / max(plan.total_steps - plan.warmup_steps, 1))


@dataclass(frozen=True)
class LoopData:
    """The job's rows as the loop sees them: indexes into `tokens`, labels, and for each
    evaluation row the code of its `<lang>/<split>` group."""

    tokens: batching.TokenizedRows
    train_rows: np.ndarray
    train_labels: np.ndarray
    eval_rows: np.ndarray
    eval_labels: np.ndarray
    eval_groups: np.ndarray
    group_names: tuple[str, ...]
    pad_id: int
    use_segments: bool  # the model takes token_type_ids (BERT does, XLM-R ignores them)


def avoid_cudnn_attention(torch: Any, device: Any) -> None:
    """Leave cuDNN out of scaled-dot-product attention on a GPU (flash and memory-efficient
    attention remain). cuDNN's attention builds an execution plan on the host for each new
    shape, and batches here are as wide as their longest row, so nearly every step is a new
    shape: on an H100, `bench/profile_score_step.py` found 8.4 ms (forward) + 11.1 ms
    (backward) of host time a layer a step in `_cudnn_attention_*` against 11 ms of device
    time for the whole step (bench/RESULTS.md). Process-wide, as torch's switch is."""
    if device.type == "cuda":
        torch.backends.cuda.enable_cudnn_sdp(False)


class TrainingRun:
    """One job's training, from its first step or from its saved state; `compile_model`
    runs the model through `torch.compile` (dynamic shapes: batches differ in width)."""

    def __init__(
        self,
        model: Any,
        data: LoopData,
        spec: JobSpec,
        folder: Path,
        processes: ddp.Processes,
        on_checkpoint: CheckpointCallback | None,
        *,
        compile_model: bool = False,
        kept: KeptModels | None = None,
    ) -> None:
        import torch

        self.torch = torch
        self.data, self.spec, self.folder, self.processes = data, spec, folder, processes
        self.on_checkpoint = on_checkpoint
        self.kept = kept
        self.plan = plan_steps(len(data.train_rows), spec, saving.state_bytes(model))
        self.device = processes.device
        self.pinned = self.device.type == "cuda"
        avoid_cudnn_attention(torch, self.device)
        self.model = model.to(self.device)
        self.square_mask = self.square_mask_works()
        self.trained = ddp.wrap(self.model, processes)
        self.evaluated = self.model
        if compile_model:
            self.trained = torch.compile(self.trained, dynamic=True)
            self.evaluated = torch.compile(self.model, dynamic=True)
        # Fused AdamW reads its step counts on the device; the unfused one calls .item().
        fused = True if self.device.type in ("cuda", "cpu") else None
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=spec.lr, weight_decay=WEIGHT_DECAY, fused=fused
        )
        self.saver = saving.BackgroundSaver(torch, self.device)
        self.step = 0
        self.reported = 0  # checkpoints whose callback returned, over every attempt
        self.written = 0  # checkpoints in checkpoints.jsonl
        self.started = time.monotonic()
        epochs = math.ceil(spec.epochs)
        n_train = len(data.train_rows)
        self.loss_sum = torch.zeros((), dtype=torch.float64, device=self.device)
        self.loss_steps = 0
        self.gold_probability = torch.zeros(n_train, dtype=torch.float32, device=self.device)
        self.gold_argmax = torch.zeros(n_train, dtype=torch.float32, device=self.device)
        self.seen = torch.zeros(n_train, dtype=torch.float32, device=self.device)
        self.dynamics = torch.full((epochs, n_train), float("nan"), dtype=torch.float32)
        self.argmax_dynamics = torch.full((epochs, n_train), NOT_REACHED, dtype=torch.int8)
        self.eval_batches = self._eval_batches_on_device()

    def autocast(self) -> Any:
        if self.device.type == "cuda":
            return self.torch.autocast("cuda", dtype=self.torch.bfloat16)
        return contextlib.nullcontext()

    def to_device(self, array: np.ndarray) -> Any:
        """`array` on the device; on CUDA copied from pinned memory without blocking (a
        copy from pageable memory waits for the device)."""
        tensor = self.torch.from_numpy(array)
        if not self.pinned:
            return tensor.to(self.device)
        return tensor.pin_memory().to(self.device, non_blocking=True)

    def inputs(self, rows: np.ndarray) -> dict[str, Any]:
        """The model's inputs for `rows`, padded to the longest, on the device. With the
        square mask form, a batch without padding gets no mask at all (what transformers
        makes of an all-ones mask, decided here on the host)."""
        arrays = batching.padded(self.data.tokens, rows, self.data.pad_id)
        if not self.data.use_segments:
            del arrays["token_type_ids"]
        mask = arrays.pop("attention_mask")
        if not self.square_mask:
            arrays["attention_mask"] = mask
        elif not mask.all():
            arrays["attention_mask"] = square(mask)
        return {name: self.to_device(array) for name, array in arrays.items()}

    def square_mask_works(self) -> bool:
        """Whether the model takes its padding mask as booleans [batch, 1, 1, width] (True:
        attend). transformers turns a 2D mask into that form for SDPA itself, but first
        asks the device whether any token is padding (`mask.all()`): a host sync in every
        step. Tried once, on a few training rows of different lengths: the square form is
        used only if the model's logits for it, and for a row alone without a mask, are
        those it gives for the 2D mask; otherwise every batch takes the 2D mask."""
        torch = self.torch
        first = self.data.train_rows[:1000]
        by_length = np.argsort(self.data.tokens.lengths[first], kind="stable")
        rows = first[np.unique(np.concatenate([by_length[:4], by_length[-4:]]))]
        arrays = batching.padded(self.data.tokens, rows, self.data.pad_id)
        if not self.data.use_segments:
            del arrays["token_type_ids"]
        mask = arrays.pop("attention_mask")
        given = {name: torch.from_numpy(array).to(self.device) for name, array in arrays.items()}
        alone = {name: tensor[:1, : int(mask[0].sum())] for name, tensor in given.items()}
        # Full float32 matmuls (no TF32), so that rounding stays far below a wrong mask's effect.
        precision = torch.get_float32_matmul_precision()
        torch.set_float32_matmul_precision("highest")
        self.model.eval()
        try:
            with torch.no_grad():
                flat = self.model(**given, attention_mask=torch.from_numpy(mask).to(self.device))
                squared = torch.from_numpy(square(mask)).to(self.device)
                as_square = self.model(**given, attention_mask=squared).logits
                unmasked = self.model(**alone).logits
        except (RuntimeError, ValueError, TypeError, IndexError):
            return False
        finally:
            self.model.train()
            torch.set_float32_matmul_precision(precision)
        expected = flat.logits.float()
        agree = torch.allclose(as_square.float(), expected, rtol=1e-4, atol=1e-5)
        return bool(agree and torch.allclose(unmasked.float(), expected[:1], rtol=1e-4, atol=1e-5))

    def run(self) -> int:
        """Train to the last step; returns the number of checkpoints written. A state
        still being written is waited for, whether the run ends or fails."""
        try:
            self.train_all_steps()
        except BaseException:
            with contextlib.suppress(Exception):
                self.saver.join()
            raise
        self.saver.join()
        return self.written

    def train_all_steps(self) -> None:
        batches: list[np.ndarray] = []
        batches_epoch = -1
        checkpoints = set(self.plan.checkpoints)
        self.trained.train()
        while self.step < self.plan.total_steps:
            epoch, position = divmod(self.step, self.plan.steps_per_epoch)
            if epoch != batches_epoch:
                lengths = self.data.tokens.lengths[self.data.train_rows]
                batches = batching.training_batches(
                    lengths, self.spec.batch_size, seed=self.spec.seed, epoch=epoch
                )
                batches_epoch = epoch
            self.train_step(batches[position])
            self.step += 1
            if self.step % self.plan.steps_per_epoch == 0 or self.step == self.plan.total_steps:
                self.close_epoch(epoch)
            if self.step in checkpoints:
                self.checkpoint()
            if self.step in self.plan.saves:
                self.save_state()

    def train_step(self, batch: np.ndarray) -> None:
        torch = self.torch
        mine = ddp.my_share(batch, self.processes)
        rows = self.data.train_rows[mine]
        labels = self.to_device(self.data.train_labels[mine])
        factor = learning_rate_factor(self.step, self.plan, self.spec.schedule)
        for group in self.optimizer.param_groups:
            group["lr"] = self.spec.lr * factor
        with self.autocast():
            logits = self.trained(**self.inputs(rows)).logits
        losses = torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")
        # DDP averages the processes' gradients; scaling each process's sum by
        # world_size / global batch makes that average the mean over the global batch,
        # whatever share of it each process had.
        scale = self.processes.world_size / len(batch)
        (losses.sum() * scale).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), CLIP_NORM)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        with torch.no_grad():
            self.loss_sum += losses.detach().sum().double() / len(batch)
            probabilities = torch.softmax(logits.detach().float(), dim=-1)
            local = self.to_device(mine)
            self.gold_probability.index_copy_(
                0, local, probabilities.gather(1, labels[:, None])[:, 0]
            )
            self.gold_argmax.index_copy_(0, local, (probabilities.argmax(dim=-1) == labels).float())
            self.seen.index_fill_(0, local, 1.0)
        self.loss_steps += 1

    def close_epoch(self, epoch: int) -> None:
        """Move the epoch's gold-label probabilities and argmax flags into the dynamics
        (NaN and NOT_REACHED for rows a partial last epoch did not reach) and write both
        files."""
        probability = ddp.sum_across(self.gold_probability, self.processes).cpu()
        gold_argmax = ddp.sum_across(self.gold_argmax, self.processes).cpu()
        seen = ddp.sum_across(self.seen, self.processes).cpu() > 0
        self.dynamics[epoch] = torch_where(self.torch, seen, probability, float("nan"))
        flags = torch_where(self.torch, seen, gold_argmax, float(NOT_REACHED))
        self.argmax_dynamics[epoch] = flags.to(self.torch.int8)
        for running in (self.gold_probability, self.gold_argmax, self.seen):
            running.zero_()
        if self.processes.is_main:
            _save_npy(self.folder / DYNAMICS_FILE, self.dynamics.numpy())
            _save_npy(self.folder / GOLD_ARGMAX_FILE, self.argmax_dynamics.numpy())

    def _eval_batches_on_device(self) -> list[tuple[Any, dict[str, Any]]]:
        """This process's evaluation batches, padded once and kept on the device for every
        checkpoint: (positions among the evaluation rows, model inputs)."""
        lengths = self.data.tokens.lengths[self.data.eval_rows]
        budget = EVAL_TOKENS_CPU
        if self.device.type == "cuda":
            budget = self.spec.batch_size * self.spec.max_length * EVAL_TOKENS_FACTOR_GPU
        batches = batching.evaluation_batches(lengths, budget)
        mine = batches[self.processes.rank :: self.processes.world_size]
        return [(self.to_device(b), self.inputs(self.data.eval_rows[b])) for b in mine]

    def evaluate(self) -> np.ndarray:
        """The predicted label of every evaluation row, in row order, gathered from every
        process (each fills its own batches' rows with label + 1, the rest stay 0)."""
        torch = self.torch
        self.model.eval()
        with torch.inference_mode():
            predicted = torch.zeros(len(self.data.eval_rows), dtype=torch.int32, device=self.device)
            with self.autocast():
                for positions, inputs in self.eval_batches:
                    logits = self.evaluated(**inputs).logits
                    predicted.index_copy_(0, positions, logits.argmax(dim=-1).to(torch.int32) + 1)
            ddp.sum_across(predicted, self.processes)
            labels = predicted.cpu().numpy().astype(np.int64) - 1
        self.model.train()
        return np.asarray(labels, dtype=np.int8)

    def checkpoint(self) -> None:
        predicted = self.evaluate()
        loss = ddp.sum_across(self.loss_sum.clone(), self.processes)
        train_loss = float(loss) / self.loss_steps if self.loss_steps else None
        self.loss_sum.zero_()
        self.loss_steps = 0
        index = self.written
        self.written += 1
        if not self.processes.is_main:
            return
        record = CheckpointRecord(
            index=index,
            step=self.step,
            epoch=self.step / self.plan.steps_per_epoch,
            examples_seen=self.examples_seen(),
            train_loss=train_loss,
            accuracy=self.accuracy(predicted),
            seconds=time.monotonic() - self.started,
        )
        _save_npy(predictions_path(self.folder, index), predicted)
        append_checkpoint(self.folder, record)
        if self.kept is not None:
            last = self.step == self.plan.total_steps
            self.kept.after_checkpoint(record, last=last, save=self.keep_weights)
        if self.on_checkpoint is not None and index >= self.reported:
            self.on_checkpoint(record)
        self.reported = max(self.reported, index + 1)
        _write_json(self.folder / STATE_DIR / REPORTED_FILE, {"reported": self.reported})

    def examples_seen(self) -> int:
        full_epochs, position = divmod(self.step, self.plan.steps_per_epoch)
        n_train = len(self.data.train_rows)
        last = min(position * self.spec.batch_size, n_train)
        return full_epochs * n_train + last

    def accuracy(self, predicted: np.ndarray) -> dict[str, list[int]]:
        groups = len(self.data.group_names)
        correct = np.bincount(
            self.data.eval_groups, weights=predicted == self.data.eval_labels, minlength=groups
        )
        total = np.bincount(self.data.eval_groups, minlength=groups)
        return {
            name: [int(correct[code]), int(total[code])]
            for code, name in enumerate(self.data.group_names)
        }

    def keep_weights(self, path: Path, metadata: dict[str, str]) -> None:
        """The model's weights as they are now, written to `path` (safetensors) in the
        background, with the state's copy buffers (`saving.BackgroundSaver.save`)."""
        state = {"model": self.model.state_dict()}
        self.saver.save(state, path, saving.weights_writer(metadata))

    def save_state(self) -> None:
        """Everything a resumed run needs to take the same next step, in one file replaced
        atomically: weights, optimiser, step (the sampler's position follows from it and
        the seed), loss and dynamics so far, and every process's random state. Copied
        behind the current step and written in the background (saving.BackgroundSaver)."""
        torch = self.torch
        rng = ddp.gather_objects(_random_state(torch, self.device), self.processes)
        loss = ddp.sum_across(self.loss_sum.clone(), self.processes)
        probability = ddp.sum_across(self.gold_probability.clone(), self.processes)
        gold_argmax = ddp.sum_across(self.gold_argmax.clone(), self.processes)
        seen = ddp.sum_across(self.seen.clone(), self.processes)
        if self.processes.is_main:
            state = {
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "step": self.step,
                "written": self.written,
                "loss_sum": loss.cpu(),
                "loss_steps": self.loss_steps,
                "gold_probability": probability.cpu(),
                "gold_argmax": gold_argmax.cpu(),
                "seen": seen.cpu(),
                "dynamics": self.dynamics,
                "argmax_dynamics": self.argmax_dynamics,
                "rng": rng,
            }
            self.saver.save(state, self.folder / STATE_DIR / STATE_FILE)
        ddp.barrier(self.processes)

    def resume(self) -> None:
        """Take up the saved state; keep the checkpoints written up to it, drop later ones
        (they are evaluated again). With no saved state, start from the beginning."""
        torch = self.torch
        path = self.folder / STATE_DIR / STATE_FILE
        reported_path = self.folder / STATE_DIR / REPORTED_FILE
        if reported_path.exists():
            self.reported = int(json.loads(reported_path.read_text())["reported"])
        if not path.exists():
            self.drop_checkpoints_from(0)
            return
        state = torch.load(path, map_location="cpu", weights_only=True)
        if "argmax_dynamics" not in state:
            raise ScoringError(
                f"{path}: saved by an nlibuild whose job files are of version 1 (no "
                "gold_argmax.npy); run the job again without --resume"
            )
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = int(state["step"])
        self.written = int(state["written"])
        # Each process's share of the sums was saved as rank 0's total: rank 0 takes it
        # back, the others start from zero, so that the sums across processes are unchanged.
        mine = self.processes.is_main
        self.loss_sum.copy_(state["loss_sum"] if mine else torch.zeros(()))
        self.loss_steps = int(state["loss_steps"])
        self.gold_probability.copy_(state["gold_probability"] if mine else 0)
        self.gold_argmax.copy_(state["gold_argmax"] if mine else 0)
        self.seen.copy_(state["seen"] if mine else 0)
        self.dynamics = state["dynamics"]
        self.argmax_dynamics = state["argmax_dynamics"]
        saved_rng = state["rng"]
        # Resumed with as many processes as saved, each takes up its own random state;
        # with another count the run goes on from the seed (not the same run, but a run).
        if len(saved_rng) == self.processes.world_size:
            _set_random_state(torch, self.device, saved_rng[self.processes.rank])
        self.drop_checkpoints_from(self.written)

    def drop_checkpoints_from(self, index: int) -> None:
        """Forget the checkpoints from `index` on: their lines, predictions and kept models."""
        if not self.processes.is_main:
            return
        self._drop_records_from(index)
        if self.kept is not None:
            self.kept.resume(read_checkpoints(self.folder))

    def _drop_records_from(self, index: int) -> None:
        kept = read_checkpoints(self.folder)[:index]
        lines = "".join(json.dumps(record.__dict__) + "\n" for record in kept)
        path = self.folder / CHECKPOINTS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(lines, encoding="utf-8")
        os.replace(partial, path)
        for stale in (self.folder / PREDICTIONS_DIR).glob("*.npy"):
            if stale.stem.isdigit() and int(stale.stem) >= index:
                stale.unlink()


def square(mask: np.ndarray) -> np.ndarray:
    """A [batch, width] 0/1 padding mask as booleans [batch, 1, 1, width]."""
    return np.ascontiguousarray(mask.astype(bool)[:, None, None, :])


def torch_where(torch: Any, condition: Any, values: Any, otherwise: float) -> Any:
    return torch.where(condition, values, torch.full_like(values, otherwise))


def _random_state(torch: Any, device: Any) -> dict[str, Any]:
    cuda = torch.cuda.get_rng_state(device) if device.type == "cuda" else None
    return {"cpu": torch.get_rng_state(), "cuda": cuda}


def _set_random_state(torch: Any, device: Any, state: dict[str, Any]) -> None:
    torch.set_rng_state(state["cpu"])
    if state["cuda"] is not None and device.type == "cuda":
        torch.cuda.set_rng_state(state["cuda"], device)


def _save_npy(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.stem + ".partial.npy")
    np.save(partial, array)
    os.replace(partial, path)


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(value), encoding="utf-8")
    os.replace(partial, path)
