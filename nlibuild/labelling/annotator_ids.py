"""Lists of annotator IDs as people hand them over: a file with one ID a line (or a csv
whose first column holds them), or the IDs themselves, comma-separated."""

from __future__ import annotations

import re
from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.models.base import ANNOTATOR_ID_PATTERN

_HEADERS = {"id", "writer", "annotator"}


def read_annotator_ids(value: str) -> tuple[str, ...]:
    """IDs from a file (one per line, or the first column of a csv; `#` comments and an
    `id`/`writer`/`annotator` header are skipped) or from a comma-separated list."""
    path = Path(value)
    if not _names_a_file(path):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the writers file ({exc})") from None
    ids: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        cell = line.split("#", 1)[0].replace("\t", ",").split(",", 1)[0].strip()
        if cell and cell.lower() not in _HEADERS:
            _check_id(path, number, cell, ids)
            ids[cell] = number
    if not ids:
        raise InputError(path, "no writer IDs in this file; write one per line")
    return tuple(ids)


def _names_a_file(path: Path) -> bool:
    # A long list (50 validators) is longer than a file name may be: stat refuses it with
    # ENAMETOOLONG, which says it is no file, not that the list is wrong.
    try:
        return path.is_file()
    except OSError:
        return False


def _check_id(path: Path, number: int, cell: str, seen: dict[str, int]) -> None:
    # Checked here, at the line, as the settings model's own check of the list can name
    # only the option (and a control character there read as an ID, not as a broken file).
    if not re.match(ANNOTATOR_ID_PATTERN, cell):
        raise InputError(
            path, f"ID {cell!r}: use letters, digits and . _ - @ (e.g. w01), one a line", number
        )
    if cell in seen:
        raise InputError(path, f"ID {cell!r} is named twice (line {seen[cell]} too)", number)
