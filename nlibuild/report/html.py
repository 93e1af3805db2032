"""The pieces of the report's page: tables, figures, notes and the page around them. Every
text from the store or a file goes through `html.escape`: a premise may hold `<script>`."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime
from importlib.resources import files
from typing import TYPE_CHECKING, Any

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


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table; numbers right-aligned."""
    head = "".join(f"<th>{html.escape(column)}</th>" for column in columns)
    body = "".join("<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in rows)
    return f'<div class="wide"><table><tr>{head}</tr>{body}</table></div>'


def _cell(value: object) -> str:
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
        [[getattr(row, column) for column in columns] for row in rows],
    )


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
