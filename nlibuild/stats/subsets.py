"""`stats --table subsets`: OCNLI's Table 3 from the store: per protocol (and language),
pairs and mean hypothesis length in total and per level, the share of contradictions with
a negator, and the distribution of the overlap share under the configured measure
(quartiles, a histogram, the share of pairs over the limit)."""

from __future__ import annotations

import bisect
import itertools
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from nlibuild.models import (
    DEFAULT_OVERLAP_UNITS,
    OVERLAP_BINS,
    ElicitImportConfig,
    Label,
    Level,
    OverlapMeasure,
    OverlapUnits,
    SubsetRow,
    TableFormat,
)
from nlibuild.options import choice, preset_of, preset_origin
from nlibuild.presets import preset_settings
from nlibuild.render import render_table
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows
from nlibuild.store import Store
from nlibuild.text.lang import length_unit, text_length
from nlibuild.text.negators import negator_lexicon
from nlibuild.text.overlap import overlap_share, overlap_unit_name, table_overlap_units


@dataclass(frozen=True)
class OverlapRule:
    """The overlap rule `elicit import` checks (and subsets and cues report against)."""

    max_overlap: float
    measure: OverlapMeasure
    units: OverlapUnits = DEFAULT_OVERLAP_UNITS


@dataclass(frozen=True)
class SubsetsSettings:
    overlap: OverlapRule
    negator_files: tuple[Path, ...]


def overlap_rule(options: StatsOptions, store: Store) -> OverlapRule:
    """The limit and measure `elicit import` checks against (subsets, cues): the options
    (--max-overlap, --overlap-measure), else the preset's [elicit] max_overlap and
    overlap_measure, else the model's (OCNLI 3.2's 70% of the hypothesis's units)."""
    preset = preset_of(store)
    elicit = preset_settings(ElicitImportConfig, preset, "elicit", preset_origin(store))
    defaults = ElicitImportConfig.model_fields
    limit = options.max_overlap
    if limit is None:
        limit = float(elicit.get("max_overlap", defaults["max_overlap"].default))
    if options.overlap_measure is not None:
        measure = choice(OverlapMeasure, options.overlap_measure, "--overlap-measure")
    else:
        measure = OverlapMeasure(elicit.get("overlap_measure", defaults["overlap_measure"].default))
    units = OverlapUnits(elicit.get("overlap_units", defaults["overlap_units"].default))
    return OverlapRule(limit, measure, units)


def subsets_settings(options: StatsOptions, store: Store) -> SubsetsSettings:
    return SubsetsSettings(overlap_rule(options, store), options.negators)


def compute_subsets(store: Store, settings: SubsetsSettings) -> list[SubsetRow]:
    return subset_stats(store, settings.overlap, settings.negator_files)


NO_PROTOCOL = "(none)"
"""The protocol row of pairs imported without one (a released corpus)."""


@dataclass
class _Subset:
    pairs: int = 0
    length: int = 0
    by_level: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    contradictions: int = 0
    negated: int = 0
    overlaps: list[float] = field(default_factory=list)


def subset_stats(
    store: Store, overlap: OverlapRule, negator_files: tuple[Path, ...] = ()
) -> list[SubsetRow]:
    """OCNLI Table 3 from the store: per protocol (and language), the pairs and the mean
    hypothesis length in the language's unit, in total and per level (easy/medium/hard:
    the 1st/2nd/3rd hypothesis a writer wrote for a premise and label); plus the share of
    contradictions with a negator, and the distribution of the pairs' overlap share under
    `overlap.measure` with the share over `overlap.max_overlap` (OCNLI 3.2's 70%). A pair's
    label here is its author's (else the released gold label)."""
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
        subset.overlaps.append(
            overlap_share(
                pair.hypothesis,
                pair.premise,
                pair.lang,
                overlap.measure,
                table_overlap_units(pair.lang, overlap.units),
            )
        )

    def mean(total: int, n: int) -> float | None:
        return total / n if n else None

    rows = []
    for (protocol, lang), subset in sorted(subsets.items()):
        spread = overlap_distribution(subset.overlaps, overlap.max_overlap)
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
                overlap_measure=overlap.measure,
                overlap_quartiles=spread.quartiles,
                overlap_bins=spread.bins,
                over_overlap_limit=spread.over_limit,
                overlap_unit=overlap_unit_name(lang, table_overlap_units(lang, overlap.units)),
            )
        )
    return rows


@dataclass(frozen=True)
class OverlapDistribution:
    quartiles: tuple[float, float, float] | None
    bins: list[float]
    """Shares of pairs per OVERLAP_BINS bin (the last bin holds 1.0)."""
    over_limit: float | None


def overlap_distribution(shares: list[float], max_overlap: float) -> OverlapDistribution:
    """How one subset's overlap shares spread: quartiles, histogram, share over the limit."""
    inner_edges = OVERLAP_BINS[1:-1]
    counts = [0] * (len(OVERLAP_BINS) - 1)
    for share in shares:
        counts[bisect.bisect_right(inner_edges, share)] += 1
    if not shares:
        return OverlapDistribution(None, [0.0] * len(counts), None)
    # "inclusive": the quartiles of these shares as data, not as a sample of a population;
    # Python 3.11's quantiles() refuses a single share.
    if len(shares) == 1:
        q1 = median = q3 = shares[0]
    else:
        q1, median, q3 = statistics.quantiles(shares, n=4, method="inclusive")
    over = sum(share > max_overlap for share in shares)
    return OverlapDistribution(
        (q1, median, q3), [count / len(shares) for count in counts], over / len(shares)
    )


# csv keys of the overlap histogram's bins, bounds in percent: `overlap_40_60` (snake_case,
# as every key of a machine format).
_BIN_NAMES = [
    f"overlap_{100 * low:.0f}_{100 * high:.0f}" for low, high in itertools.pairwise(OVERLAP_BINS)
]
_CSV_FIELDS = [
    f for f in SubsetRow.model_fields
    if f not in {"protocol", "lang", "unit", "overlap_quartiles", "overlap_bins"}
]  # fmt: skip


def subsets_facts(rows: object, settings: SubsetsSettings) -> list[Fact]:
    """The title's overlap limit, which `over_overlap_limit` is the share over (each row
    names its measure, `overlap_measure`, and its unit, `overlap_unit`)."""
    return [("max_overlap", settings.overlap.max_overlap)]


def render_subsets(
    rows: list[SubsetRow], settings: SubsetsSettings, fmt: TableFormat, out: Console
) -> None:
    """As in OCNLI Table 3, cells `pairs / mean length` for people; csv gets one
    column per number."""
    if fmt is TableFormat.CSV:
        render_rows(
            out, "",
            ["protocol", "lang", "unit", *_CSV_FIELDS, "overlap_q1", "overlap_median",
             "overlap_q3", *_BIN_NAMES],
            [(r.protocol, r.lang, r.unit, *(getattr(r, f) for f in _CSV_FIELDS),
              *(r.overlap_quartiles or (None, None, None)), *r.overlap_bins) for r in rows],
            fmt, subsets_facts(rows, settings),
        )  # fmt: skip
        return

    def cell(pairs: int, mean: float | None) -> str:
        return "n.a." if not pairs else f"{pairs:,} / {mean:.1f}"

    def percent(share: float | None) -> str:
        return "" if share is None else f"{share:.1%}"

    def quartiles(values: tuple[float, float, float] | None) -> str:
        return "" if values is None else " ".join(f"{v:.2f}" for v in values)

    rule = settings.overlap
    edges = ", ".join(f"{low:.1f}" for low in OVERLAP_BINS[:-1])
    counted_in = "/".join(sorted({r.overlap_unit for r in rows})) or "words"
    render_table(
        out,
        "Subsets (OCNLI Table 3): pairs / mean hypothesis length; overlap "
        f"(in {counted_in}): {_SHARE_OF[rule.measure]}: its quartiles, its histogram (% of "
        f"pairs in bins from {edges}) and the share of pairs over the limit, "
        f"{rule.max_overlap:.0%}",
        ["protocol", "lang", "unit", "total", "easy", "medium", "hard", "c with negator",
         "overlap q1 med q3", "histogram", f"over {rule.max_overlap:.0%} overlap"],
        [
            (r.protocol, r.lang, r.unit, cell(r.pairs, r.mean_length),
             cell(r.easy, r.easy_mean_length), cell(r.medium, r.medium_mean_length),
             cell(r.hard, r.hard_mean_length), percent(r.negated_contradictions),
             quartiles(r.overlap_quartiles), " ".join(f"{100 * b:.0f}" for b in r.overlap_bins),
             percent(r.over_overlap_limit))
            for r in rows
        ],
        fmt,
    )  # fmt: skip


_SHARE_OF = {
    OverlapMeasure.HYPOTHESIS: "the share of the hypothesis's units found in the premise",
    OverlapMeasure.PREMISE: "the share of the premise's units found in the hypothesis",
    OverlapMeasure.BOTH: "the smaller of the hypothesis's and the premise's shares",
}


TABLE = StatsTable(
    name="subsets",
    rank=20,
    help="OCNLI's Table 3: per protocol, pairs and mean hypothesis length (characters "
    "for zh/ja/ko/th/my, else tokens) in total and per level (easy/medium/hard = the 1st/2nd/"
    "3rd hypothesis per premise and label); the share of contradictions (author's label) "
    "with a negator; the overlap share of the pairs under the overlap measure (quartiles, "
    "histogram) and the share over the limit (--max-overlap, --overlap-measure, else the "
    "preset's [elicit]).",
    options=frozenset({"max_overlap", "overlap_measure", "negators"}),
    settings=subsets_settings,
    compute=compute_subsets,
    render=render_subsets,
    facts=subsets_facts,
)
