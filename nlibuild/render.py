"""Rendering of result tables: rich on a terminal, csv/json/md/latex for machines and papers."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

import orjson
from rich.console import Console
from rich.table import Table

from nlibuild.formats.tabular import guard_formula
from nlibuild.models import TableFormat

Cell = str | int | float | None


def counted(number: int, noun: str) -> str:
    """`1 pair`, `2 pairs`, `2 batches`: a count with its noun (regular English plurals)."""
    if number == 1:
        return f"{number} {noun}"
    plural = "es" if noun.endswith(("s", "sh", "ch", "x")) else "s"
    return f"{number} {noun}{plural}"


def _text(cell: Cell, decimals: int = 4) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float):
        return f"{cell:.{decimals}f}"
    return str(cell)


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def render_table(
    console: Console,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    fmt: TableFormat,
    decimals: int = 4,
) -> None:
    """Print one table in `fmt`, floats with `decimals` digits. Machine formats print no
    title and no styling."""
    if fmt is TableFormat.TABLE:
        table = Table(title=title, title_justify="left")
        for index, column in enumerate(columns):
            numeric = bool(rows) and all(
                isinstance(row[index], (int, float)) or row[index] is None for row in rows
            )
            # fold, never cut: a truncated ID or signature is worse than a tall table
            table.add_column(column, justify="right" if numeric else "left", overflow="fold")
        for row in rows:
            table.add_row(*(_text(cell, decimals) for cell in row))
        console.print(table)
        return
    if fmt is TableFormat.JSON:
        records = [dict(zip(columns, row, strict=True)) for row in rows]
        console.print(orjson.dumps(records).decode(), markup=False, highlight=False, soft_wrap=True)
        return
    if fmt is TableFormat.CSV:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        # Read by people in a spreadsheet: a text cell that would run as a formula gets
        # the guard quote; numbers (a negative PMI among them) stay numbers.
        writer.writerow([guard_formula(column) for column in columns])
        writer.writerows(
            [
                guard_formula(cell) if isinstance(cell, str) else _text(cell, decimals)
                for cell in row
            ]
            for row in rows
        )
        text = buffer.getvalue()
    elif fmt is TableFormat.MD:
        lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(_text(c, decimals) for c in row) + " |" for row in rows]
        text = "\n".join(lines) + "\n"
    else:
        spec = "l" + "r" * (len(columns) - 1)
        lines = [f"\\begin{{tabular}}{{{spec}}}", "\\hline"]
        lines.append(" & ".join(_latex_escape(c) for c in columns) + " \\\\")
        lines.append("\\hline")
        lines += [
            " & ".join(_latex_escape(_text(c, decimals)) for c in row) + " \\\\" for row in rows
        ]
        lines += ["\\hline", "\\end{tabular}"]
        text = "\n".join(lines) + "\n"
    console.print(text, end="", markup=False, highlight=False, soft_wrap=True)
