"""`--columns KEY=COLUMN,...` against a file's header: the one check that every reader told
its columns (`import --format table`, `translate import`) makes, so that a mapping naming a
column the file lacks, or one column for two keys, is refused the same way everywhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from nlibuild.errors import InputError


def shown_columns(header: Sequence[str]) -> str:
    """A header as an error line lists it: the first 12 names."""
    return ", ".join(header[:12]) + (", ..." if len(header) > 12 else "")


def resolve_columns(
    path: Path,
    header: Sequence[str],
    line: int | None,
    asked: Mapping[str, tuple[str, ...]],
    defaults: Mapping[str, Sequence[str]],
    required: Sequence[str],
) -> dict[str, tuple[str, ...]]:
    """The column(s) of each key of `defaults`: as `asked`, else the first of the key's
    default names the header has. A column asked for that the file lacks, a required key
    left without a column, or a column given to two keys is an `InputError` at `line`."""
    mapping: dict[str, tuple[str, ...]] = {}
    for key, candidates in defaults.items():
        if key in asked:
            missing = [name for name in asked[key] if name not in header]
            if missing:
                raise InputError(
                    path,
                    f"--columns {key}={missing[0]}: the file has no column {missing[0]!r} "
                    f"(columns: {shown_columns(header)}); name one of those",
                    line,
                )
            mapping[key] = asked[key]
        else:
            found = next((name for name in candidates if name in header), None)
            if found is not None:
                mapping[key] = (found,)
    for key in required:
        if key not in mapping:
            raise InputError(
                path,
                f"no {key} column: name it with --columns {key}=COLUMN "
                f"(columns: {shown_columns(header)})",
                line,
            )
    owners: dict[str, str] = {}
    for key, names in mapping.items():
        for name in names:
            if name in owners:
                raise InputError(
                    path,
                    f"--columns gives column {name!r} to both {owners[name]} and {key}; "
                    "a column holds one thing",
                    line,
                )
            owners[name] = key
    return mapping
