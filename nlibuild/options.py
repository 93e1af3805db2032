"""Option values into settings: the parsing that the CLI and the `stats` tables share
(comma-separated lists, enum choices with the allowed values in the message, the first
value given among flag, preset and built-in default, the store's preset defaults)."""

from __future__ import annotations

from typing import Any, TypeVar

from nlibuild.errors import ConfigError
from nlibuild.models import parse_label_order
from nlibuild.presets import parse_preset, stage_defaults
from nlibuild.store import Store

T = TypeVar("T")


def preset_of(store: Store) -> dict[str, Any]:
    """The store's parsed preset (empty without one)."""
    meta = store.meta()
    text = meta.get("preset_toml")
    return parse_preset(text, f"the store's preset {meta.get('preset')}") if text else {}


def preset_defaults(store: Store, stage: str) -> dict[str, Any]:
    return stage_defaults(preset_of(store), stage)


def label_order_option(text: str | None, option: str) -> Any:
    if text is None:
        return None
    try:
        return parse_label_order(text)
    except ValueError as exc:
        raise ConfigError(f"{option}: {exc}") from None


def split_list(values: list[str] | None) -> tuple[str, ...]:
    items = [item.strip() for value in values or [] for item in value.split(",")]
    return tuple(item for item in items if item)


def choice(kind: type[T], value: str, option: str) -> T:
    try:
        return kind(value)  # type: ignore[call-arg]
    except ValueError:
        choices = ", ".join(str(getattr(v, "value", v)) for v in kind)  # type: ignore[attr-defined]
        raise ConfigError(f"{option} {value!r} is not one of: {choices}") from None


def first(*values: Any) -> Any:
    """The first value that is not None (flag, then preset, then built-in default)."""
    return next(v for v in values if v is not None)
