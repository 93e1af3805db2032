"""`nlibuild init`: create a store with its corpus language, preset and label set."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from nlibuild._version import VERSION
from nlibuild.core.registry import INIT
from nlibuild.errors import ConfigError
from nlibuild.models import NLI_LABELS, NO_GOLD, InitConfig
from nlibuild.store import Store


class InitResult(BaseModel):
    path: Path
    schema_version: int
    run_id: int
    signature: str


def run(path: Path, cfg: InitConfig, preset_text: str | None = None) -> InitResult:
    """Create the store at `path`; `preset_text` is the preset's TOML, kept in the store."""
    clash = [label for label in cfg.extra_labels if label in NLI_LABELS or label == NO_GOLD]
    if clash:
        raise ConfigError(f"--extra-labels: {', '.join(clash)} cannot be an extra label")
    meta = {"lang": cfg.lang, "extra_labels": ",".join(cfg.extra_labels), "created_by": VERSION}
    if cfg.preset is not None and preset_text is not None:
        meta["preset"] = cfg.preset
        meta["preset_toml"] = preset_text
    store = Store.create(path, meta)
    with store:
        with store.recorded_run(INIT, cfg) as run:
            run_id = run.id
            run.finish({})
        return InitResult(
            path=path, schema_version=store.schema_version, run_id=run_id, signature=run.signature
        )
