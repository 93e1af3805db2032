"""Corpus formats, one module each, and `CORPUS_FORMATS`, the registry the import and export
stages look them up in (see `base.CorpusFormat` for what a format provides)."""

from __future__ import annotations

from collections.abc import Mapping

from nlibuild.errors import ConfigError
from nlibuild.formats.corpora import (
    hf,
    hf_dataset,
    jsonl,
    mnli,
    ocnli,
    snli,
    table,
    xnli,
    xnli_jsonl,
)
from nlibuild.formats.corpora.base import CorpusFormat
from nlibuild.models import ExportFormat, ImportFormat

CORPUS_FORMATS: Mapping[ImportFormat | ExportFormat, CorpusFormat] = {
    ImportFormat.MNLI: mnli.FORMAT,
    ExportFormat.MNLI_JSONL: mnli.FORMAT,
    ImportFormat.SNLI: snli.FORMAT,
    ImportFormat.OCNLI: ocnli.FORMAT,
    ExportFormat.OCNLI_JSON: ocnli.FORMAT,
    ImportFormat.XNLI: xnli.FORMAT,
    ExportFormat.XNLI_TSV: xnli.FORMAT,
    ExportFormat.XNLI_JSONL: xnli_jsonl.FORMAT,
    ExportFormat.HF_JSONL: hf.FORMAT,
    ExportFormat.HF: hf_dataset.FORMAT,
    # Both enums' JSONL are the string "jsonl", hence one key: they name one format.
    ImportFormat.JSONL: jsonl.FORMAT,
    ImportFormat.TABLE: table.FORMAT,
}
"""The format behind each `--format` of `nlibuild import` and `nlibuild export`."""


def corpus_format_for(fmt: ImportFormat | ExportFormat) -> CorpusFormat:
    """The registered format `fmt` names, or a ConfigError."""
    found = CORPUS_FORMATS.get(fmt)
    if found is None:
        known = ", ".join(sorted(CORPUS_FORMATS))
        raise ConfigError(f"no corpus format {fmt!s}; nlibuild knows {known}")
    return found
