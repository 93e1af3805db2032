"""Stores written by an earlier nlibuild, kept as test data so that upgrades never lose a row.

`tests/data/stores/*.db` were written by nlibuild 0.1.0 at schema 7 (see the README there);
`manifest.json` records, per table, its columns and a digest of its rows at that time.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

STORES = Path(__file__).resolve().parent / "data" / "stores"


def table_digest(conn: sqlite3.Connection, table: str, columns: list[str]) -> tuple[int, str]:
    """Row count and SHA-256 of the table's rows over `columns`, in a content order."""
    quoted = ", ".join(f'"{c}"' for c in columns)
    rows = conn.execute(f'SELECT {quoted} FROM "{table}" ORDER BY {quoted}').fetchall()
    digest = hashlib.sha256()
    for row in rows:
        digest.update(repr(row).encode("utf-8"))
    return len(rows), digest.hexdigest()


def store_manifest(db: Path) -> dict[str, dict[str, object]]:
    """Every table of a store with its columns, row count and digest."""
    with sqlite3.connect(db) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        manifest: dict[str, dict[str, object]] = {}
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            rows, digest = table_digest(conn, table, columns)
            manifest[table] = {"columns": columns, "rows": rows, "sha256": digest}
    return manifest
