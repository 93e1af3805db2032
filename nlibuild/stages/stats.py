"""`nlibuild stats`: tables that describe the corpus: `--table premises` and `subsets`.

Premises: per genre and language of the sentence pool, the pool's size, how many of its
sentences qualify for sampling (length within the range, not yet a premise), how many were
sampled, and the pool's length distribution (mean, min, max, and a histogram over
`HISTOGRAM_BINS` equal-width bins between its min and max).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from nlibuild.lang import length_unit, negator_lexicon, overlap_ratio, text_length
from nlibuild.models import Label, LengthUnit, Level, PremiseStatsRow, SubsetRow
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


NO_PROTOCOL = "(none)"
"""The protocol row of pairs imported without one (a released corpus)."""


@dataclass
class _Subset:
    pairs: int = 0
    length: int = 0
    by_level: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    contradictions: int = 0
    negated: int = 0
    over_limit: int = 0


def subset_stats(
    store: Store, max_overlap: float, negator_files: tuple[Path, ...] = ()
) -> list[SubsetRow]:
    """OCNLI Table 3 from the store: per protocol (and language), the pairs and the mean
    hypothesis length in the language's unit, in total and per level (easy/medium/hard:
    the 1st/2nd/3rd hypothesis a writer wrote for a premise and label); plus the share of
    contradictions with a negator and of pairs whose hypothesis overlaps its premise more
    than `max_overlap` (OCNLI 3.2's 70%). A pair's label here is its author's (else the
    released gold label)."""
    subsets: dict[tuple[str, str], _Subset] = defaultdict(_Subset)
    lexicons = {}
    for pair in store.subset_pairs():
        subset = subsets[(pair.protocol or NO_PROTOCOL, pair.lang)]
        length = text_length(pair.hypothesis, pair.lang)
        subset.pairs += 1
        subset.length += length
        if pair.level is not None:
            level = subset.by_level[pair.level]
            level[0] += 1
            level[1] += length
        if pair.label == Label.CONTRADICTION.value:
            subset.contradictions += 1
            if pair.lang not in lexicons:
                lexicons[pair.lang] = negator_lexicon(pair.lang, negator_files)
            subset.negated += lexicons[pair.lang].negated(pair.hypothesis)
        subset.over_limit += overlap_ratio(pair.hypothesis, pair.premise, pair.lang) > max_overlap

    def mean(total: int, n: int) -> float | None:
        return total / n if n else None

    rows = []
    for (protocol, lang), subset in sorted(subsets.items()):
        levels = {level.value: subset.by_level.get(level.value, [0, 0]) for level in Level}
        rows.append(
            SubsetRow(
                protocol=protocol,
                lang=lang,
                unit=length_unit(lang),
                pairs=subset.pairs,
                mean_length=mean(subset.length, subset.pairs),
                easy=levels["easy"][0],
                easy_mean_length=mean(levels["easy"][1], levels["easy"][0]),
                medium=levels["medium"][0],
                medium_mean_length=mean(levels["medium"][1], levels["medium"][0]),
                hard=levels["hard"][0],
                hard_mean_length=mean(levels["hard"][1], levels["hard"][0]),
                contradictions=subset.contradictions,
                negated_contradictions=mean(subset.negated, subset.contradictions),
                over_overlap_limit=mean(subset.over_limit, subset.pairs),
            )
        )
    return rows
