"""Read paths over translations of premises (`p:<id>`) and hypotheses (`h:<id>`)."""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from nlibuild.store import Store


def human_translations_of(
    store: Store, units: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """(unit ID, language) -> the stored human translation, for those that have one."""
    rows = store.conn.execute(
        "SELECT t.unit_id, t.lang, t.text FROM json_each(?) j JOIN translations t "
        "ON t.lang = json_extract(j.value, '$[1]') AND t.kind = 'human' "
        "AND t.unit_id = json_extract(j.value, '$[0]')",
        (orjson.dumps([list(u) for u in units]).decode(),),
    ).fetchall()
    return {(row[0], row[1]): row[2] for row in rows}


def hypothesis_premises(store: Store) -> list[tuple[str, str]]:
    """(`h:<pair>`, `p:<premise>`) for every pair."""
    return store.conn.execute(
        "SELECT 'h:' || p.id, 'p:' || pr.id FROM pairs p JOIN premises pr ON pr.pk = p.premise_pk"
    ).fetchall()


def translations_in(store: Store, lang: str, kind: str, source_lang: str = "") -> dict[str, str]:
    """unit ID -> text of every translation into `lang` of `kind` from `source_lang`: ''
    (the default) the pairs' own texts, a language the units' human translations into it."""
    return dict(
        store.conn.execute(
            "SELECT unit_id, text FROM translations WHERE lang = ? AND kind = ? "
            "AND source_lang = ?",
            (lang, kind, source_lang),
        )
    )


def machine_translation_sources(store: Store, lang: str) -> list[str]:
    """The languages whose human translations have a machine translation into `lang` stored
    (`translate import --kind mt --source-lang`), by code."""
    return [
        row[0]
        for row in store.conn.execute(
            "SELECT DISTINCT source_lang FROM translations WHERE lang = ? AND kind = 'mt' "
            "AND source_lang != '' ORDER BY 1",
            (lang,),
        )
    ]
