"""The charts of `nlibuild report` and `stats --plot`: matplotlib figures drawn from the
rows the `stats` tables compute, so a picture never says something the table does not.

Figures are made with `matplotlib.figure.Figure`, not pyplot: no global state, no display
and no GUI backend (the Agg canvas renders PNG, the SVG canvas the report's inline charts).
matplotlib loads inside the functions: `nlibuild --help` must stay fast.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlibuild.errors import ConfigError
from nlibuild.formats.tabular import write_atomically
from nlibuild.models import AgreementStat, CartographyResult, CueRow, CuesResult, PmiResult
from nlibuild.report.colors import HYPOTHESIS_COLOR, PREMISE_COLOR, SHARE_COLOR, label_color
from nlibuild.report.fonts import chart_fonts, chart_lang, missing_glyphs_warning, with_css_fonts
from nlibuild.store import Store
from nlibuild.text.length_units import paper_length, paper_unit

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The statistics the agreement chart shows: SNLI's and OCNLI's headline (a share of
# validated pairs) and the chance-corrected one (Fleiss 1971).
AGREEMENT_SHARE = "3+ labels agree"
AGREEMENT_KAPPA = "Fleiss' kappa"

_WIDTH = 7.5
"""Inches: about a page's text width at the report's 100 dpi."""


def _figure(height: float, columns: int = 1) -> tuple[Figure, list[Any]]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(_WIDTH, height), layout="constrained")
    axes = figure.subplots(1, columns, squeeze=False)[0]
    return figure, list(axes)


def agreement_figure(rows: Sequence[AgreementStat]) -> Figure:
    """Per group (all first), the share of validated pairs with 3+ labels agreeing and
    Fleiss' kappa, with the bootstrap interval as an error bar where it was computed."""
    groups = list(dict.fromkeys(row.group for row in rows))
    figure, axes = _figure(1.2 + 0.35 * len(groups), columns=2)
    for axis, statistic in zip(axes, (AGREEMENT_SHARE, AGREEMENT_KAPPA), strict=True):
        by_group = {row.group: row for row in rows if row.statistic == statistic}
        values = [_value(by_group.get(group)) for group in groups]
        errors = [
            [value - (row.low if row and row.low is not None else value) for value, row in
             zip(values, (by_group.get(g) for g in groups), strict=True)],
            [(row.high if row and row.high is not None else value) - value for value, row in
             zip(values, (by_group.get(g) for g in groups), strict=True)],
        ]  # fmt: skip
        positions = list(range(len(groups)))
        axis.barh(positions, values, xerr=errors, color=SHARE_COLOR, ecolor="#333333")
        axis.set_yticks(positions, groups if axis is axes[0] else [""] * len(groups))
        axis.invert_yaxis()
        axis.set_xlim(min(0.0, *values), 1.0)
        axis.set_title(statistic, fontsize=10)
    return figure


def _value(row: AgreementStat | None) -> float:
    return 0.0 if row is None or row.value is None else row.value


LengthSamples = dict[tuple[str, str], list[int]]
"""(language, "premise" or "hypothesis") -> every text's length in the unit `stats --table
lengths` gives its mean in (`paper_unit`), so the histogram and the table's mean agree."""


def length_samples(store: Store) -> LengthSamples:
    """The length of every premise (once) and hypothesis, per language: the pairs' own and
    every human translation, in the unit `stats --table lengths` counts (length_units.py)."""
    samples: LengthSamples = defaultdict(list)
    units = [*store.source_units(), *store.translated_units("human")]
    for unit_id, lang, text in units:
        part = "premise" if unit_id.startswith("p:") else "hypothesis"
        samples[(lang, part)].append(paper_length(text, lang))
    return dict(sorted(samples.items()))


def lengths_figure(samples: LengthSamples) -> Figure:
    """One histogram of premise and hypothesis lengths per language (XNLI Table 2 gives
    only the means; the spread shows truncated or run-on translations)."""
    langs = sorted({lang for lang, _ in samples})
    figure, axes = _figure(2.2, columns=max(1, len(langs)))
    for axis, lang in zip(axes, langs, strict=False):
        for part, color in (("premise", PREMISE_COLOR), ("hypothesis", HYPOTHESIS_COLOR)):
            lengths = samples.get((lang, part), [])
            if lengths:
                axis.hist(lengths, bins=20, alpha=0.6, color=color, label=part)
        axis.set_title(lang, fontsize=10)
        axis.set_xlabel(paper_unit(lang))
    axes[0].set_ylabel("texts")
    axes[0].legend(fontsize=8)
    return figure


def pmi_figure(result: PmiResult) -> Figure:
    """The ranked (word, label) pairs of all pairs (OCNLI Table 8) as bars of PMI, one
    colour a label."""
    rows = [row for row in result.rows if row.group == result.rows[0].group] if result.rows else []
    figure, (axis,) = _figure(1.0 + 0.28 * max(1, len(rows)))
    positions = list(range(len(rows)))
    axis.barh(positions, [row.pmi for row in rows], color=[label_color(row.label) for row in rows])
    axis.set_yticks(positions, [f"{row.word} ({row.label})" for row in rows])
    axis.invert_yaxis()
    axis.set_xlabel("PMI (natural log)")
    return figure


def cues_figure(result: CuesResult) -> Figure:
    """Per gold label (of all pairs): the share of hypotheses with a negator, the share
    over the overlap limit (OCNLI 3.2 and 5; Gururangan et al. 2018), the overlap's unit
    named in the legend. Negator bars only where a negator lexicon was read: a language
    without one would show empty bars that read as 0% (the page says which it lacks)."""
    rows = [row for row in result.rows if row.group == "all"] or list(result.rows)
    figure, (axis,) = _figure(2.4)
    positions = list(range(len(rows)))
    series = [(f"over the overlap limit (counted in {_overlap_units(rows)})",
               [row.over_limit or 0.0 for row in rows], HYPOTHESIS_COLOR)]  # fmt: skip
    if any(row.negated is not None for row in rows):
        negated = [row.negated or 0.0 for row in rows]
        series.insert(0, ("with a negator", negated, PREMISE_COLOR))
    width = 0.8 / len(series)
    for number, (name, values, color) in enumerate(series):
        offset = (number - (len(series) - 1) / 2) * width
        axis.bar([p + offset for p in positions], values, width, label=name, color=color)
    axis.set_xticks(positions, [row.label for row in rows])
    for tick, row in zip(axis.get_xticklabels(), rows, strict=True):
        tick.set_color(label_color(row.label))
    axis.set_ylim(0, 1)
    axis.set_ylabel("share of hypotheses")
    axis.legend(fontsize=8)
    return figure


def _overlap_units(rows: Sequence[CueRow]) -> str:
    return " / ".join(sorted({row.overlap_unit for row in rows})) or "words"


CartographyPoint = tuple[float, float, str]
"""variability, confidence, region"""

# None of the label colours (colors.py): a region is not a label.
_REGION_COLORS = {"easy": "#4c78a8", "ambiguous": "#f58518", "hard": "#72b7b2",
                  "other": "#c7c7c7"}  # fmt: skip


def cartography_points(store: Store, result: CartographyResult) -> list[CartographyPoint]:
    """Every training pair of the result's map, placed, and coloured by its exclusive
    region (a dot has one colour; the paper's regions overlap)."""
    from nlibuild.scores.cartography import exclusive_regions, result_pairs

    pairs = result_pairs(store, result)
    region_of = exclusive_regions(pairs)
    return [(pair.variability, pair.confidence, region_of[pair.id]) for pair in pairs]


def cartography_figure(points: Sequence[CartographyPoint]) -> Figure:
    """The data map of Swayamdipta et al. 2020 (their Figure 1): variability across,
    confidence up, one dot a training pair, coloured by region."""
    figure, (axis,) = _figure(4.0)
    for region, color in _REGION_COLORS.items():
        chosen = [point for point in points if point[2] == region]
        axis.scatter([p[0] for p in chosen], [p[1] for p in chosen], s=8, color=color,
                     label=f"{region} ({len(chosen)})")  # fmt: skip
    axis.set_xlabel("variability")
    axis.set_ylabel("confidence")
    axis.legend(fontsize=8)
    return figure


def figure_svg(figure: Figure, lang: str | None = None) -> str:
    """The figure as an inline `<svg>` element (no XML declaration, no DOCTYPE). Its text
    stays text, in the CSS font stack of `lang` (None: the script of the chart's text
    decides): the reader's browser draws it (fonts.py)."""
    from matplotlib import rc_context

    chosen = chart_lang(figure, lang)
    buffer = io.StringIO()
    # matplotlib still lays the text out, in the fonts of a PNG: a glyph missing from
    # them here is the browser's to draw, so the warnings `chart_fonts` takes are dropped.
    with chart_fonts(figure, chosen), rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return with_css_fonts(text[text.index("<svg") :], chosen)


def write_png(figure: Figure, path: Path, lang: str | None = None) -> str | None:
    """The figure as a PNG file, written atomically, in the fonts of `lang` (the store's;
    None: the script of the chart's text decides). A warning (without `Warning: `) where
    some character had no glyph in any font, else None."""

    def write(handle: Any) -> int:
        figure.savefig(handle, format="png", dpi=150)
        return 0

    with chart_fonts(figure, chart_lang(figure, lang)) as missing:
        write_atomically(path, write)
    return missing_glyphs_warning(path, missing) if missing else None


def refuse_unplotted(name: str) -> None:
    """`stats --plot` with a table it has no chart for is an error, before any work."""
    if name not in TABLE_FIGURES:
        raise ConfigError(
            f"--plot does not apply to --table {name} (it draws: {', '.join(TABLE_FIGURES)})"
        )


def table_figure(name: str, store: Store, result: Any) -> Figure:
    """The chart of `stats --table NAME`'s result (`stats --plot`)."""
    refuse_unplotted(name)
    return TABLE_FIGURES[name](store, result)


TABLE_FIGURES: dict[str, Callable[[Store, Any], Figure]] = {
    "agreement": lambda store, rows: agreement_figure(rows),
    "lengths": lambda store, rows: lengths_figure(length_samples(store)),
    "pmi": lambda store, result: pmi_figure(result),
    "cues": lambda store, result: cues_figure(result),
    "cartography": lambda store, result: cartography_figure(cartography_points(store, result)),
}
"""The tables `stats --plot FILE.png` draws, and how."""
