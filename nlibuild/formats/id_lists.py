"""Files that list IDs one a line (`elicit create --premises`, `relabel create --pairs`,
what `stats --table cartography --out` writes): blank lines and `#` comments are skipped."""

from __future__ import annotations

from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.formats.input_files import read_utf8_text


def read_id_lines(path: Path, kind: str) -> list[tuple[int, str]]:
    """(line number, ID) of every `kind` ID (premise, pair) in the file, in file order,
    repeats kept (a caller decides whether a repeat is an error); a file with none is an
    error."""
    found = []
    text = read_utf8_text(path, f"{kind}s file")
    for number, line in enumerate(text.splitlines(), start=1):
        item = line.split("#", 1)[0].strip()
        if item:
            found.append((number, item))
    if not found:
        raise InputError(path, f"no {kind} IDs in this file; write one per line")
    return found
