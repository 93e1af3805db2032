"""The fonts the charts are drawn in, so that Chinese, Japanese and Korean never come out as
boxes (issue 28, item 7).

matplotlib's own font, DejaVu Sans, has Latin, Greek and Cyrillic but no CJK glyph, and a
pip install brings no other. So:

- a PNG (`stats --plot`) is drawn in DejaVu Sans with the Noto Sans CJK collection behind it
  (matplotlib falls back glyph by glyph along the family list). The collection is the
  `noto-cjk-sans-otc` package, a dependency (SIL Open Font License 1.1; the very file Debian
  ships as fonts-noto-cjk). It is registered with matplotlib the first time a chart is
  drawn, never at import: `nlibuild --help` must stay fast. Its faces hold the same
  characters and differ in the forms of the Han characters they share (骨 is drawn one way
  in Chinese, another in Japanese), so the face is the store's language's;
- the report's charts are SVG with their text kept as text (`svg.fonttype = none`): the
  reader's browser draws it, in the font stack of the language the workbench's pages use
  (Noto Sans CJK, then each system's own CJK fonts);
- a character no font has is one `Warning:` line naming it, not matplotlib's warning per
  glyph on stderr.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from nlibuild.text.lang import primary_language

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LATIN_FONT = "DejaVu Sans"
"""matplotlib's own font (always there): Latin, Greek and Cyrillic text look as before."""

_REGION_FONTS: dict[str, tuple[str, ...]] = {
    "SC": ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC",
           "Microsoft YaHei", "WenQuanYi Micro Hei"),
    "TC": ("Noto Sans CJK TC", "Noto Sans TC", "Source Han Sans TC", "PingFang TC",
           "Microsoft JhengHei"),
    "HK": ("Noto Sans CJK HK", "Noto Sans HK", "Source Han Sans HC", "PingFang HK",
           "Microsoft JhengHei"),
    "JP": ("Noto Sans CJK JP", "Noto Sans JP", "Hiragino Sans", "Yu Gothic", "Meiryo"),
    "KR": ("Noto Sans CJK KR", "Noto Sans KR", "Source Han Sans KR", "Apple SD Gothic Neo",
           "Malgun Gothic", "NanumGothic"),
}  # fmt: skip
"""Per region, the fonts a browser may have, best first (nlibuild/web/static/workbench.css
has the same stacks); the first is the face of the bundled Noto Sans CJK collection."""

_SYSTEM_FALLBACKS = ("Noto Sans CJK JP", "WenQuanYi Zen Hei", "Droid Sans Fallback")
"""Where the bundled collection is missing: a system's fonts with Han and Hangul both. (A
matplotlib before 3.11 registers only a collection's first face, Noto Sans CJK JP.)"""

_GLYPH_MISSING = re.compile(r"Glyph (\d+) .*missing from font")
"""matplotlib's warning, once per glyph, when no font of the family list has it."""


def cjk_region(lang: str) -> str:
    """The region whose Han forms a language's text is drawn in: SC (Simplified Chinese,
    also the choice for a store of another language), TC, HK, JP or KR."""
    tag = lang.replace("_", "-").lower()
    primary = primary_language(lang)
    if primary == "ja":
        return "JP"
    if primary == "ko":
        return "KR"
    if primary in ("zh", "yue"):
        if "hk" in tag.split("-") or primary == "yue":
            return "HK"
        if any(part in ("hant", "tw", "mo") for part in tag.split("-")):
            return "TC"
    return "SC"


def css_font_family(lang: str) -> str:
    """The CSS font-family of a chart's text in the report: Latin first, as in the PNG,
    then the language's CJK fonts, then the browser's own sans-serif."""
    names = [LATIN_FONT, "Noto Sans", *_REGION_FONTS[cjk_region(lang)]]
    return ", ".join([*(f"'{name}'" for name in names), "sans-serif"])


def text_lang(texts: Sequence[str]) -> str | None:
    """The CJK language the texts are in, by their scripts (Hangul: ko; kana: ja; Han:
    zh), or None where they have no CJK character."""
    found = {_cjk_script(char) for text in texts for char in text} - {None}
    for script, lang in (("HANGUL", "ko"), ("KANA", "ja"), ("CJK", "zh")):
        if script in found:
            return lang
    return None


def _cjk_script(char: str) -> str | None:
    if char < "\u1100":
        return None
    name = unicodedata.name(char, "")
    if name.startswith("HANGUL"):
        return "HANGUL"
    if name.startswith(("HIRAGANA", "KATAKANA")):
        return "KANA"
    return "CJK" if name.startswith("CJK UNIFIED IDEOGRAPH") else None


def chart_lang(figure: Figure, lang: str | None) -> str:
    """The language a chart's fonts are chosen for: the store's, where it is Chinese,
    Japanese or Korean; else the script of the chart's own text decides (a store left at
    the default `en` may hold Korean pairs)."""
    if lang is not None and primary_language(lang) in ("zh", "yue", "ja", "ko"):
        return lang
    from matplotlib.text import Text

    texts = [artist.get_text() for artist in figure.findobj(Text)]
    return text_lang(texts) or lang or "en"


def bundled_font() -> Path | None:
    """The bundled Noto Sans CJK collection, registered with matplotlib's font manager
    (the first time; again should matplotlib have rebuilt its list of fonts); None where
    the package is not installed."""
    try:
        from noto_cjk_sans_otc import FONT_PATH
    except ImportError:
        return None
    path = Path(str(FONT_PATH))
    if not path.is_file():  # a zipped install: FreeType reads files only
        return None
    from matplotlib import font_manager

    if not any(entry.fname == str(path) for entry in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(path)
    return path


def chart_families(lang: str) -> list[str]:
    """The families matplotlib draws a chart of `lang` in, glyph by glyph: DejaVu Sans,
    then the language's face of Noto Sans CJK (or a system CJK font where the collection
    is missing). Only fonts present: an absent one is a line matplotlib logs on stderr."""
    from matplotlib import font_manager

    bundled_font()
    known = {entry.name for entry in font_manager.fontManager.ttflist}
    wanted = [_REGION_FONTS[cjk_region(lang)][0], *_SYSTEM_FALLBACKS]
    return [LATIN_FONT, *[name for name in dict.fromkeys(wanted) if name in known][:1]]


@contextmanager
def chart_fonts(figure: Figure, lang: str) -> Iterator[list[str]]:
    """Within the block, the figure is drawn in `chart_families(lang)`; the list it gives
    is filled, when the block ends, with the characters no font had (matplotlib's warnings
    about them are taken, not shown; any other warning is shown as it would have been)."""
    from matplotlib import rc_context
    from matplotlib.font_manager import font_family_aliases
    from matplotlib.text import Text

    families = chart_families(lang)
    # A generic family ("sans-serif") is one font to matplotlib, with no fallback behind
    # it: the texts get the list itself, those made while drawing (ticks) through rc.
    for text in figure.findobj(Text):
        if all(name in font_family_aliases for name in text.get_fontfamily()):
            text.set_fontfamily(families)
    missing: list[str] = []
    with rc_context({"font.family": families}), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield missing
    for warning in caught:
        found = _GLYPH_MISSING.match(str(warning.message))
        if found:
            missing.append(chr(int(found.group(1))))
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    missing[:] = list(dict.fromkeys(missing))


def missing_glyphs_warning(chart: Path, missing: Sequence[str]) -> str:
    """The one warning (without `Warning: `) for the characters a PNG chart draws as boxes,
    and what gives them a font."""
    from matplotlib import get_cachedir

    shown = ", ".join(f"{char} (U+{ord(char):04X})" for char in missing[:5])
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    if bundled_font() is None:
        remedy = "pip install noto-cjk-sans-otc (nlibuild's dependency: Noto Sans CJK)"
    else:  # matplotlib sees a new system font only once its list of fonts is remade
        remedy = (
            "install a font that has them (Debian: fonts-noto) and delete matplotlib's "
            f"list of fonts, {Path(get_cachedir()) / 'fontlist-*.json'}"
        )
    return (
        f"{chart}: {len(missing)} of the chart's characters are in none of its fonts and "
        f"are drawn as boxes: {shown}{more}; {remedy}"
    )


_SVG_FONT_FAMILY = re.compile(r'(style="[^"]*?font-family: )([^;"]*)')


def with_css_fonts(svg: str, lang: str) -> str:
    """An SVG that matplotlib wrote with text as text, each text's font-family the CSS
    stack of `lang` (matplotlib names only the fonts it drew with)."""
    family = css_font_family(lang)
    return _SVG_FONT_FAMILY.sub(lambda found: found.group(1) + family, svg)
