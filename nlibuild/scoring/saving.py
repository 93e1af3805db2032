"""Saving the training state off the training thread, and how often to save it.

A save holds the weights and both of AdamW's moments: three times the weights' bytes, 3.3 GB
for XLM-R base (278M parameters in float32). Written on the training thread, every save
would stall the GPU for the seconds the disk takes. Here the state is copied into CPU
buffers (pinned on CUDA, so the copies are asynchronous; kept from one save to the next)
behind the training step that produced it, and a thread writes the file while training
goes on. The thread waits on a CUDA event for the copies, so the training thread never
waits for the device; it waits only for the previous write, at the next save and at the
end of the run.

The file is written under a temporary name, flushed to the disk and renamed: a crash
during a write leaves the previous state file (or none), never a half-written one under
the name a resumed run reads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Writer = Callable[[Any, dict[str, Any], Path], None]
"""How a copied state reaches its file: `(torch, state, path)`."""

STATE_COPIES = 3  # the weights, AdamW's first and second moments
SAVE_BYTES_PER_EPOCH = 2 * 10**9
MOST_SAVES_PER_EPOCH = 10


def default_save_every(state_bytes: int) -> float:
    """The share of an epoch between saves when the job does not set one: as many saves an
    epoch as fit in SAVE_BYTES_PER_EPOCH of state, at least one (a base-size model, whose
    state is gigabytes, saves once an epoch) and at most MOST_SAVES_PER_EPOCH (a small
    model loses at most a tenth of an epoch to a crash)."""
    saves = SAVE_BYTES_PER_EPOCH // max(state_bytes, 1)
    return 1.0 / min(max(saves, 1), MOST_SAVES_PER_EPOCH)


def state_bytes(model: Any) -> int:
    """The bytes a save of `model`'s training state takes: its trainable weights and the
    two moments AdamW keeps for each."""
    weights = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
    return int(weights) * STATE_COPIES


class BackgroundSaver:
    """Writes one training state at a time in a thread; `join` waits for the write and
    raises its error, if it had one."""

    def __init__(self, torch: Any, device: Any) -> None:
        self.torch = torch
        self.device = device
        self.buffers: dict[str, Any] = {}  # where each device tensor is copied, by its path
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def save(self, state: dict[str, Any], path: Path, write: Writer | None = None) -> None:
        """Copy `state` (nested dicts, lists and tuples of tensors and plain values) and
        write the copy to `path` in the background, with `write` (default:
        `write_atomically`). States of the same shape share the copy buffers: the kept
        weights (`{"model": ...}`) take those of the training state's weights."""
        self.join()
        snapshot = self._copy(state, "")
        ready = None
        if self.device.type == "cuda":
            ready = self.torch.cuda.Event()
            ready.record()
        self.thread = threading.Thread(
            target=self._write,
            args=(snapshot, path, ready, write or write_atomically),
            name="nlibuild-save",
            daemon=True,
        )
        self.thread.start()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def _copy(self, value: Any, where: str) -> Any:
        if isinstance(value, dict):
            return {key: self._copy(item, f"{where}/{key}") for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            items = [self._copy(item, f"{where}/{n}") for n, item in enumerate(value)]
            return items if isinstance(value, list) else tuple(items)
        if not isinstance(value, self.torch.Tensor):
            return value
        if value.device.type != "cuda":
            return value.detach().clone()
        buffer = self.buffers.get(where)
        if buffer is None or buffer.shape != value.shape or buffer.dtype != value.dtype:
            buffer = self.torch.empty(value.shape, dtype=value.dtype, pin_memory=True)
            self.buffers[where] = buffer
        buffer.copy_(value.detach(), non_blocking=True)
        return buffer

    def _write(self, snapshot: dict[str, Any], path: Path, ready: Any, write: Writer) -> None:
        try:
            if ready is not None:
                ready.synchronize()
            write(self.torch, snapshot, path)
        except BaseException as error:  # handed to the training thread by join()
            self.error = error


def write_atomically(torch: Any, state: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as handle:
        torch.save(state, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def weights_writer(metadata: dict[str, str]) -> Writer:
    """A `Writer` of a `{"model": state_dict}` state as a safetensors file (what
    `from_pretrained` reads) whose header carries `metadata`, replaced atomically."""

    def write(_torch: Any, state: dict[str, Any], path: Path) -> None:
        from safetensors.torch import save_file

        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        save_file(state["model"], str(partial), metadata={"format": "pt", **metadata})
        with partial.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, path)

    return write
