"""Read paths over pairs: for export, for import comparisons, and counts for `info`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from nlibuild.core.sql_params import json_array
from nlibuild.labelling.labels import RELEASED, GoldRule
from nlibuild.queries.gold_sql import gold_sql
from nlibuild.store import ExportRow, Store

if TYPE_CHECKING:  # numpy is imported where columns are read
    import numpy as np
    from numpy.typing import NDArray


class StoredPair(NamedTuple):
    """What the store already holds for a pair, in the shape an import compares against."""

    id: str
    premise_id: str
    hypothesis: str
    lang: str
    protocol: str | None
    level: str | None
    author_label: str | None
    extra_json: str | None
    released_gold: str | None
    labels: tuple[str, ...]
    annotators: tuple[str, ...]


def export_rows(store: Store, rule: GoldRule) -> Iterator[ExportRow]:
    """Every pair in import order, with its votes and its label by `rule` (None when
    the rule gives it none)."""
    pairs = store.conn.execute(
        "SELECT p.pk, p.id, pr.id, pr.text, pr.extra_json, pr.genre, p.hypothesis, p.lang, "
        f"p.protocol, p.level, p.extra_json, {gold_sql(rule)} "
        "FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk ORDER BY p.pk"
    )
    # Votes are read by a second cursor in the same order and merged, which streams
    # millions of rows without a GROUP BY (SQLite 3.40 has no ordered group_concat).
    annotator_ids = dict(store.conn.execute("SELECT pk, id FROM annotators").fetchall())
    votes = store.conn.execute(
        "SELECT pair_pk, label, annotator_pk FROM votes ORDER BY pair_pk, position"
    )
    pending = votes.fetchone()
    for row in pairs:
        labels: list[str] = []
        annotators: list[str] = []
        while pending is not None and pending[0] <= row[0]:
            if pending[0] == row[0]:
                labels.append(pending[1])
                annotators.append(annotator_ids[pending[2]])
            pending = votes.fetchone()
        yield ExportRow._make((*row, tuple(labels), tuple(annotators)))


def stored_pairs(store: Store, ids: Iterable[str]) -> dict[str, StoredPair]:
    """Pairs among `ids` already in the store, with votes in position order.

    The released gold is read from `gold_rows`, not the `gold` view: joined to the view,
    SQLite materialises all of it (every pair's majority too) for each call, which made
    re-importing a million pairs, a chunk a call, take minutes instead of seconds.
    """
    ids_json = json_array(ids)
    rows = store.conn.execute(
        "SELECT p.pk, p.id, pr.id, p.hypothesis, p.lang, p.protocol, p.level, "
        "p.author_label, p.extra_json, g.label "
        "FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
        "LEFT JOIN gold_rows g ON g.pair_pk = p.pk AND g.method = ? "
        "WHERE p.id IN (SELECT value FROM json_each(?))",
        (RELEASED, ids_json),
    ).fetchall()
    if not rows:
        return {}
    votes: dict[int, list[tuple[str, str]]] = {}
    for pair_pk, label, annotator in store.conn.execute(
        "SELECT v.pair_pk, v.label, a.id FROM votes v "
        "JOIN annotators a ON a.pk = v.annotator_pk "
        "WHERE v.pair_pk IN (SELECT value FROM json_each(?)) ORDER BY v.pair_pk, v.position",
        (json_array([row[0] for row in rows]),),
    ):
        votes.setdefault(pair_pk, []).append((label, annotator))
    found = {}
    for row in rows:
        pair_votes = votes.get(row[0], [])
        labels = tuple(v[0] for v in pair_votes)
        found[row[1]] = StoredPair._make((*row[1:], labels, tuple(v[1] for v in pair_votes)))
    return found


def premise_ids_of_pairs(store: Store, ids: Iterable[str]) -> dict[str, str]:
    """pair id -> premise id, for the pairs among `ids` in the store."""
    return dict(
        store.conn.execute(
            "SELECT p.id, pr.id FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
            "WHERE p.id IN (SELECT value FROM json_each(?))",
            (json_array(ids),),
        ).fetchall()
    )


def pair_keys_of_premises(store: Store, premise_pks: Iterable[int]) -> list[tuple[int, str, str]]:
    """(premise_pk, pair id, hypothesis) of every pair of these premises."""
    return [
        (row[0], row[1], row[2])
        for row in store.conn.execute(
            "SELECT premise_pk, id, hypothesis FROM pairs "
            "WHERE premise_pk IN (SELECT value FROM json_each(?)) ORDER BY pk",
            (json_array(list(premise_pks)),),
        )
    ]


def existing_pair_ids(store: Store, ids: Iterable[str]) -> set[str]:
    """The pair IDs among `ids` that the store already holds."""
    return {
        row[0]
        for row in store.conn.execute(
            "SELECT id FROM pairs WHERE id IN (SELECT value FROM json_each(?))",
            (json_array(ids),),
        )
    }


def answer_pair_ids(store: Store, batch_pk: int, premise_id: str) -> list[str]:
    """The IDs of the pairs a writer's answer of this premise in this batch added."""
    return [
        row[0]
        for row in store.conn.execute(
            "SELECT p.id FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
            "WHERE p.batch_pk = ? AND pr.id = ? ORDER BY p.pk",
            (batch_pk, premise_id),
        )
    ]


# What later work rests on a pair, as (what, SQL giving the IDs among ?1 that it holds).
_PAIR_USES = (
    ("a validator's vote", "SELECT p.id FROM votes v JOIN pairs p ON p.pk = v.pair_pk "
     "WHERE v.position >= 1 AND p.id IN (SELECT value FROM json_each(?1))"),
    ("a relabelling batch", "SELECT s.item_id FROM assignments s JOIN batches b ON "
     "b.pk = s.batch_pk WHERE b.kind = 'relabel' AND s.item_id IN (SELECT value FROM "
     "json_each(?1))"),
    ("a gold label", "SELECT p.id FROM gold g JOIN pairs p ON p.pk = g.pair_pk "
     "WHERE p.id IN (SELECT value FROM json_each(?1))"),
    ("a Dawid-Skene posterior", "SELECT p.id FROM posteriors g JOIN pairs p ON "
     "p.pk = g.pair_pk WHERE p.id IN (SELECT value FROM json_each(?1))"),
    ("a split", "SELECT p.id FROM splits g JOIN pairs p ON p.pk = g.pair_pk "
     "WHERE p.id IN (SELECT value FROM json_each(?1))"),
    ("a translation", "SELECT substr(unit_id, 3) FROM translations WHERE unit_id IN "
     "(SELECT 'h:' || value FROM json_each(?1))"),
    ("a model's training dynamics", "SELECT p.id FROM score_dynamics g JOIN pairs p ON "
     "p.pk = g.pair_pk WHERE p.id IN (SELECT value FROM json_each(?1))"),
)  # fmt: skip


def pair_uses(store: Store, ids: Sequence[str]) -> list[tuple[str, str]]:
    """(pair ID, what) for each of these pairs that later work rests on (see `_PAIR_USES`),
    the first use found per kind of work."""
    found = []
    for what, sql in _PAIR_USES:
        row = store.conn.execute(sql + " LIMIT 1", (json_array(ids),)).fetchone()
        if row is not None:
            found.append((str(row[0]), what))
    return found


def pairs_by_text(store: Store) -> dict[tuple[str, str], list[tuple[int, str, str]]]:
    """(premise text, hypothesis) -> [(pair key, pair ID, premise ID)] in pair order."""
    found: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
    for pk, pair_id, premise_id, premise, hypothesis in store.conn.execute(
        "SELECT p.pk, p.id, pr.id, pr.text, p.hypothesis FROM pairs p "
        "JOIN premises pr ON pr.pk = p.premise_pk ORDER BY p.pk"
    ):
        found.setdefault((premise, hypothesis), []).append((pk, pair_id, premise_id))
    return found


def vote_targets(
    store: Store, pair_ids: Iterable[str]
) -> dict[str, tuple[int, str | None, int, dict[str, tuple[str, int]]]]:
    """pair id -> (pk, author, highest vote position or -1, {annotator: (label, run)})
    for the pairs among `pair_ids` in the store."""
    rows = store.conn.execute(
        "SELECT p.id, p.pk, a.id FROM pairs p LEFT JOIN annotators a ON a.pk = p.author_pk "
        "WHERE p.id IN (SELECT value FROM json_each(?))",
        (json_array(pair_ids),),
    ).fetchall()
    votes: dict[int, dict[str, tuple[str, int]]] = {}
    top: dict[int, int] = {}
    for pair_pk, annotator, position, label, run_id in store.conn.execute(
        "SELECT v.pair_pk, a.id, v.position, v.label, v.run_id FROM votes v "
        "JOIN annotators a ON a.pk = v.annotator_pk "
        "WHERE v.pair_pk IN (SELECT value FROM json_each(?))",
        (json_array([row[1] for row in rows]),),
    ):
        votes.setdefault(pair_pk, {})[annotator] = (label, run_id)
        top[pair_pk] = max(top.get(pair_pk, -1), position)
    return {
        pair_id: (pk, author, top.get(pk, -1), votes.get(pk, {})) for pair_id, pk, author in rows
    }


def pair_facets(store: Store) -> list[tuple[str | None, str | None, str | None, str | None, int]]:
    """(lang, protocol, level, author_label, pairs) for every combination present.

    One scan of the `pairs_facets` index, in its order: no sort, fast on millions.
    """
    return store.conn.execute(
        "SELECT lang, protocol, level, author_label, count(*) FROM pairs "
        "GROUP BY lang, protocol, level, author_label"
    ).fetchall()


def pairs_by_genre(store: Store) -> list[tuple[str | None, int]]:
    return store.conn.execute(
        "SELECT pr.genre, count(*) FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
        "GROUP BY pr.genre"
    ).fetchall()


def validated_pair_count(store: Store) -> int:
    """Pairs with a validator's vote besides the author's (a vote at position 1)."""
    row = store.conn.execute("SELECT count(*) FROM votes WHERE position = 1").fetchone()
    return int(row[0])


_FACET_SOURCES = {"protocol": "pairs", "level": "pairs", "lang": "pairs", "genre": "premises"}
"""Where each grouping of the agreement table lives (a premise's genre; the rest a pair's)."""


def _coded(store: Store, table: str, column: str) -> tuple[str, list[Any], list[str | None]]:
    """SQL giving `column`'s code (its index among the table's distinct values), its
    parameters, and those values (None among them for a missing value)."""
    found = [r[0] for r in store.conn.execute(f"SELECT DISTINCT {column} FROM {table}")]
    params = [value for value in found if value is not None]
    # Plain `?`, bound in order: numbered ones would restart at ?1 in each column's CASE
    # when two columns share one statement (`--by protocol,level`).
    cases = " ".join(f"WHEN ? THEN {found.index(v)}" for v in params)
    missing = found.index(None) if None in found else -1
    if not params:  # every value missing: SQL's CASE needs a WHEN, so the code is constant
        return str(missing), params, found
    return f"CASE {column} {cases} ELSE {missing} END", params, found


def pair_groups(
    store: Store, columns: Sequence[str]
) -> tuple[NDArray[np.int64], list[NDArray[np.int64]], list[list[str | None]]]:
    """Pair keys in order and, for each of `columns` (protocol, level, genre, lang), a code
    per pair and the values the codes stand for (in code order).

    Read from the pairs' indexes (`pairs_facets`, `pairs_premise`) and the premises, which
    hold a few bytes a pair, instead of the pairs' own rows, which hold their texts: a
    million pairs' groups in a fifth of the time."""
    import numpy as np

    coded = {column: _coded(store, _FACET_SOURCES[column], column) for column in columns}
    own = [column for column in columns if _FACET_SOURCES[column] == "pairs"]
    selects = ", ".join(f"group_concat({coded[c][0]})" for c in own)
    params = [p for c in own for p in coded[c][1]]
    pks, *own_codes = store.int_columns(
        f"SELECT group_concat(pk){', ' if own else ''}{selects} FROM pairs INDEXED BY pairs_facets",
        params,
    )
    # Keys are dense integers: scattering by key puts rows in key order without a sort.
    size = int(pks.max(initial=0)) + 1
    present = np.zeros(size, dtype=bool)
    present[pks] = True
    ordered = np.flatnonzero(present)
    by_column = {
        column: _by_key(pks, codes, size)[ordered]
        for column, codes in zip(own, own_codes, strict=True)
    }
    if "genre" in columns:
        expression, genre_params, _ = coded["genre"]
        premise_pks, genres = store.int_columns(
            f"SELECT group_concat(pk), group_concat({expression}) FROM premises", genre_params
        )
        pair_pks, premise_of_pair = store.int_columns(
            "SELECT group_concat(pk), group_concat(premise_pk) FROM pairs INDEXED BY pairs_premise"
        )
        premise_by_pair = _by_key(pair_pks, premise_of_pair, size)[ordered]
        genre_by_premise = _by_key(premise_pks, genres, int(premise_pks.max(initial=0)) + 1)
        by_column["genre"] = genre_by_premise[premise_by_pair]
    codes = [by_column[column] for column in columns]
    return ordered, codes, [coded[column][2] for column in columns]


def _by_key(keys: NDArray[np.int64], values: NDArray[np.int64], size: int) -> NDArray[np.int64]:
    """`values` scattered to the positions `keys` of an array of `size` (-1 elsewhere)."""
    import numpy as np

    dense = np.full(size, -1, dtype=np.int64)
    dense[keys] = values
    return dense


def pair_keys_by_id(store: Store) -> NDArray[np.int64]:
    """Every pair key, in the order of the pairs' public IDs.

    The key is the storage order, which is the order the lines were imported in; the ID
    belongs to the pair itself, so whatever follows this order (the agreement bootstrap's
    draws) gives the same result for the same pairs however their lines were ordered. Read
    from the unique index on `id`, which holds the keys in that order: no sort. (The ORDER
    BY in the subquery is kept: SQLite does not flatten it into an aggregate.)"""
    (pks,) = store.int_columns("SELECT group_concat(pk) FROM (SELECT pk FROM pairs ORDER BY id)")
    return pks
