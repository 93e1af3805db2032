"""Gold labels from the votes, and the agreement and annotator statistics."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, Field, StrictFloat, StrictInt

from nlibuild.models.base import IN_PRESET, _Config


class AggregateMethod(StrEnum):
    MAJORITY = "majority"
    DAWID_SKENE = "dawid-skene"


def _check_min_agree(value: object) -> object:
    """One error for a wrong value (the union's own would report each of its members)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("a count of votes (3) or a share of a pair's votes (0.6)")
    if isinstance(value, float) and not 0 < value <= 1:
        raise ValueError("a share of a pair's votes is above 0 and at most 1 (e.g. 0.6)")
    if isinstance(value, int) and value < 1:
        raise ValueError("a count of votes is at least 1 (e.g. 3)")
    return value


MinAgree = Annotated[StrictInt | StrictFloat, BeforeValidator(_check_min_agree)]
"""How many of a pair's votes its gold label needs: a count (an integer, `3`), or a share of
the pair's votes (a float in (0, 1], `0.6`), rounded up: 0.6 of 15 votes is 9, of 4 is 3."""


def min_agree_text(min_agree: int | float) -> str:
    """The rule a `MinAgree` states, as a sentence part: what a user reads in a warning."""
    if isinstance(min_agree, float):
        return f"at least {min_agree:.0%} of a pair's votes agreeing, rounded up"
    return f"at least {min_agree} {'vote' if min_agree == 1 else 'votes'} agreeing"


class AggregateConfig(_Config):
    """`nlibuild aggregate-labels`: gold labels from the votes."""

    preset_section = "aggregate"

    # SNLI (Bowman et al. 2015, 2.2), MNLI, XNLI (Conneau et al. 2018, 3.1) and OCNLI (Hu et
    # al. 2020, 3.3): gold is the label "at least 3 of 5" votes agree on.
    min_agree: Annotated[MinAgree, IN_PRESET] = 3
    votes_per_pair: Annotated[int, IN_PRESET] = Field(
        default=5, ge=1, description="what min_agree was written for: other counts warn"
    )
    method: Annotated[AggregateMethod, IN_PRESET] = AggregateMethod.MAJORITY
    max_iterations: Annotated[int, IN_PRESET] = Field(default=100, ge=1, description="dawid-skene")
    tolerance: Annotated[float, IN_PRESET] = Field(default=1e-6, gt=0, description="dawid-skene")


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
    warnings: list[str] = Field(
        default_factory=list, description="the rule applied to vote counts it was not made for"
    )


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
    seconds_per_item: float | None = Field(
        default=None, description="median seconds before a vote (the workbench records them)"
    )
    flagged: bool = False
