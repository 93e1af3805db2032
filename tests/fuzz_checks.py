"""What the fuzz suites (tests/test_fuzz_*.py) and the fault tests share: how many examples a
property gets, the promise a refused command keeps (one `Error:` line, no traceback, no
internal error), a digest of a store's every row, and a command run under a file-size limit.

- `examples(bounded)`: the hypothesis settings of a property: `bounded` examples under
  `make test` (the `bounded` profile of conftest.py), the profile's own count under `make
  fuzz`.
- `invoked(*args)`: `nlibuild ARGS...` in-process, crashes kept on the result;
  `assert_one_error_line(result)`: a `CliRunner` result that is a refusal as the CLI
  promises it; `process_error_line(completed, *fragments)` the same of a subprocess.
- `store_digest(db)`: every row of every table (None without a file); `file_bytes(db)` the
  store's file as it lies on disk.
- `nlibuild_with_file_size_limit(limit, *args)`: `nlibuild ARGS...` in a process that may
  write no file past `limit` bytes (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails
  with EFBIG as one to a full disk fails with ENOSPC).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import traceback
from pathlib import Path

from conftest import HYPOTHESIS_PROFILE
from hypothesis import settings
from typer.testing import CliRunner, Result

from nlibuild.cli import app

FREE_SPACE = (
    "the disk is full or a file-size limit (ulimit -f) or disk quota was reached; free space"
)
"""What every line about a write that found no room says to do."""


def examples(bounded: int) -> settings:
    """`bounded` examples under `make test`; under `make fuzz` the `fuzz` profile's count."""
    return settings() if HYPOTHESIS_PROFILE == "fuzz" else settings(max_examples=bounded)


def invoked(*args: str) -> Result:
    """`nlibuild ARGS...` in-process, a crash kept on the result (`Result.exception`)."""
    return CliRunner().invoke(app, list(args), catch_exceptions=True)


def assert_one_error_line(result: Result) -> str:
    """A refusal as the CLI promises it: exit 1 and one `Error:` line, or exit 2 and
    click's usage error (a value the option's type refuses: a NUL, text that is no text),
    whose last line is the `Error:`; never a traceback or an internal error."""
    crash = result.exception
    assert crash is None or isinstance(crash, SystemExit), "".join(
        traceback.format_exception(type(crash), crash, crash.__traceback__) if crash else []
    )
    assert result.exit_code in (1, 2), (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    if result.exit_code == 2:
        assert lines[0].startswith("Usage: "), result.stderr
        lines = [line for line in lines if line.startswith("Error: ")]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert not lines[0].startswith("Error: internal error"), lines[0]
    assert "Traceback" not in result.output
    return lines[0]


def process_error_line(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """A subprocess's refusal: exit 1, one `Error:` line holding every fragment, no
    internal error; returns the line."""
    assert result.returncode == 1, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "internal error" not in lines[0], lines[0]
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} not in {lines[0]!r}"
    return lines[0]


def store_digest(db: Path, leaving_out: tuple[str, ...] = ()) -> str | None:
    """Every row of every table (but those `leaving_out` names) of the store at `db` (None
    if there is no file): equal digests mean a store exactly as it was."""
    if not db.exists():
        return None
    digest = hashlib.sha256()
    with contextlib.closing(sqlite3.connect(db)) as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]  # fmt: skip
        for table in (name for name in tables if name not in leaving_out):
            rows = sorted(repr(row) for row in conn.execute(f'SELECT * FROM "{table}"'))
            digest.update(f"{table}:{len(rows)}\n".encode())
            for row in rows:
                digest.update(row.encode("utf-8", errors="surrogatepass") + b"\n")
        digest.update(repr(conn.execute("PRAGMA user_version").fetchone()).encode())
    return digest.hexdigest()


def file_bytes(path: Path) -> bytes | None:
    """The bytes of the file at `path` as they lie on disk (None if there is none): a
    damaged store is compared so, since reading it through SQLite is what may fail."""
    return path.read_bytes() if path.is_file() else None


def nlibuild_with_file_size_limit(
    limit: int, *args: str | Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`nlibuild ARGS...` in a process that may write no file past `limit` bytes."""

    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(
            resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1])
        )

    return subprocess.run(
        [sys.executable, "-m", "nlibuild", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=limit_file_size,
        timeout=timeout,
        check=False,
    )
