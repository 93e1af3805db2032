"""The shape every corpus format has: what it reads, what it writes, and their settings.

A format reads a file into `SourcePair`s (and, when multilingual, `SourceTranslation`s) for
`nlibuild import`, and writes the store's `ExportRow`s for `nlibuild export`. A format that
is only read (SNLI) or only written (hf-jsonl) leaves the other side None; asking it for
that side is a ConfigError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from nlibuild.errors import ConfigError
from nlibuild.formats.tabular import ProgressCallback, SourcePair, SourceTranslation
from nlibuild.models import Label, NoGoldPolicy
from nlibuild.store import ExportRow


class ReadSettings(NamedTuple):
    """What a reader may need besides the file."""

    lang: str | None = None
    """The pair language of a multilingual file (None: the file's default)."""
    progress: ProgressCallback | None = None
    columns: Mapping[str, tuple[str, ...]] | None = None
    """--format table: the file's column(s) for each key of `models.TABLE_COLUMN_KEYS`."""
    label_values: Mapping[str, str] | None = None
    """--format table: the label each of the file's label values stands for."""


@dataclass(frozen=True)
class WriteSettings:
    """What a writer may need besides the rows. The store's anonymous annotators and human
    translations are asked for only by the formats that write them, as they cost a query."""

    label_order: tuple[Label, ...]
    no_gold: NoGoldPolicy
    langs: tuple[str, ...]
    anonymous_annotators: Callable[[], set[str]]
    human_translations: Callable[[], dict[tuple[str, str], str]]
    """(unit ID, language) -> text of every human translation in the store."""


class Written(NamedTuple):
    """What a writer wrote: the number of rows, and the sidecar file beside them, if any."""

    rows: int
    sidecar: Path | None = None


CorpusReader = Callable[[Path, ReadSettings], Iterator[SourcePair | SourceTranslation]]
CorpusWriter = Callable[[Iterator[ExportRow], Path, WriteSettings], Written]


@dataclass(frozen=True)
class CorpusFormat:
    """One corpus format. `reader` and `writer` are the format's own code (None for the
    side it lacks); `read` and `write` are what the import and export stages call."""

    name: str
    reader: CorpusReader | None = None
    writer: CorpusWriter | None = None
    multilingual: bool = False
    """The file holds several languages: reading yields translations beside the pairs, and
    writing takes `--lang` as the languages to write, not as a filter on the pairs."""
    integer_labels: bool = False
    """Labels are written as integers, so the label order and no-gold policy matter."""

    def read(self, path: Path, settings: ReadSettings) -> Iterator[SourcePair | SourceTranslation]:
        if self.reader is None:
            raise ConfigError(f"{self.name} is an export format only; nlibuild cannot import it")
        return self.reader(path, settings)

    def write(self, rows: Iterator[ExportRow], out: Path, settings: WriteSettings) -> Written:
        if self.writer is None:
            raise ConfigError(f"{self.name} is an import format only; nlibuild cannot export it")
        return self.writer(rows, out, settings)
