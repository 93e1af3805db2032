"""The sentence pool: ingesting source texts, sampling premises, premise statistics."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, Field

from nlibuild.models.base import Seed, _Config


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


class IngestConfig(_Config):
    """`nlibuild ingest`: source texts of one genre (or genres named by the records)."""

    paths: tuple[Path, ...]
    format: SourceFormat
    genre: str | None = Field(default=None, pattern=GENRE_PATTERN)
    lang: str
    field: str = "text"
    genre_field: str | None = None
    genre_from: str | None = Field(
        default=None, description="conllu: regex over sent_id / newdoc id; group 1 is the genre"
    )
    genre_map: tuple[tuple[str, str], ...] = ()
    paragraph: ParagraphMode = ParagraphMode.BLANK
    clean: str = "none"
    strip: tuple[str, ...] = ()
    known_genres: tuple[str, ...] = ()
    strict: bool = False


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

    genres: tuple[str, ...] = ()
    n: int = Field(default=250, ge=1)
    all_genres: bool = False
    min_len: int = Field(default=8, ge=0)
    max_len: int = Field(default=50, ge=1)
    unit: LengthUnit = LengthUnit.AUTO
    lang: str | None = None
    seed: Seed = 13
    exclude: tuple[Path, ...] = ()
    balance_bins: int | None = Field(default=None, ge=1)


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
