"""The one way a stage is run, whoever asks: a CLI command, the lead page's buttons, a recipe's
step and the Python API all call `invoke` (or `invoke_at` with a store's path).

It builds the stage's settings from the fields given (None: not given), the store's preset
section, then the settings model's defaults; validates them (a refusal is a `ConfigError`
worded as the CLI has always worded it, `option min_agree: ...`); runs the stage, which
records itself as one run; and renders the stage's summary line, so that every front end
says the same thing in the same words.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from nlibuild.core.outputs import refuse_outputs_onto_store
from nlibuild.core.stage import Stage, StoreFacts
from nlibuild.errors import ConfigError
from nlibuild.models import InitConfig, PresetKey, _Config
from nlibuild.options import choice, refuse_unreadable_store_lang, store_facts
from nlibuild.presets import (
    load_preset_text,
    parse_preset,
    preset_file_origin,
    settings_from_preset,
)
from nlibuild.render import NamedTable
from nlibuild.store import Store

SettingsT = TypeVar("SettingsT", bound=BaseModel)
ResultT = TypeVar("ResultT")


@dataclass(frozen=True)
class Outcome(Generic[SettingsT, ResultT]):
    """What a stage's run gives every front end: its settings, its result, and the lines
    the CLI prints (the summary on stdout, each warning on stderr)."""

    stage: Stage[SettingsT, ResultT]
    settings: SettingsT
    result: ResultT
    summary: str
    warnings: tuple[str, ...]
    tables: tuple[NamedTable, ...] = ()


def option_problem(exc: ValidationError) -> ConfigError:
    """A settings model's refusal as one line: `option FIELD: MESSAGE`."""
    problem = exc.errors()[0]
    where = ".".join(str(part) for part in problem["loc"])
    return ConfigError(f"option {where}: {problem['msg']}")


def new_store_facts(preset_name: str | None, lang: str | None) -> StoreFacts:
    """The facts of a store `init` is about to make with that preset (a name or a .toml
    path) and language (else the preset's `[corpus] lang`, else `InitConfig`'s)."""
    origin = preset_file_origin(preset_name) if preset_name else "no preset"
    preset = parse_preset(load_preset_text(preset_name), origin) if preset_name else {}
    corpus = preset.get("corpus", {})
    lang = lang or corpus.get("lang") or InitConfig.model_fields["lang"].default
    return StoreFacts(preset, origin, str(lang))


def as_options_take_them(model: type[BaseModel], fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` with each value of a field marked `PresetKey(reads=...)` read as its option
    and its preset key take it (`label_order="n,e,c"`), so the Python API and recipes take
    the spelling people know from the command line."""
    reading = {
        name: key.reads
        for name, info in model.model_fields.items()
        for key in info.metadata
        if isinstance(key, PresetKey) and key.reads is not None
    }
    read = {
        name: _read(name, reading[name], value) if name in reading and value is not None else value
        for name, value in fields.items()
    }
    return {name: _chosen(model, name, value) for name, value in read.items()}


def _read(name: str, reads: Callable[[Any], Any], value: Any) -> Any:
    """`value` read by its field's `PresetKey.reads`; a text it refuses is a `ConfigError`
    naming the option, as the CLI's own readers name it (`--label-order: label order ...`).
    (In a preset the same reader's `ValueError` is pydantic's, named by the key.)"""
    try:
        return reads(value)
    except ValueError as exc:
        raise ConfigError(f"--{name.replace('_', '-')}: {exc}") from None


def _chosen(model: type[BaseModel], name: str, value: Any) -> Any:
    """A text given for a choice (an enum field), read as the CLI reads its option, so a
    wrong one is refused in the CLI's words (`--method 'x' is not one of: majority,
    dawid-skene`) rather than pydantic's."""
    field = model.model_fields.get(name)
    if field is None or not isinstance(value, str) or isinstance(value, Enum):
        return value
    # The field's own type, or the members of `X | None`; never the items of a tuple (a label
    # order's text is read by its `PresetKey` first).
    annotation = field.annotation
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    kinds = typing.get_args(annotation) if union else (annotation,)
    kind = next((k for k in kinds if isinstance(k, type) and issubclass(k, Enum)), None)
    return choice(kind, value, "--" + name.replace("_", "-")) if kind is not None else value


def settings_for(
    stage: Stage[SettingsT, Any], facts: StoreFacts, fields: Mapping[str, Any]
) -> SettingsT:
    """The stage's settings: `fields` (None: not given), else what the stage's `defaults`
    take from the store, else the preset's section, else the model's defaults. A field the
    stage has not is a `ConfigError` naming it."""
    model = stage.settings
    unknown = sorted(set(fields) - set(model.model_fields))
    if unknown:
        known = ", ".join(model.model_fields)
        raise ConfigError(f"{stage.name}: no setting {', '.join(unknown)} (its settings: {known})")
    fields = as_options_take_them(model, fields)
    if stage.defaults is not None:
        fields = stage.defaults(facts, fields)
    try:
        if stage.section is not None and issubclass(model, _Config):
            return settings_from_preset(model, facts.preset, stage.section, facts.origin, **fields)
        return model.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        raise option_problem(exc) from None


def invoke(
    stage: Stage[SettingsT, ResultT], store: Store, /, **fields: Any
) -> Outcome[SettingsT, ResultT]:
    """Run `stage` on an open store with the settings `fields` give (see the module). Its
    outputs are checked before it starts (nlibuild/core/outputs.py): a wrong `--out` is
    the error a user sees, whatever else the stage would refuse."""
    if stage.defaults is not None:
        refuse_unreadable_store_lang(store, fields, stage.settings)
    settings = settings_for(stage, store_facts(store), fields)
    refuse_outputs_onto_store(store.path, settings)
    return outcome_of(stage, settings, stage.run(store, settings))


def invoke_at(
    stage: Stage[SettingsT, ResultT], db: Path, /, **fields: Any
) -> Outcome[SettingsT, ResultT]:
    """`invoke` on the store at `db`, opened for this run and closed after it; for a stage
    that creates its store (`init`), the store it makes there."""
    if stage.creates is not None:
        # A new store has no preset yet: the one its `preset` setting names fills the rest.
        facts = new_store_facts(fields.get("preset"), fields.get("lang"))
        settings = settings_for(stage, facts, fields)
        return outcome_of(stage, settings, stage.creates(db, settings))
    with Store.open(db) as store:
        return invoke(stage, store, **fields)


def outcome_of(
    stage: Stage[SettingsT, ResultT], settings: SettingsT, result: ResultT
) -> Outcome[SettingsT, ResultT]:
    return Outcome(
        stage=stage,
        settings=settings,
        result=result,
        summary=stage.summary(settings, result),
        warnings=tuple(stage.warnings(result)),
        tables=tuple(stage.tables(settings, result)),
    )
