"""Parallel multilingual tables: one file holding every language's text of the same pairs,
a row a pair in one language, rows of one pair sharing its ID (`--columns id=COLUMN` with
`--lang-column COLUMN`), as a translated test set such as XNLI or AmericasNLI is laid out.

The rows of one ID are one pair: the row in the pair language (`--lang`, when the ID has a
row in it; else the ID's first row) holds the pair, and every other language's row becomes
a human translation of its premise (`p:<premise>`) and hypothesis (`h:<pair>`), the units
the store's translations table keys them by, as `--format xnli` reads XNLI's own rows. A
translation copies its source's labels (Conneau et al. 2018, 3.1: XNLI's translated pairs
keep the English gold), so rows of one ID whose labels differ are refused, naming both rows:
they are likely two pairs under one ID, which `--columns id=-` reads as pairs of their own.

Which row holds each pair is known only once every row has been seen (a file may list one
language after another), so the rows are read twice: once for the IDs and their labels,
once to hand on the pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from nlibuild.errors import InputError
from nlibuild.formats.tabular import ProgressCallback, SourcePair, SourceTranslation
from nlibuild.labelling.labels import LabelNormaliser, UnknownLabel

PairRows = Callable[[ProgressCallback | None], Iterator[SourcePair]]
"""Reads the table's rows as pairs (each in its row's language), reporting progress."""

_ALIASES = LabelNormaliser()
"""Spellings of one label (`e`, `entailment`) compared as one when rows are matched."""


class _Holder(NamedTuple):
    """The row that holds an ID's pair: its line and language, and the labels all of the
    ID's rows must agree on (those of the ID's first row, and that row's line)."""

    line: int
    lang: str | None
    labels: tuple[Any, ...]
    labels_line: int
    labels_lang: str | None


def parallel_pairs(
    path: Path, read_rows: PairRows, pair_lang: str | None, progress: ProgressCallback | None
) -> Iterator[SourcePair | SourceTranslation]:
    """The pairs of a parallel table, each once, and the other languages' rows of each as
    its translations."""
    holders = _holders(path, read_rows(None), pair_lang)
    for row in read_rows(progress):
        key = row.pair_key
        if key is None:  # an empty ID cell: a pair of its own, its ID from its content
            yield row
            continue
        holder = holders[key]
        if row.lang == holder.lang:
            yield row  # the pair (or a repeat of it, which the importer compares)
            continue
        if row.lang is None:
            raise InputError(
                path,
                f"pair {key} has rows in several languages but this row names none; "
                "give it its language",
                row.line,
            )
        yield SourceTranslation(row.line, row.lang, key, row.premise, row.hypothesis)


def _holders(path: Path, rows: Iterator[SourcePair], pair_lang: str | None) -> dict[str, _Holder]:
    """For each ID, the row that holds its pair; rows whose labels disagree are refused."""
    holders: dict[str, _Holder] = {}
    for row in rows:
        key = row.pair_key
        if key is None:
            continue
        labels = _comparable_labels(row)
        held = holders.get(key)
        if held is None:
            holders[key] = _Holder(row.line, row.lang, labels, row.line, row.lang)
            continue
        if labels != held.labels:
            raise InputError(
                path,
                f"pair {key} has other labels here ({row.lang or 'no language'}: "
                f"{_shown(labels)}) than on line {held.labels_line} "
                f"({held.labels_lang or 'no language'}: {_shown(held.labels)}); rows sharing "
                "an ID are one pair in several languages and share its labels: fix the "
                "labels, or read every row as a pair of its own with --columns id=-",
                row.line,
            )
        if pair_lang is not None and row.lang == pair_lang and held.lang != pair_lang:
            holders[key] = held._replace(line=row.line, lang=row.lang)
    return holders


def _comparable_labels(row: SourcePair) -> tuple[Any, ...]:
    """A row's votes and gold, each label's spellings as one."""
    return tuple(_comparable(raw) for raw in (*row.labels, row.gold))


def _comparable(raw: Any) -> Any:
    if not isinstance(raw, (str, int)) or isinstance(raw, bool):
        return raw
    try:
        return _ALIASES.vote(raw)
    except UnknownLabel:
        return str(raw).strip()


def _shown(labels: tuple[Any, ...]) -> str:
    """Labels as an error names them: the votes, then `gold` and the gold label."""
    *votes, gold = labels
    shown = [str(vote) for vote in votes if vote is not None]
    if gold is not None:
        shown.append(f"gold {gold}")
    return ", ".join(shown) or "no label"
