"""A stage never writes over its own store.

`nlibuild --db corpus.db export --out corpus.db` would replace the corpus with the export
(writers write through a temporary file and rename it over the output), and an output on
the store's `-wal`, `-shm` or `-journal` file would corrupt it. Every settings field typed
`OutputPath` (nlibuild/core/signature.py) is checked here before a run starts, so the rule
holds for every stage that writes files, present and future, in one place.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from nlibuild.core.signature import OUTPUT
from nlibuild.errors import ConfigError

SIDE_FILE_SUFFIXES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database: the write-ahead log, its shared-memory index,
and the rollback journal."""


def output_paths(settings: BaseModel) -> Iterator[tuple[str, Path]]:
    """(field name, path) of every output of `settings`, groups of settings included."""
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, BaseModel):
            yield from output_paths(value)
        elif isinstance(value, Path) and any(marker is OUTPUT for marker in field.metadata):
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


def refuse_outputs_onto_store(store_path: Path, settings: BaseModel) -> None:
    """Raise a ConfigError naming the option when an output of `settings` is the store at
    `store_path` or one of its side files."""
    files = store_files(store_path)
    for name, path in output_paths(settings):
        if _is_one_of(path, files):
            raise ConfigError(
                f"--{name.replace('_', '-')} {path}: that is the store {store_path} or one of "
                "its files, and writing there would destroy the corpus; choose another path"
            )
