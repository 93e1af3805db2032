"""`nlibuild init`: create a store with its corpus language, preset and label set."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from nlibuild._version import VERSION
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
    store = Store.create(path, meta)
    with store:
        with store.recorded_run(INIT, cfg) as run:
            run_id = run.id
            run.finish({})
        return InitResult(
            path=path, schema_version=store.schema_version, run_id=run_id, signature=run.signature
        )


def refuse_open_store(store: Store, _cfg: InitConfig) -> InitResult:
    """`init` on a store that is open already: there is one at that path, and init makes
    a new one (`create`) or nothing."""
    raise StoreError(
        f"{store.path}: a store already exists here; use it, or pass --db NEW_PATH for a new one"
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
