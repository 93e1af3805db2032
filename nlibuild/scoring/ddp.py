"""One process or many: what the loop needs to know about distributed data parallel runs.

Launched by `torchrun` or `accelerate launch` (WORLD_SIZE > 1 in the environment), every
process trains on its share of each GLOBAL batch (JobSpec.batch_size is the global batch:
more processes split it, they do not multiply it), DDP averages the gradients, and the
evaluation batches are dealt out round robin and their predictions gathered back in row
order; only rank 0 writes files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Processes:
    rank: int
    world_size: int
    device: Any  # torch.device

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def start(device: str | None) -> Processes:
    """Join the process group when launched as one of several processes (nccl on CUDA,
    gloo on CPU), and pick this process's device: `device` if given, else its local GPU,
    else the CPU."""
    import torch
    import torch.distributed as dist

    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if device is None:
        device = f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu"
    chosen = torch.device(device)
    if chosen.type == "cuda":
        torch.cuda.set_device(chosen)
    if world_size == 1:
        return Processes(0, 1, chosen)
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if chosen.type == "cuda" else "gloo")
    return Processes(dist.get_rank(), world_size, chosen)


def stop(processes: Processes) -> None:
    import torch.distributed as dist

    if processes.distributed and dist.is_initialized():
        dist.destroy_process_group()


def wrap(model: Any, processes: Processes) -> Any:
    """The model DDP averages the gradients of (itself in a single process)."""
    if not processes.distributed:
        return model
    from torch.nn.parallel import DistributedDataParallel

    device_ids = [processes.device.index] if processes.device.type == "cuda" else None
    return DistributedDataParallel(model, device_ids=device_ids)


def my_share(batch: np.ndarray, processes: Processes) -> np.ndarray:
    """This process's contiguous slice of a global batch (sizes differ by at most one)."""
    return np.array_split(batch, processes.world_size)[processes.rank]


def sum_across(tensor: Any, processes: Processes) -> Any:
    """The element-wise sum of `tensor` over all processes, in place; every process gets it."""
    if processes.distributed:
        import torch.distributed as dist

        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor


def gather_objects(value: object, processes: Processes) -> list[object]:
    """Every process's `value`, by rank (for small things: RNG states)."""
    if not processes.distributed:
        return [value]
    import torch.distributed as dist

    gathered: list[object] = [None] * processes.world_size
    dist.all_gather_object(gathered, value)
    return gathered


def barrier(processes: Processes) -> None:
    if processes.distributed:
        import torch.distributed as dist

        dist.barrier()
