"""Gold labels from the votes, and the agreement and annotator statistics."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from nlibuild.models.base import _Config


class AggregateMethod(StrEnum):
    MAJORITY = "majority"
    DAWID_SKENE = "dawid-skene"


class AggregateConfig(_Config):
    """`nlibuild aggregate-labels`: gold labels from the votes."""

    min_agree: int = Field(default=3, ge=1)
    method: AggregateMethod = AggregateMethod.MAJORITY
    max_iterations: int = Field(default=100, ge=1, description="dawid-skene")
    tolerance: float = Field(default=1e-6, gt=0, description="dawid-skene")


class AggregateResult(BaseModel):
    run_id: int
    signature: str
    method: str
    pairs: int
    by_label: dict[str, int] = Field(description="majority gold per label, '-' included")
    validated: int
    unvalidated: int = Field(description="pairs with the author's vote only")
    released_disagreements: int | None = Field(
        description="pairs whose released gold differs from the majority"
    )
    dawid_skene_disagreements: int | None = None
    iterations: int | None = None


class AgreementStat(BaseModel):
    """One statistic of `stats --table agreement` for one group of pairs."""

    statistic: str
    group: str
    value: float | None
    numerator: float | None
    denominator: int
    low: float | None = None
    high: float | None = None


class AnnotatorStat(BaseModel):
    """One annotator of `stats --table annotators`."""

    annotator: str
    votes: int
    authored: int
    validated: int
    agree_with_gold: float | None = Field(description="leave-one-out, over validated pairs")
    agree_pairs: int
    author_gold: float | None = Field(description="share of authored pairs whose gold = label")
    author_pairs: int
    violations: int
    reliability: float | None = None
    flagged: bool = False
