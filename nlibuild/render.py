"""Rendering of result tables: rich on a terminal, csv/json/md/latex for machines and papers.

People paste these tables into issues, papers and spreadsheets, so each format is written to
survive its reader: Markdown cells escape `|`, LaTeX goes through tabulate's escaping with
booktabs rules and a comment saying which engine its script needs, csv is one table with no
prose, and a terminal table too wide for the window is folded into column groups rather than
squeezed into columns two letters wide.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Protocol

import orjson
import regex
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from tabulate import tabulate

from nlibuild.errors import ConfigError, OutputError
from nlibuild.formats.tabular import guard_formula, write_atomically
from nlibuild.models import TableFormat

Cell = str | int | float | None

HEADERS: dict[str, str] = {
    "agree_with_gold": "agreement with gold",
    "agree_pairs": "pairs (agreement)",
    "author_gold": "author's label = gold",
    "author_pairs": "pairs (author)",
    "chrf": "chrF",
    "en_dev": "en-dev",
    "target_dev": "target-dev (Keung's oracle)",
    "target_dev_gain": "target-dev - en-dev",
    "test_ceiling": "test-ceiling",
    "test_ceiling_gain": "test-ceiling - en-dev",
    "spread": "max - min",
    "en_dev_agrees": "en dev",
    "target_dev_agrees": "target dev",
    "started_utc": "started (UTC)",
    "own_pairs_refused": "own pairs (refused)",
    "fooled_unvalidated": "fooled, not validated",
    "earlier_test_accuracy": "accuracy on earlier rounds' test",
    "earlier_test_pairs": "earlier rounds' test pairs",
}
"""Field names whose header says more than the name with spaces (`stats --table annotators`
and `model-loop`, `score report`'s Keung et al. columns, `relabel import`'s annotators); any
other name is shown with its underscores as spaces."""

_BORDER = 1
_PADDING = 2
"""What rich's default table adds around a column: one border and a space either side."""

_NARROWEST_GROUP = 24
"""Below this many columns of room beside the first column, folding into column groups
would repeat a key that fills the screen: the table is shown as records instead."""


def counted(number: int, noun: str) -> str:
    """`1 pair`, `2 pairs`, `2 batches`: a count with its noun (regular English plurals)."""
    if number == 1:
        return f"{number} {noun}"
    plural = "es" if noun.endswith(("s", "sh", "ch", "x")) else "s"
    return f"{number} {noun}{plural}"


class RunResult(Protocol):
    """What every recorded stage's result carries."""

    @property
    def run_id(self) -> int: ...

    @property
    def signature(self) -> str: ...


def run_note(result: RunResult) -> str:
    """`(run N, SIGNATURE)`, the end of every summary line."""
    return f"(run {result.run_id}, {result.signature})"


def human_header(name: str) -> str:
    """The header people read for a field name: `mean_length` -> `mean length`."""
    return HEADERS.get(name, name.replace("_", " "))


def _text(cell: Cell, decimals: int = 4) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):  # before the numbers: a bool is an int to Python
        return "yes" if cell else "no"
    if isinstance(cell, float):
        return f"{cell:.{decimals}f}"
    return str(cell)


def _is_numeric(rows: Sequence[Sequence[Cell]], index: int) -> bool:
    return bool(rows) and all(
        row[index] is None
        or (isinstance(row[index], (int, float)) and not isinstance(row[index], bool))
        for row in rows
    )


def _markdown_cell(text: str) -> str:
    """A cell of a GitHub/CommonMark pipe table: an unescaped `|` would end the cell (a
    sacrebleu signature is full of them) and a line break would end the row."""
    return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


_CJK_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Bopomofo}"
_CJK = regex.compile(f"[{_CJK_SCRIPTS}]")
_OTHER_SCRIPT = regex.compile(
    rf"[^\p{{Latin}}\p{{Common}}\p{{Inherited}}\p{{Unknown}}{_CJK_SCRIPTS}]"
)


def _latex_notes(texts: Sequence[str]) -> list[str]:
    """LaTeX comments above a table saying what it takes to compile: booktabs for the rules,
    and for text outside Latin a Unicode engine, as pdflatex's default fonts have no glyphs
    for CJK nor for most other scripts."""
    notes = ["% needs \\usepackage{booktabs} (\\toprule, \\midrule, \\bottomrule)"]
    if any(_CJK.search(text) for text in texts):
        notes.append("% holds CJK text: compile with xelatex and \\usepackage{xeCJK}")
    if any(_OTHER_SCRIPT.search(text) for text in texts):
        notes.append(
            "% holds non-Latin text: compile with xelatex (or lualatex) and"
            " \\usepackage{fontspec} with a font that covers its script"
        )
    return notes


def _csv_text(columns: Sequence[str], rows: Sequence[Sequence[Cell]], decimals: int) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    # Read by people in a spreadsheet: a text cell that would run as a formula gets the
    # guard quote; numbers (a negative PMI among them) stay numbers.
    writer.writerow([guard_formula(column) for column in columns])
    writer.writerows(
        [guard_formula(cell) if isinstance(cell, str) else _text(cell, decimals) for cell in row]
        for row in rows
    )
    return buffer.getvalue()


def _document_text(
    columns: Sequence[str], rows: Sequence[Sequence[Cell]], fmt: TableFormat, decimals: int
) -> str:
    """Markdown or LaTeX through tabulate, which aligns the columns and escapes every LaTeX
    special character (`>` and `<` among them: in LaTeX's default OT1 encoding they print
    as `¿` and `¡`)."""
    headers = [human_header(column) for column in columns]
    align = ["right" if _is_numeric(rows, i) else "left" for i in range(len(columns))]
    cells = [[_text(cell, decimals) for cell in row] for row in rows]
    if fmt is TableFormat.MD:
        body = tabulate(
            [[_markdown_cell(cell) for cell in row] for row in cells],
            headers=[_markdown_cell(header) for header in headers],
            tablefmt="pipe", colalign=align, disable_numparse=True,
        )  # fmt: skip
        return body + "\n"
    flat = [[" ".join(cell.splitlines()) for cell in row] for row in cells]
    body = tabulate(
        flat, headers=headers, tablefmt="latex_booktabs", colalign=align, disable_numparse=True
    )
    texts = headers + [cell for row in flat for cell in row]
    return "\n".join([*_latex_notes(texts), body]) + "\n"


def table_text(
    columns: Sequence[str], rows: Sequence[Sequence[Cell]], fmt: TableFormat, decimals: int = 4
) -> str:
    """One table as the text of a file in `fmt` (csv, md or latex; json as a list of
    records): what `render_table` prints, for commands that write one file a table."""
    if fmt is TableFormat.JSON:
        return orjson.dumps([dict(zip(columns, row, strict=True)) for row in rows]).decode() + "\n"
    if fmt is TableFormat.CSV:
        return _csv_text(columns, rows, decimals)
    if fmt is TableFormat.TABLE:
        raise ValueError("a terminal table has no file text; render_table prints it")
    return _document_text(columns, rows, fmt, decimals)


def _column_width(header: str, cells: Sequence[str]) -> int:
    return max(cell_len(line) for text in (header, *cells) for line in (text.splitlines() or [""]))


def _rich_table(title: str, headers: Sequence[str], right: Sequence[bool]) -> Table:
    table = Table(title=title or None, title_justify="left")
    for header, numeric in zip(headers, right, strict=True):
        # fold, never cut: a truncated ID or signature is worse than a tall table
        table.add_column(header, justify="right" if numeric else "left", overflow="fold")
    return table


def _column_groups(widths: Sequence[int], room: int) -> list[list[int]]:
    """The columns after the first, packed in order into groups that fit `room` cells
    beside it (a column wider than the room alone gets a group of its own)."""
    groups: list[list[int]] = [[]]
    used = 0
    for index in range(1, len(widths)):
        width = min(widths[index], room - _PADDING - _BORDER) + _PADDING + _BORDER
        if groups[-1] and used + width > room:
            groups.append([])
            used = 0
        groups[-1].append(index)
        used += width
    return groups


def _terminal_tables(
    title: str,
    headers: Sequence[str],
    cells: Sequence[Sequence[str]],
    right: Sequence[bool],
    width: int,
) -> list[Table]:
    """The table as it fits `width`: whole when it does; else folded into groups of columns,
    each repeating the first (the row's key) and titled `part k of n`; else, when the key
    alone leaves too little room, as records (one `column | value` block a row)."""
    widths = [_column_width(h, [row[i] for row in cells]) for i, h in enumerate(headers)]
    needed = _BORDER + sum(w + _PADDING + _BORDER for w in widths)
    if needed <= width or len(headers) < 2:
        table = _rich_table(title, headers, right)
        for row in cells:
            table.add_row(*row)
        return [table]
    room = width - _BORDER - (widths[0] + _PADDING + _BORDER)
    if room < _NARROWEST_GROUP:
        records = _rich_table(title, ["column", "value"], [False, False])
        for row in cells:
            for index, (header, cell) in enumerate(zip(headers, row, strict=True)):
                records.add_row(header, cell, end_section=index == len(headers) - 1)
        return [records]
    groups = _column_groups(widths, room)
    tables = []
    for number, group in enumerate(groups, start=1):
        part = f"part {number} of {len(groups)}"
        picked = [0, *group]
        table = _rich_table(
            f"{title} ({part})" if title else part,
            [headers[i] for i in picked],
            [right[i] for i in picked],
        )
        for row in cells:
            table.add_row(*(row[i] for i in picked))
        tables.append(table)
    return tables


def render_table(
    console: Console,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    fmt: TableFormat,
    decimals: int = 4,
) -> None:
    """Print one table in `fmt`, floats with `decimals` digits, booleans as yes/no.
    People's formats (the terminal, md, latex) show human headers (`human_header`); csv and
    json keep the field names, which scripts key on. Machine formats print no title and no
    styling."""
    if fmt is TableFormat.TABLE:
        headers = [human_header(column) for column in columns]
        right = [_is_numeric(rows, i) for i in range(len(columns))]
        cells = [[_text(cell, decimals) for cell in row] for row in rows]
        for table in _terminal_tables(title, headers, cells, right, console.width):
            console.print(table)
        return
    if fmt is TableFormat.JSON:
        text = orjson.dumps([dict(zip(columns, row, strict=True)) for row in rows]).decode()
        console.print(text, markup=False, highlight=False, soft_wrap=True)
        return
    text = table_text(columns, rows, fmt, decimals)
    console.print(text, end="", markup=False, highlight=False, soft_wrap=True)


@dataclass(frozen=True)
class NamedTable:
    """One of several tables a command shows: `name` is its file's stem under `--out DIR`
    (`qa-units` -> `qa-units.csv`), `columns` its snake_case field names."""

    name: str
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[Cell]]
    decimals: int = 4
    facts: Sequence[tuple[str, Cell]] = ()
    """What the title says of every row (`translate qa`'s language and segment count), as
    fields: a file has no title, so csv, json and every `--out DIR` file carry them as the
    first columns of each row (issue 28: they stood in the title alone)."""

    def file_columns(self) -> list[str]:
        """The columns of the table in a file: its facts', then its own."""
        return [*(name for name, _ in self.facts), *self.columns]

    def file_rows(self) -> list[tuple[Cell, ...]]:
        values = tuple(value for _, value in self.facts)
        return [(*values, *row) for row in self.rows]


TABLE_EXTENSIONS = {TableFormat.CSV: "csv", TableFormat.JSON: "json", TableFormat.MD: "md",
                    TableFormat.LATEX: "tex"}  # fmt: skip
"""The file a table is written to under `--out DIR`, by format."""


def check_table_folder(folder: Path, fmt: TableFormat) -> None:
    """`--out DIR` as the tables' folder; refused before a run is recorded, so a wrong one
    leaves the store as it was."""
    if fmt not in TABLE_EXTENSIONS:
        raise ConfigError("--out DIR writes files: give --format csv, json, md or latex with it")
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: --out names a folder to write the tables to, not a file")


def write_tables(folder: Path, tables: Sequence[NamedTable], fmt: TableFormat) -> list[Path]:
    """Each table as its own file `<name>.<ext>` in `folder` (one table a file: what csv
    holds and what a script reading json expects); returns the paths written."""
    written = []
    for table in tables:
        path = folder / f"{table.name}.{TABLE_EXTENSIONS[fmt]}"
        data = table_text(table.file_columns(), table.file_rows(), fmt, table.decimals).encode()
        write_atomically(path, partial(_write_bytes, data))
        written.append(path)
    return written


def _write_bytes(data: bytes, handle: IO[bytes]) -> int:
    return handle.write(data)


def render_tables(
    out: Console, notes: Console, tables: Sequence[NamedTable], fmt: TableFormat
) -> None:
    """Several tables on `out`. People's formats get every table that has rows, each under
    its title; csv and json get the first (the command's main table) alone, as a file of
    either holds one table, and `notes` (stderr) says once what was left out and that
    `--out DIR` writes each table to its own file."""
    if fmt in (TableFormat.CSV, TableFormat.JSON):
        first, rest = tables[0], [table for table in tables[1:] if table.rows]
        render_table(out, "", first.file_columns(), first.file_rows(), fmt, first.decimals)
        if rest:
            left = ", ".join(f"{t.name} ({counted(len(t.rows), 'row')})" for t in rest)
            files = ", ".join(f"{t.name}.{TABLE_EXTENSIONS[fmt]}" for t in tables)
            notes.print(f"Left out of this {fmt.value}: {left}; give --out DIR to write each "
                        f"table to its own file ({files})", markup=False)  # fmt: skip
        return
    shown = 0
    for table in tables:
        if not table.rows:
            continue
        if fmt is TableFormat.MD:
            # A blank line before each title after the first: pasted into a Markdown file,
            # a title right under a table's last row would be read as one more row.
            gap = "\n" if shown else ""
            out.print(f"{gap}{table.title}\n", markup=False, highlight=False, soft_wrap=True)
        elif fmt is TableFormat.LATEX:
            out.print(f"% {table.title}", markup=False, highlight=False, soft_wrap=True)
        render_table(out, table.title, table.columns, table.rows, fmt, table.decimals)
        shown += 1
