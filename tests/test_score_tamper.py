"""`score import` of a job folder whose files were tampered with (issue 26): each kind of
damage to each file of a finished job is one `Error:` line naming the file, leaves the store
as it was, and ends promptly (a FIFO in place of a file is refused before it is opened).

The job folder is written by the fake job of test_score_store.py, as a real job writes it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import numpy as np
import pytest
from conftest import SAMPLE_MNLI, copy_store, fails, ok, ok_result, query
from test_score_store import GERMAN, fake_job, model_folder, seeds

import nlibuild
from nlibuild.scoring.job_files import (
    CHECKPOINTS_FILE,
    DONE_FILE,
    DYNAMICS_FILE,
    GOLD_ARGMAX_FILE,
    JOB_FILE,
    PAIRS_FILE,
    RUNNING_FILE,
    predictions_path,
)

JOB = "tiny-bert-zero-shot-s1"
PREDICTIONS_FILE = "results/predictions/00002.npy"
FILES = (CHECKPOINTS_FILE, PREDICTIONS_FILE, DYNAMICS_FILE, GOLD_ARGMAX_FILE, DONE_FILE, JOB_FILE,
         PAIRS_FILE)  # fmt: skip
SCORE_TABLES = ("score_jobs", "score_checkpoints", "score_accuracy", "score_dynamics")
SECONDS = 20
"""Far more than an import of one small job takes; a hang (a FIFO opened) fails instead."""


def plan_of_one_finished_job(folder: Path) -> tuple[Path, Path]:
    """A store in `folder` with splits and German translations, and a plan of one finished
    job, `JOB`; returns the store and the plan's folder."""
    corpus = nlibuild.create(folder / "corpus.db")
    corpus.import_corpus(path=SAMPLE_MNLI, format="mnli")
    corpus.split(dev=10, test=10, draw_from="labelled", group_by="pair")
    corpus.translate_import(path=GERMAN, lang="de", translator="de01")
    corpus.score_plan(models=(model_folder(folder),), training=seeds(1), out=folder / "plan")
    fake_job()(folder / "plan" / JOB)
    return folder / "corpus.db", folder / "plan"


@pytest.fixture(scope="module")
def finished_plan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The store and plan of `plan_of_one_finished_job`; each test damages a copy of both."""
    return plan_of_one_finished_job(tmp_path_factory.mktemp("template"))


@pytest.fixture
def plan_copy(finished_plan: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    db, plan = finished_plan
    return copy_store(db, tmp_path / "corpus.db"), Path(shutil.copytree(plan, tmp_path / "plan"))


# --- kinds of damage, each applicable to any file -------------------------------------------


def truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def garbled(path: Path) -> None:
    """The second half overwritten: not JSON, and in an .npy file class 127 or a float of
    about 3e38, far outside any probability."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + b"\x7f" * (len(data) - len(data) // 2))


def not_utf8(path: Path) -> None:
    path.write_bytes(b"\xff\xfe" + path.read_bytes())


def emptied(path: Path) -> None:
    path.write_bytes(b"")


def fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def removed(path: Path) -> None:
    path.unlink()


EVERY_FILE: dict[str, Callable[[Path], None]] = {
    "truncated": truncated, "garbled": garbled, "not-utf8": not_utf8, "emptied": emptied,
    "fifo": fifo, "directory": directory,
}  # fmt: skip


# --- damage that only one kind of file can have ---------------------------------------------


def npy_with_header(path: Path, header: str) -> None:
    """An .npy file of version 1.0 with this header dict, padded as numpy pads it."""
    text = header + " " * (63 - (len(header) + 10) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode())


def rewrite_npy(change: Callable[[np.ndarray], np.ndarray]) -> Callable[[Path], None]:
    def rewrite(path: Path) -> None:
        changed = change(np.load(path))
        with path.open("wb") as handle:  # np.save(path) would add a second .npy suffix
            np.save(handle, changed)

    return rewrite


def rewrite_jsonl(
    line_at: int, change: Callable[[dict[str, object]], object]
) -> Callable[[Path], None]:
    def rewrite(path: Path) -> None:
        lines = path.read_text(encoding="utf-8").splitlines()
        lines[line_at] = json.dumps(change(json.loads(lines[line_at])))
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    return rewrite


def rewrite_json(change: Callable[[dict[str, object]], object]) -> Callable[[Path], None]:
    def rewrite(path: Path) -> None:
        path.write_text(json.dumps(change(json.loads(path.read_text()))), encoding="utf-8")

    return rewrite


def changed(**values: object) -> Callable[[dict[str, object]], dict[str, object]]:
    return lambda record: {**record, **values}


def huge_header(path: Path) -> None:
    npy_with_header(path, "{'descr': '|i1', 'fortran_order': False, 'shape': (10**12,), }")


def huge_header_bytes(path: Path) -> None:
    """A header length field of 60000 bytes and a header of that size: past numpy's limit."""
    text = "{'descr': '|i1', 'fortran_order': False, 'shape': (20,), }" + " " * 60000 + "\n"
    path.write_bytes(b"\x93NUMPY\x02\x00" + len(text).to_bytes(4, "little") + text.encode())


def pickled(path: Path) -> None:
    with path.open("wb") as handle:
        np.save(handle, np.array([{"a": 1}] * 20, dtype=object), allow_pickle=True)


def first_two_lines(path: Path) -> None:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))


def padded(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\x00" * 8)


def next_label(pair: dict[str, object]) -> dict[str, object]:
    label = pair["label"]
    assert isinstance(label, int)
    return {**pair, "label": (label + 1) % 3}


def _set(array: np.ndarray, value: float) -> np.ndarray:
    copy = array.copy()
    copy.flat[3] = value
    return copy


ONE_FILE: dict[str, dict[str, Callable[[Path], None]]] = {
    CHECKPOINTS_FILE: {
        "line-not-json": rewrite_jsonl(1, lambda _: "not a record"),
        "line-a-list": rewrite_jsonl(1, lambda record: list(record)),
        "index-repeated": rewrite_jsonl(2, changed(index=1)),
        "index-negative": rewrite_jsonl(0, changed(index=-1)),
        "step-a-string": rewrite_jsonl(1, changed(step="10")),
        "epoch-negative": rewrite_jsonl(1, changed(epoch=-1.0)),
        "loss-not-a-number": rewrite_jsonl(1, changed(train_loss="low")),
        "unknown-field": rewrite_jsonl(1, changed(gpu="a100")),
        "accuracy-garbled": rewrite_jsonl(1, changed(accuracy={"en/dev": "most"})),
        "fewer-than-done-says": first_two_lines,
    },
    PREDICTIONS_FILE: {
        "huge-shape": huge_header,
        # Found by tests/test_fuzz_score_folders.py (a flipped bit): numpy's header parser
        # raised tokenize.TokenError, an internal error.
        "header-unbalanced": lambda path: npy_with_header(
            path, "{'descr': '|i1', 'fortran_order': False, 'shape': (40,(, }"
        ),
        "huge-header": huge_header_bytes,
        "pickled": pickled,
        "class-3": rewrite_npy(lambda a: _set(a, 3)),
        "class-negative": rewrite_npy(lambda a: _set(a, -1)),
        "floats": rewrite_npy(lambda a: a.astype(np.float32)),
        "one-row-short": rewrite_npy(lambda a: a[:-1]),
        "two-dimensional": rewrite_npy(lambda a: a.reshape(1, -1)),
        "padded": padded,
    },
    DYNAMICS_FILE: {
        "huge-shape": lambda path: npy_with_header(
            path, "{'descr': '<f4', 'fortran_order': False, 'shape': (10**9, 28), }"
        ),
        "huge-header": huge_header_bytes,
        "pickled": pickled,
        "probability-over-1": rewrite_npy(lambda a: _set(a, 1.5)),
        "probability-negative": rewrite_npy(lambda a: _set(a, -0.1)),
        "probability-infinite": rewrite_npy(lambda a: _set(a, np.inf)),
        "integers": rewrite_npy(lambda a: a.astype(np.int64)),
        "one-row-short": rewrite_npy(lambda a: a[:, :-1]),
        "one-dimensional": rewrite_npy(lambda a: a.ravel()),
    },
    GOLD_ARGMAX_FILE: {
        "huge-shape": lambda path: npy_with_header(
            path, "{'descr': '|i1', 'fortran_order': False, 'shape': (10**9, 28), }"
        ),
        "pickled": pickled,
        "flag-2": rewrite_npy(lambda a: _set(a, 2)),
        "not-reached-where-dynamics-has-a-probability": rewrite_npy(lambda a: _set(a, -1)),
        "floats": rewrite_npy(lambda a: a.astype(np.float32)),
        "one-row-short": rewrite_npy(lambda a: a[:, :-1]),
        "one-epoch-short": rewrite_npy(lambda a: a[:-1]),
    },
    DONE_FILE: {
        "a-list": rewrite_json(lambda record: list(record)),
        "files-version-of-a-newer-nlibuild": rewrite_json(changed(files_version=3)),
        "files-version-a-string": rewrite_json(changed(files_version="2")),
        "checkpoints-a-string": rewrite_json(changed(checkpoints="4")),
        "checkpoints-more": rewrite_json(changed(checkpoints=5)),
        "unknown-field": rewrite_json(changed(gpu="a100")),
    },
    JOB_FILE: {
        "labels-reordered": rewrite_json(
            changed(labels=["contradiction", "entailment", "neutral"])
        ),
        "a-field-missing": rewrite_json(
            lambda spec: {k: v for k, v in spec.items() if k != "model"}
        ),
    },
    PAIRS_FILE: {
        "label-changed": rewrite_jsonl(-1, next_label),
        "label-out-of-range": rewrite_jsonl(0, changed(label=7)),
        "split-changed": rewrite_jsonl(0, changed(split="test")),
        "id-a-number": rewrite_jsonl(0, changed(id=5)),
    },
}

CASES = [
    pytest.param(name, damage, id=f"{Path(name).name}-{kind}")
    for name in FILES
    for kind, damage in (EVERY_FILE | ONE_FILE[name]).items()
] + [
    pytest.param(name, removed, id=f"{Path(name).name}-removed")
    # done.json absent is a job still running or stopped early: imported as far as it got
    # (test_a_job_stopped_before_done_json_is_said_so_naming_the_file).
    for name in FILES
    if name != DONE_FILE
]


@contextmanager
def finishes_within(seconds: int) -> Iterator[None]:
    """The block must end within `seconds`: SIGALRM interrupts a blocked open or read."""

    def too_long(_signal: int, _frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds} s: it hangs")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("name", "damage"), CASES)
def test_a_damaged_result_file_is_one_error_naming_it(
    plan_copy: tuple[Path, Path], name: str, damage: Callable[[Path], None]
) -> None:
    db, plan = plan_copy
    damage(plan / JOB / name)
    scores = score_rows(db)
    with finishes_within(SECONDS):
        fails(db, "score", "import", plan, says=(str(Path(JOB) / name),))
    assert score_rows(db) == scores


def score_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the score tables (`table_counts` covers the corpus tables)."""
    return {table: query(db, f"SELECT * FROM {table} ORDER BY 1") for table in SCORE_TABLES}


def test_the_undamaged_plan_imports(plan_copy: tuple[Path, Path]) -> None:
    """The cases above differ from a good import by their damage alone."""
    db, plan = plan_copy
    assert not any(score_rows(db).values())
    assert f"Imported {JOB}:" in ok("--db", db, "score", "import", plan)
    assert len(score_rows(db)["score_checkpoints"]) == 4


def job_being_written(job: Path) -> None:
    """`job` as a job writes it between two checkpoints: no done.json, the last
    predictions file begun and its checkpoint line half written."""
    (job / DONE_FILE).unlink()
    with predictions_path(job, 3).open("ab") as handle:
        handle.truncate(0)
    lines = (job / CHECKPOINTS_FILE).read_text().splitlines(keepends=True)
    (job / CHECKPOINTS_FILE).write_text("".join(lines[:3]) + lines[3][:10])


def running_record(job: Path, host: str, pid: int) -> None:
    (job / RUNNING_FILE).write_text(
        json.dumps({"host": host, "pid": pid, "started": "2026-01-01T00:00:00+00:00"})
    )


@pytest.mark.parametrize(
    "host", [socket.gethostname(), "gpu-node-17"], ids=["this-host", "another-host"]
)
def test_a_running_job_imports_its_checkpoints_so_far(
    plan_copy: tuple[Path, Path], host: str
) -> None:
    """No done.json, and results/running.json names a live process (this one), or one on
    another host, which cannot be asked: the job runs, its checkpoints so far are imported
    with no warning, and importing again later adds the rest."""
    db, plan = plan_copy
    job_being_written(plan / JOB)
    running_record(plan / JOB, host, os.getpid())
    result = ok_result("--db", db, "score", "import", plan)
    assert "3 checkpoints (3 new), partly finished (running)" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("how", ["no-running-record", "its-process-gone"])
def test_a_job_stopped_before_done_json_is_said_so_naming_the_file(
    plan_copy: tuple[Path, Path], how: str
) -> None:
    """No done.json and no live process (a crash, a lost node, a folder copied back before
    the job ended): the checkpoints so far are imported, but a `Warning:` line names the
    missing done.json and how to finish the job; it is not taken for one that runs."""
    db, plan = plan_copy
    job_being_written(plan / JOB)
    if how == "its-process-gone":
        running_record(plan / JOB, socket.gethostname(), gone_pid())
    result = ok_result("--db", db, "score", "import", plan)
    assert "3 checkpoints (3 new), stopped before it finished" in result.stdout
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"Warning: {plan / JOB / DONE_FILE}: missing: job {JOB} did not finish")
    assert f"python -m nlibuild.scoring.job {plan / JOB} --resume" in line


def gone_pid() -> int:
    """The ID of a process of this host that has ended."""
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)


def test_a_garbled_running_record_is_one_error_naming_it(plan_copy: tuple[Path, Path]) -> None:
    db, plan = plan_copy
    job_being_written(plan / JOB)
    (plan / JOB / RUNNING_FILE).write_text('{"host": 7}')
    fails(db, "score", "import", plan, says=(str(Path(JOB) / RUNNING_FILE), "running record"))


def test_rows_a_partial_last_epoch_did_not_reach_count_the_epochs_that_did(
    plan_copy: tuple[Path, Path],
) -> None:
    """A job of 1.5 epochs writes NaN (and NOT_REACHED, -1, in gold_argmax.npy) for the rows
    its second epoch did not reach (scoring/loop.py close_epoch): those rows' dynamics are of
    their first epoch alone, and the store says they had one epoch."""
    db, plan = plan_copy
    probabilities = np.load(plan / JOB / DYNAMICS_FILE)
    flags = np.load(plan / JOB / GOLD_ARGMAX_FILE)
    half = probabilities.shape[1] // 2
    probabilities[1, half:] = np.nan
    flags[0, :] = 0  # the first epoch got every row wrong, the second its half right
    flags[1, half:] = -1
    save_npy(plan / JOB / DYNAMICS_FILE, probabilities)
    save_npy(plan / JOB / GOLD_ARGMAX_FILE, flags)
    ok("--db", db, "score", "import", plan)
    rows = query(db, "SELECT round(confidence, 3), variability, correctness, epochs, count(*) "
                 "FROM score_dynamics GROUP BY 1 ORDER BY 1")  # fmt: skip
    reached_twice = (0.6, pytest.approx(0.2), 0.5, 2, half)
    assert rows == [(0.4, 0.0, 0.0, 1, probabilities.shape[1] - half), reached_twice]


def test_a_partial_last_epoch_marked_in_one_file_only_is_refused(
    plan_copy: tuple[Path, Path],
) -> None:
    db, plan = plan_copy
    probabilities = np.load(plan / JOB / DYNAMICS_FILE)
    probabilities[1, 5:] = np.nan
    save_npy(plan / JOB / DYNAMICS_FILE, probabilities)
    fails(db, "score", "import", plan,
          says=(str(Path(JOB) / GOLD_ARGMAX_FILE), "epoch 1, row 5: 1 where -1"))  # fmt: skip


def test_a_job_of_files_version_1_imports_with_correctness_unavailable(
    plan_copy: tuple[Path, Path],
) -> None:
    """A job written before gold_argmax.npy existed (its done.json has no files_version)
    recorded p(gold) only: its correctness cannot be the paper's, so it is NULL, and the
    cartography table says n.a. and why."""
    db, plan = plan_copy
    (plan / JOB / GOLD_ARGMAX_FILE).unlink()
    rewrite_json(lambda record: {k: v for k, v in record.items() if k != "files_version"})(
        plan / JOB / DONE_FILE
    )
    assert f"Imported {JOB}:" in ok("--db", db, "score", "import", plan)
    assert query(db, "SELECT DISTINCT confidence, correctness, epochs FROM score_dynamics") == [
        (pytest.approx(0.6), None, 2)
    ]
    table = ok("--db", db, "stats", "--table", "cartography", "--top", "1")
    assert "n.a." in table
    assert "correctness n.a.: a mapped job's files are of version 1" in table


def save_npy(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as handle:  # np.save(path) would add a second .npy suffix
        np.save(handle, array)
