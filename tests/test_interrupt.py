"""An import killed or interrupted half-way leaves the corpus exactly as it was.

Ctrl-C rolls everything back, the run's row included. A kill -9 cannot clean up: the run's
row, committed as `running` before the work began, stays, and shows as `interrupted` once
its process is gone (the next writer records it so).

The import runs in a real subprocess on a file large enough to take many seconds, and is
stopped while it holds the store's write transaction (ARCHITECTURE.md: recorded runs).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from conftest import json_object, ok, table_counts

BIG_PAIRS = 300_000
LABELS = ("entailment", "neutral", "contradiction")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An MNLI jsonl of 300,000 pairs: 5 labels each, 3 pairs per promptID (about 100 MB)."""
    path = tmp_path_factory.mktemp("big") / "big_mnli.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(BIG_PAIRS):
            prompt, label = i // 3, LABELS[i % 3]
            record = {
                "annotator_labels": [label, label, "neutral", label, label],
                "genre": "fiction",
                "gold_label": label,
                "pairID": f"b{prompt}{label[0]}",
                "promptID": f"b{prompt}",
                "sentence1": f"On day {prompt} the ferry left the harbour an hour late.",
                "sentence2": f"Hypothesis {i} about the ferry on day {prompt}.",
            }
            handle.write(json.dumps(record) + "\n")
    return path


def holds_write_lock(db: Path) -> bool:
    """Whether another process is inside a write transaction on `db`."""
    conn = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return True
        raise
    else:
        conn.execute("ROLLBACK")
        return False
    finally:
        conn.close()


def start_import(db: Path, path: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nlibuild",
            "--db",
            str(db),
            "import",
            str(path),
            "--format",
            "mnli",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # A shell without job control starts background jobs with SIGINT ignored, and Python
        # then installs no KeyboardInterrupt handler; give the child the default back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def has_running_run(db: Path) -> bool:
    """Whether a run's `running` row is committed (readers see it while the run writes)."""
    with closing(sqlite3.connect(db, timeout=0)) as conn:
        found = conn.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()
    return bool(found[0])


def wal_size(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def wait_until_mid_import(proc: subprocess.Popen[str], db: Path) -> None:
    """Return once the import is inside its work: its run row is committed as `running`,
    then the WAL has grown (rows are being written) or ~1.5 s have passed and it holds the
    write lock. Fails if the import ended first."""
    started = time.monotonic()
    while proc.poll() is None and not has_running_run(db) and time.monotonic() - started < 30:
        time.sleep(0.02)
    wal_before, started = wal_size(db), time.monotonic()
    while proc.poll() is None and time.monotonic() - started < 30:
        if wal_size(db) > wal_before:
            break
        if time.monotonic() - started >= 1.5 and holds_write_lock(db):
            break
        time.sleep(0.02)
    assert proc.poll() is None, (
        f"the import finished (exit {proc.returncode}) before it could be interrupted; "
        f"generate a bigger file than {BIG_PAIRS} pairs"
    )
    assert holds_write_lock(db), "the import did not start its transaction within 30 s"


def child_pids(pid: int) -> set[int]:
    """Processes whose parent is `pid` (the parallel import's reader, on Linux)."""
    found = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line
            )
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid):
            found.add(int(status.parent.name))
    return found


def assert_gone(pids: set[int], within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = {pid for pid in pids if Path(f"/proc/{pid}").exists()}
        if not alive:
            return
        time.sleep(0.05)
    raise AssertionError(f"worker processes {sorted(alive)} outlived the killed import")


def assert_store_sound(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    assert json_object("--db", db, "info")["pairs"] == 48


def test_a_killed_import_leaves_the_store_as_it_was(sample_db: Path, big: Path) -> None:
    before = table_counts(sample_db)
    proc = start_import(sample_db, big)
    try:
        wait_until_mid_import(proc, sample_db)
        workers = child_pids(proc.pid)
        proc.kill()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    if sys.platform.startswith("linux"):
        # A big file is read by a worker process; it must not outlive the import.
        assert workers, "expected the parallel import's reader process"
        assert_gone(workers)

    after = table_counts(sample_db)
    assert after == before | {"runs": before["runs"] + 1}
    assert_store_sound(sample_db)
    runs = json.loads(ok("--db", sample_db, "runs", "--format", "json"))
    killed = runs[-1]
    assert (killed["stage"], killed["status"], killed["pid"]) == ("import", "interrupted", proc.pid)
    assert killed["command"].startswith("nlibuild --db ") and " import " in killed["command"]
    ok("--db", sample_db, "export", "--format", "mnli-jsonl", "--out", sample_db.parent / "x.jsonl")
    with sqlite3.connect(sample_db) as conn:
        statuses = conn.execute("SELECT status FROM runs ORDER BY id").fetchall()
    assert ("running",) not in statuses and statuses[-2] == ("interrupted",)


def test_ctrl_c_rolls_the_import_back_and_says_so(sample_db: Path, big: Path) -> None:
    before = table_counts(sample_db)
    proc = start_import(sample_db, big)
    try:
        wait_until_mid_import(proc, sample_db)
        workers = child_pids(proc.pid)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert proc.returncode == 130, stderr
    assert_gone(workers)
    assert stderr == "Error: interrupted; the store is unchanged\n"
    assert stdout == ""
    assert table_counts(sample_db) == before
    assert_store_sound(sample_db)
