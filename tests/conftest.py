"""Shared test helpers: the CLI runner, fresh stores, and the real-data fixtures.

Test modules import these as `from conftest import ...` (pytest puts tests/ on sys.path;
mypy finds it through `mypy_path` in pyproject.toml).

- `run_cli(*args)` runs `nlibuild ARGS...` in-process and returns the click `Result`.
- `ok(*args)` runs it, requires exit 0 (showing stderr otherwise) and returns stdout;
  `ok_result(*args)` does the same but returns the whole `Result`; `json_rows(*args)` and
  `json_object(*args)` add `--format json` and return the parsed list of objects or object,
  `csv_rows(*args)` adds `--format csv` and returns the rows as dicts.
- `fails(db, *args, says=...)` requires one `Error:` line holding every fragment of `says`
  and an unchanged store; `assert_user_error(result, *fragments)` checks the line only.
- `refused(db, call, *says)` is `fails` through the Python API: `call(corpus)` must raise an
  `NlibuildError` holding every fragment and leave the store as it was.
- `new_store`, `copy_store`, `table_counts` (`without_runs`) and `query` make and read stores;
  the fixtures `db` (a fresh store) and `sample_db` (holding SAMPLE_MNLI) give one per test;
  `myxnli_store` fills one from the real myXNLI fixture.
- `read_jsonl`, `write_jsonl` and `read_tsv` read and write the files the CLI exchanges.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from typer.testing import CliRunner, Result

import nlibuild
from nlibuild.api import Corpus
from nlibuild.cli import app
from nlibuild.errors import NlibuildError

os.environ.setdefault("OMP_NUM_THREADS", "1")

# --- hypothesis profiles --------------------------------------------------------------------

HYPOTHESIS_PROFILE_VARIABLE = "NLIBUILD_HYPOTHESIS_PROFILE"
settings.register_profile(
    # `make test`: the same examples on every run and machine (derandomized, no database), no
    # deadline (2 shared cores make timings noise), each test's own bounded example count.
    "bounded",
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    # `make fuzz`: random examples, many of them ($NLIBUILD_FUZZ_EXAMPLES per test, 1,000
    # unless set); failures are kept in .hypothesis/ and replayed first on the next run.
    "fuzz",
    deadline=None,
    max_examples=int(os.environ.get("NLIBUILD_FUZZ_EXAMPLES", "1000")),
    database=DirectoryBasedExampleDatabase(
        Path(__file__).resolve().parent.parent / ".hypothesis" / "examples"
    ),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HYPOTHESIS_PROFILE = os.environ.get(HYPOTHESIS_PROFILE_VARIABLE, "bounded")
settings.load_profile(HYPOTHESIS_PROFILE)

PROJECT = Path(__file__).resolve().parent.parent
DATA = PROJECT / "data"
FIXTURES = PROJECT.parent / "shared" / "fixtures"
SAMPLE_MNLI = DATA / "sample_mnli.jsonl"
"""48 MNLI pairs (16 premises, 4 genres; 36 validated, 3 without gold) shipped with nlibuild."""
MYXNLI = FIXTURES / "myxnli"

requires_fixtures = pytest.mark.skipif(
    not FIXTURES.is_dir(),
    reason="../shared/fixtures is absent (real NLI data lives beside the project, not in it)",
)

DATA_TABLES = (
    "premises", "pairs", "votes", "gold", "translations", "annotators", "sources", "runs",
    "batches", "assignments", "violations", "annotator_aliases", "splits", "pair_labels",
    "sentences", "translation_checks",
)  # fmt: skip

CliArg = str | Path | int | float
"""One command-line word; anything but a string is passed as `str(arg)`."""


# --- running the CLI ----------------------------------------------------------------------


def run_cli(*args: CliArg) -> Result:
    """Invoke `nlibuild ARGS...` in-process, with stdout and stderr kept apart.

    An exception the CLI does not turn into an exit status propagates (a crash fails the
    test with its traceback)."""
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def ok_result(*args: CliArg) -> Result:
    """`nlibuild ARGS...`, which must exit 0 (its stderr is shown if not); the `Result`."""
    result = run_cli(*args)
    assert result.exit_code == 0, f"exit {result.exit_code}: {result.stderr}"
    return result


def ok(*args: CliArg) -> str:
    """`nlibuild ARGS...`, which must exit 0 (its stderr is shown if not); its stdout."""
    return ok_result(*args).stdout


_DRAWN = ("┏", "┃", "┡", "│", "└")
"""How the lines of a terminal table (rich's default box) begin."""


def drawn_tables(stdout: str) -> list[str]:
    """The terminal tables a command printed (`Stage.tables`): each one's title line and the
    lines drawn under it, in order; the lines around them (the summary) left out."""
    lines = stdout.splitlines()
    return [
        line
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith(_DRAWN) or after.startswith("┏")
    ]


def drawn_rows(stdout: str, title: str) -> list[list[str]]:
    """The body of the terminal table titled `title`, one list of cells a line drawn (a
    cell folded at the console's width goes on over the lines after)."""
    lines = stdout.splitlines()
    start = lines.index(title)
    head_end = next(i for i in range(start, len(lines)) if lines[i].startswith("┡"))
    end = next(i for i in range(head_end, len(lines)) if lines[i].startswith("└"))
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines[head_end + 1 : end]]


def drawn_text(stdout: str, title: str) -> str:
    """The body of the terminal table titled `title`, its cells' lines joined by spaces, so
    that a cell folded at the console's width reads whole."""
    return " ".join(cell for row in drawn_rows(stdout, title) for cell in row if cell)


def json_rows(*args: CliArg) -> list[dict[str, Any]]:
    """`nlibuild ARGS... --format json`, which must succeed and print a list of objects."""
    rows = json.loads(ok(*args, "--format", "json"))
    assert isinstance(rows, list), rows
    assert all(isinstance(row, dict) for row in rows), rows
    return rows


def json_object(*args: CliArg) -> dict[str, Any]:
    """`nlibuild ARGS... --format json`, which must succeed and print one object."""
    value = json.loads(ok(*args, "--format", "json"))
    assert isinstance(value, dict), value
    return value


def csv_rows(*args: CliArg) -> list[dict[str, str]]:
    """`nlibuild ARGS... --format csv`, which must succeed; its rows by the header's names."""
    return list(csv.DictReader(io.StringIO(ok(*args, "--format", "csv"))))


def assert_user_error(result: Result, *fragments: str) -> str:
    """Exit 1 with exactly one `Error:` line on stderr holding every fragment; returns it."""
    # An uncaught exception also exits 1 under CliRunner; only a clean exit is a user error.
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("Error: "), line
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


def fails(db: Path, *args: CliArg, says: tuple[str, ...]) -> str:
    """`nlibuild --db DB ARGS...` must be a user error (see `assert_user_error`) holding every
    fragment of `says`, and leave the store's data tables as they were; returns the line."""
    before = table_counts(db)
    line = assert_user_error(run_cli("--db", db, *args), *says)
    assert table_counts(db) == before
    return line


# --- stores -------------------------------------------------------------------------------


def new_store(path: Path, *init_args: str) -> Path:
    """`nlibuild --db PATH init INIT_ARGS...`, which must succeed; returns `path`."""
    ok("--db", path, "init", *init_args)
    return path


def refused(db: Path, call: Callable[[Corpus], object], *says: str) -> str:
    """`call` on the store at `db` through the Python API must be refused with an
    `NlibuildError` whose message (the CLI's `Error:` line without its prefix) holds every
    fragment of `says`, and leave the store's data tables as they were; returns the message."""
    before = table_counts(db)
    with pytest.raises(NlibuildError) as raised:
        call(nlibuild.open(db))
    message = str(raised.value)
    missing = [fragment for fragment in says if fragment not in message]
    assert not missing, f"{missing} not in: {message}"
    assert table_counts(db) == before
    return message


def copy_store(template: Path, path: Path) -> Path:
    """A copy of the store `template` at `path` (its folder made if need be), taken through
    SQLite so that a write-ahead log left beside the template is included."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with (
        contextlib.closing(sqlite3.connect(template)) as source,
        contextlib.closing(sqlite3.connect(path)) as target,
    ):
        source.backup(target)
    return path


def table_counts(db: Path) -> dict[str, int]:
    """Row count of every data table: equal snapshots mean an unchanged store."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in DATA_TABLES}


def query(db: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """The rows of one SQL statement on the store at `db` (committed, should it write)."""
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        rows: list[tuple[Any, ...]] = conn.execute(sql, params).fetchall()
    return rows


def without_runs(counts: dict[str, int]) -> dict[str, int]:
    """`table_counts` less the runs table (a command that changes nothing still logs a run)."""
    return {table: n for table, n in counts.items() if table != "runs"}


def myxnli_store(db: Path, split: str) -> Path:
    """Three languages into the store at `db`: the pairs of myXNLI's `my.genre.<split>.tsv`
    (English, labels 0, 1, 2 = e, n, c, with its Burmese as human translations) and the
    Swahili of `sw.genre.<split>.tsv` aligned by row. Needs ../shared/fixtures."""
    reference = MYXNLI / f"my.genre.{split}.tsv"
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=reference, format="xnli", lang="en", label_order="e,n,c")
    corpus.translate_import(
        path=MYXNLI / f"sw.genre.{split}.tsv", lang="sw", align="rows", reference=reference
    )
    return db


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh, empty English store."""
    nlibuild.create(tmp_path / "corpus.db")
    return tmp_path / "corpus.db"


@pytest.fixture
def sample_db(db: Path) -> Path:
    """A fresh English store holding the 48 pairs of data/sample_mnli.jsonl."""
    nlibuild.open(db).import_corpus(path=SAMPLE_MNLI, format="mnli")
    return db


# --- files --------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON lines file; every line must be one JSON object."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for number, record in enumerate(records, 1):
        assert isinstance(record, dict), f"{path}, line {number}: not a JSON object"
    return records


def read_tsv(path: Path) -> list[dict[str, str]]:
    """The rows of a tab-separated file with a header, unquoted as NLI tsv files are (a `"`
    is text)."""
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> Path:
    """One JSON object a line, non-ASCII unescaped; returns `path`."""
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def compact_table(text: str) -> str:
    """A Markdown or LaTeX table without tabulate's alignment padding: a pipe-table row as
    `| a | b |` (split at unescaped pipes, as CommonMark does), other lines with each run of
    spaces as one, so a test can state a row without counting spaces."""
    lines = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            lines.append("| " + " | ".join(cells) + " |")
        else:
            lines.append(" ".join(line.split()))
    return "\n".join(lines) + "\n"
