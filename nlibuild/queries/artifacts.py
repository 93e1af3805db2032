"""Read paths for the annotation-artifact tables (hypothesis-only baselines, PMI cues, as
OCNLI's Tables 7 and 8): pairs read as columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlibuild.labelling.labels import GOLD_OR_AUTHOR
from nlibuild.queries.gold_sql import gold_sql
from nlibuild.store import Store

ARTIFACT_FIELDS: dict[str, str] = {
    "pk": "p.pk",
    "id": "p.id",
    "premise_pk": "p.premise_pk",
    "premise_id": "pr.id",
    "hypothesis": "p.hypothesis",
    "premise": "pr.text",
    "lang": "p.lang",
    "protocol": "p.protocol",
    "level": "p.level",
    "genre": "pr.genre",
    "author": "a.id",
    "split": "s.split",
    "label": gold_sql(GOLD_OR_AUTHOR),
}
"""What `artifact_columns` can read of a pair, and the SQL that reads it."""


def _translation_joins(premise: bool) -> str:
    """Joins to the human translations into `:lang` of each pair's hypothesis (`th`) and,
    with `premise`, of its premise (`tp`): inner joins, so untranslated pairs drop out."""
    joins = (
        "JOIN translations th ON th.lang = :lang AND th.kind = 'human' "
        "AND th.unit_id = 'h:' || p.id "
    )
    if premise:
        joins += (
            "JOIN translations tp ON tp.lang = :lang AND tp.kind = 'human' "
            "AND tp.unit_id = 'p:' || pr.id "
        )
    return joins


def artifact_columns(
    store: Store, fields: Sequence[str], splits: Sequence[str] = (), lang: str | None = None
) -> tuple[dict[str, list[Any]], int]:
    """Columns of the pairs artifact tables read, in pair order, and how many pairs
    `lang` left out. Read as columns, not a tuple a pair: a million pairs.

    `fields` among ARTIFACT_FIELDS. The label is the pair's by `labels.GOLD_OR_AUTHOR`:
    None when it has none, `-` when there is no majority. With `splits`, only pairs of
    those splits; with `lang`, the hypothesis and premise are the human translations
    into `lang`, and a pair whose hypothesis (or, when the premise is read, premise) is
    untranslated is left out.
    """
    unknown = [f for f in fields if f not in ARTIFACT_FIELDS]
    if unknown:
        raise ValueError(f"unknown artifact fields {unknown}")
    expressions = dict(ARTIFACT_FIELDS)
    params: dict[str, Any] = {"lang": lang}
    translated = ""
    if lang:
        expressions.update(hypothesis="th.text", premise="tp.text", lang=":lang")
        translated = _translation_joins("premise" in fields)
    where = ""
    if splits:
        params.update({f"split{i}": split for i, split in enumerate(splits)})
        where = f"WHERE s.split IN ({', '.join(f':split{i}' for i in range(len(splits)))})"
    rows = store.conn.execute(
        f"SELECT {', '.join(expressions[f] for f in fields)} "
        "FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk "
        "LEFT JOIN annotators a ON a.pk = p.author_pk "
        f"LEFT JOIN splits s ON s.pair_pk = p.pk {translated}{where} ORDER BY p.pk",
        params,
    ).fetchall()
    columns: dict[str, list[Any]] = {field: [] for field in fields}
    if rows:
        columns = dict(zip(fields, (list(c) for c in zip(*rows, strict=True)), strict=True))
    del rows
    left_out = 0
    if lang:
        in_scope = store.conn.execute(
            f"SELECT count(*) FROM pairs p LEFT JOIN splits s ON s.pair_pk = p.pk {where}",
            params,
        ).fetchone()[0]
        left_out = in_scope - len(columns[fields[0]])
    return columns, left_out
