"""Charts that draw every script (issue 28, item 7): `stats --plot` of a Chinese or Korean
store drew boxes and printed one matplotlib warning a glyph on stderr, as no CJK font came
with a pip install. The PNGs are now drawn with the bundled Noto Sans CJK (the store's
language's face), stderr stays clean, and a character no font has is one `Warning:` line.
The report's SVG charts are checked in a browser by tests/test_chart_fonts_browser.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from chart_stores import chart_store
from conftest import ok_result, write_jsonl
from test_report import PNG_MAGIC

import nlibuild
from nlibuild.models import PmiConfig
from nlibuild.report.fonts import (
    chart_families,
    cjk_region,
    css_font_family,
    missing_glyphs_warning,
    text_lang,
)
from nlibuild.report.plots import table_figure, write_png
from nlibuild.stats import stats_tables
from nlibuild.store import Store

GLYPH_WARNING = re.compile(r"Glyph \d+|missing from font|UserWarning")


def nlibuild_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`nlibuild ARGS...` in its own process: stderr as a user's terminal shows it (in the
    test's process, pytest would take matplotlib's warnings before they reached it)."""
    return subprocess.run(
        [sys.executable, "-m", "nlibuild", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("lang", ["zh", "ko", "en"])
def test_stats_plot_of_cue_words_writes_no_glyph_warning(tmp_path: Path, lang: str) -> None:
    db = chart_store(tmp_path, lang)
    png = tmp_path / "pmi.png"
    done = nlibuild_process("--db", db, "stats", "--table", "pmi", "--per-label",
                            "--min-count", "2", "--plot", png)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not GLYPH_WARNING.search(done.stderr), done.stderr
    assert "Warning:" not in done.stderr
    assert png.read_bytes().startswith(PNG_MAGIC)


@pytest.mark.parametrize("lang", ["zh", "ko"])
@pytest.mark.parametrize("table", [("agreement", "--by", "genre"), ("lengths",), ("cues",)])
def test_every_chart_of_a_cjk_store_draws_without_a_warning(
    tmp_path: Path, lang: str, table: tuple[str, ...]
) -> None:
    db = chart_store(tmp_path, lang)
    png = tmp_path / "chart.png"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ok_result("--db", db, "stats", "--table", *table, "--plot", png)
    assert [str(warning.message) for warning in caught] == []
    assert "Warning:" not in result.stderr
    assert png.read_bytes().startswith(PNG_MAGIC)


@pytest.mark.parametrize(("lang", "face"), [("ko", "Noto Sans CJK KR"), ("zh", "Noto Sans CJK SC")])
def test_every_character_of_the_chart_has_a_glyph_in_its_fonts(
    tmp_path: Path, lang: str, face: str
) -> None:
    """Not tofu: each character of each text of the PNG has a glyph (its index in the font
    is not 0, FreeType's "missing") in one of the fonts matplotlib finds for the text, and
    each Hangul or Han character in the CJK face of the store's language."""
    from matplotlib.font_manager import FontProperties, findfont, get_font
    from matplotlib.text import Text

    db = chart_store(tmp_path, lang)
    store = Store.open(db)
    with store:
        result = stats_tables()["pmi"].compute(store, PmiConfig(min_count=2, per_label=True))
        figure = table_figure("pmi", store, result)
    assert write_png(figure, tmp_path / "pmi.png", lang) is None
    assert chart_families(lang) == ["DejaVu Sans", face]
    texts = [text for text in figure.findobj(Text) if text.get_text().strip()]
    drawn = "".join(text.get_text() for text in texts)
    assert text_lang([drawn]) == lang  # the chart does hold the script under test
    cjk = get_font(findfont(FontProperties(family=face)))
    assert cjk.family_name == face
    for text in texts:
        fonts = [get_font(findfont(FontProperties(family=name))) for name in text.get_fontfamily()]
        for char in text.get_text().replace(" ", ""):
            assert any(font.get_char_index(ord(char)) for font in fonts), (char, text)
            if text_lang([char]) is not None:
                assert cjk.get_char_index(ord(char)) != 0, char


def test_a_character_no_font_has_is_one_warning_line(tmp_path: Path) -> None:
    """Egyptian hieroglyphs are in neither DejaVu Sans nor Noto Sans CJK: the chart is
    still written, and stderr has one `Warning:` naming them, no matplotlib warning."""
    records = [
        {"pairID": f"{n}{label[0]}", "promptID": str(n), "sentence1": f"Premise number {n}.",
         "sentence2": f"{word} stands here", "gold_label": label,
         "annotator_labels": [label] * 3}
        for n in range(6)
        for label, word in (("entailment", "\U00013000"), ("contradiction", "\U00013080"))
    ]  # fmt: skip
    db = tmp_path / "glyphs.db"
    nlibuild.create(db).import_corpus(path=write_jsonl(tmp_path / "g.jsonl", records),
                                      format="mnli")  # fmt: skip
    png = tmp_path / "pmi.png"
    done = nlibuild_process("--db", db, "stats", "--table", "pmi", "--per-label",
                            "--min-count", "2", "--smoothing", "0", "--plot", png)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not GLYPH_WARNING.search(done.stderr), done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("Warning:")]
    assert len(lines) == 1, done.stderr
    assert "U+13000" in lines[0] and "U+13080" in lines[0] and str(png) in lines[0]
    assert "fonts-noto" in lines[0] and "fontlist-*.json" in lines[0]  # what gives them a font
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_without_the_bundled_font_the_warning_says_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "noto_cjk_sans_otc", None)  # import fails
    warning = missing_glyphs_warning(Path("pmi.png"), list("그들은밖에서"))
    assert warning.startswith("pmi.png: 6 of the chart's characters are in none of its fonts")
    assert "그 (U+ADF8)" in warning and "and 1 more" in warning
    assert warning.endswith("pip install noto-cjk-sans-otc (nlibuild's dependency: Noto Sans CJK)")


@pytest.mark.parametrize(
    ("lang", "region"),
    [("zh", "SC"), ("zh-CN", "SC"), ("zh_TW", "TC"), ("zh-Hant", "TC"), ("zh-HK", "HK"),
     ("ja", "JP"), ("ko", "KR"), ("ko-KR", "KR"), ("en", "SC")],
)  # fmt: skip
def test_the_cjk_face_is_the_languages(lang: str, region: str) -> None:
    assert cjk_region(lang) == region


def test_the_report_charts_css_keeps_latin_first_then_the_languages_cjk_fonts() -> None:
    korean = css_font_family("ko")
    assert korean.startswith("'DejaVu Sans', 'Noto Sans', 'Noto Sans CJK KR'")
    assert korean.endswith(", sans-serif")
    assert "'Noto Sans CJK SC'" in css_font_family("en")


@pytest.mark.parametrize(
    ("texts", "lang"),
    [(["그들은 (entailment)"], "ko"), (["他们 (neutral)"], "zh"), (["カタカナと漢字"], "ja"),
     (["all", "0.5"], None), (["他们", "밖에"], "ko")],
)  # fmt: skip
def test_a_charts_language_by_the_script_of_its_text(texts: list[str], lang: str | None) -> None:
    assert text_lang(texts) == lang
