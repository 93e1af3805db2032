"""Commands that write, under generated file-size limits (issue 26): each works, or prints
one `Error:` line naming the store or its `--out` (and, where a write found no room, what
to do), having left the store as it was, the output as it was (nothing where there was
nothing) and no partial file beside either.

A limit (RLIMIT_FSIZE in the subprocess, `fuzz_checks.nlibuild_with_file_size_limit`)
stands for a full disk: a write past it fails with EFBIG as one to a full disk fails with
ENOSPC. The limits drawn range from nothing at all (no store file can be begun, nor the
32 KiB `-shm` index of WAL mode) to more than the command needs. Each example is a new
process (a few seconds), so `make test` runs few of them; `make fuzz` many.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SAMPLE_MNLI, copy_store
from fuzz_checks import (
    FREE_SPACE,
    examples,
    file_bytes,
    nlibuild_with_file_size_limit,
    process_error_line,
    store_digest,
)
from hypothesis import given
from hypothesis import strategies as st
from test_out_of_space import pytestmark as posix_only

import nlibuild
from nlibuild.core.outputs import SIDE_FILE_SUFFIXES

pytestmark = posix_only

EXAMPLES = 3
"""Examples per command under `make test` (each a process of about a second, more when busy)."""


@dataclass(frozen=True)
class Writer:
    """A command that writes: its words (`{out}` for the output), the output's name (None:
    the store is its one output), and the most room it is given (bytes: past what it needs)."""

    args: tuple[str, ...]
    out: str | None
    room: int
    store: bool = True
    """Whether it runs on the sample store; False: it makes one (`init`)."""
    own_runs: tuple[str, ...] = ()
    """Stages it runs as recorded runs of their own before its output is written (the
    report's cue tables): each stays in the log, as when typed one by one."""


WRITERS = {
    "init": Writer(("init", "--lang", "en"), None, 300_000, store=False),
    "import": Writer(("import", str(SAMPLE_MNLI), "--format", "mnli", "--lang", "en"), None,
                     400_000),
    "export-xnli-tsv": Writer(("export", "--format", "xnli-tsv", "--out", "{out}"),
                              "exported.tsv", 300_000),
    "export-hf": Writer(("export", "--format", "hf", "--out", "{out}"), "hf", 300_000),
    "report": Writer(("report", "--out", "{out}"), "report.html", 300_000,
                     own_runs=("stats-pmi", "stats-cues")),
}  # fmt: skip


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with the sample pairs: the store of every writer but `init`."""
    db = tmp_path_factory.mktemp("template") / "corpus.db"
    nlibuild.create(db).import_corpus(path=SAMPLE_MNLI, format="mnli")
    return db


def files_of(folder: Path, db: Path) -> dict[str, bytes | None]:
    """Every file and folder under `folder` with its bytes, but the store's (its file and
    SQLite's `-wal` and `-shm` beside it, whose rows `store_digest` reads)."""
    side = {db.name, *(db.name + suffix for suffix in SIDE_FILE_SUFFIXES)}
    return {
        str(path.relative_to(folder)): file_bytes(path)
        for path in sorted(folder.rglob("*"))
        if path.name not in side
    }


def run_stages(db: Path) -> list[str]:
    """The stages of the store's runs, in order (none without a store)."""
    if not db.exists():
        return []
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return [stage for (stage,) in conn.execute("SELECT stage FROM runs ORDER BY id")]


@pytest.mark.parametrize("name", WRITERS)
def test_a_writer_under_a_file_size_limit_works_or_names_what_it_could_not_write(
    name: str, template: Path, tmp_path: Path
) -> None:
    writer = WRITERS[name]

    @examples(EXAMPLES)
    @given(limit=st.one_of(st.integers(0, 40_000), st.integers(40_000, writer.room)))
    def property_holds(limit: int) -> None:
        folder = tmp_path / "example"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        db = folder / "corpus.db"
        if writer.store:
            copy_store(template, db)
        out = folder / writer.out if writer.out else None
        args = [arg.replace("{out}", str(out)) for arg in writer.args]
        rows, before = store_digest(db, leaving_out=("runs",)), files_of(folder, db)
        runs = run_stages(db)
        result = nlibuild_with_file_size_limit(limit, "--db", db, *args, timeout=120)
        if result.returncode == 0:
            return
        line = process_error_line(result)
        assert str(db) in line or (out is not None and str(out) in line), line
        if "disk I/O error" in line or "No space" in line or "too large" in line:
            assert FREE_SPACE in line, line
        assert store_digest(db, ("runs",)) == rows, f"{name} changed the store under {limit}"
        added = run_stages(db)[len(runs) :]
        assert run_stages(db)[: len(runs)] == runs and set(added) <= set(writer.own_runs), added
        assert files_of(folder, db) == before, f"{name} left files under {limit}: {line}"

    property_holds()
