"""`nlibuild stats`: tables that describe the corpus: premises, subsets, agreement, annotators.

Premises: per genre and language of the sentence pool, the pool's size, how many of its
sentences qualify for sampling (length within the range, not yet a premise), how many were
sampled, and the pool's length distribution (mean, min, max, and a histogram over
`HISTOGRAM_BINS` equal-width bins between its min and max).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from nlibuild.agreement import estimates, pair_parts
from nlibuild.errors import ConfigError
from nlibuild.lang import length_unit, negator_lexicon, overlap_ratio, text_length
from nlibuild.models import (
    NLI_LABELS,
    AgreementStat,
    AnnotatorStat,
    Label,
    LengthStatsRow,
    LengthUnit,
    Level,
    PremiseStatsRow,
    SubsetRow,
    TranslationStatsRow,
)
from nlibuild.queries.votes import read_votes
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


# --- agreement (SNLI Table 3, OCNLI Tables 4 and 10) and annotators ----------------------

AGREEMENT_GROUPS = ("protocol", "level", "genre", "lang")


def agreement_stats(
    store: Store,
    by: tuple[str, ...] = (),
    include_extra: bool = False,
    ci: float | None = None,
    resamples: int = 1000,
    seed: int = 13,
    min_agree: int = 3,
) -> list[AgreementStat]:
    """Every agreement statistic over all pairs with votes, then per group of `by`.

    Gold is the stored majority (`aggregate-labels`), or the same rule computed here."""
    unknown = [b for b in by if b not in AGREEMENT_GROUPS]
    if unknown:
        raise ConfigError(f"--by {unknown[0]!r} is not one of: {', '.join(AGREEMENT_GROUPS)}")
    votes = read_votes(store, min_agree, annotators=False)
    parts = pair_parts(votes.table, include_extra)
    groups: list[tuple[str, NDArray[np.bool_] | None]] = [("all", None)]
    if by:
        facet_pks, codes_by_column, values = store.pair_groups(by)
        # One number per combination of values: the codes of the columns, mixed radix.
        combined = np.zeros(len(facet_pks), dtype=np.int64)
        for codes, found in zip(codes_by_column, values, strict=True):
            combined = combined * len(found) + codes
        per_vote_pair = combined[np.searchsorted(facet_pks, votes.pair_pks)]
        for number in np.unique(per_vote_pair):
            parts_of_name, rest = [], int(number)
            for column, found in reversed(list(zip(by, values, strict=True))):
                rest, code = divmod(rest, len(found))
                value = found[code]
                parts_of_name.append(f"{column}={value if value is not None else '-'}")
            groups.append((",".join(reversed(parts_of_name)), per_vote_pair == number))
        groups[1:] = sorted(groups[1:], key=lambda group: group[0])
    rows = []
    for name, mask in groups:
        for estimate in estimates(parts, mask, ci, resamples, seed):
            rows.append(
                AgreementStat(
                    statistic=estimate.statistic,
                    group=name,
                    value=estimate.value,
                    numerator=estimate.numerator,
                    denominator=estimate.denominator,
                    low=estimate.low,
                    high=estimate.high,
                )
            )
    return rows


def annotator_stats(
    store: Store, threshold: float = 0.7, min_agree: int = 3
) -> list[AnnotatorStat]:
    """Per annotator: votes, as author and as validator; agreement with the gold label
    computed without their own vote (leave-one-out: the majority rule over the pair's other
    votes, on validated pairs where that has a gold label); for authors, the share of their
    validated pairs whose gold is their label; elicitation violations; the Dawid-Skene
    reliability when computed. `flagged` when the leave-one-out agreement is under
    `threshold`."""
    read = read_votes(store, min_agree)
    items = read.items
    labels = read.votes.codes
    annotators = read.votes.annotator_pks
    positions = read.votes.positions
    counts = read.table.counts
    totals = counts.sum(axis=1)
    gold = read.table.gold
    # Leave one out: the pair's counts without this vote, through the same rule.
    without = counts[items].copy()
    without[np.arange(len(labels)), labels] -= 1
    others = without.sum(axis=1)
    nli = without[:, : len(NLI_LABELS)]
    top = nli.max(axis=1)
    unique = (nli == top[:, None]).sum(axis=1) == 1
    needed = np.minimum(min_agree, others)  # 4 other votes: 3 must agree, as for 5
    loo_gold = np.where(unique & (top >= np.maximum(needed, 1)) & (others >= 2), nli.argmax(1), -1)
    validated = totals[items] >= 2
    judged = validated & (loo_gold >= 0)
    agrees = judged & (loo_gold == labels)
    authored = positions == 0
    author_judged = authored & validated & (gold[items] >= 0)
    author_agrees = author_judged & (gold[items] == labels)
    ids = store.annotator_ids()
    violations = store.violations_per_annotator()
    reliability = store.reliabilities("dawid-skene")
    rows = []
    for pk in np.unique(annotators):
        mine = annotators == pk
        annotator = ids[int(pk)]
        judged_n = int((mine & judged).sum())
        author_n = int((mine & author_judged).sum())
        agree = float((mine & agrees).sum()) / judged_n if judged_n else None
        rows.append(
            AnnotatorStat(
                annotator=annotator,
                votes=int(mine.sum()),
                authored=int((mine & authored).sum()),
                validated=int((mine & ~authored).sum()),
                agree_with_gold=agree,
                agree_pairs=judged_n,
                author_gold=float((mine & author_agrees).sum()) / author_n if author_n else None,
                author_pairs=author_n,
                violations=violations.get(annotator, 0),
                reliability=reliability.get(annotator),
                flagged=agree is not None and agree < threshold,
            )
        )
    return rows


def translation_stats(store: Store) -> list[TranslationStatsRow]:
    """Per language and kind of translation: units translated and what each check found
    (`translate import`)."""
    checks: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for lang, kind, check, units in store.translation_check_counts():
        checks[(lang, kind)][check] = units
    rows = [
        TranslationStatsRow(lang=lang, kind=kind, translated=n, checks=checks.pop((lang, kind), {}))
        for lang, kind, n in store.translation_counts()
    ]
    rows += [
        TranslationStatsRow(lang=lang, kind=kind, translated=0, checks=found)
        for (lang, kind), found in sorted(checks.items())
    ]
    return rows


def length_stats(store: Store) -> list[LengthStatsRow]:
    """XNLI's Table 2 from the store: per language, the mean premise and hypothesis length
    (whitespace tokens, or characters where that is the unit), for the pairs' own
    language(s) and for every translation (human and mt apart). Each premise counts once."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    units = [(unit_id, lang, "source", text) for unit_id, lang, text in store.source_units()]
    for kind in ("human", "mt"):
        units += [(u, lang, kind, text) for u, lang, text in store.translated_units(kind)]
    for unit_id, lang, kind, text in units:
        totals = sums[(lang, kind)]
        offset = 0 if unit_id.startswith("p:") else 2
        totals[offset] += 1
        totals[offset + 1] += text_length(text, lang)
    return [
        LengthStatsRow(
            lang=lang,
            kind=kind,
            unit=length_unit(lang),
            premises=t[0],
            premise_mean=t[1] / t[0] if t[0] else None,
            hypotheses=t[2],
            hypothesis_mean=t[3] / t[2] if t[2] else None,
        )
        for (lang, kind), t in sorted(
            sums.items(), key=lambda item: (item[0][1] != "source", item[0])
        )
    ]
