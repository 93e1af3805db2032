"""Pipeline presets: TOML files whose values become every stage's defaults, and the
instructions that go out with work packages.

Both ship inside the package (nlibuild/resources/presets/NAME.toml and
nlibuild/resources/instructions/) and are read through importlib.resources, so an
installed wheel finds them wherever it lives, and no reader depends on a source checkout.

`nlibuild init --preset ocnli` copies the preset's text into the store, so a store keeps
working (and keeps its defaults) wherever it is moved. Flags always override a preset.
"""

from __future__ import annotations

import difflib
import enum
import functools
import keyword
import operator
import tomllib
import types
from collections.abc import Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from nlibuild import models
from nlibuild.errors import ConfigError
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.models import (
    ROW_COLUMN_KEYS,
    TABLE_COLUMN_KEYS,
    UNIT_COLUMN_KEYS,
    Genre,
    Label,
    PresetKey,
    _Config,
    check_table_columns,
)

RESOURCES: Traversable = files("nlibuild") / "resources"
"""The package's data folder (presets, instructions, negators, abbreviations)."""

PRESETS = RESOURCES / "presets"
INSTRUCTIONS = RESOURCES / "instructions"


def _stems(folder: Traversable, suffix: str) -> list[str]:
    # Traversable has no glob(): filter the folder's entries by name instead.
    return sorted(
        entry.name.removesuffix(suffix)
        for entry in folder.iterdir()
        if entry.name.endswith(suffix) and entry.is_file()
    )


def preset_names() -> list[str]:
    """The presets that ship with nlibuild (mnli, ocnli, xnli)."""
    return _stems(PRESETS, ".toml")


def load_preset_text(name_or_path: str) -> str:
    """The TOML text of a named preset (one of `preset_names()`) or of a preset file path;
    a `ConfigError` when it is not valid TOML or not a valid preset."""
    origin = preset_file_origin(name_or_path)
    if Path(name_or_path).suffix == ".toml":
        path = Path(name_or_path)
        text = read_utf8_text(path, "preset file") if path.exists() else None
    else:
        resource = PRESETS / f"{name_or_path}.toml"
        text = resource.read_text(encoding="utf-8") if resource.is_file() else None
    if text is None:
        raise ConfigError(
            f"unknown preset {name_or_path!r}; choose one of {', '.join(preset_names())} "
            "or give the path of a .toml file"
        )
    parse_preset(text, origin)
    return text


def preset_file_origin(name_or_path: str) -> str:
    """How errors name a preset given to `init`: its path, or `preset ocnli`."""
    return name_or_path if Path(name_or_path).suffix == ".toml" else f"preset {name_or_path}"


def parse_preset(text: str, origin: str = "preset") -> dict[str, Any]:
    """The tables of a preset's TOML text, checked against `PresetSections`: a
    `ConfigError` naming `origin` (the file, or where the text came from), the section and
    the key for invalid TOML, an unknown section or key, or a value of the wrong kind."""
    try:
        preset = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML ({exc}); fix the preset file") from exc
    validate_preset(preset, origin)
    return preset


def stage_defaults(preset: Mapping[str, Any], stage: str) -> dict[str, Any]:
    """The `[stage]` table of a parsed preset (empty when the preset has none)."""
    section = preset.get(stage, {})
    return section if isinstance(section, dict) else {}


# --- The preset schema ---------------------------------------------------------------------
# One model per [section], built from the settings fields marked `IN_PRESET` (a `PresetKey`)
# in the settings models that name the section (`preset_section`), so that a key is the
# setting it fills: its name, its type and its bounds, written once, in the settings model.
# A misspelt key fails at `init --preset` instead of being ignored for the life of the store.
# TOML is typed, so a number written as a string is refused rather than coerced (`_strict`),
# and a `PresetKey.reads` takes a value as the option takes it (`label_order = "n,e,c"`).


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_STRICT: dict[type, Any] = {int: StrictInt, float: StrictFloat, str: StrictStr, bool: StrictBool}


def _strict(annotation: Any) -> Any:
    """`annotation` with every int, float, str and bool in it strict (StrictFloat still
    takes an integer); containers, unions and their checks kept as they are."""
    if isinstance(annotation, type) and annotation in _STRICT:
        return _STRICT[annotation]
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return Annotated[(_strict(args[0]), *annotation.__metadata__)]
    if origin in (Union, types.UnionType):
        return functools.reduce(operator.or_, [_strict(arg) for arg in args])
    if origin in (tuple, dict):
        return origin[tuple(arg if arg is Ellipsis else _strict(arg) for arg in args)]
    return annotation


def marked_fields(settings: type[BaseModel]) -> dict[str, tuple[FieldInfo, PresetKey]]:
    """The fields of `settings` a preset may set (marked with a `PresetKey`), in order."""
    checked_apart = {
        name
        for validator in settings.__pydantic_decorators__.field_validators.values()
        for name in validator.info.fields
    }
    marked: dict[str, tuple[FieldInfo, PresetKey]] = {}
    for name, info in settings.model_fields.items():
        key = next((item for item in info.metadata if isinstance(item, PresetKey)), None)
        if key is None:
            continue
        if name in checked_apart:  # a mistake in the model: the preset would go unchecked
            raise TypeError(
                f"{settings.__name__}.{name}: a preset key's checks belong in its annotation "
                "(AfterValidator, BeforeValidator), not in a @field_validator"
            )
        marked[name] = (info, key)
    return marked


def _section_field(info: FieldInfo, key: PresetKey) -> tuple[Any, Any]:
    """A marked settings field as its section's key: the field's type and checks, strict,
    read by `key.reads`, and optional (a preset sets only what it names)."""
    checks = [item for item in info.metadata if not isinstance(item, PresetKey)]
    annotation = _strict(info.annotation)
    if checks:
        annotation = Annotated[(annotation, *checks)]
    if key.reads is not None:
        annotation = Annotated[annotation, BeforeValidator(key.reads)]
    return annotation | None, Field(default=None, description=info.description)


def _keys_model(
    name: str, fields: dict[str, tuple[Any, Any]], base: type[BaseModel]
) -> type[BaseModel]:
    """A model of `fields` (name: (annotation, Field)) over `base`'s, extra keys refused."""
    model: type[BaseModel] = create_model(name, __base__=base, **fields)  # type: ignore[call-overload]
    return model


def _settings_by_section() -> dict[str, tuple[type[_Config], ...]]:
    """The settings models `nlibuild.models` exports, by the preset section they name."""
    by_section: dict[str, list[type[_Config]]] = {}
    for name in models.__all__:
        model = getattr(models, name)
        if not (isinstance(model, type) and issubclass(model, _Config)):
            continue
        if model.preset_section is not None:
            by_section.setdefault(model.preset_section, []).append(model)
        elif marked_fields(model):  # a mistake in the model: the marks would do nothing
            raise TypeError(f"{name} marks preset keys but names no preset_section")
    return {section: tuple(found) for section, found in by_section.items()}


def _marked_keys(section: str) -> dict[str, tuple[Any, Any]]:
    """The keys the settings models of `section` mark; a key two of them mark is one
    setting, so they must check it alike."""
    keys: dict[str, tuple[Any, Any]] = {}
    for model in SECTION_SETTINGS[section]:
        for name, (info, key) in marked_fields(model).items():
            field = _section_field(info, key)
            if name in keys and keys[name][0] != field[0]:
                raise TypeError(f"[{section}] {name}: marked in two models, checked unlike")
            keys[name] = field
    return keys


def _column_lists(value: object) -> object:
    # A key names one column as a string, votes several as an array of strings.
    if isinstance(value, dict):
        return {key: (names,) if isinstance(names, str) else names for key, names in value.items()}
    return value


NAMED_TABLE_KEYS = tuple(dict.fromkeys((*TABLE_COLUMN_KEYS, *UNIT_COLUMN_KEYS, *ROW_COLUMN_KEYS)))
"""What a named mapping may name: the keys of `import --format table` and of `translate
import` (each command takes the keys it reads and refuses a mapping naming others)."""


def _checked_columns(value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    check_table_columns(value, NAMED_TABLE_KEYS)
    return value


# The keys below are read by the commands themselves, and no stage's settings hold them, so
# they cannot be derived from a settings field: each section's few keys are written here.


class TablePreset(_Section):
    """[import.tables.NAME]: a named mapping for `import --format table --columns @NAME`
    (and `translate import --columns @NAME`):
    `columns` as `--columns` takes them (a string a key, an array for votes), and the
    `labels` the file's label values stand for, as `--labels` takes them."""

    columns: Annotated[
        dict[str, tuple[StrictStr, ...]],
        BeforeValidator(_column_lists),
        AfterValidator(_checked_columns),
    ]
    labels: dict[str, StrictStr] | None = None


class _ImportTables(_Section):
    """[import] tables: `--columns @NAME` looks its table up, and the settings get the
    columns it names (`ImportConfig.columns`), never the table's name."""

    tables: dict[str, TablePreset] | None = None


class _CorpusGenres(_Section):
    """[corpus] genres: the genres the corpus expects; `ingest` warns about others (or
    refuses them with --strict), as `IngestConfig.known_genres`, which no preset sets."""

    genres: tuple[Genre, ...] | None = None


def _distinct_names(names: dict[str, str]) -> dict[str, str]:
    # A name read back must stand for one label: two labels shown alike, or a label shown
    # as another's canonical name, could not be told apart when a sheet comes back.
    seen: dict[str, str] = {}
    for label, name in names.items():
        key = name.strip().casefold()
        if not key:
            raise ValueError(f"{label}: a name cannot be empty")
        labels = [*names, *(nli.value for nli in Label)]
        clash = seen.get(key) or next(
            (other for other in labels if other != label and other.casefold() == key), None
        )
        if clash:
            raise ValueError(f"{label} and {clash} would both be shown as {name!r}")
        seen[key] = label
    return names


class _LabelNames(_Section):
    """[labels] names: the name people see for each label in work packages
    (`entailment = "蕴含"`); files coming back may give either. `elicit/relabel export` and
    the imports read it into their `label_names` setting, which is built, not set."""

    names: Annotated[dict[str, StrictStr], AfterValidator(_distinct_names)] | None = None


GENRE_KEYS = ("clean", "paragraph")
"""What `[ingest.genres.NAME]` may set for one genre, over [ingest]'s: `ingest --genre NAME`
lays the table over the section itself (no setting holds the tables)."""


def _ingest_genres() -> type[BaseModel]:
    """[ingest] genres: a table per genre, of [ingest]'s own GENRE_KEYS."""
    keys = _marked_keys("ingest")
    per_genre = _keys_model("IngestGenrePreset", {k: keys[k] for k in GENRE_KEYS}, _Section)
    genres: Any = dict[str, per_genre] | None  # type: ignore[valid-type]
    return _keys_model("_IngestGenres", {"genres": (genres, None)}, _Section)


SECTION_SETTINGS: dict[str, tuple[type[BaseModel], ...]] = {
    "labels": (),  # read by the commands themselves (KEYS_COMMANDS_READ)
    **_settings_by_section(),
}
"""The settings models each section fills; a key of the section one of them takes is not
unknown to the others (`[elicit] max_overlap` is `elicit import`'s, not `elicit create`'s)."""

_COMMANDS_READ: dict[str, type[BaseModel]] = {
    "corpus": _CorpusGenres,
    "ingest": _ingest_genres(),
    "import": _ImportTables,
    "labels": _LabelNames,
}

KEYS_COMMANDS_READ: dict[str, frozenset[str]] = {
    section: frozenset(model.model_fields) for section, model in _COMMANDS_READ.items()
}
"""Section keys that a command reads itself rather than as a setting of its stage."""


def _build_section(section: str) -> type[BaseModel]:
    keys = _marked_keys(section)
    base = _COMMANDS_READ.get(section, _Section)
    both = sorted(set(keys) & set(base.model_fields))
    if both:  # a mistake in the models: one key, two meanings
        raise TypeError(f"[{section}] {', '.join(both)}: both a setting and read by a command")
    return _keys_model(f"{section.title()}Preset", keys, base)


SECTIONS: dict[str, type[BaseModel]] = {
    section: _build_section(section) for section in sorted(SECTION_SETTINGS)
}
"""Each section's model, by the name a preset writes."""

PresetSections = _keys_model(
    "PresetSections",
    {
        (f"{section}_" if keyword.iskeyword(section) else section): (
            model | None,
            Field(default=None, alias=section),
        )
        for section, model in SECTIONS.items()
    },
    _Section,
)
"""A whole preset: the sections it may have, each optional."""


def section_model(section: str) -> type[BaseModel]:
    """The model of a preset's `[section]` (`[aggregate]`: min_agree, votes_per_pair, ...)."""
    return SECTIONS[section]


def validate_preset(preset: dict[str, Any], origin: str = "preset") -> BaseModel:
    """`preset` (parsed TOML) checked against the schema; a one-line `ConfigError` that
    names `origin`, the section and the key of the first problem otherwise."""
    try:
        return PresetSections.model_validate(preset)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        more = len(errors) - 1
        rest = f" (and {more} more {'problem' if more == 1 else 'problems'})" if more else ""
        raise ConfigError(f"{origin}: {_describe(errors[0])}{rest}") from None


def named_tables(preset: dict[str, Any], origin: str) -> dict[str, TablePreset]:
    """The `[import.tables.NAME]` of a parsed preset, checked, by name."""
    checked = validate_preset({"import": stage_defaults(preset, "import")}, origin)
    section = getattr(checked, "import_", None)
    return dict(getattr(section, "tables", None) or {})


def _describe(error: ErrorDetails) -> str:
    loc = error["loc"]
    if error["type"] == "extra_forbidden":
        table = tuple(str(part) for part in loc[:-1])
        return _unknown(table, str(loc[-1]), error["input"])
    keys = [str(part) for part in loc if isinstance(part, str)]
    items = [part + 1 for part in loc if isinstance(part, int)]
    where = f"[{'.'.join(keys)}]" if len(keys) == 1 else f"[{'.'.join(keys[:-1])}] {keys[-1]}"
    where += "".join(f", item {item}" for item in items)
    # TOML names its containers tables and arrays; pydantic's messages say dict and tuple.
    if error["type"] in {"model_type", "dict_type"}:
        return f"{where}: should be a table"
    if error["type"] == "tuple_type":
        return f"{where}: should be an array (got {error['input']!r})"
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message[:1].lower()}{message[1:]} (got {error['input']!r})"


def _unknown(table: tuple[str, ...], key: str, value: object) -> str:
    known = sorted(_keys(_model_at(table)))
    guess = difflib.get_close_matches(key, known, n=1)
    if not table:  # a top-level name is a section
        listed = ", ".join(f"[{name}]" for name in known)
        if not isinstance(value, dict):
            return f"{key}: a key outside every section; move it into one of {listed}"
        hint = f"; did you mean [{guess[0]}]?" if guess else ""
        return f"[{key}]: unknown section{hint} (known: {listed})"
    hint = f"; did you mean {guess[0]}?" if guess else ""
    return f"[{'.'.join(table)}] {key}: unknown key{hint} (known: {', '.join(known)})"


def section_keys(section: str) -> list[str]:
    """The keys a preset's `[section]` may hold (`[corpus]`: lang, extra_labels, genres)."""
    return list(_keys(_model_at((section,))))


def preset_sections() -> list[str]:
    """The sections a preset may have, as it writes them (`import`, not `import_`)."""
    return list(_keys(PresetSections))


def _keys(model: type[BaseModel]) -> dict[str, Any]:
    """A model's fields by the name a preset writes (`import`, not `import_`)."""
    return {info.alias or name: info.annotation for name, info in model.model_fields.items()}


def _model_at(table: tuple[str, ...]) -> type[BaseModel]:
    """The section model of a table path: ("ingest", "genres", "phone") -> IngestGenrePreset."""
    model: type[BaseModel] = PresetSections
    parts = list(table)
    while parts:
        annotation = _keys(model)[parts.pop(0)]
        if get_origin(annotation) in (Union, types.UnionType):  # X | None
            annotation = next(a for a in get_args(annotation) if a is not type(None))
        if get_origin(annotation) is dict:  # [ingest.genres.NAME]: skip the genre's name
            parts.pop(0)
            annotation = get_args(annotation)[1]
        model = annotation
    return model


# --- Presets into settings ----------------------------------------------------------------
# One settings model per stage: the command builds it from its flags, the store's preset
# fills what no flag gave, and the model's own defaults fill the rest, so a default is
# written once, in the model.

SettingsT = TypeVar("SettingsT", bound=BaseModel)


def settings_from_preset(
    settings: type[SettingsT],
    preset: Mapping[str, Any],
    section: str,
    origin: str,
    /,
    **flags: Any,
) -> SettingsT:
    """`settings` from the flags given (those not None), else `preset`'s `[section]` values,
    else the model's defaults; a one-line `ConfigError` naming the option, or `origin`, the
    section and the key, for a value the model refuses or a key no setting takes."""
    unknown = set(flags) - set(settings.model_fields)
    if unknown:  # a mistake in the command, not the user's
        raise TypeError(f"{settings.__name__} has no field {', '.join(sorted(unknown))}")
    given = {name: value for name, value in flags.items() if value is not None}
    from_preset = preset_settings(settings, dict(preset), section, origin)
    try:
        return settings.model_validate(_laid_over(from_preset, given))
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]
        raise ConfigError(_settings_problem(problem, settings, given, section, origin)) from None


def preset_settings(
    settings: type[BaseModel], preset: dict[str, Any], section: str, origin: str
) -> dict[str, Any]:
    """The values `preset`'s `[section]` gives `settings`' fields, converted as the
    section's model checks them (`label_order = "n,e,c"` -> labels, enums by value)."""
    readers = SECTION_SETTINGS.get(section, ())
    if settings not in readers:  # a mistake in the command, not the user's
        raise ValueError(f"{settings.__name__} is not filled from a preset's [{section}]")
    table = stage_defaults(preset, section)
    checked = validate_preset({section: table}, origin)
    values = checked.model_dump(by_alias=True, exclude_unset=True).get(section, {})
    others = KEYS_COMMANDS_READ.get(section, frozenset()).union(
        *(reader.model_fields for reader in readers if reader is not settings)
    )
    groups = _groups(settings, section)
    own = set(settings.model_fields).union(*(group.model_fields for group in groups.values()))
    for key in values:
        if key not in own and key not in others:
            taken = sorted(own & set(section_keys(section)))
            raise ConfigError(
                f"{origin}: [{section}] {key}: no setting of {settings.__name__} takes this "
                f"key (it takes: {', '.join(taken)})"
            )
    filled = {key: value for key, value in values.items() if key in settings.model_fields}
    for name, group in groups.items():
        keys = {key: value for key, value in values.items() if key in group.model_fields}
        if keys:
            filled[name] = keys
    return filled


def _groups(settings: type[BaseModel], section: str) -> dict[str, type[_Config]]:
    """The fields of `settings` that are groups of settings filled from the same section,
    flat (`ScoreTrainConfig.training`, a `ScoreTraining`: `[score] epochs`), by name."""
    return {
        name: info.annotation
        for name, info in settings.model_fields.items()
        if isinstance(info.annotation, type)
        and issubclass(info.annotation, _Config)
        and info.annotation.preset_section == section
    }


def _laid_over(from_preset: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The fields given over the preset's; a group the preset fills in part keeps its keys
    under those the caller set (a group given as a model: the fields it was built with)."""
    merged = from_preset | given
    for name, value in given.items():
        below = from_preset.get(name)
        if not isinstance(below, dict):
            continue
        if isinstance(value, BaseModel):
            merged[name] = below | {
                field: getattr(value, field) for field in value.model_fields_set
            }
        elif isinstance(value, Mapping):
            merged[name] = below | {key: item for key, item in value.items() if item is not None}
    return merged


def _settings_problem(
    problem: ErrorDetails,
    settings: type[BaseModel],
    given: dict[str, Any],
    section: str,
    origin: str,
) -> str:
    """One line for the first problem of a settings model, named where its value came from:
    the option (as `user_errors` has always named it), else the preset's key, else the
    required setting that neither gave."""
    field = str(problem["loc"][0]) if problem["loc"] else ""
    if problem["type"] == "missing":
        option = f"--{field.replace('_', '-')}"
        choices = _choices(settings.model_fields[field].annotation)
        in_preset = field in section_keys(section)
        preset_key = f", or set [{section}] {field} in the preset" if in_preset else ""
        return f"give {option}{choices}{preset_key}"
    if not field:  # a check over several fields
        return str(problem["msg"]).removeprefix("Value error, ")
    if field in given:
        return f"option {'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
    message = problem["msg"].removeprefix("Value error, ")
    return (
        f"{origin}: [{section}] {field}: {message[:1].lower()}{message[1:]} "
        f"(got {problem['input']!r})"
    )


def _choices(annotation: Any) -> str:
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return f" ({', '.join(str(member.value) for member in annotation)})"
    return ""


def instruction_languages() -> list[str]:
    """Languages the elicitation instructions are written in (en, zh)."""
    stems = _stems(INSTRUCTIONS / "elicit", ".md")
    return sorted(stem.removeprefix("common.") for stem in stems if stem.startswith("common."))


INSTRUCTION_FORMS = ("export", "workbench")
"""Where the instructions are read: beside a form `elicit export` writes (fields named
`entailment_1`, `x` for unusable), or on the workbench's writing page (a checkbox)."""


def instructions_for(text: str, form: str) -> str:
    """`text` with the parts of the other form left out: a line `<!-- export -->` or
    `<!-- workbench -->` starts a part for that form alone, `<!-- both -->` ends it."""
    kept, part = [], "both"
    for line in text.splitlines(keepends=True):
        marker = line.strip().removeprefix("<!-- ").removesuffix(" -->")
        if line.lstrip().startswith("<!-- ") and marker in (*INSTRUCTION_FORMS, "both"):
            part = marker
        elif part in ("both", form):
            kept.append(line)
    return "".join(kept)


def elicit_instructions(protocol: str, lang: str, form: str = "export") -> str:
    """The writers' instructions for a protocol: its own part, then the rules all share
    (resources/instructions/elicit/<PROTOCOL>.<lang>.md and common.<lang>.md), as read
    beside `form` (`INSTRUCTION_FORMS`)."""
    folder = INSTRUCTIONS / "elicit"
    names = [f"{protocol}.{lang}.md", f"common.{lang}.md"]
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise ConfigError(
            f"nlibuild/resources/instructions/elicit/{missing[0]}: no instructions for "
            f"{protocol} in {lang!r}; choose one of {', '.join(instruction_languages())}"
        )
    title = f"# nlibuild elicitation: {protocol} ({lang})\n\n"
    texts = [
        instructions_for((folder / name).read_text(encoding="utf-8"), form).strip()
        for name in names
    ]
    return title + "\n\n".join(texts) + "\n"


def relabel_instruction_languages() -> list[str]:
    """Languages the relabelling instructions are written in (en, zh)."""
    return _stems(INSTRUCTIONS / "relabel", ".md")


def relabel_instructions_text(lang: str) -> str:
    """The validators' instructions in `lang` (resources/instructions/relabel/<lang>.md),
    without the store's label list, which `relabel export` appends."""
    resource = INSTRUCTIONS / "relabel" / f"{lang}.md"
    if not resource.is_file():
        raise ConfigError(
            f"nlibuild/resources/instructions/relabel/{lang}.md: no relabelling instructions "
            f"in {lang!r}; choose one of {', '.join(relabel_instruction_languages())} "
            "with --instructions"
        )
    return resource.read_text(encoding="utf-8")
