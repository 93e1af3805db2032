"""Hugging Face style jsonl: integer labels, with the label order written beside them.

Orders differ between datasets (GLUE/XNLI on the hub: entailment=0, neutral=1,
contradiction=2; CLUE's OCNLI: neutral=0, entailment=1, contradiction=2), so every export
writes a sidecar `<out>.labels.json` naming the order and what happened to pairs without a
gold label: kept with label -1 (the hub's convention for SNLI) or dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nlibuild.formats.corpora.base import CorpusFormat, WriteSettings, Written
from nlibuild.formats.tabular import write_json_lines, write_text
from nlibuild.models import NO_GOLD, HfLabelInfo, Label, NoGoldPolicy, format_label_order
from nlibuild.store import ExportRow


def sidecar_path(out: Path) -> Path:
    return out.with_name(out.name + ".labels.json")


class HfRecords:
    """Iterator of hf-jsonl objects that counts the pairs without gold as it goes."""

    def __init__(
        self, rows: Iterator[ExportRow], order: tuple[Label, ...], no_gold: NoGoldPolicy
    ) -> None:
        self._rows = rows
        self._index = {label.value: i for i, label in enumerate(order)}
        self._no_gold = no_gold
        self.order = order
        self.no_gold_rows = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self._rows:
            gold = row.gold if row.gold not in (None, NO_GOLD) else None
            if gold is None:
                self.no_gold_rows += 1
                if self._no_gold is NoGoldPolicy.DROP:
                    continue
            yield {
                "id": row.id,
                "premise": row.premise,
                "hypothesis": row.hypothesis,
                "label": self._index[gold] if gold is not None else -1,
                "genre": row.genre,
                "lang": row.lang,
            }

    def label_info(self, rows: int) -> HfLabelInfo:
        return HfLabelInfo(
            label_names=[label.value for label in self.order],
            label_order=format_label_order(self.order),
            no_gold=self._no_gold,
            rows=rows,
            no_gold_rows=self.no_gold_rows,
        )


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    """The rows with integer labels, and the sidecar naming the order beside them.

    Both are written atomically, the sidecar once the rows are in place (it holds their
    count): a process killed between the two leaves the new rows beside the sidecar of the
    export before, or none, and no half file; the next export writes both again."""
    records = HfRecords(rows, settings.label_order, settings.no_gold)
    count = write_json_lines(out, iter(records))
    sidecar = sidecar_path(out)
    info = records.label_info(count)
    write_text(sidecar, info.model_dump_json(indent=2) + "\n")
    return Written(count, sidecar)


FORMAT = CorpusFormat("hf-jsonl", writer=write, integer_labels=True)
