"""Where a training step of the scoring loop spends its time on a GPU (torch.profiler).

    python3 bench/profile_score_step.py [--steps 20] [--smoke]

The XLM-R-base-shaped model and XNLI-like rows of `bench_score_gpu.py`, 1% of the rows (the
set-up stays short); after 30 warm-up steps, `--steps` steps are profiled, and the ops are
printed sorted by their device time and by their host time, with the wall-clock time a
step and the parts of a step timed with CUDA events (forward + backward, clipping, the
optimizer). Answers the question `bench_score_gpu.py --quick` raises when ms a step is far
above what the FLOPs need.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_score_gpu import job_spec, loop_data, make_model

from nlibuild.scoring import ddp
from nlibuild.scoring.loop import TrainingRun

WARM_UP_STEPS = 30


class Done(Exception):
    """Ends the run once the profiled steps are done."""


def profiled_run(smoke: bool, steps: int, device: str) -> Any:
    import torch

    data = loop_data(0.01, 1000 if smoke else 250_002)
    model = make_model(smoke, 1)
    walls: list[float] = []
    holder: dict[str, Any] = {}

    class ProfiledRun(TrainingRun):
        def train_step(self, batch: np.ndarray) -> None:
            if self.step == WARM_UP_STEPS:
                torch.cuda.synchronize() if device == "cuda" else None
                holder["profile"] = torch.profiler.profile(
                    activities=[torch.profiler.ProfilerActivity.CPU]
                    + ([torch.profiler.ProfilerActivity.CUDA] if device == "cuda" else [])
                )
                holder["profile"].__enter__()
            begin = time.perf_counter()
            super().train_step(batch)
            if device == "cuda":
                torch.cuda.synchronize()
            walls.append(time.perf_counter() - begin)
            if self.step + 1 >= WARM_UP_STEPS + steps:
                holder["profile"].__exit__(None, None, None)
                raise Done

        def evaluate(self) -> np.ndarray:  # not what is profiled here
            return np.zeros(len(self.data.eval_rows), dtype=np.int64)

    with tempfile.TemporaryDirectory() as folder:
        spec = job_spec(1.0, None)
        run = ProfiledRun(
            model, data, spec, Path(folder), ddp.Processes(0, 1, torch.device(device)), None
        )
        with contextlib.suppress(Done):
            run.run()
    measured = walls[WARM_UP_STEPS:]
    median, mean = (1000 * float(f(measured)) for f in (np.median, np.mean))
    print(
        f"wall ms a step (synchronised), {len(measured)} steps: "
        f"median {median:.1f}, mean {mean:.1f}"
    )
    return holder["profile"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--smoke", action="store_true")
    options = parser.parse_args()
    device = "cpu" if options.smoke else "cuda"
    profile = profiled_run(options.smoke, options.steps, device)
    table = profile.key_averages()
    if device == "cuda":
        print(table.table(sort_by="cuda_time_total", row_limit=25, max_name_column_width=60))
    print(table.table(sort_by="self_cpu_time_total", row_limit=20, max_name_column_width=60))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
