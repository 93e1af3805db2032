"""`stats --table lengths`: XNLI's Table 2 from the store, the mean premise and
hypothesis length per language, of the pairs' own texts and of every translation, in the
units the papers count (`length_units.py`: punctuation-split tokens as XNLI, characters
for Chinese as OCNLI, ICU words for Thai, Japanese and Burmese), so that the numbers can be
compared with theirs."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console

from nlibuild.models import LengthStatsRow, TableFormat
from nlibuild.render import render_table
from nlibuild.stats import StatsTable, no_settings
from nlibuild.store import Store
from nlibuild.text.length_units import paper_length, paper_unit


def compute_lengths(store: Store, settings: None) -> list[LengthStatsRow]:
    return length_stats(store)


def length_stats(store: Store) -> list[LengthStatsRow]:
    """XNLI's Table 2 from the store: per language, the mean premise and hypothesis length
    (in `paper_unit(lang)`), for the pairs' own
    language(s) and for every translation (human and mt apart). Each premise counts once."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    units = [(unit_id, lang, "source", text) for unit_id, lang, text in store.source_units()]
    for kind in ("human", "mt"):
        units += [(u, lang, kind, text) for u, lang, text in store.translated_units(kind)]
    for unit_id, lang, kind, text in units:
        totals = sums[(lang, kind)]
        offset = 0 if unit_id.startswith("p:") else 2
        totals[offset] += 1
        totals[offset + 1] += paper_length(text, lang)
    return [
        LengthStatsRow(
            lang=lang,
            kind=kind,
            unit=paper_unit(lang),
            premises=t[0],
            premise_mean=t[1] / t[0] if t[0] else None,
            hypotheses=t[2],
            hypothesis_mean=t[3] / t[2] if t[2] else None,
        )
        for (lang, kind), t in sorted(
            sums.items(), key=lambda item: (item[0][1] != "source", item[0])
        )
    ]


def render_lengths(
    rows: list[LengthStatsRow], settings: None, fmt: TableFormat, out: Console
) -> None:
    render_table(
        out,
        "Mean lengths (XNLI Table 2): premises and hypotheses, in tokens split at "
        "punctuation (sacrebleu intl, XNLI's count), characters (zh, ko: OCNLI's) or ICU "
        "words (th, ja, my)",
        ["lang", "kind", "unit", "premises", "premise_mean", "hypotheses",
         "hypothesis_mean"],
        [(r.lang, r.kind, r.unit, r.premises, r.premise_mean, r.hypotheses,
          r.hypothesis_mean) for r in rows],
        fmt,
        decimals=1,
    )  # fmt: skip


TABLE = StatsTable(
    name="lengths",
    rank=60,
    help="XNLI's Table 2: per language (the pairs' own and every translation), the mean "
    "premise and hypothesis length in the papers' units: tokens split at punctuation "
    "(sacrebleu intl; XNLI), characters for zh/ko (OCNLI), ICU words for th/ja/my (PyICU, "
    "the segment extra; else characters).",
    options=frozenset(),
    settings=no_settings,
    compute=compute_lengths,
    render=render_lengths,
)
