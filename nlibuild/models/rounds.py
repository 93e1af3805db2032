"""Adversarial rounds (issue 29; ANLI, Nie et al. 2020): `stats --table model-loop`."""

from __future__ import annotations

from pydantic import BaseModel, Field

from nlibuild.core.signature import OutputPath
from nlibuild.models.base import _Config


class ModelLoopConfig(_Config):
    """`stats --table model-loop`: which round, and where the pairs waiting for validators
    go."""

    round: int | None = Field(default=None, ge=1, description="this round alone")
    out: OutputPath | None = Field(
        default=None,
        description="a file of the pairs that fooled the model and wait for validators, one "
        "ID a line, for `relabel create --pairs`",
    )


class ModelLoopRow(BaseModel):
    """One round (protocol and writer `all`, with its model), or one protocol and writer of
    a round."""

    round: int | None = Field(description="the batches' round; null: pairs of no round")
    protocol: str
    writer: str
    pairs: int = Field(description="pairs written with the model's prediction recorded")
    fooled: int = Field(description="the model's label is not the writer's")
    fooled_share: float | None = Field(description="of the pairs; null without pairs")
    verified: int = Field(
        description="fooled, validated, and the gold label is the writer's (ANLI's verified)"
    )
    verified_share: float | None
    fooled_unvalidated: int = Field(description="fooled pairs no validator has voted on yet")
    tries: int = Field(
        description="model checks of hypotheses before their premise was answered (ANLI's "
        "tries), also of premises answered as unusable"
    )
    tries_per_verified: float | None = Field(description="tries / verified (ANLI)")
    model: str | None = Field(
        default=None, description="a round's row: the model its pairs were written against"
    )
    earlier_test_accuracy: float | None = Field(
        default=None,
        description="a round's row: its model's accuracy on the test pairs of earlier rounds",
    )
    earlier_test_pairs: int | None = None
    accuracy_note: str | None = Field(
        default=None, description="why the accuracy is not available, and what gives it"
    )


class ModelLoopResult(BaseModel):
    rows: list[ModelLoopRow]
    written: int | None = Field(default=None, description="pair IDs written to `out`")
