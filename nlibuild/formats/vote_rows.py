"""Tables of one vote a row (`import --format table --columns vote=COLUMN`): the rows that
share a pair's ID are that pair's votes, grouped here into one `SourcePair`.

LiveNLI (Jiang, Tan and de Marneffe 2023) releases one crowd worker's label and
explanation a row, 122 MNLI items by about 11.5 workers each; a wide reader would see each
item 11 times with different explanations. Here every row must agree on what makes the
pair (its texts, premise ID, genre, language, released gold) and gives one vote, by the
`annotator=COLUMN` worker when named (else the store's anonymous `<corpus>:v1`, `v2`, ...).
No vote is the author's: a table of votes a row records judgements of a finished pair.

The other columns are kept on the pair as the wide reader keeps them, with one difference:
a column whose value differs between the rows of a pair (an explanation, a highlight) is
worker data, so it is kept whole, one value a vote in the order of the pair's votes, under
`per_vote` in the pair's extra data. Dropping it would lose what LiveNLI was collected for.

A cell holding several labels (LiveNLI's `true | either`, or a list of two) is not one vote:
the worker hedged between labels, and no rule turns that into one label without inventing
it. Such rows are left out, counted, and said so, as are rows with an empty label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlibuild.errors import InputError
from nlibuild.formats.table_rows import list_cell
from nlibuild.formats.tabular import SourcePair

PER_VOTE = "per_vote"
"""The key of a pair's extra data holding its per-vote columns: column -> one value a vote."""

_LABEL_SEPARATOR = re.compile(r"\s*\|\s*")

_PAIR_FIELDS = (
    ("premise", "premise"), ("hypothesis", "hypothesis"), ("premise_key", "premise ID"),
    ("genre", "genre"), ("lang", "language"), ("gold", "gold label"),
)  # fmt: skip
"""What every row of one pair must agree on: (SourcePair field, as a message names it)."""


def cell_labels(path: Path, line: int, column: str, raw: Any) -> list[Any]:
    """The labels one vote cell holds: none when it is empty, else one, or several for a
    hedged answer (`true | either`, `["true", "either"]`)."""
    listed = list_cell(path, line, column, raw)
    if listed is not None:
        return [value for value in listed if not _empty(value)]
    if _empty(raw):
        return []
    if isinstance(raw, str) and "|" in raw:
        return [part for part in _LABEL_SEPARATOR.split(raw.strip()) if part]
    return [raw]


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


@dataclass(slots=True)
class _Group:
    """The rows of one pair read so far."""

    pair: SourcePair
    votes: list[Any] = field(default_factory=list)
    annotators: list[str] = field(default_factory=list)
    annotator_lines: dict[str, int] = field(default_factory=dict)
    row_extras: list[dict[str, Any]] = field(default_factory=list)
    """The kept columns of every row, to find those that differ within the pair."""
    vote_extras: list[dict[str, Any]] = field(default_factory=list)
    """The kept columns of the rows that gave a vote, in the votes' order."""


@dataclass(slots=True)
class _LeftOut:
    """Rows left out for one reason: how many, and the first (line, cell)."""

    count: int = 0
    first: tuple[int, Any] | None = None

    def add(self, line: int, cell: Any) -> None:
        self.count += 1
        if self.first is None:
            self.first = (line, cell)


class VoteRowGroups:
    """Groups the rows of a table of one vote a row into pairs, in the order of each
    pair's first row (whose line the pair carries)."""

    def __init__(self, path: Path, vote_column: str, annotator_column: str | None) -> None:
        self.path = path
        self.vote_column = vote_column
        self.annotator_column = annotator_column
        self.groups: dict[Any, _Group] = {}
        self.several_labels = _LeftOut()
        self.no_label = _LeftOut()

    def add(self, row: SourcePair, cells: list[Any], vote: Any, annotator: str | None) -> None:
        """One row: its pair as the wide reader reads it (no labels), the labels its vote
        cell holds (`cell_labels`), that one label as mapped by --labels, its annotator."""
        key = row.pair_key if row.pair_key is not None else (row.premise_key, row.premise,
                                                              row.hypothesis)  # fmt: skip
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = _Group(row)
        else:
            self._require_same_pair(group.pair, row)
        group.row_extras.append(row.extra or {})
        if len(cells) > 1:
            self.several_labels.add(row.line, row_cell(cells))
            return
        if vote is None:  # an empty cell, or a value --labels maps to `-`
            if not cells:
                self.no_label.add(row.line, None)
            return
        if self.annotator_column is not None:
            group.annotators.append(self._annotator(group, row, annotator))
        group.votes.append(vote)
        group.vote_extras.append(row.extra or {})

    def _require_same_pair(self, first: SourcePair, row: SourcePair) -> None:
        for name, shown in _PAIR_FIELDS:
            if getattr(first, name) != getattr(row, name):
                raise InputError(
                    self.path,
                    f"pair {row.pair_key} has a different {shown} than on line {first.line}; "
                    "the rows of one pair (one vote a row) must agree on it",
                    row.line,
                )

    def _annotator(self, group: _Group, row: SourcePair, annotator: str | None) -> str:
        if annotator is None:
            raise InputError(
                self.path,
                f"column {self.annotator_column!r} is empty; each vote needs its annotator",
                row.line,
            )
        first = group.annotator_lines.setdefault(annotator, row.line)
        if first != row.line:
            raise InputError(
                self.path,
                f"annotator {annotator} labels pair {row.pair_key or row.hypothesis!r} on "
                f"line {first} already; each annotator gives one label per pair",
                row.line,
            )
        return annotator

    def pairs(self) -> list[SourcePair]:
        """Every pair with its votes (none an author's: the first label is None), its
        annotators, and its kept columns: those that differ within a pair anywhere in the
        file under `PER_VOTE`, the others as the wide reader keeps them."""
        per_vote = self._per_vote_columns()
        pairs = []
        for group in self.groups.values():
            pair = group.pair
            extra = {k: v for k, v in (pair.extra or {}).items() if k not in per_vote}
            if per_vote and group.votes:
                extra[PER_VOTE] = {
                    column: [row.get(column) for row in group.vote_extras] for column in per_vote
                }
            pair.extra = extra or None
            pair.labels = [None, *group.votes]
            pair.annotators = group.annotators if self.annotator_column is not None else None
            pairs.append(pair)
        return pairs

    def _per_vote_columns(self) -> list[str]:
        """The kept columns whose value differs between two rows of one pair, in the
        file's order of columns."""
        differing: set[str] = set()
        order: dict[str, None] = {}
        for group in self.groups.values():
            first, *others = group.row_extras
            order.update(dict.fromkeys(first))
            for row in others:
                order.update(dict.fromkeys(row))
                differing.update(
                    column for column in first.keys() | row.keys()
                    if first.get(column) != row.get(column)
                )  # fmt: skip
        return [column for column in order if column in differing]

    def warnings(self) -> list[str]:
        """One line for each kind of row left out: how many, and the first."""
        lines = []
        for left_out, why in (
            (self.several_labels, "holds several labels, not one vote"),
            (self.no_label, "is empty: no vote"),
        ):
            if left_out.first is None:
                continue
            line, cell = left_out.first
            rows, whose = ("1 row", "its") if left_out.count == 1 else (
                f"{left_out.count:,} rows", "their")  # fmt: skip
            example = f"{cell!r} on line {line}" if cell is not None else f"first on line {line}"
            lines.append(f"{rows} left out: {whose} {self.vote_column!r} cell {why} ({example})")
        return lines


def row_cell(cells: list[Any]) -> str:
    """A hedged cell as the warning shows it: its labels joined as LiveNLI writes them."""
    return " | ".join(str(cell) for cell in cells)
