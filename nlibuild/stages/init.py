"""`nlibuild init`: create a store with its corpus language, preset and label set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

from pydantic import BaseModel

from nlibuild._version import VERSION
from nlibuild.core.database import no_room, out_of_space_cause
from nlibuild.core.outputs import SIDE_FILE_SUFFIXES
from nlibuild.core.registry import INIT
from nlibuild.core.stage import Stage
from nlibuild.errors import ConfigError, StoreError
from nlibuild.models import NLI_LABELS, NO_GOLD, InitConfig
from nlibuild.presets import load_preset_text
from nlibuild.store import Store


class InitResult(BaseModel):
    path: Path
    schema_version: int
    run_id: int
    signature: str


def create(path: Path, cfg: InitConfig) -> InitResult:
    """Create the store at `path`. The preset `cfg.preset` names is read here and its TOML
    kept in the store: later stages take their defaults from that copy, so that a preset
    file edited or moved afterwards does not change what the store means."""
    clash = [label for label in cfg.extra_labels if label in NLI_LABELS or label == NO_GOLD]
    if clash:
        raise ConfigError(f"--extra-labels: {', '.join(clash)} cannot be an extra label")
    meta = {"lang": cfg.lang, "extra_labels": ",".join(cfg.extra_labels), "created_by": VERSION}
    if cfg.preset is not None:
        meta["preset"] = cfg.preset
        meta["preset_toml"] = load_preset_text(cfg.preset)
    if path.exists() and path.stat().st_size > 0:
        # Refused before anything is touched: the clean-up below of a failed `init` empties
        # the file it found, which here is someone's store.
        refuse_existing(path)
    existing = {file for file in store_files(path) if file.exists()}
    try:
        store = Store.create(path, meta)
        with store:
            with store.recorded_run(INIT, cfg) as run:
                run_id = run.id
                run.finish({})
            return InitResult(
                path=path,
                schema_version=store.schema_version,
                run_id=run_id,
                signature=run.signature,
            )
    except BaseException as exc:
        # `init` makes a whole store or none: not a file that is half a schema.
        remove_new_store(path, existing)
        cause = out_of_space_cause(exc)
        if cause is not None:
            raise no_room(path, cause, "no store was made") from None
        raise


def store_files(path: Path) -> list[Path]:
    """The store's file and the files SQLite keeps beside it."""
    return [path, *(path.with_name(path.name + suffix) for suffix in SIDE_FILE_SUFFIXES)]


def remove_new_store(path: Path, existing: set[Path]) -> None:
    """Remove what a failed `init` made at `path`; an empty file that was there (which
    `init` may fill) is left empty."""
    for file in store_files(path):
        if file not in existing:
            file.unlink(missing_ok=True)
        elif file == path:
            os.truncate(file, 0)


def refuse_open_store(store: Store, _cfg: InitConfig) -> InitResult:
    """`init` on a store that is open already: there is one at that path, and init makes
    a new one (`create`) or nothing."""
    refuse_existing(store.path)


def refuse_existing(path: Path) -> NoReturn:
    raise StoreError(
        f"{path}: a store already exists here; use it, or pass --db NEW_PATH for a new one"
    )


def summary(cfg: InitConfig, result: InitResult) -> str:
    extras = ",".join(cfg.extra_labels) or "none"
    return (
        f"Created store {result.path} (schema {result.schema_version}, lang {cfg.lang}, "
        f"preset {cfg.preset or 'none'}, extra labels {extras}; run {result.run_id}, "
        f"{result.signature})"
    )


STAGE = Stage(
    INIT,
    settings=InitConfig,
    run=refuse_open_store,
    summary=summary,
    creates=create,
)
