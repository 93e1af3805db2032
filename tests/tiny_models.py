"""The tiny random encoder of `nlibuild.scoring.tiny`, for tests: skipped without torch."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="the scoring tests need the `score` extra (torch)")
pytest.importorskip("transformers", reason="the scoring tests need the `score` extra")

from nlibuild.scoring.tiny import build_tiny_model

__all__ = ["build_tiny_model"]
