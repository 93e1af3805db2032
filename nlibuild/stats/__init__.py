"""The tables of `nlibuild stats --table NAME`, one module per table, found by name.

A table module defines `TABLE`, a `StatsTable`: its name, the paragraph `stats --help`
shows for it, the `stats` options it reads, and three functions: `settings` (the options
as given, plus the store's preset defaults, into the table's settings; option errors are
`ConfigError`s), `compute` (store and settings into rows), `render` (rows onto a
console in a human format: table, csv, md, latex), `rows` (the rows `--format json`
prints, which the Python API's `Corpus.stats` turns into a polars frame) and `facts` (what
the table's title and note say of every row, which csv, json and the frame carry as each
row's first fields: a file has no title). Adding a table
is adding one module here with a `TABLE`; only a table that needs an option `stats` does
not have yet also touches the CLI.

Table modules keep their imports light at the top (numpy, polars and the artifact models
load inside `compute`), because `nlibuild --help` imports every table to list them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import orjson
from pydantic import BaseModel
from rich.console import Console

from nlibuild.errors import ConfigError
from nlibuild.models import TableFormat
from nlibuild.render import Cell, NamedTable, render_table
from nlibuild.store import Store

if TYPE_CHECKING:
    from nlibuild.labelling.majority_rule import MajorityRule

SettingsT = TypeVar("SettingsT")
ResultT = TypeVar("ResultT")

Fact = tuple[str, Cell]
"""One thing a table's title says of every row, as a field: (name, value)."""


@dataclass(frozen=True)
class StatsOptions:
    """Every option of `stats` after the command line's own parsing (types, typer's
    defaults; None where an option has no default and was not given). A table reads the
    ones it names in `StatsTable.options`; the CLI refuses the others."""

    min_len: int | None = None
    max_len: int | None = None
    unit: str | None = None
    max_overlap: float | None = None
    overlap_measure: str | None = None
    negators: tuple[Path, ...] = ()
    by: tuple[str, ...] = ()
    include_extra: bool = False
    ci: float | None = None
    resamples: int = 1000
    seed: int = 13
    threshold: float = 0.7
    sort: str = "agree_with_gold"
    top: int | None = None
    smoothing: float = 100.0
    min_count: int = 20
    units: str | None = None
    per_label: bool = False
    split: tuple[str, ...] = ()
    lang: str | None = None
    run: int | None = None
    job: str | None = None
    mode: str | None = None
    regions: str | None = None
    round: int | None = None
    out: Path | None = None


def rows_as_computed(result: Any, settings: object) -> Sequence[BaseModel]:
    """The json rows of a table whose `compute` returns its rows as they are printed."""
    rows: Sequence[BaseModel] = result
    return rows


@dataclass(frozen=True)
class StatsTable(Generic[SettingsT, ResultT]):
    """One table of `stats`; see the module's docstring."""

    name: str
    rank: int
    """Where the table is listed (in --help and error messages): lower first."""
    help: str
    options: frozenset[str]
    """The fields of `StatsOptions` the table reads."""
    settings: Callable[[StatsOptions, Store], SettingsT]
    compute: Callable[[Store, SettingsT], ResultT]
    render: Callable[[ResultT, SettingsT, TableFormat, Console], None]
    """The rows in a human format (table, csv, md, latex); json is `rows`."""
    note: Callable[[SettingsT], str] | None = None
    """A line `stats` writes on stderr (`Note: ...`) in every format: what the numbers rest
    on that the table does not show (the majority rule of agreement and annotators)."""
    rows: Callable[[ResultT, SettingsT], Sequence[BaseModel]] = field(default=rows_as_computed)
    """The rows of `--format json`, in order: one object each (`json_records`), and one
    row of `Corpus.stats`'s frame each."""
    facts: Callable[[ResultT, SettingsT], Sequence[tuple[str, Cell]]] | None = None
    """What the table's title and note say of every row (the threshold `flagged` was judged
    by, the overlap limit, the interval level), as fields named as the options are: csv,
    json and `Corpus.stats`'s frame carry them before each row's own fields (issue 28: they
    stood in the title alone, which a file does not have). None where the rows say it all."""


def table_facts(table: StatsTable[Any, ResultT], result: ResultT, settings: Any) -> list[Fact]:
    """The table's facts for this result and these settings (none for a table without)."""
    return [] if table.facts is None else list(table.facts(result, settings))


@cache
def stats_tables() -> dict[str, StatsTable[Any, Any]]:
    """Every table, by name, in listing order: the `TABLE` of each module of this package."""
    found: list[StatsTable[Any, Any]] = []
    for module in pkgutil.iter_modules(__path__):
        table = getattr(importlib.import_module(f"{__name__}.{module.name}"), "TABLE", None)
        if isinstance(table, StatsTable):
            found.append(table)
    return {table.name: table for table in sorted(found, key=lambda table: table.rank)}


def stats_table(name: str) -> StatsTable[Any, Any]:
    """The table called `name`; a `ConfigError` listing every table otherwise."""
    tables = stats_tables()
    if name not in tables:
        raise ConfigError(f"--table {name!r} is not one of: {', '.join(tables)}")
    return tables[name]


def option_flag(name: str) -> str:
    """How `stats` spells the option of a `StatsOptions` field: `min_len` is `--min-len`."""
    return "--" + name.replace("_", "-")


def refuse_other_options(
    table: StatsTable[Any, Any], given: Iterable[str], common: Sequence[str] = ()
) -> None:
    """An option the table does not read is an error rather than silently ignored: the
    user asked for something the table will not do. `given` are `StatsOptions` fields;
    `common` the options every table takes, listed after the table's own (`--format`)."""
    chosen = set(given)
    other = [f.name for f in fields(StatsOptions) if f.name in chosen - table.options]
    if other:
        takes = [option_flag(f.name) for f in fields(StatsOptions) if f.name in table.options]
        raise ConfigError(
            f"{option_flag(other[0])} does not apply to --table {table.name} "
            f"(its options: {', '.join([*takes, *common])})"
        )


def rule_facts(rule: MajorityRule) -> list[Fact]:
    """The majority rule gold follows where none is stored, which the note of agreement and
    annotators names: its `min_agree` (a count, or a share of a pair's votes). Where the
    rule came from stays in the note: two stores with the same rule give the same rows."""
    return [("min_agree", rule.min_agree)]


def json_records(
    table: StatsTable[Any, ResultT], result: ResultT, settings: Any
) -> list[dict[str, Any]]:
    """The rows of `--format json` as records: the table's facts, then the row's fields."""
    facts = dict(table_facts(table, result, settings))
    records = []
    for row in table.rows(result, settings):
        fields_of_row = row.model_dump(mode="json")
        clash = facts.keys() & fields_of_row.keys()
        if clash:  # a fact would hide the row's own value: a table's mistake, not the user's
            raise ValueError(f"stats --table {table.name}: facts {sorted(clash)} are row fields")
        records.append({**facts, **fields_of_row})
    return records


def json_rows_text(records: Sequence[dict[str, Any]]) -> str:
    """A json array of the records, on one line: what `stats --format json` prints."""
    return orjson.dumps(list(records)).decode()


def render_rows(
    out: Console,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    fmt: TableFormat,
    facts: Sequence[Fact] = (),
    decimals: int = 4,
) -> None:
    """`render_table` for a table of `stats`: csv, which has no title, carries `facts` as
    its first columns (as `--format json` does); people's formats show the title that says
    them."""
    if fmt is TableFormat.CSV:
        named = NamedTable("", title, columns, rows, decimals, facts)
        render_table(out, "", named.file_columns(), named.file_rows(), fmt, decimals)
        return
    render_table(out, title, columns, rows, fmt, decimals)


def no_settings(options: StatsOptions, store: Store) -> None:
    """The settings of a table that takes no options."""
