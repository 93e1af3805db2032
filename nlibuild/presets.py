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
import re
import tomllib
import types
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    ValidationError,
)
from pydantic_core import ErrorDetails

from nlibuild.cleaning import CLEANING_PRESETS
from nlibuild.errors import ConfigError
from nlibuild.models import (
    GENRE_PATTERN,
    ExportFormat,
    ImportFormat,
    LengthUnit,
    OnViolation,
    ParagraphMode,
    Protocol,
    StratumKey,
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
    if Path(name_or_path).suffix == ".toml":
        path = Path(name_or_path)
        origin = str(path)
        text = path.read_text(encoding="utf-8") if path.is_file() else None
    else:
        resource = PRESETS / f"{name_or_path}.toml"
        origin = f"preset {name_or_path}"
        text = resource.read_text(encoding="utf-8") if resource.is_file() else None
    if text is None:
        raise ConfigError(
            f"unknown preset {name_or_path!r}; choose one of {', '.join(preset_names())} "
            "or give the path of a .toml file"
        )
    parse_preset(text, origin)
    return text


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
# One model per [section], each listing exactly the keys its commands read through
# `stage_defaults` (with the spellings the command-line options take), so a misspelt key
# fails at `init --preset` instead of being ignored for the life of the store. Values are
# checked as the commands will use them; TOML is typed, so a number written as a string is
# refused rather than coerced (Strict*).

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


def _label_order(value: str) -> str:
    parse_label_order(value)  # its ValueError says what a label order looks like
    return value


def _stratify(value: str) -> str:
    names = [name.strip().lower() for name in value.split(",") if name.strip()]
    known = [key.value for key in StratumKey]
    if names != ["none"] and any(name not in known for name in names):
        raise ValueError(f"give a comma-separated list of {', '.join(known)}, or none")
    return value


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


class ImportPreset(_Section):
    """[import]: `import --format`."""

    format: ImportFormat | None = None


class ExportPreset(_Section):
    """[export]: `export --format` and `--label-order` (written as the option takes it)."""

    format: ExportFormat | None = None
    label_order: Annotated[str, AfterValidator(_label_order)] | None = None


class ElicitPreset(_Section):
    """[elicit]: `elicit create` and `elicit import` defaults; `max_overlap` is also the
    limit `stats --table subsets/cues` report against."""

    protocol: _ProtocolName | None = None
    batch_size: _Count | None = None
    max_per_writer: Annotated[StrictInt, Field(ge=0, description="0: no cap")] | None = None
    seed: StrictInt | None = None
    on_violation: OnViolation | None = None
    max_overlap: _Share | None = None


class RelabelPreset(_Section):
    """[relabel]: `relabel create` defaults; `stratify` as the option takes it."""

    protocol: _ProtocolName | None = None
    fraction: _Share | None = None
    validators: _Count | None = None
    stratify: Annotated[str, AfterValidator(_stratify)] | None = None
    batch_size: _Count | None = None
    seed: StrictInt | None = None


class AggregatePreset(_Section):
    """[aggregate]: `aggregate-labels --min-agree`."""

    min_agree: _Count | None = None


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
