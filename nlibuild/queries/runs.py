"""Read paths over the provenance log (`runs`): which runs finished, with which signature."""

from __future__ import annotations

from nlibuild.store import Store


def latest_ok_run(store: Store, stage: str, signature: str) -> int | None:
    """The newest run of `stage` that finished `ok` with exactly `signature` (its settings
    and the content of its input files), or None: a recipe's step that such a run did
    already is skipped."""
    row = store.conn.execute(
        "SELECT max(id) FROM runs WHERE stage = ? AND signature = ? AND status = 'ok'",
        (stage, signature),
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else None
