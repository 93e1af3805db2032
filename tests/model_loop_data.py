"""What the tests of the model in the writers' loop share (issue 29): a fake served model
(the `Predictor` protocol, no torch) and stores whose preset sets `[workbench] model_loop`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from workbench_data import writing_store

NLI_LABELS = ("entailment", "neutral", "contradiction")


class FakeModel:
    """A served model that reads a hypothesis by its words: "never" or "nobody" makes it a
    contradiction, "maybe" neutral, anything else an entailment (at 0.7, the other two
    0.15 each). It counts its calls, each a batch of pairs."""

    identity = "fake-nli@7 sha256:0123456789ab"

    def __init__(self, labels: tuple[str, ...] = NLI_LABELS) -> None:
        self.labels = labels
        self.calls: list[list[tuple[str, str]]] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        self.calls.append(list(pairs))
        return [self.shares(hypothesis) for _, hypothesis in pairs]

    def read_as(self, hypothesis: str) -> str:
        words = hypothesis.lower()
        if "never" in words or "nobody" in words:
            return self.labels[2]
        return self.labels[1] if "maybe" in words else self.labels[0]

    def shares(self, hypothesis: str) -> dict[str, float]:
        chosen = self.read_as(hypothesis)
        return {label: 0.7 if label == chosen else 0.15 for label in self.labels}


class BrokenModel(FakeModel):
    """A served model that fails on every call, as one that ran out of memory would."""

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[dict[str, float]]:
        self.calls.append(list(pairs))
        raise RuntimeError("CUDA out of memory")


def loop_preset(mode: str) -> str:
    """A preset text: `model_loop = mode`, and no rule blocks a submission."""
    return f'[workbench]\nblocking_rules = []\nmodel_loop = "{mode}"\n'


def loop_store(db: Path, mode: str = "adversarial") -> Path:
    """English SINGLE batches of 3 premises for writers w01 and w02 (three fields a premise:
    entailment_1, neutral_1, contradiction_1), with `model_loop = mode`."""
    return writing_store(db, protocol="SINGLE", preset=loop_preset(mode))
