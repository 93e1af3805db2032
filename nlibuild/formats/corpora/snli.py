"""SNLI jsonl: MNLI's layout (see `mnli`), with the premise named by `captionID` and no
genre. Read only: an export in this layout is `mnli-jsonl`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from nlibuild.formats.corpora.base import CorpusFormat, ReadSettings
from nlibuild.formats.corpora.mnli import read_release
from nlibuild.formats.tabular import SourcePair


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair]:
    return read_release(path, "snli", settings.progress)


FORMAT = CorpusFormat("snli", reader=read)
