"""A full disk is the user's to fix, and said so in one line naming what could not be written.

The commands run in a subprocess under a file-size limit (RLIMIT_FSIZE, `ulimit -f`) with
SIGXFSZ ignored, so that a write past the limit fails with EFBIG as a write to a full disk
fails with ENOSPC: SQLite reports it as `disk I/O error`, Python as an OSError. An import
into the store then leaves the store as it was; an export leaves the file at `--out` as it
was and no partial file beside it.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from conftest import copy_store, ok, refused, table_counts, write_jsonl
from fuzz_checks import FREE_SPACE, nlibuild_with_file_size_limit, process_error_line

from nlibuild.stages import export as export_stage

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")

PAIRS = 3000
LABELS = ("entailment", "neutral", "contradiction")


def mnli_records(pairs: int, prefix: str) -> list[dict[str, object]]:
    """MNLI lines, 3 pairs a premise, 5 labels a pair."""
    records: list[dict[str, object]] = []
    for i in range(pairs):
        prompt, label = i // 3, LABELS[i % 3]
        records.append({
            "annotator_labels": [label, label, "neutral", label, label],
            "genre": "fiction",
            "gold_label": label,
            "pairID": f"{prefix}{prompt}{label[0]}",
            "promptID": f"{prefix}{prompt}",
            "sentence1": f"On day {prompt} the ferry left the harbour an hour late.",
            "sentence2": f"Hypothesis {i} about the ferry on day {prompt}.",
        })  # fmt: skip
    return records


@pytest.fixture(scope="module")
def store_with_pairs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding 3,000 pairs (more than a 64 KiB file holds in any export format)."""
    folder = tmp_path_factory.mktemp("full")
    source = write_jsonl(folder / "pairs.jsonl", mnli_records(PAIRS, "a"))
    db = folder / "corpus.db"
    ok("--db", db, "init", "--lang", "en")
    ok("--db", db, "import", source, "--format", "mnli")
    return db


def test_an_import_that_fills_the_disk_names_the_store_and_leaves_it_unchanged(
    tmp_path: Path,
) -> None:
    db = tmp_path / "corpus.db"
    ok("--db", db, "init", "--lang", "en")
    ok("--db", db, "runs")  # settles the write-ahead log, so that only the import grows files
    source = write_jsonl(tmp_path / "more.jsonl", mnli_records(PAIRS, "b"))
    before = table_counts(db)
    # Room for the store as it is and its run's row, not for 3,000 pairs.
    limit = db.stat().st_size + 128 * 1024
    result = nlibuild_with_file_size_limit(limit, "--db", db, "import", source, "--format", "mnli")
    line = process_error_line(
        result, f"{db}: cannot write to the store", FREE_SPACE, "the store is unchanged"
    )
    assert "disk I/O error" in line
    assert table_counts(db) == before  # no pair, no vote, not even the run's row
    # The store is whole: with room, the same import goes through.
    ok("--db", db, "import", source, "--format", "mnli")
    assert table_counts(db)["pairs"] == PAIRS


@pytest.mark.parametrize("export_format", ["mnli-jsonl", "xnli-tsv", "hf-jsonl", "hf"])
def test_an_export_that_fills_the_disk_names_the_output_and_leaves_it_as_it_was(
    store_with_pairs: Path, tmp_path: Path, export_format: str
) -> None:
    db = store_with_pairs
    out = tmp_path / "exported"
    ok("--db", db, "export", "--format", export_format, "--out", out)
    before_files = sorted(tmp_path.rglob("*"))
    before_bytes = [path.read_bytes() for path in before_files if path.is_file()]
    before_runs = table_counts(db)["runs"]
    result = nlibuild_with_file_size_limit(
        64 * 1024, "--db", db, "export", "--format", export_format, "--out", out
    )
    process_error_line(result, f"{out}", "cannot write it", FREE_SPACE)
    assert sorted(tmp_path.rglob("*")) == before_files  # no partial file or folder left
    assert [path.read_bytes() for path in before_files if path.is_file()] == before_bytes
    assert table_counts(db)["runs"] == before_runs


def test_a_run_stopped_by_a_full_disk_elsewhere_is_refused_and_leaves_no_run(
    sample_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write of a stage that does not go through the atomic writers (a library's own file,
    say) fails on a full disk as well: the recorded run turns it into the same line."""

    def rows_of_a_full_disk(*_: object) -> object:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "cache.bin"))

    monkeypatch.setattr(export_stage, "export_rows", rows_of_a_full_disk)
    out = tmp_path / "dev.jsonl"
    refused(
        sample_db,
        lambda corpus: corpus.export(format="mnli-jsonl", out=out),
        f"{tmp_path / 'cache.bin'}: cannot write it (No space left on device)",
        FREE_SPACE,
        "the store is unchanged",
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "limit",
    [1024, 8 * 1024, 64 * 1024],
    ids=["store-file", "wal-index", "schema"],
)
def test_init_without_room_for_a_store_names_it_and_makes_none(tmp_path: Path, limit: int) -> None:
    """Room for less than the store's first page, for less than the `-shm` index WAL mode
    keeps beside it (32 KiB), or for less than the schema: one line, and no store (nor
    a file of half a schema) left behind, so that `init` can be run again."""
    db = tmp_path / "corpus.db"
    result = nlibuild_with_file_size_limit(limit, "--db", db, "init", "--lang", "en")
    process_error_line(result, f"{db}: cannot write to the store", FREE_SPACE, "no store was made")
    assert list(tmp_path.iterdir()) == []
    ok("--db", db, "init", "--lang", "en")


@pytest.mark.parametrize("limit", [0, 8 * 1024], ids=["no-room", "no-room-for-the-index"])
@pytest.mark.parametrize("command", [("info",), ("aggregate-labels",)])
def test_a_store_without_room_for_its_wal_index_names_it(
    store_with_pairs: Path, tmp_path: Path, limit: int, command: tuple[str, ...]
) -> None:
    """Every reader of a store in WAL mode needs the 32 KiB `-shm` index beside it: with no
    room for it (found by tests/test_fuzz_full_disk.py: an internal error, SQLite's
    SQLITE_IOERR_SHMOPEN or SHMSIZE), one line naming the store, which is left as it was."""
    db = copy_store(store_with_pairs, tmp_path / "corpus.db")
    before = table_counts(db)
    result = nlibuild_with_file_size_limit(limit, "--db", db, *command)
    process_error_line(
        result, f"{db}: cannot write to the store", FREE_SPACE, "the store is unchanged"
    )
    assert table_counts(db) == before


def test_a_report_whose_tables_find_no_room_names_the_store(
    store_with_pairs: Path, tmp_path: Path
) -> None:
    """The report records the cue tables' runs before it writes the page: with no room
    for them (found by tests/test_fuzz_full_disk.py), the cues section said "Not
    available: ... cannot write to the store" and the page went on to fail at --out; the
    store's want of room is now the line, and no page is written."""
    db = copy_store(store_with_pairs, tmp_path / "corpus.db")
    out = tmp_path / "report.html"
    result = nlibuild_with_file_size_limit(32 * 1024, "--db", db, "report", "--out", out)
    process_error_line(result, f"{db}: cannot write to the store", FREE_SPACE)
    assert not out.exists()
