"""Signs of life on stderr for steps that may run over a second.

`progress(label, total, unit)` is a context manager yielding `advance(n)`: a stage or a
library loop calls it as it goes (per chunk of pairs written, per bootstrap resample, per
EM iteration). A rich bar is drawn on stderr only when stderr is a terminal and the user
did not ask for `--quiet`; otherwise `advance` does nothing, so a pipe, a log file or a
test sees no progress, and stdout (where results and machine formats go) is never touched.

`reading(paths, label)` is the bar of a stage that reads files (import, ingest): it yields
`read(done)`, called with the bytes read so far over all of them, or None where no bar is
drawn (so that a reader can skip the call). Stages open their bars themselves, so every
front end (the CLI, a recipe, the Python API) gets them on a terminal and none elsewhere.

`$NLIBUILD_PROGRESS` overrides the terminal test: `1` draws the bar on any stderr (for
tests and for people who tee a log), `0` never draws it. `--quiet` wins over both.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

Advance = Callable[[int], None]
"""Adds n units done to the bar."""

BytesRead = Callable[[int], None]
"""Sets the bytes read so far (over all the files of the bar)."""

PROGRESS_VARIABLE = "NLIBUILD_PROGRESS"
"""`1`: draw progress even when stderr is not a terminal; `0`: never draw it."""

_quiet = False


def set_quiet(quiet: bool) -> None:
    """Set by the CLI's `--quiet` for the whole command (and reset by the next one)."""
    global _quiet
    _quiet = quiet


def is_quiet() -> bool:
    return _quiet


def progress_console() -> Console | None:
    """The stderr console to draw progress on, or None when none should be drawn."""
    if _quiet:
        return None
    forced = os.environ.get(PROGRESS_VARIABLE)
    if forced == "0":
        return None
    console = Console(stderr=True, highlight=False, force_terminal=forced == "1" or None)
    return console if console.is_terminal else None


def _ignore(_done: int) -> None:
    """`advance` when no progress is shown."""


@contextmanager
def progress(label: str, total: int | None = None, unit: str = "pairs") -> Iterator[Advance]:
    """A bar titled `label` counting `unit` (say what is counted: 'pairs written',
    'resamples'); `total` None when the count is not known ahead, shown as a running count."""
    console = progress_console()
    if console is None:
        yield _ignore
        return
    counted = "{task.completed:,}" if total is None else "{task.completed:,}/{task.total:,}"
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn(f"{counted} {unit}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.advance(task, done)


@contextmanager
def step(label: str, unit: str) -> Iterator[None]:
    """One step that gives no count as it goes (a query, a model's fit): a bar of one
    `unit` with its elapsed time, done when the block ends; a sign of life all the same."""
    with progress(label, 1, unit) as advance:
        yield
        advance(1)


@contextmanager
def reading(paths: Sequence[Path], label: str) -> Iterator[BytesRead | None]:
    """A bar titled `label` over the bytes of `paths` (files that are not there count
    nothing), with speed and time left; None when no bar is drawn or there is nothing to
    read."""
    total = sum(path.stat().st_size for path in paths if path.is_file())
    console = progress_console()
    if console is None or not total:
        yield None
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=done)
