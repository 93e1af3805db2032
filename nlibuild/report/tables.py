"""The report's own arrangement of `stats` rows: the agreement table wide (a row a group of
pairs, a column a statistic, as SNLI's and OCNLI's agreement tables print it), it and the cue
table without a group that is every pair again, the gold labels adding up to every pair, and
what the page warns of (stale gold)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from nlibuild.models import AgreementStat, CountRow, CueRow
from nlibuild.report.html import Label

ALL = "all"

_CHANCE_CORRECTED = ("Fleiss' kappa", "Krippendorff's alpha (nominal)")
"""Statistics that are coefficients (shown as 0.562), not shares (shown as 88.9%)."""

NO_GOLD = "no gold label (no votes, or added after the last aggregate-labels)"
"""The row of the pairs no gold reached: the gold table adds up to every pair."""

NO_MAJORITY = "-"
"""The gold label `aggregate-labels` writes where no label reached the majority."""


Block = TypeVar("Block", bound=Hashable)


def informative_groups(rows: Sequence[AgreementStat]) -> list[str]:
    """The groups worth a row: "all" first, then every group that is not all of the pairs
    again (a released corpus has no protocol or level: its one group `protocol=-,level=-`
    holds every pair and says what "all" says)."""
    sizes: dict[str, dict[Hashable, int]] = defaultdict(dict)
    for row in rows:
        sizes[row.group][row.statistic] = row.denominator
    return _not_all_again(sizes, ALL)


def _not_all_again(sizes: Mapping[Block, Mapping[Hashable, int]], everything: Block) -> list[Block]:
    """Of blocks of rows (each its pairs counted per row key), "all" and those whose counts
    differ from its: a block counting the same pairs on every row is every pair again."""
    every = sizes.get(everything)
    return [block for block in sizes if block == everything or sizes[block] != every]


def informative_cue_rows(rows: Sequence[CueRow]) -> list[CueRow]:
    """The cue table's rows worth showing, by `informative_groups`' rule: every pair's
    ("all", per language where there are several: `all (ko)`), then each group that is not
    every pair again, in every language (all pairs of one protocol: `protocol -` is "all")."""
    suffixes = sorted({row.group.removeprefix(ALL) for row in rows if row.group_by == ALL},
                      key=len, reverse=True)  # fmt: skip

    def block_and_key(row: CueRow) -> tuple[tuple[str, str], tuple[str, str]]:
        # A group's name ends in its language (`- (ko)`) where the rows hold several.
        suffix = next((s for s in suffixes if s and row.group.endswith(s)), "")
        name = row.group.removesuffix(suffix) if suffix else row.group
        return (row.group_by, name), (suffix, row.label)

    sizes: dict[tuple[str, str], dict[Hashable, int]] = defaultdict(dict)
    for row in rows:
        block, key = block_and_key(row)
        sizes[block][key] = row.pairs
    kept = set(_not_all_again(sizes, (ALL, ALL)))
    return [row for row in rows if block_and_key(row)[0] in kept]


def agreement_columns(rows: Sequence[AgreementStat]) -> list[str]:
    """group, pairs, validated, then one column a statistic, in `stats`' order."""
    statistics = list(dict.fromkeys(row.statistic for row in rows))
    return ["group", "pairs", "validated", *statistics]


def agreement_wide(rows: Sequence[AgreementStat]) -> list[list[Any]]:
    """One row a group (`informative_groups`): its pairs and validated pairs as integers,
    then each statistic: a share with its count (`88.9% (16 of 18)`), or a coefficient,
    and the bootstrap interval where computed; "n.a." where nothing was there to count."""
    statistics = agreement_columns(rows)[3:]
    cells = {(row.group, row.statistic): row for row in rows}
    table = []
    for group in informative_groups(rows):
        relabelled = cells.get((group, "pairs relabelled"))
        pairs = relabelled.denominator if relabelled else 0
        validated = cells.get((group, "all labels agree"))
        # `protocol=X, level=Y`: the name wraps at its comma in a narrow column.
        shown = group.replace(",", ", ")
        line: list[Any] = [shown, pairs, validated.denominator if validated else 0]
        line += [_statistic_text(cells.get((group, name))) for name in statistics]
        table.append(line)
    return table


def _statistic_text(row: AgreementStat | None) -> str:
    if row is None or row.value is None:
        return "n.a."
    if row.statistic in _CHANCE_CORRECTED:
        text = f"{row.value:.3f}"
        if row.low is not None and row.high is not None:
            text += f" [{row.low:.3f}, {row.high:.3f}]"
        return text
    text = f"{row.value:.1%}"
    if row.numerator is not None:
        text += f" ({round(row.numerator)} of {row.denominator})"
    if row.low is not None and row.high is not None:
        text += f" [{row.low:.1%}, {row.high:.1%}]"
    return text


def gold_rows(by_gold_label: Sequence[CountRow], pairs: int) -> list[tuple[Any, int]]:
    """The gold table adding up to every pair: each label, the pairs without a majority
    (`-`), the pairs no gold reached yet (not relabelled, or added after the last
    `aggregate-labels`), and the total."""
    rows: list[tuple[Any, int]] = []
    for row in by_gold_label:
        shown = "no majority (-)" if row.key == NO_MAJORITY else None
        rows.append((Label(row.key, shown), row.count))
    with_gold = sum(row.count for row in by_gold_label)
    if pairs > with_gold:
        rows.append((NO_GOLD, pairs - with_gold))
    rows.append(("total", pairs))
    return rows
