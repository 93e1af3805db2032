"""`stats --table NAME`: tables about the corpus. Parses the table's options, calls its
stage function and hands the rows to its renderer (render_stats.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nlibuild.cli import render_stats
from nlibuild.cli.common import format_option, open_store, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.models import (
    DEFAULT_MAX_OVERLAP,
    AnnotatorStat,
    ArtifactGroup,
    ArtifactScope,
    CuesConfig,
    LengthUnit,
    PmiConfig,
    TableFormat,
    WordUnits,
)
from nlibuild.options import choice, first, preset_defaults, split_list

STATS_TABLES = (
    "premises",
    "subsets",
    "agreement",
    "annotators",
    "translation",
    "lengths",
    "pmi",
    "cues",
)


def stats(
    ctx: typer.Context,
    table: Annotated[
        str,
        typer.Option(
            "--table",
            help="Which table: premises, subsets, agreement, annotators, translation, lengths, "
            "pmi or cues.",
        ),
    ],
    min_len: Annotated[
        int | None, typer.Option(help="premises: shortest qualifying length (default 8).")
    ] = None,
    max_len: Annotated[
        int | None, typer.Option(help="premises: longest qualifying length (default 50).")
    ] = None,
    unit: Annotated[
        str | None, typer.Option(help="premises: length unit, auto, chars or tokens.")
    ] = None,
    max_overlap: Annotated[
        float | None, typer.Option(help="subsets: the overlap limit (default 0.70, OCNLI 3.2).")
    ] = None,
    negators: Annotated[
        list[Path] | None,
        typer.Option("--negators", help="subsets: more negators (resources/negators/ format)."),
    ] = None,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="agreement: also per protocol, level, genre and/or lang; pmi: one of "
            "protocol, level, genre, author; cues: one of those (default protocol).",
        ),
    ] = None,
    include_extra: Annotated[
        bool,
        typer.Option(help="agreement: extra labels are categories of kappa and alpha too."),
    ] = False,
    ci: Annotated[
        float | None, typer.Option(help="agreement: bootstrap interval at this level, e.g. 0.95.")
    ] = None,
    resamples: Annotated[int, typer.Option(help="agreement: bootstrap resamples.")] = 1000,
    seed: Annotated[int, typer.Option(help="agreement: bootstrap seed.")] = 13,
    threshold: Annotated[
        float, typer.Option(help="annotators: flag agreement with gold under this.")
    ] = 0.7,
    sort: Annotated[
        str, typer.Option(help="annotators: sort by this column (default agree_with_gold).")
    ] = "agree_with_gold",
    top: Annotated[int, typer.Option(help="pmi: (word, label) pairs per group.")] = 3,
    smoothing: Annotated[
        float, typer.Option(help="pmi: add-k smoothing of the counts (Gururangan et al. 2018).")
    ] = 100.0,
    min_count: Annotated[
        int, typer.Option(help="pmi: rank only words in at least this many pairs of a group.")
    ] = 20,
    units: Annotated[
        str | None,
        typer.Option(help="pmi: words (jieba for Chinese) or chars (default: the language's)."),
    ] = None,
    per_label: Annotated[
        bool, typer.Option("--per-label", help="pmi: the top words of each label.")
    ] = False,
    split: Annotated[
        list[str] | None,
        typer.Option("--split", help="pmi, cues: only pairs of these splits (e.g. train)."),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(help="pmi, cues: read the human translations into this language."),
    ] = None,
    format: Annotated[str, format_option()] = TableFormat.TABLE.value,
) -> None:
    """Tables about the corpus.

    premises: per genre, the pool, qualifying and sampled sentences, and the pool's lengths
    (mean, min, max, histogram).

    subsets: OCNLI's Table 3: per protocol, pairs and mean hypothesis length (characters
    for zh/ja/ko/th/my, else tokens) in total and per level (easy/medium/hard = the 1st/2nd/
    3rd hypothesis per premise and label); the share of contradictions (author's label)
    with a negator, and of pairs whose hypothesis overlaps its premise over the limit.

    agreement: SNLI/OCNLI's agreement table; validated = pairs with 2+ votes. Denominators:
    pairs relabelled / pairs with votes; all, 4+, 3+ labels agree / validated pairs;
    individual label = gold / votes of validated pairs with a gold label; individual label
    = author's label / validators' votes (the author's own left out); gold = author's,
    gold != author's, no gold / validated pairs; extra labels / votes of validated pairs;
    Fleiss' kappa and Krippendorff's alpha (nominal level, stated: the krippendorff
    package's default is interval) over validated pairs, extra labels left out unless
    --include-extra. Gold is the stored majority (aggregate-labels), else the same rule.

    lengths: XNLI's Table 2: per language (the pairs' own and every translation), the mean
    premise and hypothesis length in tokens, or characters for zh/ja/ko/th/my.

    translation: per language and kind, the units translated and the units each check of
    `translate import` flagged.

    annotators: per annotator, votes (as author, as validator), agreement with gold
    leaving their own vote out, for authors the share of their pairs whose gold is their
    label, elicitation violations, the Dawid-Skene reliability when computed.

    pmi: OCNLI's Table 8: for all pairs and per --by group, the top (word, label) pairs
    by PMI between a hypothesis word and the gold label, with counts "pairs with the word
    and the label / pairs with the word". Add-k smoothing (k = --smoothing) of the
    word-by-label table as in Gururangan et al. (2018); natural log. Words are case-folded
    Unicode word runs (Chinese: jieba; Japanese, Thai, Burmese: characters).

    cues: per group (--by, default protocol) and gold label: the share of hypotheses with
    a negator (the elicitation lexicons), the mean overlap with the premise and its
    histogram, the share over the overlap limit, and the mean length.

    The gold label of pmi and cues is the majority (aggregate-labels), else the corpus's
    released label, else the author's; pairs with '-' are left out."""
    with user_errors():
        fmt = choice(TableFormat, format, "--format")
        if table not in STATS_TABLES:
            raise ConfigError(f"--table {table!r} is not one of: {', '.join(STATS_TABLES)}")
        store = open_store(state_of(ctx))
        with store:
            if table == "subsets":
                from nlibuild.stages.stats import subset_stats

                limit = first(
                    max_overlap,
                    preset_defaults(store, "elicit").get("max_overlap"),
                    DEFAULT_MAX_OVERLAP,
                )
                subsets = subset_stats(store, limit, tuple(negators or ()))
            elif table == "agreement":
                from nlibuild.stages.stats import agreement_stats

                if ci is not None and not 0 < ci < 1:
                    raise ConfigError(f"--ci {ci}: give a level between 0 and 1, e.g. 0.95")
                agreement = agreement_stats(
                    store, split_list(by), include_extra, ci, resamples, seed
                )
            elif table == "pmi":
                from nlibuild.stages.artifacts import pmi_table

                scope = ArtifactScope(splits=split_list(split), lang=lang)
                pmi = pmi_table(
                    store,
                    PmiConfig(
                        by=artifact_group(by), top=top, smoothing=smoothing,
                        min_count=min_count, per_label=per_label,
                        units=choice(WordUnits, units, "--units") if units else None,
                        scope=scope,
                    ),
                )  # fmt: skip
            elif table == "cues":
                from nlibuild.stages.artifacts import cue_table

                limit = first(
                    max_overlap,
                    preset_defaults(store, "elicit").get("max_overlap"),
                    DEFAULT_MAX_OVERLAP,
                )
                cues = cue_table(
                    store,
                    CuesConfig(
                        by=artifact_group(by) or ArtifactGroup.PROTOCOL, max_overlap=limit,
                        negator_files=tuple(negators or ()),
                        scope=ArtifactScope(splits=split_list(split), lang=lang),
                    ),
                )  # fmt: skip
            elif table == "lengths":
                from nlibuild.stages.stats import length_stats

                lengths = length_stats(store)
            elif table == "translation":
                from nlibuild.stages.stats import translation_stats

                translation = translation_stats(store)
            elif table == "annotators":
                from nlibuild.stages.stats import annotator_stats

                if sort not in AnnotatorStat.model_fields:
                    fields = ", ".join(AnnotatorStat.model_fields)
                    raise ConfigError(f"--sort {sort!r} is not one of: {fields}")
                annotators = annotator_stats(store, threshold)
            else:
                from nlibuild.stages.stats import premise_stats

                defaults = preset_defaults(store, "sample")
                premises = premise_stats(
                    store,
                    first(min_len, defaults.get("min_len"), 8),
                    first(max_len, defaults.get("max_len"), 50),
                    choice(LengthUnit, unit or defaults.get("unit", "auto"), "--unit"),
                )
    if table == "pmi":
        render_stats.render_pmi(pmi, fmt, lang)
    elif table == "cues":
        render_stats.render_cues(cues, fmt, limit, lang)
    elif table == "subsets":
        render_stats.render_subsets(subsets, fmt, limit)
    elif table == "agreement":
        render_stats.render_agreement(agreement, fmt, ci)
    elif table == "annotators":
        render_stats.render_annotators(annotators, fmt, sort, threshold)
    elif table == "translation":
        render_stats.render_translation(translation, fmt)
    elif table == "lengths":
        render_stats.render_lengths(lengths, fmt)
    else:
        render_stats.render_premises(premises, fmt)


def artifact_group(values: list[str] | None, option: str = "--by") -> ArtifactGroup | None:
    """One of protocol, level, genre, author (or none)."""
    chosen = split_list(values)
    if len(chosen) > 1:
        raise ConfigError(
            f"{option} {','.join(chosen)}: give one of protocol, level, genre, author"
        )
    return choice(ArtifactGroup, chosen[0], option) if chosen else None
