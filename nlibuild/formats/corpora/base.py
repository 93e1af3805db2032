"""The shape every corpus format has: what it reads, what it writes, and their settings.

A format reads a file into `SourcePair`s (and, when multilingual, `SourceTranslation`s) for
`nlibuild import`, and writes the store's `ExportRow`s for `nlibuild export`. A format that
is only read (SNLI) or only written (hf-jsonl) leaves the other side None; asking it for
that side is a ConfigError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from nlibuild.errors import ConfigError
from nlibuild.formats.tabular import ProgressCallback, SourcePair, SourceTranslation
from nlibuild.models import Label, NoGoldPolicy, RunRecord
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
    warn: Callable[[str], None] | None = None
    """Where a reader says what it read otherwise than the file has it (rows left out, a
    header cell no row fills): the import's `Warning:` lines. None: nobody is told (a
    second pass over a file already read once)."""


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
    splits: Callable[[], dict[int, str]] = field(default=dict)
    """Pair key -> its split (train, dev, test); empty before `nlibuild split`."""
    runs: Callable[[], list[RunRecord]] = field(default=list)
    """The store's provenance log, for a format that states it (hf's dataset card)."""
    license: str | None = None


class Written(NamedTuple):
    """What a writer wrote: the number of rows, and the sidecar file beside them, if any.
    A multilingual writer also says how many distinct pairs its rows are and in which
    languages (a row is a pair in one language); a writer of splits, the rows of each."""

    rows: int
    sidecar: Path | None = None
    pairs: int | None = None
    languages: tuple[str, ...] = ()
    split_rows: tuple[tuple[str, int], ...] = ()
    unsplit_pairs: int = 0
    formula_cells: int = 0
    """A table a spreadsheet may open: its text cells a spreadsheet would run as formulas
    (`tabular.runs_as_formula`), written as stored all the same."""


class PairLanguageTally:
    """The distinct pairs and the languages of a multilingual writer's rows, counted as
    they are written: 9,000 rows may be 3,000 pairs in three languages."""

    def __init__(self, id_key: str, lang_key: str) -> None:
        self._id_key = id_key
        self._lang_key = lang_key
        self._pairs: set[str] = set()
        self._languages: set[str] = set()

    def count(self, records: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for record in records:
            self._pairs.add(record[self._id_key])
            self._languages.add(record[self._lang_key])
            yield record

    def written(self, rows: int, formula_cells: int = 0) -> Written:
        return Written(
            rows,
            pairs=len(self._pairs),
            languages=tuple(sorted(self._languages)),
            formula_cells=formula_cells,
        )


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
