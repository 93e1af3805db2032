"""`stats --table pmi`: OCNLI's Table 8, the top (word, label) pairs by PMI between a
hypothesis word and the gold label; computed by `pmi_table` (stages/artifacts.py), which
records a run."""

from __future__ import annotations

from rich.console import Console

from nlibuild.models import ArtifactScope, PmiConfig, PmiResult, PmiRow, TableFormat, WordUnits
from nlibuild.options import choice
from nlibuild.render import render_table
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows
from nlibuild.stats.artifact_parts import artifact_groups, group_name, group_starts
from nlibuild.store import Store


def pmi_settings(options: StatsOptions, store: Store) -> PmiConfig:
    top = {} if options.top is None else {"top": options.top}
    return PmiConfig(
        **top,
        by=artifact_groups(options.by),
        smoothing=options.smoothing,
        min_count=options.min_count,
        per_label=options.per_label,
        units=choice(WordUnits, options.units, "--units") if options.units else None,
        scope=ArtifactScope(splits=options.split, lang=options.lang),
    )


def compute_pmi(store: Store, settings: PmiConfig) -> PmiResult:
    # polars and scikit-learn load here, not at import: `nlibuild --help` imports every table.
    from nlibuild.invoke import invoke
    from nlibuild.stages.artifacts import PMI_STAGE

    return invoke(PMI_STAGE, store, **dict(settings)).result


def pmi_facts(result: PmiResult, settings: PmiConfig) -> list[Fact]:
    """What a PMI value rests on: the words counted (the title's units), the add-k
    smoothing and the fewest pairs a ranked word is in; at the default k = 100 a small
    corpus's PMIs are all near 0, so a number without its k misleads."""
    return [("units", result.units), ("smoothing", settings.smoothing),
            ("min_count", settings.min_count)]  # fmt: skip


def render_pmi(result: PmiResult, settings: PmiConfig, fmt: TableFormat, out: Console) -> None:
    if fmt is TableFormat.CSV:
        columns = list(PmiRow.model_fields)
        render_rows(out, "", columns, [tuple(getattr(r, c) for c in columns) for r in result.rows],
                    fmt, pmi_facts(result, settings))  # fmt: skip
        return
    starts = group_starts([(r.group_by, r.group) for r in result.rows])
    several = len(settings.by)
    render_table(
        out,
        f"Top (word, label) pairs by PMI (OCNLI Table 8), {result.units}; add-"
        f"{settings.smoothing:g} smoothing, words in {settings.min_count}+ pairs",
        ["group", "pairs", "word", "label", "PMI", "counts"],
        [(group_name(r.group_by, r.group, several) if first else "", r.pairs if first else "",
          r.word, r.label, f"{r.pmi:.2f}",
          f"{r.count}/{r.word_count}")
         for r, first in zip(result.rows, starts, strict=True)],
        fmt,
    )  # fmt: skip
    if fmt is TableFormat.TABLE:
        from nlibuild.stages.artifacts import PMI_STAGE

        out.print(PMI_STAGE.summary(settings, result), markup=False)


TABLE = StatsTable(
    name="pmi",
    rank=70,
    help="OCNLI's Table 8: for all pairs and per group of each --by grouping (a list: one "
    "section per grouping), the top (word, label) pairs "
    'by PMI between a hypothesis word and the gold label, with counts "pairs with the word '
    'and the label / pairs with the word". Add-k smoothing (k = --smoothing) of the '
    "word-by-label table as in Gururangan et al. (2018); natural log. Words are case-folded "
    "Unicode word runs (Chinese: jieba; Japanese, Thai, Burmese: characters). The gold label "
    "is the majority (aggregate-labels), else the corpus's released label, else the "
    "author's; pairs with '-' are left out.",
    options=frozenset(
        {"by", "top", "smoothing", "min_count", "units", "per_label", "split", "lang"}
    ),
    settings=pmi_settings,
    compute=compute_pmi,
    render=render_pmi,
    rows=lambda result, settings: result.rows,
    facts=pmi_facts,
)
