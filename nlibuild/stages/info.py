"""`nlibuild info`: what a store holds, counted by genre, language, label and protocol."""

from __future__ import annotations

from collections import Counter

from nlibuild.labelling.labels import GOLD, RELEASED
from nlibuild.models import CountRow, StoreSummary
from nlibuild.queries.batches import open_assignment_count
from nlibuild.queries.gold import gold_label_counts
from nlibuild.queries.pairs import pair_facets, pairs_by_genre, validated_pair_count
from nlibuild.store import Store

NONE_KEY = "(none)"


def _rows(counts: Counter[str | None]) -> list[CountRow]:
    keyed = {(NONE_KEY if key is None else key): count for key, count in counts.items()}
    return [CountRow(key=key, count=count) for key, count in sorted(keyed.items())]


def summarise(store: Store) -> StoreSummary:
    """Counts of the store, read with a handful of index scans (well under a second for a
    million pairs). Gold labels are counted as exports write them (`labels.GOLD`): those of
    its first method present, nlibuild's majority vote, else the released gold."""
    meta = store.meta()
    by: dict[str, Counter[str | None]] = {
        name: Counter() for name in ("lang", "protocol", "level", "author_label")
    }
    for lang, protocol, level, author_label, count in pair_facets(store):
        by["lang"][lang] += count
        by["protocol"][protocol] += count
        by["level"][level] += count
        by["author_label"][author_label] += count
    gold_by_method: dict[str, Counter[str | None]] = {}
    for method, label, count in gold_label_counts(store):
        gold_by_method.setdefault(method, Counter())[label] = count
    method = GOLD.preferred_method(gold_by_method) or RELEASED
    return StoreSummary(
        path=store.path,
        schema_version=store.schema_version,
        lang=meta.get("lang", "en"),
        preset=meta.get("preset"),
        extra_labels=[e for e in meta.get("extra_labels", "").split(",") if e],
        premises=store.count("premises"),
        pairs=sum(by["lang"].values()),
        votes=store.count("votes"),
        validated_pairs=validated_pair_count(store),
        translations=store.count("translations"),
        batches=store.count("batches"),
        open_assignments=open_assignment_count(store),
        violations=store.count("violations"),
        by_genre=_rows(Counter(dict(pairs_by_genre(store)))),
        by_lang=_rows(by["lang"]),
        gold_method=method,
        by_gold_label=_rows(gold_by_method.get(method, Counter())),
        by_author_label=_rows(by["author_label"]),
        by_protocol=_rows(by["protocol"]),
        by_level=_rows(by["level"]),
        runs=store.count("runs"),
    )
