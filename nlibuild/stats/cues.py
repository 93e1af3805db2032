"""`stats --table cues`: per group and gold label, the share of hypotheses with a
negator, the mean overlap with the premise and its histogram, the share over the overlap
limit and the mean length; computed by `cue_table` (stages/artifacts.py), which records
a run."""

from __future__ import annotations

import itertools

from rich.console import Console

from nlibuild.models import (
    OVERLAP_BINS,
    ArtifactGroup,
    ArtifactScope,
    CuesConfig,
    CuesResult,
    TableFormat,
)
from nlibuild.render import render_table
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows
from nlibuild.stats.artifact_parts import artifact_groups, group_name, group_starts
from nlibuild.stats.subsets import overlap_rule
from nlibuild.store import Store


def cues_settings(options: StatsOptions, store: Store) -> CuesConfig:
    overlap = overlap_rule(options, store)
    return CuesConfig(
        by=artifact_groups(options.by) or (ArtifactGroup.PROTOCOL,),
        max_overlap=overlap.max_overlap,
        overlap_measure=overlap.measure,
        overlap_units=overlap.units,
        negator_files=options.negators,
        scope=ArtifactScope(splits=options.split, lang=options.lang),
    )


def compute_cues(store: Store, settings: CuesConfig) -> CuesResult:
    # polars and scikit-learn load here, not at import: `nlibuild --help` imports every table.
    from nlibuild.invoke import invoke
    from nlibuild.stages.artifacts import CUES_STAGE

    return invoke(CUES_STAGE, store, **dict(settings)).result


# csv keys of the overlap histogram's bins, bounds in percent: `overlap_40_60` (snake_case,
# as every key of a machine format).
_BIN_NAMES = [
    f"overlap_{100 * low:.0f}_{100 * high:.0f}" for low, high in itertools.pairwise(OVERLAP_BINS)
]


def cues_facts(result: CuesResult, settings: CuesConfig) -> list[Fact]:
    """The title's overlap measure and limit, which `mean_overlap` and `over_limit` are of
    (each row carries the unit overlap is counted in, `overlap_unit`: it is the language's)."""
    return [("overlap_measure", settings.overlap_measure.value),
            ("max_overlap", settings.max_overlap)]  # fmt: skip


def render_cues(result: CuesResult, settings: CuesConfig, fmt: TableFormat, out: Console) -> None:
    limit = settings.max_overlap
    measure = settings.overlap_measure.value
    title = f"Cues per label: negators, {measure} overlap (limit {limit:.0%}), length"
    if fmt is TableFormat.CSV:
        render_rows(
            out, title,
            ["group_by", "group", "label", "pairs", "negated", "mean_overlap",
             *_BIN_NAMES, "over_limit", "overlap_unit", "mean_length", "unit"],
            [(r.group_by, r.group, r.label, r.pairs, r.negated, r.mean_overlap, *r.overlap_bins,
              r.over_limit, r.overlap_unit, r.mean_length, r.unit) for r in result.rows],
            fmt, cues_facts(result, settings),
        )  # fmt: skip
        return

    def percent(value: float | None) -> str:
        return "n.a." if value is None else f"{100 * value:.1f}"

    starts = group_starts([(r.group_by, r.group) for r in result.rows])
    several = len(settings.by)
    units = sorted({r.unit for r in result.rows})
    counted_in = "/".join(sorted({r.overlap_unit for r in result.rows})) or "words"
    render_table(
        out,
        f"{title} (shares in %; overlap counted in {counted_in}; histogram bins of overlap from "
        f"{', '.join(f'{low:.1f}' for low in OVERLAP_BINS[:-1])}; length in {'/'.join(units)})",
        ["group", "label", "pairs", "negator", "overlap", "histogram", ">limit", "length"],
        [(group_name(r.group_by, r.group, several) if first else "", r.label, r.pairs,
          percent(r.negated),
          percent(r.mean_overlap), " ".join(f"{100 * b:.0f}" for b in r.overlap_bins),
          percent(r.over_limit), f"{r.mean_length:.1f}" if r.mean_length is not None else "")
         for r, first in zip(result.rows, starts, strict=True)],
        fmt,
    )  # fmt: skip
    if fmt is TableFormat.TABLE:
        if result.unchecked_langs:
            out.print(
                f"No negator lexicon for {', '.join(result.unchecked_langs)}: negators not "
                "counted there (add one with --negators).",
                markup=False,
            )
        from nlibuild.stages.artifacts import CUES_STAGE

        out.print(CUES_STAGE.summary(settings, result), markup=False)


TABLE = StatsTable(
    name="cues",
    rank=80,
    help="per group (--by, default protocol; a list: one section per grouping) and gold "
    "label: the share of hypotheses with a negator (the elicitation lexicons), the mean "
    "overlap with the premise and its "
    "histogram, the share over the overlap limit, and the mean length. The gold label is "
    "the majority (aggregate-labels), else the corpus's released label, else the author's; "
    "pairs with '-' are left out.",
    options=frozenset({"by", "max_overlap", "overlap_measure", "negators", "split", "lang"}),
    settings=cues_settings,
    compute=compute_cues,
    render=render_cues,
    rows=lambda result, settings: result.rows,
    facts=cues_facts,
)
