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
import re
import tomllib
import types
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
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)
from pydantic_core import ErrorDetails

from nlibuild.cleaning import CLEANING_PRESETS
from nlibuild.errors import ConfigError
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.models import (
    GENRE_PATTERN,
    ROW_COLUMN_KEYS,
    TABLE_COLUMN_KEYS,
    UNIT_COLUMN_KEYS,
    AggregateConfig,
    ElicitCreateConfig,
    ElicitImportConfig,
    ExportConfig,
    ExportFormat,
    ImportConfig,
    ImportFormat,
    IngestConfig,
    InitConfig,
    Label,
    LengthUnit,
    Lifetime,
    MinAgree,
    OnViolation,
    OverlapMeasure,
    ParagraphMode,
    Protocol,
    RelabelCreateConfig,
    SampleConfig,
    ServeConfig,
    Severity,
    StratumKey,
    WorkbenchConfig,
    check_table_columns,
    parse_label_order,
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


def stage_defaults(preset: dict[str, Any], stage: str) -> dict[str, Any]:
    """The `[stage]` table of a parsed preset (empty when the preset has none)."""
    section = preset.get(stage, {})
    return section if isinstance(section, dict) else {}


# --- The preset schema ---------------------------------------------------------------------
# One model per [section], each listing exactly the keys its commands read (named as the
# fields of the stage settings they fill, see `SECTION_SETTINGS`), so a misspelt key fails
# at `init --preset` instead of being ignored for the life of the store. Values are checked
# and converted as the settings take them (`label_order = "n,e,c"` becomes the labels);
# TOML is typed, so a number written as a string is refused rather than coerced (Strict*).

_Count = Annotated[StrictInt, Field(ge=1)]
_Share = Annotated[StrictFloat, Field(gt=0, le=1)]  # StrictFloat still takes 1


def _genre(value: str) -> str:
    if not re.match(GENRE_PATTERN, value):
        raise ValueError(
            "a genre is letters, digits, '_', '.' and '-', starting with a letter or digit "
            "(it becomes part of premise IDs)"
        )
    return value


_Genre = Annotated[str, AfterValidator(_genre)]


def _upper(value: object) -> object:
    # The commands upper-case --protocol, so the preset may write it in either case.
    return value.upper() if isinstance(value, str) else value


def _cleaning_preset(value: str) -> str:
    if value not in CLEANING_PRESETS:
        raise ValueError(f"choose one of {', '.join(sorted(CLEANING_PRESETS))}")
    return value


def _label_order(value: object) -> object:
    # The preset writes the order as --label-order takes it ("n,e,c"), and the settings
    # hold the labels; a value of another kind falls through to the tuple check.
    return parse_label_order(value) if isinstance(value, str) else value


def _stratify(value: object) -> object:
    # As --stratify takes it: "protocol,level", or "none" (or nothing) for one stratum.
    if not isinstance(value, str):
        return value
    names = [name.strip().lower() for name in value.split(",") if name.strip()]
    if names in ([], ["none"]):
        return ()
    known = [key.value for key in StratumKey]
    if any(name not in known for name in names):
        raise ValueError(f"give a comma-separated list of {', '.join(known)}, or none")
    return tuple(names)


_ProtocolName = Annotated[Protocol, BeforeValidator(_upper)]
_Cleaning = Annotated[str, AfterValidator(_cleaning_preset)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CorpusPreset(_Section):
    """[corpus]: the store's language and extra labels (`init`), the genres it expects
    (`ingest` warns about others, or refuses them with --strict)."""

    lang: str | None = Field(default=None, min_length=1)
    extra_labels: tuple[str, ...] | None = None
    genres: tuple[_Genre, ...] | None = None


class IngestGenrePreset(_Section):
    """[ingest.genres.NAME]: how the texts of one genre are read, over [ingest]'s."""

    clean: _Cleaning | None = None
    paragraph: ParagraphMode | None = None


class IngestPreset(IngestGenrePreset):
    """[ingest]: `ingest --clean/--paragraph` defaults, and per genre in sub-tables."""

    genres: dict[str, IngestGenrePreset] | None = None


class SamplePreset(_Section):
    """[sample]: `sample` (and `stats --table premises`) defaults."""

    n: _Count | None = None
    min_len: Annotated[StrictInt, Field(ge=0)] | None = None
    max_len: _Count | None = None
    unit: LengthUnit | None = None
    seed: StrictInt | None = None
    genres: tuple[_Genre, ...] | None = None


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


class ImportPreset(_Section):
    """[import]: `import --format`, and named table mappings in `[import.tables.NAME]`."""

    format: ImportFormat | None = None
    tables: dict[str, TablePreset] | None = None


class ExportPreset(_Section):
    """[export]: `export --format`, `--label-order` (written as the option takes it) and
    `--license` (the hf dataset card's)."""

    format: ExportFormat | None = None
    label_order: Annotated[tuple[Label, Label, Label], BeforeValidator(_label_order)] | None = None
    license: str | None = None


class ElicitPreset(_Section):
    """[elicit]: `elicit create` and `elicit import` defaults; `max_overlap` and
    `overlap_measure` are also the rule `stats --table subsets/cues` report against."""

    protocol: _ProtocolName | None = None
    batch_size: _Count | None = None
    max_per_writer: Annotated[StrictInt, Field(ge=0, description="0: no cap")] | None = None
    seed: StrictInt | None = None
    on_violation: OnViolation | None = None
    max_overlap: _Share | None = None
    overlap_measure: OverlapMeasure | None = None
    overlap_severity: Severity | None = None


class RelabelPreset(_Section):
    """[relabel]: `relabel create` defaults; `stratify` as the option takes it."""

    protocol: _ProtocolName | None = None
    fraction: _Share | None = None
    validators: _Count | None = None
    stratify: Annotated[tuple[StratumKey, ...], BeforeValidator(_stratify)] | None = None
    batch_size: _Count | None = None
    seed: StrictInt | None = None


class AggregatePreset(_Section):
    """[aggregate]: `aggregate-labels --min-agree` (a count or a share), and the votes a
    pair has in the protocol the rule was written for."""

    min_agree: MinAgree | None = None
    votes_per_pair: _Count | None = None


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


class LabelsPreset(_Section):
    """[labels]: `names`, the name people see for each label in work packages
    (`entailment = "蕴含"`); files coming back may give either."""

    names: Annotated[dict[str, StrictStr], AfterValidator(_distinct_names)] | None = None


class ServePreset(_Section):
    """[serve]: where `nlibuild serve` listens, its limits, and how long sessions and
    invites last (`12h`, `14d`)."""

    host: StrictStr | None = None
    port: Annotated[StrictInt, Field(ge=1, le=65535)] | None = None
    body_limit: Annotated[StrictInt, Field(ge=1024)] | None = None
    token_attempts_per_minute: _Count | None = None
    session_lifetime: Lifetime | None = None
    invite_lifetime: Lifetime | None = None
    max_seconds_per_item: Annotated[StrictFloat, Field(gt=0)] | None = None


class WorkbenchPreset(_Section):
    """[workbench]: `nlibuild serve`'s writing page: the rules whose findings refuse a
    submission (elicitation's rule names and too_short) and the shortest hypothesis."""

    blocking_rules: tuple[StrictStr, ...] | None = None
    min_hypothesis_chars: Annotated[StrictInt, Field(ge=0)] | None = None


class PresetSections(_Section):
    """A whole preset: the sections it may have, each optional."""

    corpus: CorpusPreset | None = None
    ingest: IngestPreset | None = None
    sample: SamplePreset | None = None
    import_: ImportPreset | None = Field(default=None, alias="import")
    export: ExportPreset | None = None
    elicit: ElicitPreset | None = None
    relabel: RelabelPreset | None = None
    aggregate: AggregatePreset | None = None
    labels: LabelsPreset | None = None
    serve: ServePreset | None = None
    workbench: WorkbenchPreset | None = None


def validate_preset(preset: dict[str, Any], origin: str = "preset") -> PresetSections:
    """`preset` (parsed TOML) checked against the schema; a one-line `ConfigError` that
    names `origin`, the section and the key of the first problem otherwise."""
    try:
        return PresetSections.model_validate(preset)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        more = len(errors) - 1
        rest = f" (and {more} more {'problem' if more == 1 else 'problems'})" if more else ""
        raise ConfigError(f"{origin}: {_describe(errors[0])}{rest}") from None


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

SECTION_SETTINGS: dict[str, tuple[type[BaseModel], ...]] = {
    "corpus": (InitConfig,),
    "ingest": (IngestConfig,),
    "sample": (SampleConfig,),
    "import": (ImportConfig,),
    "export": (ExportConfig,),
    "elicit": (ElicitCreateConfig, ElicitImportConfig),
    "relabel": (RelabelCreateConfig,),
    "aggregate": (AggregateConfig,),
    "serve": (ServeConfig,),
    "labels": (),  # read by the commands themselves (KEYS_COMMANDS_READ)
    "workbench": (WorkbenchConfig,),
}
"""The settings models each section fills; a key of the section one of them takes is not
unknown to the others (`[elicit] max_overlap` is `elicit import`'s, not `elicit create`'s)."""

KEYS_COMMANDS_READ: dict[str, frozenset[str]] = {
    "corpus": frozenset({"genres"}),  # `ingest` warns about (or refuses) other genres
    "ingest": frozenset({"genres"}),  # `ingest` lays [ingest.genres.NAME] over [ingest]
    "import": frozenset({"tables"}),  # `import --columns @NAME` reads [import.tables.NAME]
    "labels": frozenset({"names"}),  # `elicit/relabel export/import` read [labels.names]
}
"""Section keys that a command reads itself rather than as a setting of its stage."""

SettingsT = TypeVar("SettingsT", bound=BaseModel)


def settings_from_preset(
    settings: type[SettingsT],
    preset: dict[str, Any],
    section: str,
    origin: str,
    flags: dict[str, Any],
) -> SettingsT:
    """`settings` from the flags given (those not None), else `preset`'s `[section]` values,
    else the model's defaults; a one-line `ConfigError` naming the option, or `origin`, the
    section and the key, for a value the model refuses or a key no setting takes."""
    unknown = set(flags) - set(settings.model_fields)
    if unknown:  # a mistake in the command, not the user's
        raise TypeError(f"{settings.__name__} has no field {', '.join(sorted(unknown))}")
    given = {name: value for name, value in flags.items() if value is not None}
    from_preset = preset_settings(settings, preset, section, origin)
    try:
        return settings.model_validate(from_preset | given)
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
    for key in values:
        if key not in settings.model_fields and key not in others:
            taken = sorted(set(settings.model_fields) & set(section_keys(section)))
            raise ConfigError(
                f"{origin}: [{section}] {key}: no setting of {settings.__name__} takes this "
                f"key (it takes: {', '.join(taken)})"
            )
    return {key: value for key, value in values.items() if key in settings.model_fields}


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


def elicit_instructions(protocol: str, lang: str) -> str:
    """The writers' instructions for a protocol: its own part, then the rules all share
    (resources/instructions/elicit/<PROTOCOL>.<lang>.md and common.<lang>.md)."""
    folder = INSTRUCTIONS / "elicit"
    names = [f"{protocol}.{lang}.md", f"common.{lang}.md"]
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise ConfigError(
            f"nlibuild/resources/instructions/elicit/{missing[0]}: no instructions for "
            f"{protocol} in {lang!r}; choose one of {', '.join(instruction_languages())}"
        )
    title = f"# nlibuild elicitation: {protocol} ({lang})\n\n"
    texts = [(folder / name).read_text(encoding="utf-8").strip() for name in names]
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
