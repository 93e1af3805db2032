"""The report's charts of a Chinese and a Korean store in a real headless Chromium (issue 28,
item 7): their SVG text is text, in the CSS font stack of the store's language, and
Chromium draws every Han or Hangul glyph of it in that language's face of Noto Sans CJK
(asked through the DevTools protocol, `CSS.getPlatformFontsForNode`: the fonts a node's
glyphs were drawn in, not the ones its style names). A reader may lack Noto Sans CJK: the
browser is given the bundled collection's folder as well (a fontconfig file), as a reader's
machine has its own CJK fonts. A screenshot of the cue-word chart is kept:
out/test-artifacts/chart-LANG.png.

Skipped, with the reason, where Chromium or playwright is absent (tests/browser.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from browser import CHROMIUM, artifact, pytestmark, sync_api
from chart_stores import chart_store
from conftest import ok

from nlibuild.report.fonts import text_lang

__all__ = ["pytestmark"]


def fontconfig_with_the_bundled_font(folder: Path) -> Path:
    """A fontconfig file: the system's configuration and the bundled Noto Sans CJK."""
    from noto_cjk_sans_otc import FONT_PATH

    config = folder / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>'
        '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
        f"<dir>{Path(str(FONT_PATH)).parent}</dir><cachedir>{folder / 'fc-cache'}</cachedir>"
        "</fontconfig>\n",
        encoding="utf-8",
    )
    return config


@contextmanager
def reader_tab(folder: Path) -> Iterator[tuple[Any, Any]]:
    """A headless Chromium tab and its DevTools session (DOM and CSS enabled)."""
    env = {**os.environ, "FONTCONFIG_FILE": str(fontconfig_with_the_bundled_font(folder))}
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, env=env)
        try:
            tab = browser.new_page(viewport={"width": 1200, "height": 900})
            devtools = tab.context.new_cdp_session(tab)
            devtools.send("DOM.enable")
            devtools.send("CSS.enable")
            yield tab, devtools
        finally:
            browser.close()


def chart_texts(tab: Any, devtools: Any) -> list[tuple[str, str, dict[str, int]]]:
    """Every text of the page's charts: its characters, its computed font-family, and the
    glyphs drawn in each font (family name: count)."""
    root = devtools.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    nodes = devtools.send("DOM.querySelectorAll", {"nodeId": root, "selector": "figure svg text"})
    families = tab.evaluate(
        "[...document.querySelectorAll('figure svg text')]"
        ".map(text => [text.textContent, getComputedStyle(text).fontFamily])"
    )
    texts = []
    for node, (content, family) in zip(nodes["nodeIds"], families, strict=True):
        fonts = devtools.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        texts.append((content, family, {font["familyName"]: font["glyphCount"] for font in fonts}))
    return texts


@pytest.mark.parametrize(("lang", "face"), [("zh", "Noto Sans CJK SC"), ("ko", "Noto Sans CJK KR")])
def test_the_reports_charts_draw_cjk_text_in_the_languages_font(
    tmp_path: Path, lang: str, face: str
) -> None:
    db = chart_store(tmp_path, lang)
    report = tmp_path / "report.html"
    ok("--db", db, "report", "--out", report, "--min-count", "2")
    with reader_tab(tmp_path) as (tab, devtools):
        tab.goto(report.as_uri(), wait_until="load")
        texts = chart_texts(tab, devtools)
        tab.locator("section#cues figure").first.screenshot(path=str(artifact(f"chart-{lang}.png")))
    cjk = [(content, family, fonts) for content, family, fonts in texts if text_lang([content])]
    assert len(cjk) >= 3, texts  # the cue words of the PMI chart
    for content, family, fonts in cjk:
        assert family.startswith(f'"DejaVu Sans", "Noto Sans", "{face}"'), family
        cjk_chars = sum(1 for char in content if text_lang([char]))
        assert fonts.get(face) == cjk_chars, (content, fonts)
        assert set(fonts) <= {face, "DejaVu Sans"}, (content, fonts)
