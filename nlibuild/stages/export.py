"""`nlibuild export`: write the store's pairs in the formats people load.

The gold label written is the published gold (`labels.GOLD`): nlibuild's own majority vote
when `aggregate-labels` has run, else the label released with an imported corpus, else `-`;
never the author's label alone. Files are written through a
temporary file, so a failed export leaves no half-written output.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from nlibuild.errors import ConfigError
from nlibuild.formats import hf, mnli, ocnli, xnli
from nlibuild.formats.tabular import write_atomically, write_json_lines
from nlibuild.labels import GOLD
from nlibuild.models import (
    NO_GOLD,
    ExportConfig,
    ExportFormat,
    ExportResult,
    PairRecord,
    format_label_order,
)
from nlibuild.queries.annotators import anonymous_annotators
from nlibuild.queries.pairs import export_rows
from nlibuild.queries.splits import pair_keys_in_split
from nlibuild.store import ExportRow, Store


def _pair_record(row: ExportRow) -> dict[str, object]:
    record = PairRecord(
        pair_id=row.id,
        premise_id=row.premise_id,
        premise=row.premise,
        hypothesis=row.hypothesis,
        genre=row.genre,
        lang=row.lang,
        level=row.level,
        protocol=row.protocol,
        labels=list(row.labels),
        annotators=list(row.annotators),
        gold_label=row.gold or NO_GOLD,
    )
    return record.model_dump(mode="json", exclude_none=True)


def run(store: Store, cfg: ExportConfig) -> ExportResult:
    """Write every pair of `store` to `cfg.out` in `cfg.format`."""
    with store.recorded_run("export", cfg) as run:
        run_id = run.id
        rows: Iterator[ExportRow] = export_rows(store, GOLD)
        multilingual = cfg.format in (ExportFormat.XNLI_TSV, ExportFormat.XNLI_JSONL)
        if cfg.langs and not multilingual:
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

        sidecar = None
        if cfg.format is ExportFormat.MNLI_JSONL:
            anonymous = anonymous_annotators(store)
            count = write_json_lines(cfg.out, (mnli.to_record(r, anonymous) for r in counted(rows)))
        elif cfg.format is ExportFormat.OCNLI_JSON:
            count = write_json_lines(
                cfg.out, (ocnli.to_record(r, i) for i, r in enumerate(counted(rows)))
            )
        elif cfg.format is ExportFormat.JSONL:
            count = write_json_lines(cfg.out, (_pair_record(r) for r in counted(rows)))
        elif cfg.format is ExportFormat.HF_JSONL:
            records = hf.HfRecords(rows, cfg.label_order, cfg.no_gold)
            count = write_json_lines(cfg.out, iter(records))
            no_gold_rows = records.no_gold_rows
            sidecar = hf.sidecar_path(cfg.out)
            info = records.label_info(count)
            sidecar.write_text(info.model_dump_json(indent=2) + "\n", encoding="utf-8")
        elif cfg.format is ExportFormat.XNLI_JSONL:
            translations = {(u, lang): text for u, lang, text in store.translated_units("human")}
            _, by_language = xnli.multilingual_rows(counted(rows), translations, cfg.langs)
            count = write_json_lines(cfg.out, by_language)
        else:
            translations = {(u, lang): text for u, lang, text in store.translated_units("human")}
            source = counted(rows)

            def write(handle: IO[bytes]) -> int:
                return xnli.write(handle, source, translations, cfg.langs)

            count = write_atomically(cfg.out, write)
        counts = {"rows": count, "no_gold_rows": no_gold_rows}
        run.finish(counts)
    integer_labels = cfg.format is ExportFormat.HF_JSONL
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
