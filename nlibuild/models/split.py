"""`nlibuild split`: train, dev and test."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, Field

from nlibuild.models.base import IN_PRESET, PresetKey, Protocol, Seed, _Config, upper_case_items


class SplitSource(StrEnum):
    """The pairs dev and test are drawn from."""

    VALIDATED = "validated"  # a validator's vote and a gold label (OCNLI 3.4)
    LABELLED = "labelled"  # any gold label, e.g. a corpus imported without relabelling


class SplitGrouping(StrEnum):
    """What stays together in one split."""

    PREMISE = "premise"  # all pairs of a premise: no premise leaks into dev/test
    PAIR = "pair"  # each pair on its own (premises may then be shared; the check says so)


class SplitConfig(_Config):
    """`nlibuild split`: dev and test from validated pairs, the rest train (OCNLI 3.4)."""

    preset_section = "split"

    # The sizes stay required options of the command (a missing one is its usage error).
    dev: int = Field(ge=0)
    test: int = Field(ge=0)
    protocols: Annotated[tuple[Protocol, ...], PresetKey(reads=upper_case_items)] = ()
    balance_level: Annotated[bool, IN_PRESET] = False
    seed: Annotated[Seed, IN_PRESET] = 13
    draw_from: Annotated[SplitSource, IN_PRESET] = SplitSource.VALIDATED
    group_by: Annotated[SplitGrouping, IN_PRESET] = SplitGrouping.PREMISE
    # ANLI (Nie et al. 2020) keeps each round's dev and test apart (R1, R2, R3): `dev` and
    # `test` pairs are drawn from every round's own pairs, and pairs of no round are train.
    # A choice of each run, as `replace` (not a preset key).
    by_round: bool = False
    # Splits are what a model is trained and evaluated on; replacing ones that already
    # exist (an earlier split, a released corpus's) must be asked for, never a side effect.
    replace: bool = False


class SplitResult(BaseModel):
    run_id: int
    signature: str
    counts: dict[str, int] = Field(description="pairs per split")
    levels: dict[str, dict[str, int]] = Field(description="dev and test pairs per level")
    held_out: int = Field(description="pairs of dev/test premises that are not validated")
    shared_premises: list[str] = Field(description="premises in several splits (a leak)")
    rounds: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="with by_round: pairs per split of each round ('-': pairs of no round)",
    )
