"""Option values into settings: the parsing that the CLI and the `stats` tables share
(comma-separated lists, enum choices with the allowed values in the message, the store's
preset for `XConfig.from_preset`, and a setting's default as `--help` shows it)."""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel

from nlibuild.errors import ConfigError
from nlibuild.models import Label, _Config, parse_label_order
from nlibuild.presets import parse_preset
from nlibuild.store import Store

T = TypeVar("T")


def preset_of(store: Store) -> dict[str, Any]:
    """The store's parsed preset (empty without one)."""
    text = store.meta().get("preset_toml")
    return parse_preset(text, preset_origin(store)) if text else {}


def preset_origin(store: Store) -> str:
    """How errors name the store's preset: `the store's preset ocnli`."""
    return f"the store's preset {store.meta().get('preset')}"


ConfigT = TypeVar("ConfigT", bound=_Config)


def store_settings(store: Store, model: type[ConfigT], section: str, **flags: Any) -> ConfigT:
    """A stage's settings from the flags given, the store's preset section, then the model's
    defaults (`_Config.from_preset`), with preset errors naming the store's preset."""
    return model.from_preset(preset_of(store), section, preset_origin(store), **flags)


def label_order_option(text: str | None, option: str) -> Any:
    if text is None:
        return None
    try:
        return parse_label_order(text)
    except ValueError as exc:
        raise ConfigError(f"{option}: {exc}") from None


def min_agree_option(text: str | None) -> int | float | None:
    """`--min-agree`: digits are a count of votes, a decimal a share of a pair's votes (the
    model checks the range)."""
    if text is None:
        return None
    value = text.strip()
    try:
        return int(value) if value.isdigit() else float(value)
    except ValueError:
        raise ConfigError(
            f"--min-agree {text!r} is neither a count of votes (3) nor a share of a pair's "
            "votes (0.6)"
        ) from None


def split_list(values: list[str] | None) -> tuple[str, ...]:
    items = [item.strip() for value in values or [] for item in value.split(",")]
    return tuple(item for item in items if item)


def choice(kind: type[T], value: str, option: str) -> T:
    try:
        return kind(value)  # type: ignore[call-arg]
    except ValueError:
        choices = ", ".join(str(getattr(v, "value", v)) for v in kind)  # type: ignore[attr-defined]
        raise ConfigError(f"{option} {value!r} is not one of: {choices}") from None


def default_text(settings: type[BaseModel], field: str) -> str:
    """A setting's default as its option is written, for `--help` (`50`, `e,n,c`,
    `protocol,level,genre`), read from the model so that the help cannot drift from it."""
    return _option_text(settings.model_fields[field].default)


def _option_text(value: object) -> str:
    if isinstance(value, Label):
        return value.initial
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return ",".join(_option_text(item) for item in value)
    return str(value)
