"""Pausing Python's cyclic garbage collector around bulk work."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Without the cyclic garbage collector: stages that build millions of objects and no
    reference cycles (an import's long-lived rows, an ingest's short-lived tuples) would
    otherwise have it walk them again and again (a measured 15% of an import, 18% of a
    translation import)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
