"""Domain exceptions. Only the CLI (`user_errors` in nlibuild/cli/common.py) turns them
into exit codes and `Error:` lines.

Every message names the file, line or ID at fault and says what to do next, so the
CLI can print it as a single line without a traceback.
"""

from __future__ import annotations

import errno
from pathlib import Path

OUT_OF_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
"""A write refused for want of room: no space left on the device, a file over the process's
size limit (RLIMIT_FSIZE, `ulimit -f`; EFBIG where SIGXFSZ is ignored, as Python does), a
disk quota."""

OUT_OF_SPACE_ADVICE = (
    "the disk is full or a file-size limit (ulimit -f) or disk quota was reached; free space"
)
"""What such an error line says happened and what to do (the line names the file)."""


class NlibuildError(Exception):
    """A user error: bad input, a wrong option, a store in the wrong state."""


class StoreError(NlibuildError):
    """The store is missing, unreadable, or written by a newer nlibuild."""


class NoRoomError(StoreError):
    """A write to the store found no room (a full disk, a file-size limit, a quota): not
    a want of data, which a caller that goes on without one part may take it for."""


class ConfigError(NlibuildError):
    """An option or preset value that cannot be used."""


def in_file(path: Path | str, message: str) -> str:
    """`PATH: MESSAGE`, naming the file once. A message that begins with a place that
    already names the file (a platform reader's `answers.csv, line 3 (assignment A1)`,
    which conflict messages quote without a path) has that name replaced by the path:
    `PATH, line 3 (assignment A1): ...`, not `PATH: answers.csv, line 3 ...`."""
    path = str(path)
    for name in (path, Path(path).name):
        if message.startswith(f"{name}, "):
            return f"{path}{message[len(name) :]}"
    return f"{path}: {message}"


class InputError(NlibuildError):
    """A problem in an input file, located by file and line (1-based) when known."""

    def __init__(self, path: Path | str, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.detail = message
        if line is None:
            super().__init__(in_file(self.path, message))
        else:
            super().__init__(f"{self.path}, line {line}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, int | None]]:
        # Crosses the pipe from a parallel import's worker process intact.
        return (InputError, (self.path, self.detail, self.line))


class ConflictError(NlibuildError):
    """An item already in the store disagrees with what is being imported."""


class StepError(NlibuildError):
    """A recipe's step that its stage refused: the recipe's file and line and the step,
    then the stage's own message (which names its input file and line)."""


class OutputError(NlibuildError):
    """An output file that cannot be written."""


class NotFoundError(NlibuildError):
    """Something asked for by ID that does not exist, or is not the asker's to see (the
    workbench answers both alike, so that guessing another person's batch ID reveals
    nothing)."""


class SubmissionRefused(NlibuildError):
    """A workbench submission that the preset's blocking rules refuse; nothing was recorded.
    `findings` are (rule, message) of what blocks it."""

    def __init__(self, message: str, findings: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.findings = findings
