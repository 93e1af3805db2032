"""A compact set of 64-bit keys for deduplicating millions of sentences in memory.

A Python set of 10 million ints takes about 600 MB; this takes 8 bytes a key. It keeps a
few sorted numpy arrays of geometrically growing sizes (a log-structured merge): a batch
of new keys is checked against each array with a binary search, and small arrays are
merged into bigger ones as they fill, so the total work stays O(n log n) in numpy's C.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Keys = npt.NDArray[np.int64]


class KeySet:
    """Keys seen so far; `add` says which of a batch are new."""

    def __init__(self) -> None:
        self._levels: list[Keys] = []

    def __len__(self) -> int:
        return sum(len(level) for level in self._levels)

    def add(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """Add `keys`; True at the first occurrence of each key not seen before."""
        fresh = np.zeros(len(keys), dtype=bool)
        if len(keys) == 0:
            return fresh
        unique, first = np.unique(keys, return_index=True)
        unseen = np.ones(len(unique), dtype=bool)
        for level in self._levels:
            at = np.searchsorted(level, unique)
            inside = at < len(level)
            unseen[inside] &= level[at[inside]] != unique[inside]
        fresh[first[unseen]] = True
        self._push(unique[unseen])
        return fresh

    def _push(self, keys: Keys) -> None:
        if len(keys) == 0:
            return
        self._levels.append(keys)
        # Merge while the newest level is at least half its predecessor: at most about
        # log2(n) levels, each key merged about log2(n) times.
        while len(self._levels) > 1 and 2 * len(self._levels[-1]) >= len(self._levels[-2]):
            newest = self._levels.pop()
            older = self._levels.pop()
            merged = np.concatenate([older, newest])
            merged.sort(kind="stable")
            self._levels.append(merged)
