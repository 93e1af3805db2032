"""A model in the writers' loop (issue 29): what the workbench asks of a served model.

`Predictor` is all the web layer knows of it, so that the workbench imports no torch:
`nlibuild serve --model DIR` loads one (nlibuild/scoring/served.py's `ServedModel`) and
hands it to the web context (`WebContext.predictor`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Predictor(Protocol):
    """A classifier of (premise, hypothesis) pairs."""

    identity: str
    """Which model: `<job>@<checkpoint step> sha256:<12 hex of the weights>`."""
    labels: tuple[str, ...]
    """The labels it predicts, in NLI_LABELS order."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        """Each pair's probability of every label, from one batched forward pass."""
        ...
