"""`stats --table agreement`: SNLI's and OCNLI's agreement table, over all pairs with
votes and per group (--by); the statistics themselves are nlibuild/agreement.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from nlibuild.errors import ConfigError
from nlibuild.models import AgreementStat, TableFormat
from nlibuild.render import render_table
from nlibuild.stats import StatsOptions, StatsTable, print_json_rows
from nlibuild.store import Store

if TYPE_CHECKING:
    from numpy import bool_
    from numpy.typing import NDArray

AGREEMENT_GROUPS = ("protocol", "level", "genre", "lang")


@dataclass(frozen=True)
class AgreementSettings:
    by: tuple[str, ...]
    include_extra: bool
    ci: float | None
    resamples: int
    seed: int


def agreement_settings(options: StatsOptions, store: Store) -> AgreementSettings:
    if options.ci is not None and not 0 < options.ci < 1:
        raise ConfigError(f"--ci {options.ci}: give a level between 0 and 1, e.g. 0.95")
    return AgreementSettings(
        options.by, options.include_extra, options.ci, options.resamples, options.seed
    )


def compute_agreement(store: Store, settings: AgreementSettings) -> list[AgreementStat]:
    return agreement_stats(
        store, settings.by, settings.include_extra, settings.ci, settings.resamples, settings.seed
    )


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
    # numpy loads here, not at import: `nlibuild --help` imports every table.
    import numpy as np

    from nlibuild.agreement import estimates, pair_parts
    from nlibuild.queries.pair_labels import pair_label_table
    from nlibuild.queries.votes import read_votes

    unknown = [b for b in by if b not in AGREEMENT_GROUPS]
    if unknown:
        raise ConfigError(f"--by {unknown[0]!r} is not one of: {', '.join(AGREEMENT_GROUPS)}")
    # One narrow row a pair (schema 9) where that is exact, else every vote.
    votes = pair_label_table(store, min_agree, include_extra) or read_votes(
        store, min_agree, annotators=False
    )
    parts = pair_parts(votes.table, include_extra)
    groups: list[tuple[str, NDArray[bool_] | None]] = [("all", None)]
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


def render_agreement(
    rows: list[AgreementStat], settings: AgreementSettings, fmt: TableFormat, out: Console
) -> None:
    """Statistics down, groups across (all first); machines get one row per value."""
    if fmt in (TableFormat.JSON, TableFormat.CSV):
        columns = list(AgreementStat.model_fields)
        if fmt is TableFormat.JSON:
            print_json_rows(rows, out)
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
    "gold != author's, no gold / validated pairs; extra labels / votes of validated pairs; "
    "Fleiss' kappa and Krippendorff's alpha (nominal level, stated: the krippendorff "
    "package's default is interval) over validated pairs, extra labels left out unless "
    "--include-extra. Gold is the stored majority (aggregate-labels), else the same rule.",
    options=frozenset({"by", "include_extra", "ci", "resamples", "seed"}),
    settings=agreement_settings,
    compute=compute_agreement,
    render=render_agreement,
)
