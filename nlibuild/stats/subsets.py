"""`stats --table subsets`: OCNLI's Table 3 from the store: per protocol (and language),
pairs and mean hypothesis length in total and per level, the share of contradictions with
a negator and of pairs whose hypothesis overlaps its premise over the limit."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from nlibuild.lang import length_unit, overlap_ratio, text_length
from nlibuild.models import ElicitImportConfig, Label, Level, SubsetRow, TableFormat
from nlibuild.negators import negator_lexicon
from nlibuild.options import preset_of, preset_origin
from nlibuild.presets import preset_settings
from nlibuild.render import render_table
from nlibuild.stats import StatsOptions, StatsTable, print_json_rows
from nlibuild.store import Store


@dataclass(frozen=True)
class SubsetsSettings:
    max_overlap: float
    negator_files: tuple[Path, ...]


def overlap_limit(options: StatsOptions, store: Store) -> float:
    """The limit `elicit import` checks against (subsets, cues): --max-overlap, else the
    preset's [elicit] max_overlap, else the model's (OCNLI's 0.70)."""
    if options.max_overlap is not None:
        return options.max_overlap
    preset = preset_of(store)
    elicit = preset_settings(ElicitImportConfig, preset, "elicit", preset_origin(store))
    return float(elicit.get("max_overlap", ElicitImportConfig.model_fields["max_overlap"].default))


def subsets_settings(options: StatsOptions, store: Store) -> SubsetsSettings:
    return SubsetsSettings(overlap_limit(options, store), options.negators)


def compute_subsets(store: Store, settings: SubsetsSettings) -> list[SubsetRow]:
    return subset_stats(store, settings.max_overlap, settings.negator_files)


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


def render_subsets(
    rows: list[SubsetRow], settings: SubsetsSettings, fmt: TableFormat, out: Console
) -> None:
    """As in OCNLI Table 3, cells `pairs / mean length` for people; csv and json get one
    column per number."""
    if fmt is TableFormat.JSON:
        print_json_rows(rows, out)
        return
    shares = ["c with negator", f"over {settings.max_overlap:.0%} overlap"]
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


TABLE = StatsTable(
    name="subsets",
    rank=20,
    help="OCNLI's Table 3: per protocol, pairs and mean hypothesis length (characters "
    "for zh/ja/ko/th/my, else tokens) in total and per level (easy/medium/hard = the 1st/2nd/"
    "3rd hypothesis per premise and label); the share of contradictions (author's label) "
    "with a negator, and of pairs whose hypothesis overlaps its premise over the limit.",
    options=frozenset({"max_overlap", "negators"}),
    settings=subsets_settings,
    compute=compute_subsets,
    render=render_subsets,
)
