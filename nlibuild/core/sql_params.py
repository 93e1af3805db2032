"""How the store and its read paths pass lists of values to SQL."""

from __future__ import annotations

from collections.abc import Iterable

import orjson


def json_array(values: Iterable[str | int]) -> str:
    """Values as one JSON array parameter, read in SQL with `json_each`: one parameter
    whatever the number of values (SQLite caps a statement's parameters)."""
    return orjson.dumps(list(values)).decode()
