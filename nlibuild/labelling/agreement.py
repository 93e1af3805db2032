"""Agreement statistics of a relabelled NLI corpus (SNLI Table 3; OCNLI Tables 4 and 10).

Input is one row per pair: how many votes each label value got (NLI labels first, then
extra labels), the author's label and the gold label. Every statistic below is a ratio
of sums over pairs, so it is computed for any group of pairs with a mask, and bootstrapped
by reweighting pairs (a resample of N pairs with replacement is a vector of counts that
sums to N) without copying data.

Denominators (also in `--help` and the README):
- pairs relabelled: pairs with 2 or more votes, over all pairs with votes.
- all / 4+ / 3+ labels agree: validated pairs whose most frequent label value (extra
  values included) has all / at least 4 / at least 3 of the votes, over validated pairs.
- individual label = gold: votes equal to the gold label, over the votes of validated pairs
  that have a gold label (not `-`).
- individual label = author's label: validators' votes (the author's own excluded) equal to
  the author's label, over the validators' votes of validated pairs with an author label.
- gold = author's label / gold != author's label: over validated pairs with an author's
  label (a crowd-only corpus, imported with `author=-`, has none: n.a., not 0%).
- no gold label: over validated pairs.
- extra labels: votes with an extra label value, over all votes of validated pairs.
- Fleiss' kappa (Fleiss 1971, for items rated by different raters; with unequal numbers of
  votes per pair, the per-pair agreement is averaged as usual) and Krippendorff's alpha at
  the nominal level, over validated pairs; extra label values are dropped from both unless
  included as categories.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nlibuild.core.progress import progress

FloatArray = NDArray[np.float64]

STATISTICS: tuple[str, ...] = (
    "pairs relabelled",
    "all labels agree",
    "4+ labels agree",
    "3+ labels agree",
    "individual label = gold",
    "individual label = author's label",
    "gold = author's label",
    "gold != author's label",
    "no gold label",
    "extra labels",
    "Fleiss' kappa",
    "Krippendorff's alpha (nominal)",
)


@dataclass(frozen=True)
class VoteTable:
    """counts[i, j]: votes of pair i for label value j (the first `nli` columns are the NLI
    labels); author[i] and gold[i]: a column index, or -1 for none / `-`."""

    counts: NDArray[np.int64]
    author: NDArray[np.int64]
    gold: NDArray[np.int64]
    nli: int = 3


# A statistic: the per-pair arrays it sums, and the value from those sums.
_Parts = dict[str, FloatArray]
_Value = Callable[[dict[str, float]], float | None]


def _ratio(numerator: str, denominator: str) -> _Value:
    def value(sums: dict[str, float]) -> float | None:
        return sums[numerator] / sums[denominator] if sums[denominator] else None

    return value


def _category_totals(sums: dict[str, float]) -> FloatArray:
    """Votes per rated category (the sums `category0`, `category1`, ...)."""
    k = sum(1 for name in sums if name.startswith("category"))
    return np.array([sums[f"category{j}"] for j in range(k)])


def _kappa(sums: dict[str, float]) -> float | None:
    items, votes = sums["rated_items"], sums["rated_votes"]
    if not items or not votes:
        return None
    observed = sums["kappa_agreement"] / items
    expected = float(((_category_totals(sums) / votes) ** 2).sum())
    return (observed - expected) / (1 - expected) if expected < 1 else None


def _alpha(sums: dict[str, float]) -> float | None:
    n = sums["rated_votes"]
    if n < 2:
        return None
    expected = (n * n - float((_category_totals(sums) ** 2).sum())) / (n * (n - 1))
    if not expected:
        return None
    return 1 - (sums["alpha_disagreement"] / n) / expected


RATIOS: dict[str, tuple[str, str]] = {
    "pairs relabelled": ("validated", "with_votes"),
    "all labels agree": ("all_agree", "validated"),
    "4+ labels agree": ("four_agree", "validated"),
    "3+ labels agree": ("three_agree", "validated"),
    "individual label = gold": ("votes_gold", "votes_with_gold"),
    "individual label = author's label": ("validator_author", "validator_votes"),
    "gold = author's label": ("gold_author", "validated_with_author"),
    "gold != author's label": ("gold_not_author", "validated_with_author"),
    "no gold label": ("no_gold", "validated"),
    "extra labels": ("extra_votes", "validated_votes"),
}
"""The statistics that are shares: the sums that are their numerator and denominator."""

VALUES: dict[str, _Value] = {
    **{name: _ratio(*sums) for name, sums in RATIOS.items()},
    "Fleiss' kappa": _kappa,
    "Krippendorff's alpha (nominal)": _alpha,
}

NUMERATORS: dict[str, tuple[str, str]] = {
    **RATIOS,
    "Fleiss' kappa": ("", "rated_items"),
    "Krippendorff's alpha (nominal)": ("", "rated_items"),
}
"""For each statistic, the sums that are its numerator and denominator (for reporting)."""


def pair_parts(table: VoteTable, include_extra: bool = False) -> _Parts:
    """Per-pair contributions to every sum the statistics need."""
    counts = table.counts.astype(np.float64)
    totals = counts.sum(axis=1)
    validated = totals >= 2
    v = validated.astype(np.float64)
    rows = np.arange(len(counts))
    top = counts.max(axis=1) if counts.shape[1] else np.zeros(len(counts))
    has_gold = table.gold >= 0
    has_author = table.author >= 0
    gold_votes = np.where(has_gold, counts[rows, np.maximum(table.gold, 0)], 0.0)
    author_votes = np.where(has_author, counts[rows, np.maximum(table.author, 0)], 0.0)
    parts: _Parts = {
        "with_votes": (totals >= 1).astype(np.float64),
        "validated": v,
        "all_agree": v * (top == totals),
        "four_agree": v * (top >= 4),
        "three_agree": v * (top >= 3),
        "votes_gold": v * gold_votes,
        "votes_with_gold": v * has_gold * totals,
        # The author's own vote is one of those for its label: take it out.
        "validator_author": v * has_author * np.maximum(author_votes - 1, 0),
        "validator_votes": v * has_author * (totals - 1),
        "validated_with_author": v * has_author,
        "gold_author": v * (has_gold & has_author & (table.gold == table.author)),
        "gold_not_author": v * (has_gold & has_author & (table.gold != table.author)),
        "no_gold": v * ~has_gold,
        "extra_votes": v * counts[:, table.nli :].sum(axis=1),
        "validated_votes": v * totals,
    }
    rated = counts if include_extra else counts[:, : table.nli]
    n = rated.sum(axis=1)
    usable = validated & (n >= 2)
    u = usable.astype(np.float64)
    squares = (rated**2).sum(axis=1)
    safe = np.where(usable, n * (n - 1), 1.0)
    # Fleiss' kappa and Krippendorff's alpha rate the same items and categories.
    parts["rated_items"] = u
    parts["rated_votes"] = u * n
    parts["kappa_agreement"] = u * (squares - n) / safe
    parts["alpha_disagreement"] = u * (n * n - squares) / np.where(usable, n - 1, 1.0)
    for j in range(rated.shape[1]):
        parts[f"category{j}"] = u * rated[:, j]
    return parts


def collapsed(
    table: VoteTable, groups: NDArray[np.int64]
) -> tuple[VoteTable, NDArray[np.int64], FloatArray]:
    """The pairs that agree in everything the statistics read (label counts, author, gold
    and group) as one row each, with the number of pairs it stands for.

    Every statistic is a ratio of sums over pairs, so sums over the distinct rows weighted
    by their counts are the same sums, and a million pairs of five votes hold only a few
    thousand distinct rows: the statistics then cost nothing next to reading the store.
    (Not for the bootstrap, which resamples pairs.)"""
    columns = [*table.counts.T, table.author + 1, table.gold + 1, groups]
    radices = [int(column.max(initial=0)) + 1 for column in columns]
    if math.prod(radices) < 2**62:  # one integer key a row, mixed radix
        key = np.zeros(len(groups), dtype=np.int64)
        for column, radix in zip(columns, radices, strict=True):
            key = key * radix + column
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
    else:  # counts too large to pack (ChaosNLI's 100 votes a pair and many labels)
        _, first, counts = np.unique(
            np.stack(columns, axis=1), axis=0, return_index=True, return_counts=True
        )
    rows = VoteTable(table.counts[first], table.author[first], table.gold[first], table.nli)
    return rows, groups[first], counts.astype(np.float64)


def _sums(parts: _Parts, weights: FloatArray | None = None) -> dict[str, float]:
    return {
        name: float(array.sum() if weights is None else array @ weights)
        for name, array in parts.items()
    }


@dataclass(frozen=True)
class Estimate:
    statistic: str
    value: float | None
    numerator: float | None
    denominator: int
    low: float | None = None
    high: float | None = None


def estimates(
    parts: _Parts,
    mask: NDArray[np.bool_] | None = None,
    ci: float | None = None,
    resamples: int = 1000,
    seed: int = 13,
    *,
    multiplicity: FloatArray | None = None,
) -> list[Estimate]:
    """Every statistic over the pairs in `mask` (all when None), with a percentile
    bootstrap interval at level `ci` over `resamples` resamples of those pairs. Rows
    `collapsed` from several pairs each come with their `multiplicity` (no bootstrap)."""
    if multiplicity is not None and ci is not None:
        raise ValueError("a bootstrap resamples pairs: give them one a row, not collapsed")
    if mask is not None:
        parts = {name: array[mask] for name, array in parts.items()}
        multiplicity = multiplicity[mask] if multiplicity is not None else None
    sums = _sums(parts, multiplicity)
    intervals: dict[str, tuple[float | None, float | None]] = {}
    if ci is not None and len(parts["validated"]):
        rng = np.random.default_rng(seed)
        size = len(parts["validated"])
        draws: dict[str, list[float]] = {name: [] for name in STATISTICS}
        with progress(f"bootstrap over {size:,} pairs", resamples, "resamples") as advance:
            for _ in range(resamples):
                weights = np.bincount(rng.integers(0, size, size), minlength=size).astype(
                    np.float64
                )
                resampled = _sums(parts, weights)
                for name in STATISTICS:
                    value = VALUES[name](resampled)
                    if value is not None:
                        draws[name].append(value)
                advance(1)
        tail = (1 - ci) / 2 * 100
        for name, values in draws.items():
            if values:
                low, high = np.percentile(values, [tail, 100 - tail])
                intervals[name] = (float(low), float(high))
    result = []
    for name in STATISTICS:
        numerator, denominator = NUMERATORS[name]
        low, high = intervals.get(name, (None, None))
        result.append(
            Estimate(
                statistic=name,
                value=VALUES[name](sums),
                numerator=sums[numerator] if numerator else None,
                denominator=int(sums[denominator]),
                low=low,
                high=high,
            )
        )
    return result
