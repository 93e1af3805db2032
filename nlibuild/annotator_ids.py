"""Lists of annotator IDs as people hand them over: a file with one ID a line (or a csv
whose first column holds them), or the IDs themselves, comma-separated."""

from __future__ import annotations

from pathlib import Path

from nlibuild.errors import InputError

_HEADERS = {"id", "writer", "annotator"}


def read_annotator_ids(value: str) -> tuple[str, ...]:
    """IDs from a file (one per line, or the first column of a csv; `#` comments and an
    `id`/`writer`/`annotator` header are skipped) or from a comma-separated list."""
    path = Path(value)
    if not path.is_file():
        return tuple(item.strip() for item in value.split(",") if item.strip())
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the writers file ({exc})") from None
    ids = []
    for line in lines:
        cell = line.split("#", 1)[0].replace("\t", ",").split(",", 1)[0].strip()
        if cell and cell.lower() not in _HEADERS:
            ids.append(cell)
    if not ids:
        raise InputError(path, "no writer IDs in this file; write one per line")
    return tuple(ids)
