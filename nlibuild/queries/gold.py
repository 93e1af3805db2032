"""Read paths over stored gold labels (which gold a reader takes is `labels.GoldRule`)."""

from __future__ import annotations

from typing import Any

import orjson

from nlibuild.store import Store


def gold_run(store: Store, method: str) -> tuple[int, dict[str, Any]] | None:
    """The run that wrote the gold rows of `method` (all of them: each run replaces
    them) and its config, or None when there are none."""
    row = store.conn.execute(
        "SELECT r.id, r.config_json FROM runs r "
        "WHERE r.id = (SELECT run_id FROM gold WHERE method = ? LIMIT 1)",
        (method,),
    ).fetchone()
    return (int(row[0]), orjson.loads(row[1])) if row else None


def gold_summary(store: Store, method: str) -> list[tuple[str, int, int]]:
    """(label, pairs, of which validated) of the gold rows of `method`."""
    return store.conn.execute(
        "SELECT label, count(*), sum(n_votes > 1) FROM gold WHERE method = ? "
        "GROUP BY label ORDER BY label",
        (method,),
    ).fetchall()


def gold_disagreements(store: Store, method: str, other: str) -> int:
    """Pairs whose gold of `method` differs from their gold of `other` (both present)."""
    row = store.conn.execute(
        "SELECT count(*) FROM gold a JOIN gold b ON b.pair_pk = a.pair_pk "
        "AND b.method = ? WHERE a.method = ? AND a.label <> b.label",
        (other, method),
    ).fetchone()
    return int(row[0])


def gold_label_counts(store: Store) -> list[tuple[str, str, int]]:
    """(method, label, pairs) for every gold method and label present."""
    return store.conn.execute(
        "SELECT method, label, count(*) FROM gold GROUP BY method, label"
    ).fetchall()


def latest_vote_run(store: Store) -> int:
    """The newest run that added votes (0 without votes)."""
    row = store.conn.execute("SELECT max(run_id) FROM votes").fetchone()
    return int(row[0] or 0)
