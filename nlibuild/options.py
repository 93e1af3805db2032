"""Option values into settings: the parsing that the CLI and the `stats` tables share
(comma-separated lists, enum choices with the allowed values in the message, the store's
preset for `presets.settings_from_preset`, and a setting's default as `--help` shows it)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from nlibuild.core.stage import StoreFacts
from nlibuild.errors import ConfigError, StoreError
from nlibuild.labelling.label_names import LabelNames, label_names_default
from nlibuild.models import (
    Label,
    _Config,
    check_table_columns,
    lang_code_problem,
    parse_label_order,
)
from nlibuild.presets import (
    TablePreset,
    named_tables,
    parse_preset,
    settings_from_preset,
)
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
    defaults (`presets.settings_from_preset`), with preset errors naming the store's preset."""
    return settings_from_preset(model, preset_of(store), section, preset_origin(store), **flags)


def store_facts(store: Store) -> StoreFacts:
    """What a stage's defaults may read of an open store: its preset, how errors name it,
    and the corpus language."""
    return StoreFacts(preset_of(store), preset_origin(store), store.meta().get("lang", "en"))


def readable_lang(code: str) -> str | None:
    """The language code an older nlibuild's way of writing one stands for (`zh_CN`, a
    locale's '_', is `zh-CN`); None when none can be read from `code`."""
    fixed = code.strip().replace("_", "-")
    return fixed if lang_code_problem(fixed) is None else None


def stored_lang_advice(path: Path, code: str) -> str | None:
    """What to do about a store whose language (`init --lang`, kept in its meta) is no
    language code, as older releases let one be written; None when it is one."""
    problem = lang_code_problem(code)
    if problem is None:
        return None
    fixed = readable_lang(code)
    if fixed is not None:
        return (
            f"{path}: the store's language {code!r} is not a language code (an older nlibuild "
            f"wrote it so): run `nlibuild --db {path} check --repair`, which rewrites it as "
            f"{fixed!r}"
        )
    return (
        f"{path}: the store's language is not a language code ({problem}), and none can be "
        f"read from it: make a new store with `nlibuild init --lang CODE` and import into it"
    )


def refuse_unreadable_store_lang(store: Store, fields: Mapping[str, Any], model: type) -> None:
    """Refuse a stage that would take the store's language as its own (`lang` not given)
    when that language is no code, with the command that repairs it: the settings model
    would refuse it as if the user had typed it."""
    if "lang" not in getattr(model, "model_fields", {}) or fields.get("lang") is not None:
        return
    advice = stored_lang_advice(store.path, store.meta().get("lang", "en"))
    if advice is not None:
        raise StoreError(advice)


def store_label_names(store: Store) -> LabelNames:
    """The names people see for the store's labels: its preset's `[labels.names]`, else
    the built-in names of the corpus language (`label_names.label_names_default`, the rule
    the work-package stages apply)."""
    names: LabelNames = label_names_default(store_facts(store), {})["label_names"]
    return names


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


def column_mapping_option(text: str | None, option: str) -> dict[str, tuple[str, ...]] | None:
    """`--columns premise=sentence1,hypothesis=sentence2,votes=v1,v2,v3` as key -> columns:
    an item without `=` is one more column of the key before it (only votes takes several,
    which the settings model checks)."""
    if text is None:
        return None
    mapping = _column_items(text, option)
    try:
        check_table_columns(mapping)
    except ValueError as exc:
        raise ConfigError(f"{option}: {exc}") from None
    return mapping


def single_column_mapping_option(
    text: str | None, option: str, keys: tuple[str, ...], context: str
) -> dict[str, str]:
    """`--columns unit_id=ID,text=TEXT` where each of `keys` takes one column (`translate
    import`); `context` says what chose the keys (`with --align rows`)."""
    if text is None:
        return {}
    mapping: dict[str, str] = {}
    for key, names in _column_items(text, option).items():
        if key not in keys:
            raise ConfigError(f"{option}: no key {key!r} {context}; the keys are {', '.join(keys)}")
        if len(names) != 1 or not names[0]:
            raise ConfigError(f"{option}: {key} takes one column; write {key}=COLUMN")
        mapping[key] = names[0]
    return mapping


def _column_items(text: str, option: str) -> dict[str, tuple[str, ...]]:
    """KEY=COLUMN items, an item without `=` being one more column of the key before it."""
    mapping: dict[str, tuple[str, ...]] = {}
    key: str | None = None
    for item in (part.strip() for part in text.split(",")):
        if "=" not in item:
            if key is None or not item:
                raise ConfigError(f"{option}: give KEY=COLUMN items, e.g. premise=sentence1")
            mapping[key] = (*mapping[key], item)
            continue
        key, _, column = (part.strip() for part in item.partition("="))
        if key in mapping:
            raise ConfigError(f"{option} names {key} twice; give each key one column")
        mapping[key] = (column,)
    return mapping


def value_mapping_option(text: str | None, option: str) -> dict[str, str] | None:
    """`--labels 0=entailment,1=neutral,2=contradiction` as value -> label."""
    if text is None:
        return None
    mapping: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        value, equals, label = (part.strip() for part in item.partition("="))
        if not equals:
            raise ConfigError(f"{option}: give VALUE=LABEL items, e.g. 0=entailment")
        if value in mapping:
            raise ConfigError(f"{option} names the value {value} twice; give each value one label")
        mapping[value] = label
    return mapping


def table_mapping_options(
    store: Store, columns: str | None, labels: str | None, lang_column: str | None
) -> tuple[dict[str, tuple[str, ...]] | None, dict[str, str] | None]:
    """`import --format table`'s columns and label values: `--columns` as written, or
    `--columns @NAME` for the store's preset's `[import.tables.NAME]` (whose labels a
    `--labels` given replaces); `--lang-column` is one more way to write `lang=`."""
    label_values = value_mapping_option(labels, "--labels")
    if columns is not None and columns.startswith("@"):
        named = preset_table(store, columns[1:])
        mapping: dict[str, tuple[str, ...]] | None = dict(named.columns)
        label_values = label_values or named.labels
    else:
        mapping = column_mapping_option(columns, "--columns")
    if lang_column is None:
        return mapping, label_values
    mapping = mapping or {}
    if mapping.get("lang", (lang_column,)) != (lang_column,):
        raise ConfigError("--lang-column and --columns lang= name different columns; give one")
    return mapping | {"lang": (lang_column,)}, label_values


def preset_table(store: Store, name: str) -> TablePreset:
    """The store's preset's `[import.tables.NAME]`, or a ConfigError naming those it has."""
    return named_table(preset_of(store), preset_origin(store), name)


def named_table(preset: Mapping[str, Any], origin: str, name: str) -> TablePreset:
    """A preset's `[import.tables.NAME]` (`origin` names the preset), or a ConfigError
    naming those it has."""
    tables = named_tables(dict(preset), origin)
    if name not in tables:
        has = f"it has {', '.join(sorted(tables))}" if tables else "it has none"
        raise ConfigError(
            f"--columns @{name}: {origin} has no [import.tables.{name}] ({has}); "
            "name the columns, or add the table to the preset given to init"
        )
    return tables[name]


def translate_mapping_options(
    store: Store,
    columns: str | None,
    labels: str | None,
    lang_column: str | None,
    keys: tuple[str, ...],
    context: str,
) -> tuple[dict[str, str], dict[str, str] | None, str | None]:
    """`translate import`'s columns, label values and language column: `--columns` as
    written (each of `keys` one column), or `--columns @NAME` for the store's preset's
    `[import.tables.NAME]`, read as the corpus import reads it: its `lang` is the
    language column (`--lang-column`), its `id` the pair ID column (`pair_id`)."""
    label_values = value_mapping_option(labels, "--labels")
    if columns is None or not columns.startswith("@"):
        return (
            single_column_mapping_option(columns, "--columns", keys, context),
            label_values,
            lang_column,
        )
    named = preset_table(store, columns[1:])
    mapping: dict[str, str] = {}
    for key, names in named.columns.items():
        if key == "lang":  # a given --lang-column wins
            lang_column = lang_column or names[0]
            continue
        key = "pair_id" if key == "id" and "pair_id" in keys else key
        if key not in keys or len(names) != 1:
            raise ConfigError(
                f"--columns {columns}: [import.tables.{columns[1:]}] names {key}, which "
                f"translate import {context} does not read (its keys: {', '.join(keys)}, lang)"
            )
        mapping[key] = names[0]
    return mapping, label_values or named.labels, lang_column


def platform_columns_option(text: str | None) -> dict[str, str] | None:
    """`elicit/relabel import --format table --columns batch=B,pair_id=ID,...`: each key one
    column (which keys the import reads, its settings model checks)."""
    if text is None:
        return None
    mapping: dict[str, str] = {}
    for key, names in _column_items(text, "--columns").items():
        if len(names) != 1 or not names[0]:
            raise ConfigError(f"--columns: {key} takes one column; write {key}=COLUMN")
        mapping[key] = names[0]
    return mapping
