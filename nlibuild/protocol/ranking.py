"""Seeded random orders that depend on the items, never on the order they arrive in.

Sampling, batching, relabelling and splitting all rank items (premise, pair and annotator
IDs) by a hash of the seed and the item, so a store's content and the seed decide every
choice, and a rerun with the same seed makes the same choice.
"""

from __future__ import annotations

import hashlib


def seeded_rank(seed: int, item: str) -> bytes:
    """A sort key that puts items (IDs) in a random order fixed by the seed: the same IDs
    and seed give the same order whatever order the items came in."""
    return hashlib.blake2b(f"{seed}\x00{item}".encode(), digest_size=8).digest()
