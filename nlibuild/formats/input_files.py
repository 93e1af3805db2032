"""What every reader asks of a file it is given before opening it: that it is there, a
regular file, and readable; reading a small whole text file as UTF-8; and the error for a
byte that is not UTF-8.

Opening a FIFO blocks until something writes to it, and opening a directory or a device
fails (or reads forever) in ways that end in a traceback or a hang, so a path is checked
with `stat` first and only a regular file is ever opened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from nlibuild.errors import InputError

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


NUL_IN_TEXT = (
    "holds a NUL character (U+0000), which no text may hold; remove it (NULs throughout "
    "mean a binary or UTF-16 file: re-save it as UTF-8)"
)
"""The end of the error for a text holding NUL: SQLite's text functions stop at one, so
such a text fails the store's non-empty CHECKs, or is measured and compared cut short."""


def bad_utf8(path: Path | str, line: int, column: int, byte: int) -> InputError:
    """The error for a byte that is not UTF-8, at a 1-based line and column."""
    return InputError(
        path,
        f"not valid UTF-8 (byte 0x{byte:02x} at column {column}); re-save the file as UTF-8",
        line,
    )


def require_regular_file(path: Path | str, what: str = "file") -> Path:
    """`path` when it names a regular, readable file; otherwise an `InputError` saying what
    it is instead. `what` names the file's role in messages ("annotator map")."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(path, f"no such {what}; check the path") from None
    except OSError as exc:
        raise InputError(path, f"cannot read this {what} ({exc.strerror or exc})") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputError(path, f"this {what} is {kind}, not a regular file; give a file")
    if not os.access(path, os.R_OK):
        raise InputError(path, f"cannot read this {what} (permission denied); check its mode")
    return path


def read_utf8_text(path: Path | str, what: str = "file") -> str:
    """The whole text of a regular, readable UTF-8 file (a byte-order mark dropped); a byte
    that is not UTF-8 is an `InputError` naming its line and column."""
    path = require_regular_file(path, what)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read this {what} ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise bad_utf8_in_text(path, raw, exc.start) from None


def bad_utf8_in_text(path: Path | str, raw: bytes, offset: int) -> InputError:
    """`bad_utf8` for the byte at `offset` of a whole file's bytes."""
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return bad_utf8(path, line, column, raw[offset])
