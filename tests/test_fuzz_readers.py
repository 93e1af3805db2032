"""Property-based fuzzing of every reader (issue 16; README.md, "Safety").

The promise, for any file given to any command: the command succeeds, or it prints exactly
one line on stderr starting `Error: ` that names the file (or, where the file is a list of
IDs, the ID), exits 1, prints no traceback, is never the `Error: internal error` of a bug,
and leaves the store exactly as it was (every row of every table; no store where there was
none).

Each reader starts from a valid file of its format (made from the bundled sample data, or
from ../shared/fixtures where the format's real data is there) and gets it back broken the
ways real files break (`fuzz_inputs.broken_file`), or as raw bytes. `make test` runs a
bounded, derandomized number of examples per reader; `make fuzz` runs the `fuzz` profile of
tests/conftest.py: random examples, many more.
"""

from __future__ import annotations

import csv
import json
import shutil
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    DATA,
    FIXTURES,
    HYPOTHESIS_PROFILE,
    SAMPLE_MNLI,
    copy_store,
    new_store,
    ok,
    read_jsonl,
    write_jsonl,
)
from elicitation_data import (
    MTURK_COLUMNS,
    NEWS,
    SINGLE,
    mturk_input,
    premise_corpus,
    read_task_file,
    write_mturk_results,
)
from fuzz_checks import store_digest
from fuzz_inputs import FileKind, broken_file, raw_bytes
from hypothesis import given, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from typer.testing import CliRunner

from nlibuild.cli import app

PRESETS = Path(__file__).resolve().parent.parent / "nlibuild" / "resources" / "presets"
NEGATORS = Path(__file__).resolve().parent.parent / "nlibuild" / "resources" / "negators"
UD_PUD_EN = FIXTURES / "ud_pud" / "en_pud-ud-test.conllu"
MYXNLI = FIXTURES / "myxnli"
FUZZ_EXAMPLES = Path(__file__).resolve().parent.parent / ".hypothesis" / "fuzz-readers"

EXAMPLES_PER_READER = 12
"""Structured examples per reader under `make test` (about 30 readers share ~60 s)."""
RAW_EXAMPLES_PER_READER = 3


# --- the readers ------------------------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    """One command reading one file: `args` with `{file}` for the fuzzed file and `{name}`
    for other files of the workshop; `store` names the template store it runs on (None: a
    store that does not exist yet)."""

    id: str
    store: str | None
    kind: FileKind
    valid: str
    args: tuple[str, ...]
    needs: Path | None = None
    """A fixture file the reader's valid file comes from (skipped when absent)."""
    names_ids: bool = False
    """A list of IDs: a refusal about the list as a whole (too few validators) names the
    IDs it is about, not the file."""


TABLE_COLUMNS = (
    "id=pairID,premise_id=promptID,premise=sentence1,hypothesis=sentence2,label=gold_label,"
    "genre=genre,lang=language,votes=label1,label2,label3,label4,label5"
)
"""`import --format table`'s mapping of the XNLI tsv's columns (`corpus.table.*`)."""

READERS = [
    Reader("import-mnli", "corpus", "jsonl", "corpus.mnli.jsonl",
           ("import", "{file}", "--format", "mnli", "--corpus", "sample_mnli")),
    Reader("import-snli", "corpus", "jsonl", "corpus.mnli.jsonl",
           ("import", "{file}", "--format", "snli", "--corpus", "sample_mnli")),
    Reader("import-jsonl", "corpus", "jsonl", "corpus.jsonl",
           ("import", "{file}", "--format", "jsonl")),
    Reader("import-xnli-tsv", "corpus", "tsv", "corpus.xnli.tsv",
           ("import", "{file}", "--format", "xnli", "--corpus", "sample_mnli")),
    Reader("import-table-csv", "corpus", "csv", "corpus.table.csv",
           ("import", "{file}", "--format", "table", "--columns", TABLE_COLUMNS,
            "--corpus", "sample_mnli")),
    Reader("import-table-json", "corpus", "json", "corpus.table.json",
           ("import", "{file}", "--format", "table", "--columns", TABLE_COLUMNS,
            "--corpus", "sample_mnli")),
    Reader("import-ocnli", "ocnli", "jsonl", "ocnli.json",
           ("import", "{file}", "--format", "ocnli")),
    Reader("import-myxnli-tsv", "corpus", "tsv", "myxnli.tsv",
           ("import", "{file}", "--format", "xnli", "--lang", "en", "--label-order", "e,n,c"),
           needs=MYXNLI),
    Reader("translate-tsv", "corpus", "tsv", "all-units.de.tsv",
           ("translate", "import", "{file}", "--lang", "de", "--translator", "de01")),
    Reader("translate-tsv-partial", "corpus", "tsv", "units.de.tsv",
           ("translate", "import", "{file}", "--lang", "de", "--partial")),
    Reader("translate-csv", "corpus", "csv", "units.de.csv",
           ("translate", "import", "{file}", "--lang", "de", "--partial")),
    Reader("translate-jsonl", "corpus", "jsonl", "units.de.jsonl",
           ("translate", "import", "{file}", "--lang", "de", "--kind", "mt", "--partial")),
    Reader("translate-json-array", "corpus", "json", "units.de.json",
           ("translate", "import", "{file}", "--lang", "de", "--partial",
            "--columns", "unit_id=id,text=translation")),
    Reader("translate-rows", "myxnli", "tsv", "sw.rows.tsv",
           ("translate", "import", "{file}", "--lang", "sw", "--align", "rows",
            "--reference", "{myxnli.tsv}"), needs=MYXNLI),
    Reader("translate-rows-reference", "myxnli", "tsv", "myxnli.tsv",
           ("translate", "import", "{sw.rows.tsv}", "--lang", "sw", "--align", "rows",
            "--reference", "{file}"), needs=MYXNLI),
    Reader("elicit-jsonl", "elicit", "jsonl", "answers.jsonl",
           ("elicit", "import", "{file}", "--format", "jsonl")),
    Reader("elicit-csv", "elicit", "csv", "answers.csv",
           ("elicit", "import", "{file}", "--format", "csv")),
    Reader("elicit-labelstudio", "elicit", "json", "answers.labelstudio.json",
           ("elicit", "import", "{file}", "--format", "labelstudio", "--annotator-map",
            "{annotators.csv}")),
    Reader("elicit-mturk", "elicit", "csv", "answers.mturk.csv",
           ("elicit", "import", "{file}", "--format", "mturk", "--annotator-map",
            "{annotators.csv}")),
    Reader("elicit-table", "elicit", "json", "answers.table.json",
           ("elicit", "import", "{file}", "--format", "table", "--columns", "worker=who")),
    Reader("elicit-annotators", "elicit", "csv", "annotators.csv",
           ("elicit", "import", "{answers.labelstudio.json}", "--format", "labelstudio",
            "--annotator-map", "{file}")),
    Reader("elicit-negators", "elicit", "lines", "negators.txt",
           ("elicit", "import", "{answers.jsonl}", "--format", "jsonl", "--negators", "{file}")),
    Reader("relabel-jsonl", "relabel", "jsonl", "votes.jsonl",
           ("relabel", "import", "{file}", "--format", "jsonl")),
    Reader("relabel-csv", "relabel", "csv", "votes.csv",
           ("relabel", "import", "{file}", "--format", "csv")),
    Reader("relabel-labelstudio", "relabel", "json", "votes.labelstudio.json",
           ("relabel", "import", "{file}", "--format", "labelstudio", "--annotator-map",
            "{relabel-annotators.csv}")),
    Reader("relabel-mturk", "relabel", "csv", "votes.mturk.csv",
           ("relabel", "import", "{file}", "--format", "mturk", "--annotator-map",
            "{relabel-annotators.csv}")),
    Reader("relabel-table", "relabel", "tsv", "votes.table.tsv",
           ("relabel", "import", "{file}", "--format", "table", "--columns", "worker=rater",
            "--labels", "0=entailment,1=neutral,2=contradiction")),
    Reader("relabel-annotators", "relabel", "csv", "relabel-annotators.csv",
           ("relabel", "import", "{votes.labelstudio.json}", "--format", "labelstudio",
            "--annotator-map", "{file}")),
    Reader("ingest-txt", "empty", "lines", "news.txt", ("ingest", "{file}", "--genre", "news")),
    Reader("ingest-jsonl", "empty", "jsonl", "news.jsonl",
           ("ingest", "{file}", "--genre-field", "genre", "--field", "text")),
    Reader("ingest-tsv", "empty", "tsv", "news.tsv", ("ingest", "{file}", "--genre", "news")),
    Reader("ingest-conllu", "empty", "lines", "pud.conllu",
           ("ingest", "{file}", "--genre-from", "^(n|w)"), needs=UD_PUD_EN),
    Reader("init-preset-mnli", None, "lines", "mnli.toml", ("init", "--preset", "{file}")),
    Reader("init-preset-ocnli", None, "lines", "ocnli.toml", ("init", "--preset", "{file}")),
    Reader("elicit-create-premises", "premises", "lines", "premises.txt",
           ("elicit", "create", "--protocol", "SINGLE", "--annotators", "w01",
            "--premises", "{file}"), names_ids=True),
    Reader("elicit-create-writers", "premises", "lines", "writers.txt",
           ("elicit", "create", "--protocol", "SINGLE", "--annotators", "{file}"), names_ids=True),
    Reader("relabel-create-annotators", "corpus", "lines", "validators.txt",
           ("relabel", "create", "--annotators", "{file}", "--fraction", "0.5"),
           names_ids=True),
]  # fmt: skip


def fuzz_settings(bounded: int, reader: Reader) -> settings:
    """`bounded` examples under the default profile; under `make fuzz` the profile's count,
    and an example database of the reader's own (hypothesis keys it by the test function,
    the same for every reader, and would replay one reader's failure on the others and drop
    it where it passes)."""
    if HYPOTHESIS_PROFILE == "fuzz":
        return settings(database=DirectoryBasedExampleDatabase(FUZZ_EXAMPLES / reader.id))
    return settings(max_examples=bounded)


# --- the workshop: template stores and valid files, made once ------------------------------


def first_lines(path: Path, count: int) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:count])


def write_csv(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)


def corpus_files(corpus: Path, files: Path) -> None:
    """Six pairs of the sample in every export format, and German units of them."""
    for fmt, name in [("mnli-jsonl", "corpus.mnli.jsonl"), ("jsonl", "corpus.jsonl"),
                      ("xnli-tsv", "corpus.xnli.tsv")]:  # fmt: skip
        whole = files / f"whole.{name}"
        ok("--db", corpus, "export", "--format", fmt, "--out", whole)
        (files / name).write_text(first_lines(whole, 7), encoding="utf-8")
    with (files / "corpus.xnli.tsv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    write_csv(files / "corpus.table.csv", table)
    table_records = [dict(zip(table[0], row, strict=True)) for row in table[1:]]
    (files / "corpus.table.json").write_text(json.dumps(table_records, indent=1), "utf-8")
    units = DATA / "translations" / "sample_mnli.de.tsv"
    shutil.copy(units, files / "all-units.de.tsv")
    (files / "units.de.tsv").write_text(first_lines(units, 9), encoding="utf-8")
    with (files / "units.de.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    write_csv(files / "units.de.csv", rows)
    records = [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]
    write_jsonl(files / "units.de.jsonl", records)
    renamed = [{"id": r["unit_id"], "translation": r["text"]} for r in records]
    (files / "units.de.json").write_text(json.dumps(renamed, indent=1), "utf-8")
    (files / "validators.txt").write_text("v01\nv02\nv03\nv04\nv05\n", encoding="utf-8")
    (files / "ocnli.json").write_text(first_lines(DATA / "sample_ocnli.json", 6), "utf-8")
    for preset in ("mnli", "ocnli"):
        shutil.copy(PRESETS / f"{preset}.toml", files / f"{preset}.toml")


def relabel_files(relabel: Path, files: Path) -> None:
    """Votes for the relabelling batches of `relabel` in every platform's format."""
    package = files / "relabel-package"
    for fmt in ("jsonl", "csv", "labelstudio", "mturk"):
        ok("--db", relabel, "relabel", "export", "r0001", "--format", fmt, "--out", package)
    tasks = read_jsonl(package / "r0001.tasks.jsonl")
    write_jsonl(files / "votes.jsonl",
                [{k: t[k] for k in ("batch", "annotator", "pair_id")} | {"label": "neutral"}
                 for t in tasks])  # fmt: skip
    (files / "votes.table.tsv").write_text(
        "batch\trater\tpair_id\tlabel\n"
        + "".join(f"{t['batch']}\t{t['annotator']}\t{t['pair_id']}\t1\n" for t in tasks),
        encoding="utf-8",
    )
    with (package / "r0001.csv").open(encoding="utf-8", newline="") as handle:
        sheet = list(csv.reader(handle))
    write_csv(files / "votes.csv", [sheet[0]] + [[*row[:-1], "neutral"] for row in sheet[1:]])
    choice = {"value": {"choices": ["neutral"]}, "from_name": "label", "to_name": "hypothesis",
              "type": "choices", "origin": "manual"}  # fmt: skip
    exported = [{"id": 301 + i, "data": data,
                 "annotations": [{"id": 5001 + i, "completed_by": 3, "result": [choice],
                                  "was_cancelled": False}]}
                for i, data in enumerate(read_task_file(package / "r0001.labelstudio.json",
                                                        "labelstudio"))]  # fmt: skip
    (files / "votes.labelstudio.json").write_text(json.dumps(exported, indent=1), "utf-8")
    (files / "relabel-annotators.csv").write_text(
        "platform,platform_id,annotator\nlabelstudio,3,v01\nmturk,A1WORKER,v01\n", encoding="utf-8"
    )
    inputs, hits = mturk_input(package / "r0001.mturk-input.csv")
    header = [*MTURK_COLUMNS, *(f"Input.{c}" for c in inputs), "Answer.label"]
    rows = [[*(f"{c}{i}" if c in ("AssignmentId", "HITId") else "" for c in MTURK_COLUMNS)]
            for i in range(len(hits))]  # fmt: skip
    for row, hit in zip(rows, hits, strict=True):
        row[MTURK_COLUMNS.index("WorkerId")] = "A1WORKER"
        row[MTURK_COLUMNS.index("AssignmentStatus")] = "Submitted"
        row += [*(hit[c] for c in inputs), "neutral"]
    write_mturk_results(files / "votes.mturk.csv", header, rows)


def elicit_files(elicit: Path, files: Path) -> None:
    """Answers to the elicitation batch e0001 of `elicit` in every platform's format."""
    package = files / "elicit-package"
    for fmt in ("jsonl", "csv", "labelstudio", "mturk"):
        ok("--db", elicit, "elicit", "export", "e0001", "--format", fmt, "--out", package)
    tasks = read_jsonl(package / "e0001.tasks.jsonl")
    answers = [{k: t[k] for k in ("batch", "writer", "premise_id")} | SINGLE for t in tasks]
    write_jsonl(files / "answers.jsonl", answers)
    table = [{"who" if k == "writer" else k: v for k, v in a.items()} for a in answers]
    (files / "answers.table.json").write_text(json.dumps(table, indent=1), "utf-8")
    slots = {f"{label}_1": texts[0] for label, texts in SINGLE.items()}
    with (package / "e0001.csv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        rows = [row | slots for row in reader]
    write_csv(files / "answers.csv", [header, *([row[c] for c in header] for row in rows)])
    results = [{"value": {"text": [text]}, "from_name": name, "to_name": "premise",
                "type": "textarea"} for name, text in slots.items()]  # fmt: skip
    exported = [{"id": 101 + i, "data": data,
                 "annotations": [{"id": 1001 + i, "completed_by": 4, "result": results,
                                  "was_cancelled": False}]}
                for i, data in enumerate(read_task_file(package / "e0001.labelstudio.json",
                                                        "labelstudio"))]  # fmt: skip
    (files / "answers.labelstudio.json").write_text(json.dumps(exported, indent=1), "utf-8")
    (files / "annotators.csv").write_text(
        "platform,platform_id,annotator\nlabelstudio,4,w01\nmturk,A1WRITER,w01\n", encoding="utf-8"
    )
    inputs, hits = mturk_input(package / "e0001.mturk-input.csv")
    header = [*MTURK_COLUMNS, *(f"Input.{c}" for c in inputs),
              *(f"Answer.{name}" for name in slots), "Answer.unusable"]  # fmt: skip
    assignments: list[list[str]] = []
    for i, hit in enumerate(hits):
        meta = dict.fromkeys(MTURK_COLUMNS, "") | {
            "HITId": f"H{i}", "AssignmentId": f"A{i}", "WorkerId": "A1WRITER",
            "AssignmentStatus": "Submitted",
        }  # fmt: skip
        assignments.append([*meta.values(), *(hit[c] for c in inputs), *slots.values(), ""])
    write_mturk_results(files / "answers.mturk.csv", header, assignments)
    (files / "negators.txt").write_text(first_lines(NEGATORS / "en.txt", 30), "utf-8")


def pool_files(premises: Path, files: Path) -> None:
    """Source texts in every ingest format, and the lists `elicit create` reads."""
    sentences = NEWS[:4]
    (files / "news.txt").write_text("\n\n".join(sentences) + "\n", encoding="utf-8")
    write_jsonl(files / "news.jsonl", [{"text": s, "genre": "news"} for s in sentences])
    (files / "news.tsv").write_text("text\n" + "".join(s + "\n" for s in sentences), "utf-8")
    if UD_PUD_EN.is_file():
        blocks = UD_PUD_EN.read_text(encoding="utf-8").split("\n\n")[:3]
        (files / "pud.conllu").write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    (files / "premises.txt").write_text("news_0001\nnews_0002\nnews_0003\n", encoding="utf-8")
    (files / "writers.txt").write_text("w01\nw02\n", encoding="utf-8")


def myxnli_files(files: Path) -> Path:
    """The first 12 pairs of myXNLI's dev set (English, Burmese) and their Swahili rows."""
    (files / "myxnli.tsv").write_text(first_lines(MYXNLI / "my.genre.dev.tsv", 13), "utf-8")
    (files / "sw.rows.tsv").write_text(first_lines(MYXNLI / "sw.genre.dev.tsv", 13), "utf-8")
    store = new_store(files.parent / "myxnli" / "corpus.db")
    ok("--db", store, "import", files / "myxnli.tsv", "--format", "xnli", "--lang", "en",
       "--label-order", "e,n,c")  # fmt: skip
    return store


@dataclass(frozen=True)
class Workshop:
    stores: dict[str, Path]
    files: Path


@pytest.fixture(scope="module")
def workshop(tmp_path_factory: pytest.TempPathFactory) -> Workshop:
    root = tmp_path_factory.mktemp("fuzz")
    files = root / "files"
    files.mkdir()
    for name in ("corpus", "ocnli", "empty", "premises", "elicit", "relabel", "myxnli"):
        (root / name).mkdir()
    corpus = new_store(root / "corpus" / "corpus.db")
    ok("--db", corpus, "import", SAMPLE_MNLI, "--format", "mnli")
    relabel = copy_store(corpus, root / "relabel" / "corpus.db")
    ok("--db", relabel, "relabel", "create", "--annotators", "v01,v02,v03,v04,v05",
       "--fraction", "0.5")  # fmt: skip
    premises = premise_corpus(root / "premises" / "corpus.db", {"news": NEWS}, lang="en").path
    elicit = copy_store(premises, root / "elicit" / "corpus.db")
    ok("--db", elicit, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01")
    stores = {
        "corpus": corpus,
        "ocnli": new_store(root / "ocnli" / "corpus.db", "--preset", "ocnli"),
        "empty": new_store(root / "empty" / "corpus.db", "--lang", "en"),
        "premises": premises,
        "elicit": elicit,
        "relabel": relabel,
    }
    corpus_files(corpus, files)
    relabel_files(relabel, files)
    elicit_files(elicit, files)
    pool_files(premises, files)
    if MYXNLI.is_dir():
        stores["myxnli"] = myxnli_files(files)
    return Workshop(stores, files)


# --- the property -------------------------------------------------------------------------


def succeeds_or_refuses(db: Path, args: list[str], names_ids: bool) -> bool:
    """Run `nlibuild --db DB ARGS` and check the promise; True if it succeeded (the store
    may have changed), False if it refused (and the store is as it was)."""
    before = store_digest(db)
    result = CliRunner().invoke(app, ["--db", str(db), *args], catch_exceptions=True)
    if result.exit_code == 0:
        return True
    crash = result.exception
    assert isinstance(crash, SystemExit), "".join(
        traceback.format_exception(type(crash), crash, crash.__traceback__) if crash else []
    )
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("Error: "), line
    assert not line.startswith("Error: internal error"), line
    # The fuzzed file, or another input of the command whose content the change makes
    # wrong (an --annotator-map map that no longer maps a worker: the answers are named).
    named = [Path(arg).name for arg in args if Path(arg).is_file()]
    if not names_ids:
        assert any(name in line for name in named), f"the line names no input file: {line}"
    assert result.stdout == "", result.stdout
    assert store_digest(db) == before, f"a refused command changed the store: {line}"
    return False


def command_words(reader: Reader, names: dict[str, str]) -> list[str]:
    """`reader.args` with each `{name}` replaced by the path of the file so named."""
    return [names[a[1:-1]] if a.startswith("{") and a.endswith("}") else a for a in reader.args]


class Scratch:
    """A copy of a template store, made again only after a command changed it."""

    def __init__(self, template: Path | None, folder: Path) -> None:
        self.template = template
        self.db = folder / "store" / "corpus.db"
        self.dirty = True

    def store(self) -> Path:
        if self.dirty:
            shutil.rmtree(self.db.parent, ignore_errors=True)
            self.db.parent.mkdir(parents=True)
            if self.template is not None:
                copy_store(self.template, self.db)
            self.dirty = False
        return self.db


def fuzz_reader(reader: Reader, workshop: Workshop, folder: Path) -> Callable[[bytes], None]:
    """The check of one example: `reader`'s command on a file holding the bytes given."""
    if reader.needs is not None and not reader.needs.exists():
        pytest.skip(f"{reader.needs} is absent (real data lives in ../shared/fixtures)")
    template = None if reader.store is None else workshop.stores[reader.store]
    scratch = Scratch(template, folder)
    bad = folder / "input" / reader.valid
    bad.parent.mkdir(parents=True)
    names = {p.name: str(p) for p in workshop.files.iterdir()} | {"file": str(bad)}
    args = command_words(reader, names)

    def check(data: bytes) -> None:
        bad.write_bytes(data)
        if succeeds_or_refuses(scratch.store(), args, reader.names_ids):
            scratch.dirty = True

    return check


def valid_text(reader: Reader, workshop: Workshop) -> str:
    path = workshop.files / reader.valid
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.mark.parametrize("reader", READERS, ids=[r.id for r in READERS])
def test_a_broken_file_is_accepted_or_one_error_line_and_the_store_is_unchanged(
    reader: Reader, workshop: Workshop, tmp_path: Path
) -> None:
    check = fuzz_reader(reader, workshop, tmp_path)

    @fuzz_settings(EXAMPLES_PER_READER, reader)
    @given(data=broken_file(reader.kind, valid_text(reader, workshop)))
    def property_holds(data: bytes) -> None:
        check(data)

    property_holds()


@pytest.mark.parametrize("reader", READERS, ids=[r.id for r in READERS])
def test_raw_bytes_are_accepted_or_one_error_line_and_the_store_is_unchanged(
    reader: Reader, workshop: Workshop, tmp_path: Path
) -> None:
    check = fuzz_reader(reader, workshop, tmp_path)

    @fuzz_settings(RAW_EXAMPLES_PER_READER, reader)
    @given(data=raw_bytes)
    def property_holds(data: bytes) -> None:
        check(data)

    property_holds()


def test_the_valid_files_are_accepted(workshop: Workshop, tmp_path: Path) -> None:
    # The fuzzing starts from files each command takes: otherwise it would only ever test
    # the first check of a reader.
    refused: dict[str, Any] = {}
    for reader in READERS:
        if reader.needs is not None and not reader.needs.exists():
            continue
        template = None if reader.store is None else workshop.stores[reader.store]
        folder = tmp_path / reader.id
        scratch = Scratch(template, folder)
        names = {p.name: str(p) for p in workshop.files.iterdir()}
        names["file"] = names[reader.valid]
        args = command_words(reader, names)
        result = CliRunner().invoke(app, ["--db", str(scratch.store()), *args])
        if result.exit_code != 0:
            refused[reader.id] = result.output
    assert refused == {}, "\n".join(f"{reader}: {line}" for reader, line in refused.items())
