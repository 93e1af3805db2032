"""What makes the scoring loop fast on a GPU, checked on the CPU (issue 27, item 10): a
training step that never asks the device for a value (on CUDA each such read is a host sync
that stops the host from queueing the next step), evaluation batches without padding or
masks, the training state written off the training thread and never half-written under its
name, a save interval from the model's size, and the `--compile` option reaching the loop.

`bench/bench_score_gpu.py --quick` measures the same on a GPU: tokens a second for training
and evaluation, and the minutes a whole XNLI-scale run takes.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nlibuild.scoring import saving
from nlibuild.scoring.batching import evaluation_batches
from nlibuild.scoring.job_files import DoneRecord, JobSpec, read_pairs, write_job
from nlibuild.scoring.loop import STATE_FILE, avoid_cudnn_attention, plan_steps

torch = pytest.importorskip("torch", reason="training needs the `score` extra (torch)")

from test_scoring_loop import _tiny, planted_pairs, spec_for  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

XNLI_TRAIN = 392_702


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch.set_num_threads(1)
    return _tiny(tmp_path_factory.mktemp("tiny"), dropout=0.1)


def training_run(model_folder: Path, job: Path, spec: JobSpec, attention: str | None = None) -> Any:
    from nlibuild.scoring.ddp import Processes
    from nlibuild.scoring.job import _loop_data
    from nlibuild.scoring.loop import TrainingRun
    from nlibuild.scoring.model import load_classifier, load_tokenizer

    pairs = list(read_pairs(job))
    data = _loop_data(job, spec, pairs, load_tokenizer(model_folder))
    model = load_classifier(model_folder, spec.labels)
    if attention is not None:
        model.set_attn_implementation(attention)
    return TrainingRun(model, data, spec, job, Processes(0, 1, torch.device("cpu")), None)


class DeviceReads(TorchDispatchMode):  # type: ignore[misc]
    """Records every operation that reads a tensor's value back to the host: `.item()`,
    `float(t)`, `bool(t)` (an `if` on a tensor) all end in `_local_scalar_dense`."""

    READS = ("aten::_local_scalar_dense", "aten::item", "aten::is_nonzero")

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func.name() in self.READS:
            self.reads.append(func.name())
        return func(*args, **(kwargs or {}))


def test_a_training_step_reads_nothing_back_from_the_device(
    tiny_model: Path, tmp_path: Path
) -> None:
    """Forward (with padded rows: transformers asks `mask.all()` of a 2D mask), loss,
    backward, clipping, AdamW's update, the loss sum and the dynamics bookkeeping."""
    spec = spec_for(tiny_model, batch_size=8)
    write_job(tmp_path, spec, planted_pairs(64, 4))
    run = training_run(tiny_model, tmp_path, spec)
    assert run.square_mask
    lengths = run.data.tokens.lengths[run.data.train_rows]
    batch = np.argsort(lengths)[::8]  # rows of many lengths: the batch has padding
    assert len(set(lengths[batch].tolist())) > 1
    with DeviceReads() as device_reads:
        for _ in range(3):
            run.train_step(batch)
            run.step += 1
    assert device_reads.reads == []


def test_an_evaluation_reads_back_only_its_predictions(tiny_model: Path, tmp_path: Path) -> None:
    """One copy of all the predictions at the end (not a read), nothing per batch."""
    spec = spec_for(tiny_model, batch_size=8)
    write_job(tmp_path, spec, planted_pairs(32, 30))
    run = training_run(tiny_model, tmp_path, spec)
    assert len(run.eval_batches) > 10
    with DeviceReads() as device_reads:
        predicted = run.evaluate()
    assert device_reads.reads == []
    assert predicted.shape == (len(run.data.eval_rows),)


def test_the_square_mask_is_used_only_where_the_model_gives_its_own_logits_for_it(
    tiny_model: Path, tmp_path: Path
) -> None:
    """SDPA takes the boolean [batch, 1, 1, width] mask as transformers would make it;
    eager attention adds a mask to the scores, so booleans would be added as 0 and 1: the
    loop notices and gives that model the 2D mask, as before."""
    spec = spec_for(tiny_model, batch_size=8)
    write_job(tmp_path, spec, planted_pairs(64, 4))
    sdpa = training_run(tiny_model, tmp_path, spec)
    eager = training_run(tiny_model, tmp_path, spec, attention="eager")
    assert sdpa.square_mask and not eager.square_mask
    rows = sdpa.data.train_rows[:8]
    sdpa.model.eval()
    eager.model.eval()
    eager.model.load_state_dict(sdpa.model.state_dict())
    eager_inputs = eager.inputs(rows)
    assert eager_inputs["attention_mask"].shape == (8, eager_inputs["input_ids"].shape[1])
    with torch.no_grad():
        expected = eager.model(**eager_inputs).logits
        got = sdpa.model(**sdpa.inputs(rows)).logits
    torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-5)


def test_evaluation_batches_hold_one_length_each_and_carry_no_mask(
    tiny_model: Path, tmp_path: Path
) -> None:
    lengths = np.random.default_rng(3).integers(3, 128, size=5000)
    batches = evaluation_batches(lengths, max_tokens=4096)
    assert sorted(np.concatenate(batches).tolist()) == list(range(5000))
    for batch in batches:
        assert len(set(lengths[batch].tolist())) == 1
        assert len(batch) * lengths[batch[0]] <= 4096
    # Only a length's last batch is short of the budget: ~125 lengths add ~125 batches.
    assert len(batches) < lengths.sum() / 4096 + 126

    spec = spec_for(tiny_model, batch_size=8)
    write_job(tmp_path, spec, planted_pairs(32, 30))
    run = training_run(tiny_model, tmp_path, spec)
    for _, inputs in run.eval_batches:
        assert "attention_mask" not in inputs


class Writes:
    """Stands in for `saving.write_atomically`: records the step each state holds, and
    (when asked) holds the first write until the training thread has taken a step more."""

    def __init__(self, run: Any, hold_first: bool = False) -> None:
        self.run = run
        self.steps: list[int] = []
        self.stepped = threading.Event()
        self.trained_meanwhile: bool | None = None
        self.hold_first = hold_first
        self.real = saving.write_atomically

    def __call__(self, torch_module: Any, state: dict[str, Any], path: Path) -> None:
        self.steps.append(int(state["step"]))
        if self.hold_first and len(self.steps) == 1:
            self.trained_meanwhile = self.stepped.wait(timeout=60)
        self.real(torch_module, state, path)


def test_the_state_is_written_while_training_goes_on_and_waited_for_at_the_end(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(tiny_model, epochs=1.0, eval_every=0.5, save_every=0.25)
    write_job(tmp_path, spec, planted_pairs(128, 4))
    run = training_run(tiny_model, tmp_path, spec)
    writes = Writes(run, hold_first=True)
    monkeypatch.setattr(saving, "write_atomically", writes)
    step = run.train_step

    def step_and_tell(batch: np.ndarray) -> None:
        step(batch)
        if writes.steps:
            writes.stepped.set()

    monkeypatch.setattr(run, "train_step", step_and_tell)
    run.run()
    assert writes.trained_meanwhile is True  # the write waited for a step, and got it
    assert writes.steps == [1, 2, 3]  # 4 steps an epoch; none after the last step
    saved = torch.load(tmp_path / "results/state" / STATE_FILE, weights_only=True)
    assert saved["step"] == 3
    assert not (tmp_path / "results/state" / (STATE_FILE + ".partial")).exists()


def test_a_write_that_fails_halfway_leaves_the_previous_state_and_fails_the_run(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(tiny_model, epochs=1.0, eval_every=0.5, save_every=0.25)
    write_job(tmp_path, spec, planted_pairs(128, 4))
    run = training_run(tiny_model, tmp_path, spec)
    real_save = torch.save
    saves = [0]

    def save_half_then_fail(state: dict[str, Any], handle: Any) -> None:
        saves[0] += 1
        if saves[0] < 2:
            real_save(state, handle)
            return
        handle.write(b"half a state")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", save_half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        run.run()
    state = tmp_path / "results/state" / STATE_FILE
    assert torch.load(state, weights_only=True)["step"] == 1  # the first save, whole
    assert (state.parent / (STATE_FILE + ".partial")).read_bytes() == b"half a state"


def test_a_save_holds_the_values_of_its_step_not_later_ones(tmp_path: Path) -> None:
    saver = saving.BackgroundSaver(torch, torch.device("cpu"))
    release = threading.Event()
    real = saving.write_atomically

    def held(torch_module: Any, state: dict[str, Any], path: Path) -> None:
        release.wait(timeout=60)
        real(torch_module, state, path)

    weights = torch.zeros(4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(saving, "write_atomically", held)
        saver.save({"model": {"w": weights}, "steps": [torch.ones(1)]}, tmp_path / "s.pt")
        weights += 7  # the next optimiser step, while the file is being written
        release.set()
        saver.join()
    saved = torch.load(tmp_path / "s.pt", weights_only=True)
    assert saved["model"]["w"].tolist() == [0.0] * 4
    assert saved["steps"][0].tolist() == [1.0]


def test_the_save_interval_follows_the_models_size(tmp_path: Path) -> None:
    """A save is the weights and AdamW's two moments: 12 bytes a float32 parameter."""
    xlmr_base, bert_base, distilbert = 278_000_000, 110_000_000, 66_000_000
    assert saving.default_save_every(12 * xlmr_base) == 1.0  # 3.3 GB: once an epoch
    assert saving.default_save_every(12 * bert_base) == 1.0  # 1.3 GB
    assert saving.default_save_every(12 * distilbert) == 0.5  # 0.8 GB: twice
    assert saving.default_save_every(12 * 100_000) == 0.1  # a tiny model: every tenth
    assert JobSpec("j", "m", "zero-shot", 1, ("en",), ("de",)).save_every is None
    spec = replace(spec_for(tmp_path, eval_every=0.02, epochs=3.0), save_every=None)
    plan = plan_steps(XNLI_TRAIN, spec, state_bytes=12 * xlmr_base)
    assert sorted(plan.saves) == [12_272, 24_544]  # epochs 1 and 2; after 3 the job is done
    model = torch.nn.Linear(10, 3)  # 33 float32 parameters
    assert saving.state_bytes(model) == 33 * 4 * 3


def test_the_compile_option_reaches_the_loop(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torch.compile itself is too slow to run on two shared cores; the option is followed
    to the call (the model, with dynamic shapes, for training and for evaluation)."""
    from nlibuild.scoring import job

    compiled: list[tuple[Any, dict[str, Any]]] = []

    def record(module: Any, **options: Any) -> Any:
        compiled.append((module, options))
        return module

    monkeypatch.setattr(torch, "compile", record)
    write_job(tmp_path, spec_for(tiny_model, epochs=0.5), planted_pairs(64, 4))
    job.run_job(tmp_path, device="cpu")
    assert compiled == []
    job.run_job(tmp_path, device="cpu", compile_model=True)
    assert len(compiled) == 2
    assert all(type(m).__name__ == "BertForSequenceClassification" for m, _ in compiled)
    assert all(options == {"dynamic": True} for _, options in compiled)

    given: list[dict[str, Any]] = []

    def fake_run_job(folder: Path, **options: Any) -> DoneRecord:
        given.append(options)
        return DoneRecord(checkpoints=0, seconds=0.0, device="cpu", processes=1)

    monkeypatch.setattr(job, "run_job", fake_run_job)
    assert job.main([str(tmp_path), "--compile"]) == 0
    assert job.main([str(tmp_path)]) == 0
    assert [options["compile_model"] for options in given] == [True, False]


class AttentionSwitches:
    """Stands in for `torch` where only `torch.backends.cuda.enable_cudnn_sdp` is read."""

    def __init__(self) -> None:
        self.cudnn: list[bool] = []
        self.backends = self
        self.cuda = self

    def enable_cudnn_sdp(self, enabled: bool) -> None:
        self.cudnn.append(enabled)


def test_cudnn_attention_is_switched_off_on_a_gpu_and_left_alone_on_a_cpu() -> None:
    """cuDNN's attention plans each new shape on the host (20 ms a layer a step on an H100,
    bench/RESULTS.md); batches change width every step, so a GPU run leaves it out."""
    import torch

    on_gpu, on_cpu = AttentionSwitches(), AttentionSwitches()
    avoid_cudnn_attention(on_gpu, torch.device("cuda"))
    avoid_cudnn_attention(on_cpu, torch.device("cpu"))
    assert on_gpu.cudnn == [False]
    assert on_cpu.cudnn == []
