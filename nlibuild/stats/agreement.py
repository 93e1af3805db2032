"""`stats --table agreement`: SNLI's and OCNLI's agreement table, over all pairs with
votes and per group (--by); the statistics themselves are nlibuild/labelling/agreement.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from nlibuild.errors import ConfigError
from nlibuild.labelling.majority_rule import MajorityRule, majority_rule
from nlibuild.models import SEED_LIMIT, AgreementStat, TableFormat
from nlibuild.render import render_table
from nlibuild.stats import Fact, StatsOptions, StatsTable, render_rows, rule_facts
from nlibuild.store import Store

if TYPE_CHECKING:
    from numpy import int64
    from numpy.typing import NDArray

AGREEMENT_GROUPS = ("protocol", "level", "genre", "lang")


@dataclass(frozen=True)
class AgreementSettings:
    by: tuple[str, ...]
    include_extra: bool
    ci: float | None
    resamples: int
    seed: int
    rule: MajorityRule
    """The rule for pairs without stored gold: the store's own (`majority_rule`)."""


def agreement_settings(options: StatsOptions, store: Store) -> AgreementSettings:
    if options.ci is not None and not 0 < options.ci < 1:
        raise ConfigError(f"--ci {options.ci}: give a level between 0 and 1, e.g. 0.95")
    if not 0 <= options.seed < SEED_LIMIT:  # the bootstrap's seed, as the stages bound theirs
        raise ConfigError(f"--seed {options.seed}: give a whole number from 0 to {SEED_LIMIT - 1}")
    return AgreementSettings(
        options.by,
        options.include_extra,
        options.ci,
        options.resamples,
        options.seed,
        majority_rule(store),
    )


def compute_agreement(store: Store, settings: AgreementSettings) -> list[AgreementStat]:
    return agreement_stats(
        store, settings.by, settings.include_extra, settings.ci, settings.resamples,
        settings.seed, settings.rule.min_agree,
    )  # fmt: skip


def rule_note(settings: AgreementSettings) -> str:
    """What `stats` says on stderr: the rule applied where no gold is stored."""
    return f"pairs without stored gold get the majority rule: {settings.rule.text()}"


def agreement_facts(rows: object, settings: AgreementSettings) -> list[Fact]:
    """The note's majority rule, and with --ci the title's interval level and what the
    bootstrap drew (`low` and `high` rest on them)."""
    interval: list[Fact] = []
    if settings.ci is not None:
        interval = [("ci", settings.ci), ("resamples", settings.resamples),
                    ("seed", settings.seed)]  # fmt: skip
    return [*interval, *rule_facts(settings.rule)]


def agreement_stats(
    store: Store,
    by: tuple[str, ...] = (),
    include_extra: bool = False,
    ci: float | None = None,
    resamples: int = 1000,
    seed: int = 13,
    min_agree: int | float | None = None,
) -> list[AgreementStat]:
    """Every agreement statistic over all pairs with votes, then per group of `by`.

    Gold is the stored majority (`aggregate-labels`), or for pairs it has not reached the
    same rule computed here with `min_agree`, by default the store's own (`majority_rule`)."""
    # numpy loads here, not at import: `nlibuild --help` imports every table.
    import numpy as np

    from nlibuild.labelling.agreement import VoteTable, collapsed, estimates, pair_parts
    from nlibuild.queries.pair_labels import pair_label_table
    from nlibuild.queries.votes import read_votes

    unknown = [b for b in by if b not in AGREEMENT_GROUPS]
    if unknown:
        raise ConfigError(f"--by {unknown[0]!r} is not one of: {', '.join(AGREEMENT_GROUPS)}")
    if min_agree is None:
        min_agree = majority_rule(store).min_agree
    # One narrow row a pair (schema 9) where that is exact, else every vote.
    votes = pair_label_table(store, min_agree, include_extra) or read_votes(
        store, min_agree, annotators=False
    )
    group_of_pair = np.zeros(len(votes.pair_pks), dtype=np.int64)
    names: dict[int, str] = {}
    if by:
        group_of_pair, names = _groups_of_pairs(store, by, votes.pair_pks)
    # Every statistic is a sum over pairs: the distinct rows, weighted, give the values.
    table, group_of_row, multiplicity = collapsed(votes.table, group_of_pair)
    parts = pair_parts(table, include_extra)
    # The bootstrap resamples pairs, so its intervals need every pair's own row; and as it
    # draws pairs by position, the rows go in the order of the pairs' IDs, not of their keys
    # (the import order), so that the same pairs give the same intervals.
    pair_rows, group_of_drawn = None, group_of_pair
    if ci is not None:
        order = _id_order(store, votes.pair_pks)
        table = votes.table
        by_id = VoteTable(table.counts[order], table.author[order], table.gold[order], table.nli)
        pair_rows, group_of_drawn = pair_parts(by_id, include_extra), group_of_pair[order]
    rows = []
    for code, name in [(None, "all"), *sorted(names.items(), key=lambda item: item[1])]:
        mask = None if code is None else group_of_row == code
        values = estimates(parts, mask, multiplicity=multiplicity)
        intervals = values
        if pair_rows is not None:
            pairs_mask = None if code is None else group_of_drawn == code
            intervals = estimates(pair_rows, pairs_mask, ci, resamples, seed)
        for estimate, interval in zip(values, intervals, strict=True):
            rows.append(
                AgreementStat(
                    statistic=estimate.statistic,
                    group=name,
                    value=estimate.value,
                    numerator=estimate.numerator,
                    denominator=estimate.denominator,
                    low=interval.low,
                    high=interval.high,
                )
            )
    return rows


def _id_order(store: Store, pair_pks: NDArray[int64]) -> NDArray[int64]:
    """The positions of `pair_pks` sorted by the pairs' public IDs."""
    import numpy as np

    from nlibuild.queries.pairs import pair_keys_by_id

    by_id = pair_keys_by_id(store)
    # Pair keys are dense integers: each key's rank among the IDs, by a lookup table.
    rank = np.zeros(max(int(by_id.max(initial=0)), int(pair_pks.max(initial=0))) + 1, np.int64)
    rank[by_id] = np.arange(len(by_id))
    return np.argsort(rank[pair_pks], kind="stable")


def _groups_of_pairs(
    store: Store, by: tuple[str, ...], pair_pks: NDArray[int64]
) -> tuple[NDArray[int64], dict[int, str]]:
    """Per pair (in `pair_pks` order) the code of its combination of `by` values, and the
    name of each code present (`genre=fiction,level=easy`)."""
    import numpy as np

    from nlibuild.queries.pairs import pair_groups

    facet_pks, codes_by_column, values = pair_groups(store, by)
    # One number per combination of values: the codes of the columns, mixed radix.
    combined = np.zeros(len(facet_pks), dtype=np.int64)
    for codes, found in zip(codes_by_column, values, strict=True):
        combined = combined * len(found) + codes
    # Pair keys are dense integers: a lookup table by key instead of a binary search.
    by_key = np.zeros(int(facet_pks.max(initial=0)) + 1, dtype=np.int64)
    by_key[facet_pks] = combined
    group_of_pair = by_key[pair_pks]
    names = {}
    for number in np.unique(group_of_pair):
        parts_of_name, rest = [], int(number)
        for column, found in reversed(list(zip(by, values, strict=True))):
            rest, code = divmod(rest, len(found))
            value = found[code]
            parts_of_name.append(f"{column}={value if value is not None else '-'}")
        names[int(number)] = ",".join(reversed(parts_of_name))
    return group_of_pair, names


def render_agreement(
    rows: list[AgreementStat], settings: AgreementSettings, fmt: TableFormat, out: Console
) -> None:
    """Statistics down, groups across (all first); csv gets one row per value."""
    if fmt is TableFormat.CSV:
        columns = list(AgreementStat.model_fields)
        values = [tuple(getattr(r, c) for c in columns) for r in rows]
        render_rows(out, "", columns, values, fmt, agreement_facts(rows, settings))
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
    title = "Agreement over validated pairs" + (
        f" ({settings.ci:.0%} bootstrap intervals)" if settings.ci else ""
    )
    render_table(
        out,
        title,
        ["statistic", *(f"{g} ({counts.get(g, 0)})" for g in groups)],
        [(name, *(cells.get((name, g), "") for g in groups)) for name in statistics],
        fmt,
    )


TABLE = StatsTable(
    name="agreement",
    rank=30,
    help="SNLI/OCNLI's agreement table; validated = pairs with 2+ votes. Denominators: "
    "pairs relabelled / pairs with votes; all, 4+, 3+ labels agree / validated pairs; "
    "individual label = gold / votes of validated pairs with a gold label; individual label "
    "= author's label / validators' votes (the author's own left out); gold = author's, "
    "gold != author's / validated pairs with an author's label (n.a. when none has one); no "
    "gold / validated pairs; extra labels / votes of validated pairs; "
    "Fleiss' kappa and Krippendorff's alpha (nominal level, stated: the krippendorff "
    "package's default is interval) over validated pairs, extra labels left out unless "
    "--include-extra. Gold is the stored majority (aggregate-labels), else the same rule "
    "with the --min-agree of the store's latest aggregate-labels run (else the preset's "
    "[aggregate]), named on stderr.",
    options=frozenset({"by", "include_extra", "ci", "resamples", "seed"}),
    settings=agreement_settings,
    compute=compute_agreement,
    render=render_agreement,
    note=rule_note,
    facts=agreement_facts,
)
