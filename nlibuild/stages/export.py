"""`nlibuild export`: write the store's pairs in the formats people load.

The gold label written is the published gold (`labels.GOLD`): nlibuild's own majority vote
when `aggregate-labels` has run, else the label released with an imported corpus, else `-`;
never the author's label alone. Files are written through a
temporary file, so a failed export leaves no half-written output.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from nlibuild.errors import ConfigError
from nlibuild.formats.corpora import corpus_format_for
from nlibuild.formats.corpora.base import WriteSettings
from nlibuild.labels import GOLD
from nlibuild.models import (
    NO_GOLD,
    ExportConfig,
    ExportResult,
    format_label_order,
)
from nlibuild.queries.annotators import anonymous_annotators
from nlibuild.queries.pairs import export_rows
from nlibuild.queries.splits import pair_keys_in_split
from nlibuild.store import ExportRow, Store


def _human_translations(store: Store) -> dict[tuple[str, str], str]:
    return {(unit, lang): text for unit, lang, text in store.translated_units("human")}


def _write_settings(store: Store, cfg: ExportConfig) -> WriteSettings:
    return WriteSettings(
        label_order=cfg.label_order,
        no_gold=cfg.no_gold,
        langs=cfg.langs,
        anonymous_annotators=partial(anonymous_annotators, store),
        human_translations=partial(_human_translations, store),
    )


def run(store: Store, cfg: ExportConfig) -> ExportResult:
    """Write every pair of `store` to `cfg.out` in `cfg.format`."""
    corpus_format = corpus_format_for(cfg.format)
    with store.recorded_run("export", cfg) as run:
        run_id = run.id
        rows: Iterator[ExportRow] = export_rows(store, GOLD)
        if cfg.langs and not corpus_format.multilingual:
            rows = (row for row in rows if row.lang in cfg.langs)
        if cfg.split is not None:
            members = pair_keys_in_split(store, cfg.split)
            if not members:
                raise ConfigError(
                    f"--split {cfg.split}: the store has no such split; make the splits with "
                    "`nlibuild split --dev N --test N`"
                )
            rows = (row for row in rows if row.pk in members)
        no_gold_rows = 0

        def counted(source: Iterator[ExportRow]) -> Iterator[ExportRow]:
            nonlocal no_gold_rows
            for row in source:
                if row.gold in (None, NO_GOLD):
                    no_gold_rows += 1
                yield row

        written = corpus_format.write(counted(rows), cfg.out, _write_settings(store, cfg))
        count, sidecar = written.rows, written.sidecar
        counts = {"rows": count, "no_gold_rows": no_gold_rows}
        run.finish(counts)
    integer_labels = corpus_format.integer_labels
    return ExportResult(
        run_id=run_id,
        signature=run.signature,
        out=cfg.out,
        rows=count,
        no_gold_rows=no_gold_rows,
        no_gold_policy=cfg.no_gold if integer_labels else None,
        label_order=format_label_order(cfg.label_order) if integer_labels else None,
        sidecar=sidecar,
    )
