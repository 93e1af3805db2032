"""Read paths over the sentence pool that `nlibuild sample` draws premises from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from nlibuild.store import LENGTH_COLUMNS, Store


class PoolSentence(NamedTuple):
    """A pool sentence as sampling reads it (`length` in the unit asked for)."""

    pk: int
    key: int
    lang: str
    text: str
    length: int


def genres_in_pool(store: Store, lang: str | None = None) -> list[str]:
    """The genres of the pool's sentences (of `lang`, when given), sorted."""
    rows = store.conn.execute(
        "SELECT DISTINCT genre FROM sentences WHERE ?1 IS NULL OR lang = ?1 ORDER BY genre",
        (lang,),
    )
    return [row[0] for row in rows]


def pool_keys(store: Store, genre: str) -> Iterator[int]:
    """The keys of the pool's sentences of `genre`."""
    for row in store.conn.execute("SELECT key FROM sentences WHERE genre = ?", (genre,)):
        yield row[0]


def _pool_filter(unit: str) -> str:
    """The WHERE clause of an available sentence: of the genre and language, with a length
    in the range, and not taken (the temporary table `Store.set_taken_keys` fills)."""
    column = LENGTH_COLUMNS[unit]
    return (
        f"genre = :genre AND (:lang IS NULL OR lang = :lang) "
        f"AND {column} BETWEEN :low AND :high "
        "AND key NOT IN (SELECT key FROM temp.taken_keys)"
    )


def count_available(
    store: Store, genre: str, lang: str | None, unit: str, low: int, high: int
) -> int:
    """Pool sentences of `genre` with a length in [low, high] not yet taken."""
    row = store.conn.execute(
        f"SELECT count(*) FROM sentences WHERE {_pool_filter(unit)}",
        {"genre": genre, "lang": lang, "low": low, "high": high},
    ).fetchone()
    return int(row[0])


def sample_sentences(
    store: Store,
    genre: str,
    lang: str | None,
    unit: str,
    low: int,
    high: int,
    order: tuple[int, int],
    n: int,
) -> list[PoolSentence]:
    """The `n` available sentences first in the seeded order `order` = (a, b).

    Sentences sort by `(a * (key mod p) + b) mod p` with p = 2^31 - 1, then by key
    (stages/sample.py explains the choice). Keys are hashes of the text, so the order
    does not depend on the order rows were inserted in, and SQLite computes it while
    scanning the genre, keeping only the best `n`.
    """
    column = LENGTH_COLUMNS[unit]
    rows = store.conn.execute(
        f"SELECT pk, key, lang, text, {column} FROM sentences "
        f"WHERE {_pool_filter(unit)} "
        "ORDER BY ((key % 2147483647) * :a + :b) % 2147483647, key LIMIT :n",
        {"genre": genre, "lang": lang, "low": low, "high": high,
         "a": order[0], "b": order[1], "n": n},
    ).fetchall()  # fmt: skip
    return [PoolSentence(*row) for row in rows]
