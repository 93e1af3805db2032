"""`nlibuild stats`: tables that describe the corpus. Here: `--table premises`.

Premises: per genre and language of the sentence pool, the pool's size, how many of its
sentences qualify for sampling (length within the range, not yet a premise), how many were
sampled, and the pool's length distribution (mean, min, max, and a histogram over
`HISTOGRAM_BINS` equal-width bins between its min and max).
"""

from __future__ import annotations

from collections import defaultdict

from nlibuild.lang import length_unit
from nlibuild.models import LengthUnit, PremiseStatsRow
from nlibuild.stages.sample import keys_of_premises
from nlibuild.store import PoolLengthCount, Store

HISTOGRAM_BINS = 8


def premise_stats(
    store: Store, min_len: int, max_len: int, unit: LengthUnit = LengthUnit.AUTO
) -> list[PremiseStatsRow]:
    """One row per (genre, language) of the pool, in genre order."""
    lang_default = store.meta().get("lang", "en")
    store.set_taken_keys(keys_of_premises(store, lang_default))
    groups: dict[tuple[str, str], list[PoolLengthCount]] = defaultdict(list)
    for count in store.pool_length_counts(unit.value):
        groups[(count.genre, count.lang)].append(count)
    sampled = {(g, lang): (n, mean) for g, lang, n, mean in store.sampled_lengths(unit.value)}
    rows = []
    for (genre, lang), counts in sorted(groups.items()):
        pool = sum(c.sentences for c in counts)
        lengths = [c.length for c in counts]
        low, high = min(lengths), max(lengths)
        total = sum(c.length * c.sentences for c in counts)
        qualifying = sum(c.sentences - c.taken for c in counts if min_len <= c.length <= max_len)
        edges = _edges(low, high)
        histogram = [0] * (len(edges) - 1)
        for c in counts:
            histogram[_bin_of(c.length, edges)] += c.sentences
        n_sampled, sampled_mean = sampled.get((genre, lang), (0, None))
        rows.append(
            PremiseStatsRow(
                genre=genre,
                lang=lang,
                unit=_unit_label(unit, lang),
                pool=pool,
                qualifying=qualifying,
                sampled=n_sampled,
                mean=total / pool,
                min=low,
                max=high,
                histogram=histogram,
                histogram_edges=edges,
                sampled_mean=sampled_mean,
            )
        )
    return rows


def _unit_label(unit: LengthUnit, lang: str) -> str:
    return length_unit(lang) if unit is LengthUnit.AUTO else unit.value


def _edges(low: int, high: int) -> list[int]:
    """Bin edges from `low` to `high` + 1: at most HISTOGRAM_BINS bins, of equal width."""
    span = high - low + 1
    width = max(1, -(-span // HISTOGRAM_BINS))
    edges = list(range(low, high + 1, width))
    return [*edges, edges[-1] + width]


def _bin_of(length: int, edges: list[int]) -> int:
    return min((length - edges[0]) // (edges[1] - edges[0]), len(edges) - 2)
