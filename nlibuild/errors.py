"""Domain exceptions. Only the CLI (`user_errors` in nlibuild/cli/common.py) turns them
into exit codes and `Error:` lines.

Every message names the file, line or ID at fault and says what to do next, so the
CLI can print it as a single line without a traceback.
"""

from __future__ import annotations

from pathlib import Path


class NlibuildError(Exception):
    """A user error: bad input, a wrong option, a store in the wrong state."""


class StoreError(NlibuildError):
    """The store is missing, unreadable, or written by a newer nlibuild."""


class ConfigError(NlibuildError):
    """An option or preset value that cannot be used."""


class InputError(NlibuildError):
    """A problem in an input file, located by file and line (1-based) when known."""

    def __init__(self, path: Path | str, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.detail = message
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, int | None]]:
        # Crosses the pipe from a parallel import's worker process intact.
        return (InputError, (self.path, self.detail, self.line))


class ConflictError(NlibuildError):
    """An item already in the store disagrees with what is being imported."""


class OutputError(NlibuildError):
    """An output file that cannot be written."""
