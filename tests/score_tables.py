"""Score tables in a test store, with raw SQL (tests may run SQL; nlibuild's modules
outside store.py, queries/ and core/ may not).

The tables are migration 0010's (`score_jobs`, `score_checkpoints`, `score_accuracy`,
`score_dynamics`, rebuilt by 0014): every store made by `init` has them.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from nlibuild.scoring.job_files import JobSpec

Counts = Mapping[tuple[str, str], tuple[int, int]]
"""(lang, split) -> (correct, total)"""


def _write(db: Path, sql: str, *params: object) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("PRAGMA foreign_keys = ON")
        return int(conn.execute(sql, params).lastrowid or 0)


def add_run(db: Path, stage: str = "score-train") -> int:
    """A finished run of `stage`."""
    return _write(
        db,
        "INSERT INTO runs (stage, config_json, signature, started_at, finished_at, status, "
        "version) VALUES (?, '{}', ?, '2025-01-01T00:00:00', '2025-01-01T00:00:01', 'ok', "
        "'test')",
        stage, f"stage:{stage}",
    )  # fmt: skip


def add_job(
    db: Path, run_id: int, name: str, *, mode: str = "zero-shot", model: str = "models/tiny",
    seed: int = 1, train_langs: tuple[str, ...] = ("en",),
    eval_langs: tuple[str, ...] = ("en", "de"), folder: str | None = None, spec: str = "{}",
) -> int:  # fmt: skip
    """A finished job; `spec` its job.json as `score import` stores it (`job_spec`), `{}`
    (no settings: one configuration for every job) unless given."""
    return _write(
        db,
        "INSERT INTO score_jobs (run_id, name, model, mode, seed, train_langs, eval_langs, "
        "spec, folder, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
        run_id, name, model, mode, seed, json.dumps(train_langs), json.dumps(eval_langs),
        spec, folder or f"score-jobs/{name}",
    )  # fmt: skip


def job_spec(name: str, seed: int, lr: float = 2e-5, batch_size: int = 32) -> str:
    """The job.json of a zero-shot en -> en, de job with learning rate `lr` and `batch_size`
    (the defaults for its other settings): a job of a sweep where they vary."""
    return JobSpec(name=name, model="models/tiny", mode="zero-shot", seed=seed,
                   train_langs=("en",), eval_langs=("en", "de"), lr=lr,
                   batch_size=batch_size).to_json()  # fmt: skip


def add_checkpoint(
    db: Path, job_pk: int, idx: int, accuracy: Counts,
    slices: Mapping[tuple[str, str, str, str], tuple[int, int]] | None = None,
) -> None:  # fmt: skip
    """Checkpoint `idx` with its whole-language rows (slice `all`) and, given, slice rows
    keyed (lang, split, slice, value)."""
    _write(
        db,
        "INSERT INTO score_checkpoints (job_pk, idx, step, epoch, examples_seen, train_loss, "
        "seconds) VALUES (?, ?, ?, ?, ?, NULL, ?)",
        job_pk, idx, idx * 10, idx / 10, idx * 320, float(idx),
    )  # fmt: skip
    rows = {(lang, split, "all", ""): counts for (lang, split), counts in accuracy.items()}
    rows.update(slices or {})
    for (lang, split, slice_name, value), (correct, total) in rows.items():
        _write(
            db,
            "INSERT INTO score_accuracy VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            job_pk, idx, lang, split, slice_name, value, correct, total,
        )  # fmt: skip


def add_dynamics(
    db: Path, job_pk: int, pair_id: str, confidence: float, variability: float,
    correctness: float | None, epochs: int = 3,
) -> None:  # fmt: skip
    """A pair's dynamics in a job: correctness None as a job of files version 1 has it,
    `epochs` the epochs that reached the pair."""
    _write(
        db,
        "INSERT INTO score_dynamics SELECT ?, pk, ?, ?, ?, ? FROM pairs WHERE id = ?",
        job_pk, confidence, variability, correctness, epochs, pair_id,
    )  # fmt: skip
