"""Renderers of the `stats` tables: one function per table, from the stage's rows to the
chosen format (a terminal table, csv, json, Markdown or LaTeX)."""

from __future__ import annotations

import itertools

from nlibuild.cli.common import out
from nlibuild.models import (
    OVERLAP_BINS,
    AgreementStat,
    AnnotatorStat,
    CuesResult,
    LengthStatsRow,
    PmiResult,
    PremiseStatsRow,
    SubsetRow,
    TableFormat,
    TranslationStatsRow,
)
from nlibuild.render import counted, render_table


def render_agreement(rows: list[AgreementStat], fmt: TableFormat, ci: float | None) -> None:
    """Statistics down, groups across (all first); machines get one row per value."""
    if fmt in (TableFormat.JSON, TableFormat.CSV):
        columns = list(AgreementStat.model_fields)
        if fmt is TableFormat.JSON:
            out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        else:
            render_table(out, "", columns, [tuple(getattr(r, c) for c in columns) for r in rows],
                         fmt)  # fmt: skip
        return
    groups = list(dict.fromkeys(r.group for r in rows))
    cells: dict[tuple[str, str], str] = {}
    for r in rows:
        if r.value is None:
            text = "n.a."
        elif r.statistic in ("Fleiss' kappa", "Krippendorff's alpha (nominal)"):
            text = f"{r.value:.3f}"
        else:
            text = f"{r.value:.1%}"
        if r.low is not None and r.high is not None:
            scale = 1 if "kappa" in r.statistic or "alpha" in r.statistic else 100
            text += f" [{r.low * scale:.3g}, {r.high * scale:.3g}]"
        cells[(r.statistic, r.group)] = text
    statistics = list(dict.fromkeys(r.statistic for r in rows))
    counts = {r.group: r.denominator for r in rows if r.statistic == "all labels agree"}
    title = "Agreement over validated pairs" + (f" ({ci:.0%} bootstrap intervals)" if ci else "")
    render_table(
        out,
        title,
        ["statistic", *(f"{g} ({counts.get(g, 0)})" for g in groups)],
        [(name, *(cells.get((name, g), "") for g in groups)) for name in statistics],
        fmt,
    )


_CHECKS = ("empty", "untranslated", "roman_letters", "latin_script", "length_ratio",
           "same_as_premise", "duplicate", "label_mismatch")  # fmt: skip


def render_translation(rows: list[TranslationStatsRow], fmt: TableFormat) -> None:
    """Per language and kind, the units translated and the units each check flagged."""
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    render_table(
        out,
        "Translations and their checks (units)",
        ["lang", "kind", "translated", *_CHECKS],
        [(r.lang, r.kind, r.translated, *(r.checks.get(c, 0) for c in _CHECKS)) for r in rows],
        fmt,
    )


def render_annotators(
    rows: list[AnnotatorStat], fmt: TableFormat, sort: str, threshold: float
) -> None:
    columns = list(AnnotatorStat.model_fields)
    ordered = sorted(rows, key=lambda r: (getattr(r, sort) is None, getattr(r, sort)))
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in ordered) + "]", markup=False)
        return
    title = f"Annotators (flagged: agreement with gold under {threshold:.0%})"
    render_table(out, title, columns, [tuple(getattr(r, c) for c in columns) for r in ordered],
                 fmt, decimals=3)  # fmt: skip


def render_subsets(rows: list[SubsetRow], fmt: TableFormat, limit: float) -> None:
    """As in OCNLI Table 3, cells `pairs / mean length` for people; csv and json get one
    column per number."""
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    shares = ["c with negator", f"over {limit:.0%} overlap"]
    if fmt is TableFormat.CSV:
        fields = [f for f in SubsetRow.model_fields if f not in {"protocol", "lang", "unit"}]
        render_table(
            out, "", ["protocol", "lang", "unit", *fields],
            [(r.protocol, r.lang, r.unit, *(getattr(r, f) for f in fields)) for r in rows],
            fmt,
        )  # fmt: skip
        return

    def cell(pairs: int, mean: float | None) -> str:
        return "n.a." if not pairs else f"{pairs:,} / {mean:.1f}"

    def percent(share: float | None) -> str:
        return "" if share is None else f"{share:.1%}"

    render_table(
        out,
        "Subsets (OCNLI Table 3): pairs / mean hypothesis length",
        ["protocol", "lang", "unit", "total", "easy", "medium", "hard", *shares],
        [
            (r.protocol, r.lang, r.unit, cell(r.pairs, r.mean_length),
             cell(r.easy, r.easy_mean_length), cell(r.medium, r.medium_mean_length),
             cell(r.hard, r.hard_mean_length), percent(r.negated_contradictions),
             percent(r.over_overlap_limit))
            for r in rows
        ],
        fmt,
    )  # fmt: skip


def render_premises(rows: list[PremiseStatsRow], fmt: TableFormat) -> None:
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    columns = ["genre", "lang", "unit", "pool", "qualifying", "sampled", "mean", "min", "max",
               "histogram", "sampled mean"]  # fmt: skip
    render_table(
        out,
        "Premises and the sentence pool",
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


def render_lengths(rows: list[LengthStatsRow], fmt: TableFormat) -> None:
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in rows) + "]", markup=False)
        return
    render_table(
        out,
        "Mean lengths (XNLI Table 2): premises and hypotheses",
        ["lang", "kind", "unit", "premises", "premise mean", "hypotheses",
         "hypothesis mean"],
        [(r.lang, r.kind, r.unit, r.premises, r.premise_mean, r.hypotheses,
          r.hypothesis_mean) for r in rows],
        fmt,
        decimals=1,
    )  # fmt: skip


def _left_out(without_gold: int, untranslated: int, lang: str | None) -> str:
    parts = [f"{counted(without_gold, 'pair')} without a gold label left out"]
    if lang:
        parts.append(f"{counted(untranslated, 'pair')} without a {lang} translation left out")
    return "; ".join(parts)


def render_pmi(result: PmiResult, fmt: TableFormat, lang: str | None) -> None:
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in result.rows) + "]", markup=False)
        return
    if fmt is TableFormat.CSV:
        columns = list(result.rows[0].model_dump()) if result.rows else ["group_by", "group"]
        render_table(out, "", columns,
                     [tuple(r.model_dump().values()) for r in result.rows], fmt)  # fmt: skip
        return
    render_table(
        out,
        f"Top (word, label) pairs by PMI (OCNLI Table 8), {result.units}",
        ["group", "pairs", "word", "label", "PMI", "counts"],
        [(r.group if first else "", r.pairs if first else "", r.word, r.label, f"{r.pmi:.2f}",
          f"{r.count}/{r.word_count}")
         for r, first in zip(result.rows, _firsts([r.group for r in result.rows]), strict=True)],
        fmt,
    )  # fmt: skip
    if fmt is TableFormat.TABLE:
        out.print(
            f"{counted(result.pairs, 'pair')}; "
            f"{_left_out(result.without_gold, result.untranslated, lang)} "
            f"(run {result.run_id}, {result.signature})",
            markup=False,
        )


def _firsts(groups: list[str]) -> list[bool]:
    """Whether each row starts its group (the group is printed once, as in OCNLI Table 8)."""
    return [i == 0 or group != groups[i - 1] for i, group in enumerate(groups)]


_BIN_NAMES = [f"overlap {low:.1f}-{high:.1f}" for low, high in itertools.pairwise(OVERLAP_BINS)]


def render_cues(result: CuesResult, fmt: TableFormat, limit: float, lang: str | None) -> None:
    if fmt is TableFormat.JSON:
        out.print("[" + ",".join(r.model_dump_json() for r in result.rows) + "]", markup=False)
        return
    title = f"Cues per label: negators, overlap with the premise (limit {limit:.0%}), length"
    if fmt is TableFormat.CSV:
        render_table(
            out, title,
            ["group_by", "group", "label", "pairs", "negated", "mean_overlap",
             *(n.replace(" ", "_") for n in _BIN_NAMES), "over_limit", "mean_length", "unit"],
            [(r.group_by, r.group, r.label, r.pairs, r.negated, r.mean_overlap, *r.overlap_bins,
              r.over_limit, r.mean_length, r.unit) for r in result.rows],
            fmt,
        )  # fmt: skip
        return

    def percent(value: float | None) -> str:
        return "n.a." if value is None else f"{100 * value:.1f}"

    units = sorted({r.unit for r in result.rows})
    render_table(
        out,
        f"{title} (shares in %; histogram bins of overlap from "
        f"{', '.join(f'{low:.1f}' for low in OVERLAP_BINS[:-1])}; length in {'/'.join(units)})",
        ["group", "label", "pairs", "negator", "overlap", "histogram", ">limit", "length"],
        [(r.group if first else "", r.label, r.pairs, percent(r.negated),
          percent(r.mean_overlap), " ".join(f"{100 * b:.0f}" for b in r.overlap_bins),
          percent(r.over_limit), f"{r.mean_length:.1f}" if r.mean_length is not None else "")
         for r, first in zip(result.rows, _firsts([r.group for r in result.rows]), strict=True)],
        fmt,
    )  # fmt: skip
    if fmt is TableFormat.TABLE:
        if result.unchecked_langs:
            out.print(
                f"No negator lexicon for {', '.join(result.unchecked_langs)}: negators not "
                "counted there (add one with --negators).",
                markup=False,
            )
        out.print(
            f"{counted(result.pairs, 'pair')}; "
            f"{_left_out(result.without_gold, result.untranslated, lang)} "
            f"(run {result.run_id}, {result.signature})",
            markup=False,
        )
