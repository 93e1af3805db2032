"""`stats --table premises`: per genre and language of the sentence pool, the pool's
size, how many of its sentences qualify for sampling (length within the range, not yet a
premise), how many were sampled, and the pool's length distribution (mean, min, max, and
a histogram over `HISTOGRAM_BINS` equal-width bins between its min and max)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rich.console import Console

from nlibuild.models import LengthUnit, PremiseStatsRow, SampleConfig, TableFormat
from nlibuild.options import choice, store_settings
from nlibuild.queries.premises import keys_of_premises
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows
from nlibuild.store import PoolLengthCount, Store
from nlibuild.text.lang import length_unit

HISTOGRAM_BINS = 8


@dataclass(frozen=True)
class PremisesSettings:
    min_len: int
    max_len: int
    unit: LengthUnit


def premises_settings(options: StatsOptions, store: Store) -> PremisesSettings:
    """The length range and unit `sample` would use: the flags, else the preset's [sample],
    else `SampleConfig`'s defaults."""
    sample = store_settings(
        store,
        SampleConfig,
        "sample",
        min_len=options.min_len,
        max_len=options.max_len,
        unit=choice(LengthUnit, options.unit, "--unit") if options.unit else None,
    )
    return PremisesSettings(min_len=sample.min_len, max_len=sample.max_len, unit=sample.unit)


def compute_premises(store: Store, settings: PremisesSettings) -> list[PremiseStatsRow]:
    return premise_stats(store, settings.min_len, settings.max_len, settings.unit)


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


def premises_facts(rows: object, settings: PremisesSettings) -> list[Fact]:
    """The length range a sentence must be in to count as `qualifying` (in each row's
    `unit`), as the title says it."""
    return [("min_len", settings.min_len), ("max_len", settings.max_len)]


def render_premises(
    rows: list[PremiseStatsRow], settings: PremisesSettings, fmt: TableFormat, out: Console
) -> None:
    columns = ["genre", "lang", "unit", "pool", "qualifying", "sampled", "mean", "min", "max",
               "histogram", "sampled_mean"]  # fmt: skip
    render_rows(
        out,
        f"Premises and the sentence pool (qualifying: {settings.min_len} to "
        f"{settings.max_len} units long, not yet a premise)",
        columns,
        [
            (
                r.genre,
                r.lang,
                r.unit,
                r.pool,
                r.qualifying,
                r.sampled,
                r.mean,
                r.min,
                r.max,
                _histogram_cell(r, fmt),
                r.sampled_mean,
            )
            for r in rows
        ],
        fmt,
        premises_facts(rows, settings),
        decimals=1,
    )


_BARS = " ▁▂▃▄▅▆▇█"


def _histogram_cell(row: PremiseStatsRow, fmt: TableFormat) -> str:
    """A sparkline on a terminal; bin edges and counts for machines."""
    if fmt is not TableFormat.TABLE:
        edges = row.histogram_edges
        return " ".join(
            f"{edges[i]}-{edges[i + 1] - 1}:{count}" for i, count in enumerate(row.histogram)
        )
    top = max(row.histogram) or 1
    bars = "".join(_BARS[-(-8 * count // top)] for count in row.histogram)
    return f"{row.histogram_edges[0]} {bars} {row.histogram_edges[-1] - 1}"


TABLE = StatsTable(
    name="premises",
    rank=10,
    help="per genre, the pool, qualifying and sampled sentences, and the pool's lengths "
    "(mean, min, max, histogram).",
    options=frozenset({"min_len", "max_len", "unit"}),
    settings=premises_settings,
    compute=compute_premises,
    render=render_premises,
    facts=premises_facts,
)
