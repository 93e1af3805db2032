"""A command never writes over its own store, nor into a folder it was not named.

`nlibuild --db corpus.db export --out corpus.db` would replace the corpus with the export
(writers write through a temporary file and rename it over the output), and an output on
the store's `-wal`, `-shm` or `-journal` file would corrupt it (a folder made at the
journal's name keeps SQLite from opening the store at all). An output that names no file or
folder of its own (`.`, `/`, `..`, an empty value, which the command line reads as `.`)
would spill a package's files into whatever folder that is. `refuse_output` is the one check
of all of this: the CLI calls it for every output option before any work (`--out`,
`--plot`, the tables' folders), and `invoke` and every recorded run call it, through
`refuse_outputs_onto_store`, for every settings field typed `OutputPath`
(nlibuild/core/signature.py), so the rule holds for every stage that writes files, present
and future, whoever runs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from nlibuild.core.signature import is_output
from nlibuild.errors import ConfigError

SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database: the write-ahead log, its shared-memory index,
and the rollback journal."""


def output_paths(settings: BaseModel) -> Iterator[tuple[str, Path]]:
    """(field name, path) of every output of `settings`, groups of settings included, optional
    outputs (`OutputPath | None`) when given."""
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, BaseModel):
            yield from output_paths(value)
        elif isinstance(value, Path) and is_output(field):
            yield name, value


def store_files(store_path: Path) -> set[Path]:
    """The store and its side files, as given and with symlinks resolved (SQLite puts the
    side files beside the path it opened, which may be either)."""
    files = set()
    for path in {store_path.absolute(), store_path.resolve()}:
        files.add(path)
        files.update(path.with_name(path.name + suffix) for suffix in SIDE_FILE_SUFFIXES)
    return files


def _is_one_of(path: Path, files: set[Path]) -> bool:
    if path.absolute() in files or path.resolve() in files:
        return True
    # A hard link to the store names the same file under another name.
    return any(path.exists() and file.exists() and os.path.samefile(path, file) for file in files)


def _folder_named_by(path: Path) -> str | None:
    """What an output path names when it names no file or folder of its own: the current
    folder (`.`, and the empty value, which the command line reads as `.`), the root, or a
    parent (`..`); None for a path that ends in a name."""
    if path.name == "..":
        return "a parent folder"
    if path.name:
        return None
    return (
        "the root folder"
        if path.is_absolute()
        else "the current folder (an empty value names it too)"
    )


NAME_MAX_BYTES = 255
"""The longest name of one file or folder that Linux, macOS and Windows file systems take."""


def _unwritable_name(path: Path) -> str | None:
    """Why no file system could hold `path` whatever is on it (a NUL, text that is no
    text, a name too long), or None; found by fuzzing the output options (issue 26), each
    was an OSError's traceback after the command's work."""
    text = str(path)
    if "\x00" in text:
        return "it holds a NUL character"
    try:
        names = [os.fsencode(part) for part in path.parts]
    except UnicodeEncodeError:
        return "it holds text that cannot be encoded as a file name"
    if any(len(name) > NAME_MAX_BYTES for name in names):
        return f"a name in it is longer than {NAME_MAX_BYTES} bytes"
    file = next(
        (parent for parent in path.parents if parent.exists() and not parent.is_dir()), None
    )
    if file is not None:
        return f"{file} is a file, not a folder"
    return None


def refuse_output(store_path: Path, option: str, path: Path) -> None:
    """Raise a ConfigError naming `option` when `path`, an output, is the store at
    `store_path` or one of its side files (compared as resolved paths, links followed, hard
    links by identity), names no file or folder of its own, or could be no file's name."""
    unwritable = _unwritable_name(path)
    if unwritable is not None:
        shown = ascii(str(path)) if len(str(path)) <= 80 else ascii(str(path)[:80]) + "..."
        raise ConfigError(f"{option} {shown}: {unwritable}; choose another {option}")
    named = _folder_named_by(path)
    if named is not None:
        raise ConfigError(
            f"{option} {str(path)!r}: that names {named}, not a file or folder to write; give "
            f"a path that ends in a name of its own, e.g. {option} results/NAME"
        )
    if _is_one_of(path, store_files(store_path)):
        raise ConfigError(
            f"{option} {path}: that is the store {store_path} or one of its files, and writing "
            "there would destroy the corpus; choose another path"
        )


def refuse_outputs_onto_store(store_path: Path, settings: BaseModel) -> None:
    """`refuse_output` for every output of `settings`, each named as its option."""
    for name, path in output_paths(settings):
        refuse_output(store_path, f"--{name.replace('_', '-')}", path)
