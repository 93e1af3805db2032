"""Read paths over annotators and the platform IDs they are known by."""

from __future__ import annotations

from nlibuild.store import Store


def platform_aliases(store: Store, platform: str) -> dict[str, str]:
    """platform ID -> annotator ID, for one platform."""
    return dict(
        store.conn.execute(
            "SELECT al.platform_id, a.id FROM annotator_aliases al "
            "JOIN annotators a ON a.pk = al.annotator_pk WHERE al.platform = ?",
            (platform,),
        ).fetchall()
    )


def anonymous_annotators(store: Store) -> set[str]:
    """IDs of the annotators a corpus named only by role (`<corpus>:author`, ...)."""
    return {row[0] for row in store.conn.execute("SELECT id FROM annotators WHERE anonymous")}
