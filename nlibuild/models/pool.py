"""The sentence pool: ingesting source texts, sampling premises, premise statistics."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from nlibuild.models.base import IN_PRESET, LangCode, PresetKey, Seed, _Config


class SourceFormat(StrEnum):
    """How `nlibuild ingest` reads a source text file."""

    TXT = "txt"
    JSONL = "jsonl"
    TSV = "tsv"
    CONLLU = "conllu"


class ParagraphMode(StrEnum):
    """txt: paragraphs end at a blank line, or every line is one (transcripts)."""

    BLANK = "blank"
    LINE = "line"


class LengthUnit(StrEnum):
    """The unit of sentence lengths: the language's own (`auto`), characters or tokens."""

    AUTO = "auto"
    CHARS = "chars"
    TOKENS = "tokens"


GENRE_PATTERN = r"^[^\W_][\w.\-]*$"
"""Genres become part of premise IDs (`gov_0001`): letters, digits, `_`, `.` and `-`."""


def _genre(value: str) -> str:
    if not re.match(GENRE_PATTERN, value):
        raise ValueError(
            "a genre is letters, digits, '_', '.' and '-', starting with a letter or digit "
            "(it becomes part of premise IDs)"
        )
    return value


Genre = Annotated[str, AfterValidator(_genre)]
"""A genre as a list of them names it (`GENRE_PATTERN`), with an error saying the rule."""


def cleaning_preset_name(value: object) -> object:
    """`clean = "callhome"`: one of the cleaning presets (`cleaning.CLEANING_PRESETS`)."""
    # Imported here: the cleaning rules are a library module, above the models.
    from nlibuild.text.cleaning import CLEANING_PRESETS

    if isinstance(value, str) and value not in CLEANING_PRESETS:
        raise ValueError(f"choose one of {', '.join(sorted(CLEANING_PRESETS))}")
    return value


def regexes(value: object) -> object:
    """`strip = ['\\[[^]]*\\]']`: regular expressions, each refused when it is not one (at
    `init --preset`, rather than at the first `ingest`)."""
    for pattern in value if isinstance(value, list) else ():
        if isinstance(pattern, str):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression ({exc})") from None
    return value


class IngestConfig(_Config):
    """`nlibuild ingest`: source texts of one genre (or genres named by the records)."""

    preset_section = "ingest"

    paths: tuple[Path, ...]
    format: SourceFormat
    genre: str | None = Field(default=None, pattern=GENRE_PATTERN)
    lang: LangCode
    field: str = "text"
    genre_field: str | None = None
    genre_from: str | None = Field(
        default=None, description="conllu: regex over sent_id / newdoc id; group 1 is the genre"
    )
    genre_map: tuple[tuple[str, str], ...] = ()
    paragraph: Annotated[ParagraphMode, IN_PRESET] = ParagraphMode.BLANK
    clean: Annotated[str, PresetKey(reads=cleaning_preset_name)] = "none"
    strip: Annotated[tuple[str, ...], PresetKey(reads=regexes)] = ()
    known_genres: tuple[str, ...] = ()
    strict: Annotated[bool, IN_PRESET] = False


class IngestResult(BaseModel):
    run_id: int
    signature: str
    files: int
    texts: int
    sentences: int
    empty_after_cleaning: int
    duplicates: int
    added: int
    by_genre: dict[str, int]
    warnings: list[str]


class SampleConfig(_Config):
    """`nlibuild sample`: how many premises per genre, of which lengths, from which seed."""

    preset_section = "sample"

    genres: Annotated[tuple[Genre, ...], IN_PRESET] = ()
    n: Annotated[int, IN_PRESET] = Field(default=250, ge=1)
    all_genres: bool = False
    min_len: Annotated[int, IN_PRESET] = Field(default=8, ge=0)
    max_len: Annotated[int, IN_PRESET] = Field(default=50, ge=1)
    unit: Annotated[LengthUnit, IN_PRESET] = LengthUnit.AUTO
    lang: LangCode | None = None
    seed: Annotated[Seed, IN_PRESET] = 13
    exclude: tuple[Path, ...] = ()
    balance_bins: Annotated[int | None, IN_PRESET] = Field(
        default=None, ge=1, description="--balance-lengths: equal-width length bins drawn evenly"
    )


class SampledGenre(BaseModel):
    genre: str
    sampled: int
    qualifying: int | None = Field(description="counted only with --balance-lengths")
    first_id: str | None
    last_id: str | None


class SampleResult(BaseModel):
    run_id: int
    signature: str
    genres: list[SampledGenre]
    excluded_texts: int


class PremiseStatsRow(BaseModel):
    """One genre (and language) of the sentence pool, for `stats --table premises`."""

    genre: str
    lang: str
    unit: str
    pool: int
    qualifying: int
    sampled: int
    mean: float | None
    min: int | None
    max: int | None
    histogram: list[int]
    histogram_edges: list[int]
    sampled_mean: float | None
