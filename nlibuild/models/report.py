"""`nlibuild report`: the corpus datasheet (Gebru et al., "Datasheets for Datasets"), one
self-contained HTML page."""

from __future__ import annotations

from pydantic import Field

from nlibuild.core.signature import OutputPath
from nlibuild.models.base import Seed, _Config


class ReportConfig(_Config):
    """`nlibuild report --out FILE`: what the page shows and where it goes."""

    out: OutputPath = Field(description="the HTML page")
    ci: float | None = Field(
        default=None, gt=0, lt=1, description="agreement: bootstrap interval level, e.g. 0.95"
    )
    resamples: int = Field(default=1000, ge=10, description="agreement: bootstrap resamples")
    seed: Seed = 13
    top: int = Field(default=5, ge=1, description="cue words: top words per label (PMI)")
    min_count: int = Field(
        default=20, ge=1, description="cue words: rank only words in this many pairs or more"
    )
    smoothing: float | None = Field(
        default=None,
        ge=0,
        description="cue words: add-k smoothing of PMI; default scaled to the corpus "
        "(report.pmi_smoothing)",
    )
