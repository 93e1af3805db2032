"""Annotation artifacts: PMI cues, cue profiles, hypothesis-only baselines."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeGuard

from pydantic import BaseModel, Field, model_validator

from nlibuild.models.base import (
    DEFAULT_MAX_OVERLAP,
    DEFAULT_OVERLAP_MEASURE,
    DEFAULT_OVERLAP_UNITS,
    IN_PRESET,
    LangCode,
    OverlapMeasure,
    OverlapUnits,
    Seed,
    _Config,
)


class ArtifactGroup(StrEnum):
    """What artifact tables are broken down by."""

    PROTOCOL = "protocol"
    LEVEL = "level"
    GENRE = "genre"
    AUTHOR = "author"


class WordUnits(StrEnum):
    """The units PMI counts: words (jieba's for Chinese), or letters and digits one by one."""

    WORDS = "words"
    CHARS = "chars"


class ArtifactScope(_Config):
    """Which pairs an artifact table reads, and in which language."""

    splits: tuple[str, ...] = Field(default=(), description="only pairs of these splits")
    lang: LangCode | None = Field(
        default=None, description="read the human translations into this language"
    )


class PmiConfig(_Config):
    """`nlibuild stats --table pmi`: OCNLI Table 8, (word, label) pairs ranked by PMI."""

    by: tuple[ArtifactGroup, ...] = Field(
        default=(), description="after all pairs, one section per grouping, in this order"
    )
    top: int = Field(default=3, ge=1)
    smoothing: float = Field(default=100.0, ge=0, description="add-k (Gururangan et al. 2018)")
    min_count: int = Field(default=20, ge=1)
    units: WordUnits | None = Field(default=None, description="default: the language's")
    per_label: bool = Field(default=False, description="the top words of each label")
    scope: ArtifactScope = ArtifactScope()


class PmiRow(BaseModel):
    """One (word, label) pair of one group, with the counts behind its PMI."""

    group_by: str
    group: str
    pairs: int = Field(description="pairs of the group with a gold label")
    rank: int
    word: str
    label: str
    pmi: float
    count: int = Field(description="pairs of the group with the word and the label")
    word_count: int = Field(description="pairs of the group with the word")


class PmiResult(BaseModel):
    run_id: int
    signature: str
    units: str = Field(description="what a word is here, e.g. 'words (jieba)'")
    pairs: int
    without_gold: int = Field(description="pairs left out: gold '-' or no label at all")
    untranslated: int = Field(description="pairs left out: no translation into --lang")
    rows: list[PmiRow]


class CuesConfig(_Config):
    """`nlibuild stats --table cues`: negators, overlap and length per label and group."""

    by: tuple[ArtifactGroup, ...] = Field(
        default=(ArtifactGroup.PROTOCOL,),
        description="after all pairs, one section per grouping, in this order",
    )
    max_overlap: float = Field(default=DEFAULT_MAX_OVERLAP, gt=0, le=1)
    overlap_measure: OverlapMeasure = DEFAULT_OVERLAP_MEASURE
    overlap_units: OverlapUnits = Field(
        default=DEFAULT_OVERLAP_UNITS,
        description="the preset's [elicit] overlap_units (Korean counts words either way)",
    )
    negator_files: tuple[Path, ...] = ()
    scope: ArtifactScope = ArtifactScope()


OVERLAP_BINS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
"""Edges of the overlap histogram of `stats --table cues` (the last bin includes 1.0)."""


class CueRow(BaseModel):
    """One label of one group: how its hypotheses were written."""

    group_by: str
    group: str
    label: str
    pairs: int
    negated: float | None = Field(description="share of hypotheses with a negator")
    mean_overlap: float | None = Field(description="mean overlap share under the measure")
    overlap_bins: list[float] = Field(description="shares of pairs per OVERLAP_BINS bin")
    over_limit: float | None = Field(description="share overlapping the premise over the limit")
    mean_length: float | None
    unit: str
    overlap_unit: str = Field(description="what overlap counts here: words or characters")


class CuesResult(BaseModel):
    run_id: int
    signature: str
    pairs: int
    without_gold: int
    untranslated: int
    unchecked_langs: list[str] = Field(description="languages without a negator lexicon")
    rows: list[CueRow]


class HypothesisOnlyConfig(_Config):
    """`nlibuild bias hypothesis-only`: a classifier that never sees the other sentence."""

    preset_section = "bias"

    train: str = "train"
    eval: tuple[str, ...] = ("dev", "test")
    by: Annotated[tuple[ArtifactGroup, ...], IN_PRESET] = ()
    premise_only: bool = False
    cross_validate: int | None = Field(default=None, ge=2)
    seed: Annotated[Seed, IN_PRESET] = 13
    ci: Annotated[float, IN_PRESET] = Field(default=0.95, gt=0, lt=1)
    resamples: Annotated[int, IN_PRESET] = Field(default=1000, ge=1)
    lang: LangCode | None = None

    @model_validator(mode="before")
    @classmethod
    def _ranges_in_the_commands_words(cls, data: Any) -> Any:
        """`ci` and `cross_validate` out of range, refused in the command's words whoever
        gives them (the CLI, a recipe, the Python API). Checked before the fields' own
        bounds, which stay for the preset's `[bias] ci` (checked at `init`, so a value out
        of range here was given with the run). A check of the whole model: its message is
        the line, as `presets._settings_problem` shows it."""
        if not isinstance(data, dict):
            return data
        ci, folds = data.get("ci"), data.get("cross_validate")
        if _is_number(ci) and not 0 < ci < 1:
            # As the command reads `--ci 1`: a float.
            raise ValueError(f"--ci {float(ci)}: give a level between 0 and 1, e.g. 0.95")
        if _is_number(folds) and not isinstance(folds, float) and folds < 2:
            raise ValueError(f"--cross-validate {folds}: give 2 folds or more")
        return data


def _is_number(value: object) -> TypeGuard[int | float]:
    """A number as TOML and Python write one (a bool is none, though an int to Python)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


class HypothesisOnlyRow(BaseModel):
    """Accuracy on one evaluation split (or the cross-validation folds) and group."""

    eval: str
    group_by: str
    group: str
    pairs: int
    accuracy: float
    low: float = Field(description="bootstrap interval, lower end")
    high: float
    majority_label: str = Field(description="the training data's most frequent label")
    majority_accuracy: float


class HypothesisOnlyResult(BaseModel):
    run_id: int
    signature: str
    side: str = Field(description="hypothesis or premise: the sentence the model saw")
    train_pairs: int
    features: int
    rows: list[HypothesisOnlyRow]
