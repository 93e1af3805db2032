"""Trust: an export that fails leaves nothing half-written behind.

- A work package (`elicit export`, `relabel export`) is written into a hidden folder beside
  `--out` and moved into place only once every file is written: a failure on any batch
  leaves no package folder, no temporary folder, and an existing `--out` as it was.
- Into an existing folder a package replaces the files it writes and leaves others alone.
- A single-file `export` whose writer fails leaves no `.partial` file.

The exports run through the Python API (a refusal is its `NlibuildError`, an internal error
the exception itself); the CLI keeps one Error line of each command.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import fails, refused
from elicitation_data import FICTION, NEWS, premise_corpus
from test_relabel import build_store, create

import nlibuild
import nlibuild.formats.corpora.jsonl as corpus_jsonl
from nlibuild.api import Corpus
from nlibuild.errors import OutputError
from nlibuild.formats.platforms import PLATFORMS
from nlibuild.models import ElicitExportResult, PlatformFormat

FORMATS = ["jsonl", "csv", "labelstudio", "mturk"]


def elicit_store(db: Path) -> Path:
    """A store with elicitation batches of both protocols (several batches each)."""
    corpus = premise_corpus(db, {"news": NEWS, "fiction": FICTION}, lang="en")
    for genre, protocol in (("news", "SINGLE"), ("fiction", "MULTI")):
        corpus.elicit_create(protocol=protocol, genres=(genre,), annotators=("w01", "w02"),
                             batch_size=3)  # fmt: skip
    return db


def relabel_store(db: Path) -> Path:
    build_store(db)
    create(db)
    return db


def export_package(corpus: Corpus, stage: str, fmt: str, out: Path) -> ElicitExportResult:
    """`STAGE export --all --format FMT --out OUT` (STAGE: elicit or relabel)."""
    export = corpus.elicit_export if stage == "elicit" else corpus.relabel_export
    return export(all=True, format=fmt, out=out)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path -> bytes)."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def fail_on_second_batch(
    monkeypatch: pytest.MonkeyPatch, fmt: str, field: str, error: Exception
) -> None:
    """Make `fmt`'s batch writer (`field` of its Platform) write the first batch and raise
    `error` on the second, as a disk filling up half-way would."""
    platform = PLATFORMS[PlatformFormat(fmt)]
    real = getattr(platform, field)
    calls = 0

    def writer(out: Path, batch: str, tasks: Sequence[Any], *names: Any) -> Path:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise error
        return real(out, batch, tasks, *names)  # type: ignore[no-any-return]

    changes: dict[str, Any] = {field: writer}
    patched = dataclasses.replace(platform, **changes)
    monkeypatch.setitem(PLATFORMS, PlatformFormat(fmt), patched)


STAGES = [
    pytest.param("elicit", "elicit_batch_writer", elicit_store, id="elicit"),
    pytest.param("relabel", "relabel_batch_writer", relabel_store, id="relabel"),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("stage", "field", "make_store"), STAGES)
def test_a_package_failing_on_its_second_batch_leaves_no_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stage: str,
    field: str,
    make_store: Any,
    fmt: str,
) -> None:
    db = make_store(tmp_path / "s.db")
    where = tmp_path / "exports"
    where.mkdir()
    out = where / "package"
    fail_on_second_batch(monkeypatch, fmt, field, OutputError("the disk is full"))
    refused(db, lambda corpus: export_package(corpus, stage, fmt, out), "the disk is full")
    assert list(where.iterdir()) == []


@pytest.mark.parametrize(("stage", "field", "make_store"), STAGES)
def test_a_package_crashing_on_its_second_batch_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str, field: str, make_store: Any
) -> None:
    db = make_store(tmp_path / "s.db")
    where = tmp_path / "exports"
    where.mkdir()
    fail_on_second_batch(monkeypatch, "csv", field, RuntimeError("a bug"))
    with pytest.raises(RuntimeError, match="a bug"):
        export_package(nlibuild.open(db), stage, "csv", where / "p")
    assert list(where.iterdir()) == []


@pytest.mark.parametrize(("stage", "field", "make_store"), STAGES)
def test_a_failed_package_leaves_an_existing_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str, field: str, make_store: Any
) -> None:
    """`elicit export`'s and `relabel export`'s refusal as the CLI prints it: one Error
    line, the store unchanged."""
    db = make_store(tmp_path / "s.db")
    out = tmp_path / "package"
    export_package(nlibuild.open(db), stage, "mturk", out)
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    before = snapshot(out)
    fail_on_second_batch(monkeypatch, "mturk", field, OutputError("the disk is full"))
    fails(db, stage, "export", "--all", "--format", "mturk", "--out", out, says=("disk",))
    assert snapshot(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("stage", "field", "make_store"), STAGES)
def test_a_package_into_an_existing_folder_replaces_only_its_own_files(
    tmp_path: Path, stage: str, field: str, make_store: Any, fmt: str
) -> None:
    db = make_store(tmp_path / "s.db")
    corpus = nlibuild.open(db)
    fresh = tmp_path / "fresh"
    export_package(corpus, stage, fmt, fresh)
    package = snapshot(fresh)
    assert package, "the package is empty"
    out = tmp_path / "kept"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    stale = next(iter(package))
    (out / stale).write_bytes(b"an older copy\n")
    export_package(corpus, stage, fmt, out)
    assert snapshot(out) == package | {"notes.txt": b"mine\n"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(("stage", "field", "make_store"), STAGES)
def test_a_package_reports_its_files_where_they_end_up(
    tmp_path: Path, stage: str, field: str, make_store: Any
) -> None:
    db = make_store(tmp_path / "s.db")
    out = tmp_path / "deep" / "package"
    result = export_package(nlibuild.open(db), stage, "labelstudio", out)
    assert sorted(result.files) == sorted(out / name for name in snapshot(out))


def test_a_file_of_a_package_that_cannot_be_written_is_named_under_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = elicit_store(tmp_path / "s.db")
    platform = PLATFORMS[PlatformFormat.CSV]

    def writer(folder: Path, batch: str, tasks: Sequence[Any], names: Any) -> Path:
        raise OutputError(f"{folder / batch}.csv: cannot write it (No space left on device)")

    changes: dict[str, Any] = {"elicit_batch_writer": writer}
    monkeypatch.setitem(PLATFORMS, PlatformFormat.CSV, dataclasses.replace(platform, **changes))
    out = tmp_path / "package"
    message = refused(db, lambda corpus: export_package(corpus, "elicit", "csv", out),
                      f"{out / 'e0001.csv'}: cannot write it")  # fmt: skip
    assert ".partial" not in message
    assert not out.exists()


def test_a_package_over_a_file_is_refused(tmp_path: Path) -> None:
    db = elicit_store(tmp_path / "s.db")
    out = tmp_path / "package"
    out.write_text("a file\n", encoding="utf-8")
    refused(db, lambda corpus: export_package(corpus, "elicit", "csv", out),
            str(out), "choose another --out")  # fmt: skip
    assert out.read_text(encoding="utf-8") == "a file\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# --- single files ---------------------------------------------------------------------------


def test_a_single_file_export_whose_writer_raises_leaves_no_partial_file(
    sample_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = corpus_jsonl.to_record
    rows = 0

    def to_record(*args: Any, **kwargs: Any) -> dict[str, Any]:
        nonlocal rows
        rows += 1
        if rows == 3:
            raise RuntimeError("a bug half-way")
        return real(*args, **kwargs)

    monkeypatch.setattr(corpus_jsonl, "to_record", to_record)
    out = tmp_path / "out" / "dev.jsonl"
    with pytest.raises(RuntimeError, match="half-way"):
        nlibuild.open(sample_db).export(format="jsonl", out=out)
    assert rows == 3
    assert not out.exists()
    assert not list(tmp_path.rglob("*.partial"))


def test_a_single_file_export_into_a_missing_folder_makes_it(
    sample_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "new" / "folder" / "dev.jsonl"
    nlibuild.open(sample_db).export(format="jsonl", out=out)
    assert [p.name for p in out.parent.iterdir()] == ["dev.jsonl"]


def test_a_single_file_export_into_a_folder_that_cannot_be_made_leaves_nothing(
    sample_db: Path, tmp_path: Path
) -> None:
    """`export`'s refusal as the CLI prints it: one Error line, the store unchanged."""
    (tmp_path / "a-file").write_text("x\n", encoding="utf-8")
    out = tmp_path / "a-file" / "dev.jsonl"
    fails(sample_db, "export", "--format", "jsonl", "--out", out, says=("choose another --out",))
    assert not list(tmp_path.rglob("*.partial"))
