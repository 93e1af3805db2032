"""An export killed outright (kill -9) leaves no half file, and the next export tidies up.

A killed process cannot remove its partial file, so the file's name says whose it is
(`tabular.partial_path`: the process and its host) and the next export to the same target
removes those of processes that have ended. The export runs in a subprocess that stops
itself at a phase (half-way through its rows; before renaming a partial file into place,
the first or a later one) once the partial file is there, and is killed there.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ok

from nlibuild.core.runs import process_alive
from nlibuild.formats.tabular import PARTIAL_SUFFIX, partial_path, remove_stale_partials

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

STOPPING_EXPORT = """
import os, sys, time
from pathlib import Path

import nlibuild.stages.export as export_stage
from nlibuild.cli import main

phase, marker, *args = sys.argv[1:]


def stop_here():
    Path(marker).write_text(str(os.getpid()))
    while True:
        time.sleep(60)


if phase == "rows":  # half-way through the rows: the partial file is open, and growing
    real_rows = export_stage.export_rows

    def rows_then_stop(*given):
        rows = list(real_rows(*given))
        yield from rows[: len(rows) // 2]
        stop_here()

    export_stage.export_rows = rows_then_stop
else:  # "move-N": before the Nth rename of a partial file or of a file inside one
    stop_at = int(phase.removeprefix("move-"))
    moves = 0

    def stopping(real):
        def move(source, target):
            global moves
            if any(part.endswith(".partial") for part in Path(source).parts):
                moves += 1
                if moves == stop_at:
                    stop_here()
            return real(source, target)

        return move

    os.replace, os.rename = stopping(os.replace), stopping(os.rename)

sys.argv = ["nlibuild", *args]
main()
"""


def killed_at(phase: str, db: Path, export_format: str, out: Path) -> None:
    """Start `export`, wait until it reaches `phase`, and kill it with SIGKILL."""
    marker = out.parent.parent / f"stopped-{out.parent.name}"
    args = ["--db", str(db), "export", "--format", export_format, "--out", str(out)]
    process = subprocess.Popen(
        [sys.executable, "-c", STOPPING_EXPORT, phase, str(marker), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    try:
        started = time.monotonic()
        while not marker.exists():
            if process.poll() is not None:
                pytest.fail(f"export ended before {phase}: {process.communicate()[1]}")
            assert time.monotonic() - started < 60, f"export did not reach {phase} in 60 s"
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        _, stderr = process.communicate()  # reaped: its process ID is gone, not a zombie's
    assert process.returncode == -signal.SIGKILL, stderr
    marker.unlink()


def partials(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(PARTIAL_SUFFIX))


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its relative path; an hf dataset card left out (it lists
    the store's runs, which each export adds to)."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name != "README.md"
    }


# (format, phase): each phase the format has, with or without a file there before.
KILLS = [
    ("mnli-jsonl", "rows"),
    ("mnli-jsonl", "move-1"),
    ("xnli-tsv", "rows"),
    ("xnli-tsv", "move-1"),
    ("hf-jsonl", "rows"),
    ("hf-jsonl", "move-1"),  # the rows are written, not yet in place
    ("hf-jsonl", "move-2"),  # the rows are in place, their sidecar not yet
    # An hf dataset is staged in a partial folder, each of its files in a partial file there;
    # the folder is then renamed into place when new, else moved in file by file.
    ("hf", "move-1"),  # a data file written in the staging folder, not yet in place there
    ("hf", "move-2"),  # the dataset staged whole, not yet in place
    ("hf", "move-3"),  # over an earlier dataset: its card in place, its data not yet
]


@pytest.mark.parametrize("earlier", [False, True], ids=["new-target", "over-an-export"])
@pytest.mark.parametrize(("export_format", "phase"), KILLS)
def test_an_export_killed_at_any_phase_leaves_the_next_export_whole_and_no_leftovers(
    sample_db: Path, tmp_path: Path, export_format: str, phase: str, earlier: bool
) -> None:
    name = "dev.jsonl" if export_format != "hf" else "dataset"
    expected = tmp_path / "expected" / name
    ok("--db", sample_db, "export", "--format", export_format, "--out", expected)
    folder = tmp_path / "work"
    folder.mkdir()
    out = folder / name
    if earlier:
        ok("--db", sample_db, "export", "--format", export_format, "--out", out)
    if export_format == "hf" and phase == "move-3" and not earlier:
        pytest.skip("a new dataset folder is moved into place in one rename")

    killed_at(phase, sample_db, export_format, out)
    left = partials(folder)
    assert len(left) == 1 and left[0].startswith(f".{name}."), left  # the leftover
    # Whatever is at the target's names is whole: an earlier export's, or this one's.
    for path in folder.glob(f"{name}*"):
        if path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))

    ok("--db", sample_db, "export", "--format", export_format, "--out", out)
    assert partials(folder) == []
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        p.name for p in expected.parent.iterdir()
    )
    assert files_under(folder) == files_under(expected.parent)


def test_only_partials_of_ended_processes_of_this_host_are_removed(tmp_path: Path) -> None:
    target = tmp_path / "dev.jsonl"
    ours = partial_path(target)  # this process's: alive
    ours.write_text("half")
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead_pid = int(ended.stdout)
    assert not process_alive(dead_pid)
    owner = ours.name.removeprefix(f".{target.name}.").removesuffix(PARTIAL_SUFFIX)
    _, host, token = owner.split("-")

    def left_by(pid: int, host: str) -> Path:
        return tmp_path / f".{target.name}.{pid}-{host}-{token}{PARTIAL_SUFFIX}"

    dead = left_by(dead_pid, host)
    dead.write_text("half")
    dead_folder = left_by(dead_pid, host).with_name(dead.name.replace(token, "0123456789ab"))
    (dead_folder / "data").mkdir(parents=True)
    other_host = left_by(dead_pid, "00000000")
    other_host.write_text("half")
    not_partials = [
        tmp_path / f".{target.name}.partial",  # an older nlibuild's: whose, it does not say
        tmp_path / f".other.jsonl.{dead_pid}-{host}-{token}{PARTIAL_SUFFIX}",  # another target
        tmp_path / f".{target.name}.{dead_pid}-{host}-{token}",
    ]
    for path in not_partials:
        path.write_text("kept")

    assert sorted(remove_stale_partials(target)) == sorted([dead, dead_folder])
    assert sorted(tmp_path.iterdir()) == sorted([ours, other_host, *not_partials])
