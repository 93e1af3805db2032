"""`--format table`: any table of pairs, whatever its columns are called.

The files teams hold come in many shapes (KLUE's JSON array, LiveNLI's csv of one worker's
vote a row, AmericasNLI's one file with a language column): instead of a converter each, this
reader takes the file's rows from `table_rows.py` (the kind from its suffix: `.csv`,
`.tsv`, `.jsonl`, `.json` for one JSON array of objects, `.parquet`) and is told which
column holds what (`--columns`, the keys of `models.TABLE_COLUMN_KEYS`; a key not given
takes the column of its own name when the file has one) and what the label values mean
(`--labels 0=entailment,...`). Columns the mapping leaves out are kept on the pair, as the
other readers keep theirs.

Whose the votes are: by default the first is the author's (SNLI's and MNLI's
`annotator_labels[0]`); `author=COLUMN` reads the author's label from its own column, and
`author=-` says the file has none (ChaosNLI: every vote a validator's). Either way
the reader hands the importer the author's label first, None where there is none, which
the importer stores as a pair without an author's vote. `vote=COLUMN` reads one vote a row
instead, the rows of one `id` being one pair's votes (`formats/vote_rows.py`), none of them
the author's.

A csv or tsv row that ends before the header does is read when the cells it lacks are in
columns the mapping leaves out (LiveNLI's header has a stray 15th cell), and said once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from nlibuild.errors import InputError
from nlibuild.formats.column_mapping import resolve_columns
from nlibuild.formats.corpora.base import CorpusFormat, ReadSettings
from nlibuild.formats.parallel_rows import parallel_pairs
from nlibuild.formats.table_rows import Row, list_cell, read_table_rows, table_kind
from nlibuild.formats.tabular import (
    ProgressCallback,
    ShortRows,
    SourcePair,
    SourceTranslation,
    row_language,
)
from nlibuild.formats.vote_rows import VoteRowGroups, cell_labels
from nlibuild.models import NO_AUTHOR, NO_GOLD, TABLE_COLUMN_KEYS


def read(path: Path, settings: ReadSettings) -> Iterator[SourcePair | SourceTranslation]:
    """The pairs of a table file, read by the mapping in `settings`; with both an `id` and
    a `lang` column, the rows of one ID in several languages are one pair and its
    translations (`parallel_rows`)."""
    kind = table_kind(path, "--format table")
    short_rows = ShortRows()
    table = read_table_rows(path, kind, settings.progress, short_rows=short_rows)
    if not table.header:
        return  # no rows: the import says the file holds no pairs
    asked = dict(settings.columns or {})
    no_author = asked.get("author") == (NO_AUTHOR,)
    if no_author:
        del asked["author"]
    mapping = _mapping(path, table.header, table.header_line, asked)
    used = {column for names in mapping.values() for column in names}
    kept = [column for column in table.header if column not in used]
    short_rows.unread = frozenset(kept)  # a row may lack a cell no key reads
    labels = settings.label_values or None
    warnings: list[str] = []

    def pairs(rows: Iterator[tuple[int, Row]]) -> Iterator[SourcePair]:
        if "vote" in mapping:
            yield from _vote_rows(path, rows, mapping, labels, kept, warnings)
            return
        for line, row in rows:
            pair = _pair(path, line, row, mapping, labels, kept)
            if no_author:
                pair.labels.insert(0, None)  # no author's label: every vote is a validator's
            yield pair

    if "id" in mapping and "lang" in mapping:
        # The file is read again (twice) by parallel_rows: each reading counts its own
        # short rows, and the last one's count is the file's.
        def reread(progress: ProgressCallback | None) -> Iterator[SourcePair]:
            nonlocal short_rows
            short_rows = ShortRows(unread=frozenset(kept))
            warnings.clear()
            return pairs(read_table_rows(path, kind, progress, short_rows=short_rows).rows)

        yield from parallel_pairs(path, reread, settings.lang, settings.progress)
    else:
        yield from pairs(table.rows)
    short = short_rows.warning(table.header)
    for warning in [*([short] if short else []), *warnings]:
        if settings.warn is not None:
            settings.warn(warning)


def unmapped_columns(path: Path, settings: ReadSettings) -> list[str]:
    """The columns of a table file that no key of `settings.columns` reads (kept on the
    pair as they are), for the import to say so when they look like labels."""
    table = read_table_rows(path, table_kind(path, "--format table"))
    asked = dict(settings.columns or {})
    if asked.get("author") == (NO_AUTHOR,):
        del asked["author"]
    mapping = _mapping(path, table.header, table.header_line, asked)
    used = {column for names in mapping.values() for column in names}
    return [column for column in table.header if column not in used]


def _vote_rows(
    path: Path,
    rows: Iterator[tuple[int, Row]],
    mapping: dict[str, tuple[str, ...]],
    labels: Mapping[str, str] | None,
    kept: list[str],
    warnings: list[str],
) -> Iterator[SourcePair]:
    """The pairs of a table of one vote a row (`vote=COLUMN`), grouped by `vote_rows`."""
    vote_column = mapping["vote"][0]
    annotator_column = mapping["annotator"][0] if "annotator" in mapping else None
    pair_mapping = {k: v for k, v in mapping.items() if k not in ("vote", "annotator")}
    groups = VoteRowGroups(path, vote_column, annotator_column)
    for line, row in rows:
        cells = cell_labels(path, line, vote_column, row.get(vote_column))
        one = len(cells) == 1
        vote = _label(path, line, cells[0], vote_column, labels, gold=False) if one else None
        annotator = _optional(path, line, row, annotator_column) if annotator_column else None
        groups.add(_pair(path, line, row, pair_mapping, labels, kept), cells, vote, annotator)
    yield from groups.pairs()
    warnings += groups.warnings()


_ONLY_WHEN_ASKED = ("author", "vote", "annotator")
"""Keys never taken from a column of their own name: an `author` or `annotator` column
often names a person, and a `vote` column turns the file into one vote a row."""


def _mapping(
    path: Path, header: list[str], line: int | None, asked: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """The column(s) of each key: as asked, else the column of the key's own name (but
    `_ONLY_WHEN_ASKED`, and a column asked for another key)."""
    # A column asked for one key is no other key's by its name: LiveNLI's workers' labels
    # are in a column `label`, which `vote=label` reads, and is not the released gold.
    taken = {column for names in asked.values() for column in names}
    defaults = {
        key: () if key in _ONLY_WHEN_ASKED or key in taken else (key,) for key in TABLE_COLUMN_KEYS
    }
    if "vote" in asked:
        defaults["votes"] = ()  # one vote a row: a `votes` column is kept, not read
    return resolve_columns(path, header, line, asked, defaults, required=("premise", "hypothesis"))


def _pair(
    path: Path,
    line: int,
    row: Row,
    mapping: dict[str, tuple[str, ...]],
    labels: Mapping[str, str] | None,
    kept: list[str],
) -> SourcePair:
    def one(key: str) -> str | None:
        return _optional(path, line, row, mapping[key][0]) if key in mapping else None

    gold = (
        _label(path, line, row.get(mapping["label"][0]), mapping["label"][0], labels, gold=True)
        if "label" in mapping
        else None
    )
    extra = {column: _kept_value(row[column]) for column in kept if row.get(column) is not None}
    return SourcePair(
        line=line,
        premise=_text(path, line, row, mapping["premise"][0]),
        hypothesis=_text(path, line, row, mapping["hypothesis"][0]),
        premise_key=one("premise_id"),
        pair_key=one("id"),
        genre=one("genre"),
        lang=_language(path, line, one("lang"), mapping),
        labels=_author(path, line, row, mapping, labels)
        + _votes(path, line, row, mapping.get("votes", ()), labels),
        gold=gold,
        extra=extra or None,
    )


def _language(
    path: Path, line: int, value: str | None, mapping: dict[str, tuple[str, ...]]
) -> str | None:
    """The row's language from the `lang` column (`--lang-column`), a language code."""
    if value is None:
        return None
    return row_language(path, line, value, f"column {mapping['lang'][0]!r}")


def _text(path: Path, line: int, row: Row, column: str) -> str:
    value = row.get(column)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(path, f"column {column!r} is empty; give it text or remove the row", line)
    if not isinstance(value, str):
        raise InputError(path, f"column {column!r} must hold text, found {value!r}", line)
    return value


def _optional(path: Path, line: int, row: Row, column: str) -> str | None:
    value = row.get(column)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            path, f"column {column!r} must hold text or an integer, found {value!r}", line
        )
    return str(value)


def _author(
    path: Path,
    line: int,
    row: Row,
    mapping: dict[str, tuple[str, ...]],
    labels: Mapping[str, str] | None,
) -> list[Any]:
    """The author's label from its own column (`author=COLUMN`), as the first vote (None
    when the cell is empty: that pair has no author's label); nothing without that key,
    when the first vote is the author's."""
    if "author" not in mapping:
        return []
    column = mapping["author"][0]
    return [_label(path, line, row.get(column), column, labels, gold=False)]


def _votes(
    path: Path, line: int, row: Row, columns: tuple[str, ...], labels: Mapping[str, str] | None
) -> list[Any]:
    """The row's votes: one a column, or a list in one column (JSON, parquet, or a list
    written in a csv cell as JSON or Python writes it); one label where a list is expected
    is a list of one."""
    if len(columns) == 1:
        listed = list_cell(path, line, columns[0], row.get(columns[0]))
        if listed is not None:
            return [_label(path, line, vote, columns[0], labels, gold=False) for vote in listed]
    return [_label(path, line, row.get(column), column, labels, gold=False) for column in columns]


def _label(
    path: Path, line: int, raw: Any, column: str, labels: Mapping[str, str] | None, gold: bool
) -> Any:
    """A label value as the importer takes it: mapped by `--labels` when it names the value
    (where `-` means no label: no vote, or no gold), else as the file has it, for the
    importer to read as it reads any label: `--labels` adds to that reading (issue 28), and
    the importer refuses a value neither reads, naming its first line."""
    if raw is None or raw == "" or labels is None:
        return raw
    key = str(raw).strip() if isinstance(raw, (str, int)) and not isinstance(raw, bool) else None
    if key is None or key not in labels:
        return raw
    label = labels[key]
    if label == NO_GOLD:
        return NO_GOLD if gold else None
    return label


def _kept_value(value: Any) -> Any:
    """A column the mapping leaves out, as JSON can keep it on the pair."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, list):
        return [_kept_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _kept_value(item) for key, item in value.items()}
    return str(value)


FORMAT = CorpusFormat("table", reader=read, multilingual=True)
"""Multilingual: a parallel table's other languages come as translations (`parallel_rows`)."""
