"""The pieces of the report's page: tables, figures, notes and the page around them. Every
text from the store or a file goes through `html.escape`: a premise may hold `<script>`."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from nlibuild.report.colors import label_color

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def text(value: object) -> str:
    """One cell's text: floats to 3 decimals, lists and maps joined, None as a dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, dict):
        return ", ".join(f"{key}: {text(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return " ".join(text(item) for item in value)
    return str(value)


MANY_COLUMNS = 8
"""Columns above which a table is set in a smaller type to fit the page."""


@dataclass(frozen=True)
class Label:
    """A cell that names a label: its text after a swatch of the label's colour, the
    colour of every chart's bars of it (colors.py)."""

    name: str
    shown: str | None = None
    """The cell's text where it is not the label's name (`no majority (-)`)."""


@dataclass(frozen=True)
class Styled:
    """A cell's value with a class of the stylesheet (`date`: on one line; `signature`:
    wraps at any character; `counts`: a small second line under a share)."""

    value: object
    css: str


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table; numbers right-aligned. It fits the page's width, long cells wrapping
    (a table cut in a scrolling box hides the columns a reader came for)."""
    head = "".join(f"<th>{html.escape(column)}</th>" for column in columns)
    body = "".join("<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in rows)
    # Many columns (the agreement table's statistics): a smaller type, and headers that may
    # break inside a word, so that the table still fits the page's width.
    css = ' class="many-columns"' if len(columns) > MANY_COLUMNS else ""
    return f"<table{css}><tr>{head}</tr>{body}</table>"


def _cell(value: object) -> str:
    if isinstance(value, Label):
        color = html.escape(label_color(value.name))
        return (f'<td><span class="label" style="--label: {color}">'
                f"{html.escape(value.shown or value.name)}</span></td>")  # fmt: skip
    if isinstance(value, Styled):
        return f'<td class="{value.css}">{html.escape(text(value.value))}</td>'
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    css = ' class="number"' if numeric else ""
    return f"<td{css}>{html.escape(text(value))}</td>"


def model_table(rows: Sequence[Any]) -> str:
    """The rows of a pydantic model, its fields as columns (their names made readable)."""
    if not rows:
        return note("no rows")
    columns = list(type(rows[0]).model_fields)
    return table(
        [column.replace("_", " ") for column in columns],
        [[_model_cell(column, getattr(row, column)) for column in columns] for row in rows],
    )


def _model_cell(column: str, value: object) -> object:
    return Label(value) if column == "label" and isinstance(value, str) else value


def figure(chart: Figure, caption: str) -> str:
    """A chart inline as SVG (no file beside the page, no network), with its caption."""
    from nlibuild.report.plots import figure_svg

    return (
        f'<figure>{figure_svg(chart)}<figcaption class="note">{html.escape(caption)}'
        "</figcaption></figure>"
    )


def heading(title: str) -> str:
    return f"<h3>{html.escape(title)}</h3>"


def note(words: str) -> str:
    return f'<p class="note">{html.escape(words)}</p>'


def warning(words: str) -> str:
    """A box a reader cannot miss: the page's numbers rest on something out of date."""
    return f'<p class="warning" role="alert">Warning: {html.escape(words)}</p>'


def unavailable(why: str) -> str:
    """What a section says when the store lacks its data: why, and which command makes it."""
    return f'<p class="unavailable">Not available: {html.escape(why)}</p>'


def page(title: str, lang: str, sections: Sequence[tuple[str, str, str]]) -> str:
    """The whole page: (section ID, title, body HTML) in order, a contents list first."""
    style = files("nlibuild").joinpath("resources/report/report.css").read_text("utf-8")
    contents = "".join(
        f'<li><a href="#{key}">{html.escape(name)}</a></li>' for key, name, _ in sections
    )
    body = "".join(
        f'<section id="{key}"><h2>{html.escape(name)}</h2>{content}</section>'
        for key, name, content in sections
    )
    return (
        f'<!DOCTYPE html>\n<html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No request at all, not even the browser's own one for a favicon.
        '<link rel="icon" href="data:,">'
        f"<title>{html.escape(title)}</title><style>{style}</style></head>"
        f"<body><h1>{html.escape(title)}</h1><nav><ul>{contents}</ul></nav>{body}"
        "</body></html>\n"
    )
