"""XNLI's rows as JSON lines: the columns of XNLI tsv (see `xnli.multilingual_rows`), one
object per language and pair, with the pairs' human translations as rows of their own.
Write only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nlibuild.formats.corpora.base import CorpusFormat, PairLanguageTally, WriteSettings, Written
from nlibuild.formats.corpora.xnli import multilingual_rows
from nlibuild.formats.tabular import write_json_lines
from nlibuild.store import ExportRow


def write(rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
    translations = settings.human_translations()
    _, by_language = multilingual_rows(rows, translations, settings.langs)
    tally = PairLanguageTally("pairID", "language")
    return tally.written(write_json_lines(out, tally.count(by_language)))


FORMAT = CorpusFormat("xnli-jsonl", writer=write, multilingual=True)
