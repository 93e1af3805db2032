"""Files made for a spreadsheet run no formulas; data files stay byte-exact. An import
killed early leaves no process behind.

A cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is read by Excel,
LibreOffice and Sheets as a formula (OWASP: CSV injection). The work packages people open
(`elicit export` / `relabel export` as csv, the MTurk input CSV) and the report tables of
`--format csv` put a `'` before such a text cell; numbers stay numbers. A package sent
back, with or without the quote, reads back the same IDs and texts. Corpus exports are
data files the tool re-imports: they keep every cell as stored.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import new_store, ok, ok_result, query, read_tsv, write_jsonl
from elicitation_data import annotator_map, premise_corpus, write_mturk_results
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from nlibuild.core.registry import IMPORT
from nlibuild.formats.tabular import (
    guard_formula,
    runs_as_formula,
    unguard_formula,
    write_spreadsheet_csv,
)
from nlibuild.models import TableFormat
from nlibuild.render import render_table
from nlibuild.stages.import_corpus import PARALLEL_MIN_BYTES

PAIRS = {
    "-p1": ('=HYPERLINK("http://x","y") was typed into the form.', "-2+3 is what it shows."),
    "@p2": ("@SUM(A1:A9) adds up a column of numbers.", "+1 more row gets added to it."),
    "+p3": ("The ferry left the harbour an hour late.", "=the ferry was late"),
    "p4": ("\tA tab opens this premise about the weather.", "A tab opened its premise."),
}
"""pair ID: (premise, hypothesis), IDs and texts opening with formula characters."""
GENRE = "=news"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def read_sheet(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_sheet(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))  # \r\n line ends, as spreadsheets write
        writer.writeheader()
        writer.writerows(rows)
    return path


def unguarded(cell: str) -> str:
    """What a spreadsheet saves of a guarded cell that it showed as text: the quote gone."""
    return cell.removeprefix("'")


def assert_no_formula(rows: list[dict[str, str]]) -> None:
    cells = [cell for row in rows for cell in [*row, *row.values()]]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)], cells


@pytest.fixture
def relabelled(tmp_path: Path) -> Path:
    """A store of the four PAIRS (author's label only), all in relabelling batches
    r0001 (v01) and r0002 (v02)."""
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"premise": premise, "hypothesis": hypothesis, "pair_id": pair_id,
                        "labels": ["entailment"], "genre": GENRE}) + "\n"
            for pair_id, (premise, hypothesis) in PAIRS.items()
        ),
        encoding="utf-8",
    )  # fmt: skip
    db = new_store(tmp_path / "corpus.db", "--lang", "en")
    ok("--db", db, "import", corpus, "--format", "jsonl")
    ok("--db", db, "relabel", "create", "--annotators", "v01,v02", "--fraction", 1,
       "--validators", 2)  # fmt: skip
    return db


def test_a_relabel_sheet_guards_formula_cells(relabelled: Path, tmp_path: Path) -> None:
    out = tmp_path / "package"
    ok("--db", relabelled, "relabel", "export", "--all", "--format", "csv", "--out", out)

    rows = read_sheet(out / "r0001.csv")

    assert_no_formula(rows)
    assert {row["pair_id"]: (row["premise"], row["hypothesis"]) for row in rows} == {
        ("'" + pair_id if pair_id != "p4" else pair_id): (
            premise if premise.startswith("The") else f"'{premise}",
            hypothesis if hypothesis.startswith("A") else f"'{hypothesis}",
        )
        for pair_id, (premise, hypothesis) in PAIRS.items()
    }  # fmt: skip
    assert {row["genre"] for row in rows} == {f"'{GENRE}"}


@pytest.mark.parametrize("saved", ["as written", "quote dropped"])
def test_a_filled_in_relabel_sheet_reads_back_its_pair_ids(
    relabelled: Path, tmp_path: Path, saved: str
) -> None:
    out = tmp_path / "package"
    ok("--db", relabelled, "relabel", "export", "--all", "--format", "csv", "--out", out)
    rows = read_sheet(out / "r0001.csv")
    for row in rows:
        row["label"] = "neutral"
        if saved == "quote dropped":
            row.update({name: unguarded(cell) for name, cell in row.items()})

    report = ok("--db", relabelled, "relabel", "import", write_sheet(tmp_path / "done.csv", rows),
                "--format", "csv")  # fmt: skip

    assert "Imported 4 votes" in report
    voted = query(
        relabelled,
        "SELECT p.id FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
        "JOIN annotators a ON a.pk = v.annotator_pk WHERE a.id = 'v01' AND v.label = 'neutral'",
    )
    assert sorted(pair_id for (pair_id,) in voted) == sorted(PAIRS)


def test_mturk_input_is_guarded_and_its_results_read_back(relabelled: Path, tmp_path: Path) -> None:
    out = tmp_path / "package"
    ok("--db", relabelled, "relabel", "export", "--all", "--format", "mturk", "--out", out)
    hits = read_sheet(out / "r0001.mturk-input.csv")
    assert_no_formula(hits)
    header = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus",
              *(f"Input.{name}" for name in hits[0]), "Answer.label"]  # fmt: skip
    results = write_mturk_results(
        tmp_path / "Batch_1_batch_results.csv",
        header,
        [[f"H{i}", f"A{i}", "WORKER1", "Submitted", *hit.values(), "contradiction"]
         for i, hit in enumerate(hits)],
    )  # fmt: skip
    workers = annotator_map(tmp_path / "workers.csv", ("mturk", "WORKER1", "v01"))

    report = ok("--db", relabelled, "relabel", "import", results, "--format", "mturk",
                "--annotator-map", workers)  # fmt: skip

    assert "Imported 4 votes" in report


def test_an_elicitation_sheet_reads_back_guarded_premises_and_hypotheses(
    tmp_path: Path,
) -> None:
    """A premise named by its text (no premise_id) is found whether the spreadsheet kept
    the guard quote or not; hypotheses a writer typed with a leading `-` or `=` (entered
    as text, so the quote is either kept or dropped) come back without it."""
    premises = ["-Dashes open this sentence about the harbour.",
                "@Someone wrote this sentence about the weather today."]  # fmt: skip
    db = premise_corpus(tmp_path / "corpus.db", {"news": premises}, lang="en").path
    ok("--db", db, "elicit", "create", "--protocol", "SINGLE", "--annotators", "w01")
    out = tmp_path / "package"
    ok("--db", db, "elicit", "export", "--all", "--format", "csv", "--out", out)
    rows = read_sheet(out / "e0001.csv")
    assert_no_formula(rows)
    assert sorted(row["premise"] for row in rows) == sorted(f"'{p}" for p in premises)
    hypotheses = {
        "entailment_1": "'-yes, it is about the harbour",
        "neutral_1": "-maybe it rained",
        "contradiction_1": "'=not at all",
    }
    for row in rows:
        row.update(hypotheses, premise_id="")
    rows[1]["premise"] = unguarded(rows[1]["premise"])

    report = ok("--db", db, "elicit", "import", write_sheet(tmp_path / "done.csv", rows),
                "--format", "csv")  # fmt: skip

    assert "6 pairs added" in report
    stored = query(db, "SELECT r.text, p.hypothesis FROM pairs p "
                       "JOIN premises r ON r.pk = p.premise_pk")  # fmt: skip
    assert sorted(stored) == sorted(
        (premise, hypothesis)
        for premise in premises
        for hypothesis in ("-yes, it is about the harbour", "-maybe it rained", "=not at all")
    )


def test_a_carriage_return_inside_a_cell_cannot_start_an_unguarded_row(tmp_path: Path) -> None:
    """An unquoted CR ends the row in a spreadsheet: `fine\r=1+1` would put `=1+1` first
    in a row of its own, past the guard. The cell is quoted, so it stays one cell."""
    path = tmp_path / "sheet.csv"
    write_spreadsheet_csv(path, ["pair_id", "hypothesis"], [["p1", "fine\r=1+1"], ["p2", "-x"]])

    assert path.read_bytes() == b'pair_id,hypothesis\r\np1,"fine\r=1+1"\r\np2,\'-x\r\n'
    assert read_sheet(path) == [{"pair_id": "p1", "hypothesis": "fine\r=1+1"},
                                {"pair_id": "p2", "hypothesis": "'-x"}]  # fmt: skip


def test_report_csv_guards_text_cells_and_keeps_numbers(relabelled: Path) -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200)
    render_table(console, "PMI", ["=group", "word", "pmi", "count"],
                 [("=news", "-ish", -0.5, -3), ("@x", "+1", 0.25, 2)], TableFormat.CSV)  # fmt: skip

    assert buffer.getvalue() == "'=group,word,pmi,count\n'=news,'-ish,-0.5000,-3\n'@x,+1,0.2500,2\n"
    cues = ok("--db", relabelled, "stats", "--table", "cues", "--by", "genre", "--format", "csv")
    groups = {row["group"] for row in csv.DictReader(io.StringIO(cues))}
    assert groups == {"all", f"'{GENRE}"}


def test_corpus_exports_stay_byte_exact(relabelled: Path, tmp_path: Path) -> None:
    """xnli-tsv (and every corpus format) is data the tool re-imports: no guard quote. A
    person may open it all the same: a `Warning:` line counts the cells a spreadsheet would
    run and says how to read the file instead."""
    path = tmp_path / "out.tsv"
    result = ok_result("--db", relabelled, "export", "--format", "xnli-tsv", "--out", path)

    rows = read_tsv(path)
    formulas = [cell for row in rows for cell in row.values() if runs_as_formula(cell)]
    (warning,) = result.stderr.splitlines()
    assert warning.startswith(f"Warning: {path}: {len(formulas)} cells start with =, +, -, @")
    assert "import it with every column as text" in warning and len(formulas) >= 9

    # A tab cannot stand inside a TSV cell: the export writes it as a space, as it did.
    expected = {key: (p.replace("\t", " "), h) for key, (p, h) in PAIRS.items()}
    assert {row["pairID"]: (row["sentence1"], row["sentence2"]) for row in rows} == expected
    assert {row["genre"] for row in rows} == {GENRE}


# --- translation units go to translators, who open them in a spreadsheet -------------------

TEXTS = [
    "=cmd|' /C calc'!A0",
    '+HYPERLINK("http://x","y") is a link.',
    "@SUM(A1:A9) adds up a column.",
    "-1+1",
    "'=a quote already stands before it",
    "''=two quotes",
    "'-0.5",
    "-0.5",
    "- a dash opens the list",
]
"""Sources that run as formulas, or start with quotes a reader of guarded cells takes off."""


@pytest.fixture
def to_translate(tmp_path: Path) -> Path:
    """An English store whose premises and hypotheses are TEXTS (each premise's hypothesis
    is the next text)."""
    records = [
        {"premise": text, "hypothesis": TEXTS[(at + 1) % len(TEXTS)], "pair_id": f"t{at}",
         "labels": ["neutral"]}
        for at, text in enumerate(TEXTS)
    ]  # fmt: skip
    db = new_store(tmp_path / "corpus.db", "--lang", "en")
    ok("--db", db, "import", write_jsonl(tmp_path / "texts.jsonl", records), "--format", "jsonl")
    return db


def read_units_file(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(encoding="utf-8", newline="") as handle:
        if path.suffix == ".tsv":
            table = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
        else:
            table = list(csv.reader(handle))
    return table[0], table[1:]


def write_units_file(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        if path.suffix == ".tsv":
            handle.write("".join("\t".join(row) + "\n" for row in [header, *rows]))
        else:
            csv.writer(handle).writerows([header, *rows])


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_translation_units_guard_formulas_and_read_back_byte_exact(
    to_translate: Path, tmp_path: Path, suffix: str
) -> None:
    """Issue 26: `translate export --format csv|tsv` wrote `=cmd|...` as it was. Its cells
    now carry the guard quote; a translator's file that keeps the source's cells as they
    were sent (a copy, an untranslatable name) imports the very texts stored."""
    units = tmp_path / f"units{suffix}"
    ok("--db", to_translate, "translate", "export", "--lang", "de", "--out", units)
    header, rows = read_units_file(units)
    assert not [cell for row in rows for cell in row if runs_as_formula(cell)], rows
    source, text = header.index("source"), header.index("text")
    for row in rows:
        row[text] = row[source]  # the translator keeps the source as it stands in the sheet
    write_units_file(units, header, rows)
    ok("--db", to_translate, "translate", "import", units, "--lang", "de", "--translator", "t1",
       "--force")  # fmt: skip
    stored = query(to_translate, "SELECT text FROM translations WHERE lang = 'de'")
    assert sorted(text for (text,) in stored) == sorted(TEXTS * 2)


def test_a_spreadsheet_that_dropped_the_guard_quotes_reads_back_the_same(
    to_translate: Path, tmp_path: Path
) -> None:
    """A spreadsheet shows a guarded cell without its quote and may save it so: such a
    formula cell reads back as the source too."""
    units = tmp_path / "units.csv"
    ok("--db", to_translate, "translate", "export", "--lang", "de", "--out", units)
    header, rows = read_units_file(units)
    source, text = header.index("source"), header.index("text")
    kept = [row for row in rows if runs_as_formula(unguarded(row[source]))]
    for row in kept:
        row[text] = unguarded(row[source])
    write_units_file(units, header, kept)
    ok("--db", to_translate, "translate", "import", units, "--lang", "de", "--partial", "--force")
    stored = {text for (text,) in query(to_translate, "SELECT text FROM translations")}
    assert stored == {text for text in TEXTS if runs_as_formula(text)}


@given(st.text())
def test_a_guarded_cell_reads_back_as_it_was(cell: str) -> None:
    assert unguard_formula(guard_formula(cell)) == cell
    assert not runs_as_formula(guard_formula(cell))


# --- an import killed early leaves no process behind -----------------------------------

PROCESS_MARK = "NLIBUILD_TEST_PROCESS_MARK"
"""An environment variable given to the import: every process it starts inherits it, so
its processes can be found after the kill, when they no longer have it as their parent."""


@pytest.fixture(scope="module")
def parallel_sized(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An MNLI jsonl just big enough (about 20 MB) to be read by a worker process."""
    path = tmp_path_factory.mktemp("parallel") / "mnli.jsonl"
    labels = ("entailment", "neutral", "contradiction")
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(64_000):
            prompt, label = i // 3, labels[i % 3]
            handle.write(json.dumps({
                "annotator_labels": [label, label, "neutral", label, label],
                "genre": "fiction", "gold_label": label, "pairID": f"b{prompt}{label[0]}",
                "promptID": f"b{prompt}",
                "sentence1": f"On day {prompt} the ferry left the harbour an hour late.",
                "sentence2": f"Hypothesis {i} about the ferry on day {prompt}.",
            }) + "\n")  # fmt: skip
    assert path.stat().st_size >= PARALLEL_MIN_BYTES
    return path


def marked_pids(mark: str) -> set[int]:
    """The live processes (zombies aside) whose environment holds PROCESS_MARK=mark."""
    needle = f"{PROCESS_MARK}={mark}".encode()
    found = set()
    for proc_dir in Path("/proc").glob("[0-9]*"):
        try:
            if needle not in (proc_dir / "environ").read_bytes().split(b"\0"):
                continue
            state = (proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.add(int(proc_dir.name))
    return found


@dataclass(frozen=True)
class KilledImport:
    """An import started with its processes marked (`PROCESS_MARK`), to be killed."""

    proc: subprocess.Popen[bytes]
    db: Path
    corpus: Path
    mark: str

    def workers(self) -> set[int]:
        return marked_pids(self.mark) - {self.proc.pid}


def run_is_recorded(started: KilledImport) -> bool:
    """The import's run row is committed as `running` (before it takes the write lock)."""
    try:
        sql = "SELECT 1 FROM runs WHERE stage = ? AND status = 'running'"
        rows = query(started.db, sql, IMPORT.name)
    except sqlite3.OperationalError:  # the store is busy: not seen yet
        return False
    return bool(rows)


def holds_write_lock(started: KilledImport) -> bool:
    """The import is inside its write transaction (this connection cannot begin one)."""
    with closing(sqlite3.connect(started.db, timeout=0, isolation_level=None)) as conn:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            return "locked" in str(exc)
        conn.execute("ROLLBACK")
    return False


def worker_reads_the_corpus(started: KilledImport) -> bool:
    """The worker process has the corpus file open: it is reading and resolving rows."""
    for pid in started.workers():
        try:
            open_files = {fd.readlink() for fd in Path(f"/proc/{pid}/fd").iterdir()}
        except OSError:  # it is gone, or its descriptors changed as we read them
            continue
        if started.corpus.resolve() in open_files:
            return True
    return False


PHASES: dict[str, Callable[[KilledImport], bool]] = {
    "launched": lambda _started: True,
    "run recorded": run_is_recorded,
    "write lock held": holds_write_lock,
    "worker started": lambda started: bool(started.workers()),
    "worker reading": worker_reads_the_corpus,
}
"""Moments of an import, in the order it reaches them, each as the test observes it."""


def wait_for(phase: str, started: KilledImport) -> None:
    """Return as soon as the import has reached `phase`; fail if it ended first."""
    deadline = time.monotonic() + 30
    while not PHASES[phase](started):
        assert started.proc.poll() is None, f"the import ended before it reached {phase!r}"
        assert time.monotonic() < deadline, f"the import did not reach {phase!r} within 30 s"
        time.sleep(0.002)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG")
@pytest.mark.parametrize("phase", PHASES)
def test_an_import_killed_early_leaves_no_process(
    db: Path, parallel_sized: Path, phase: str
) -> None:
    """kill -9 as soon as the import reaches a phase (from its start to its worker reading
    the file, the worker starting up in between): within a few seconds none of the
    processes the import started (its worker, any helper of multiprocessing's) is left.
    The kill waits for the phase, not for a time, so it means the same on any machine."""
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        [sys.executable, "-m", "nlibuild", "--db", str(db), "import", str(parallel_sized),
         "--format", "mnli"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "OMP_NUM_THREADS": "1", PROCESS_MARK: mark},
    )  # fmt: skip
    try:
        wait_for(phase, KilledImport(proc, db, parallel_sized, mark))
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    deadline = time.monotonic() + 5.0
    while (left := marked_pids(mark)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:  # do not leave them to the next test
        os.kill(pid, 9)
    assert not left, f"processes {sorted(left)} outlived the killed import"
