r"""The scripts each language is written in, and how much of a text is in them.

Which scripts a language uses is a fact about the language, written here once per code. Which
characters belong to a script is not written here at all: it is Unicode's Script property
(Scripts.txt), read through the `regex` package's `\p{Script=...}` classes. Characters of
the Common and Inherited scripts (digits, punctuation, spaces, generic combining marks) are
shared by every script and count for none; every other character belongs to one script.

XTREME (section 5, Figure 3) reads its results by script: models carry information across
scripts badly; a translation left in the wrong script (romanised Urdu, Russian in Latin
letters, Swahili in a Burmese file) is therefore a broken row, not a style choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import regex

LATIN = "Latin"

EXPECTED_SCRIPTS: dict[str, tuple[str, ...]] = {
    # XNLI's 15 languages (Conneau et al. 2018).
    "en": (LATIN,), "fr": (LATIN,), "es": (LATIN,), "de": (LATIN,), "el": ("Greek",),
    "bg": ("Cyrillic",), "ru": ("Cyrillic",), "tr": (LATIN,), "ar": ("Arabic",),
    "vi": (LATIN,), "th": ("Thai",), "zh": ("Han",), "hi": ("Devanagari",), "sw": (LATIN,),
    "ur": ("Arabic",),
    # AmericasNLI's 10 indigenous languages of the Americas, each written in the Latin
    # alphabet: Aymara, Bribri, Asháninka, Guaraní, Wixarika, Nahuatl, Otomí, Quechua,
    # Shipibo-Konibo, Rarámuri.
    "aym": (LATIN,), "bzd": (LATIN,), "cni": (LATIN,), "gn": (LATIN,), "hch": (LATIN,),
    "nah": (LATIN,), "oto": (LATIN,), "quy": (LATIN,), "shp": (LATIN,), "tar": (LATIN,),
    # IndoNLI (Indonesian).
    "id": (LATIN,),
    # Other languages nlibuild meets: myXNLI's Burmese, XNLIeu's Basque, KorNLI's Korean
    # (Hangul, with Han characters in places), Japanese (kanji and both kana).
    "my": ("Myanmar",), "eu": (LATIN,), "ko": ("Hangul", "Han"),
    "ja": ("Han", "Hiragana", "Katakana"),
}  # fmt: skip
"""Language code -> the scripts (Unicode Script property values) its text is written in."""

_SHARED = r"\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}"

_NAMED_SCRIPTS = tuple(sorted({s for scripts in EXPECTED_SCRIPTS.values() for s in scripts}))
"""The scripts a finding may name as the one a text is mostly in."""


def expected_scripts(lang: str) -> tuple[str, ...] | None:
    """The scripts `lang` (a code, region or script subtags allowed) is written in, or None
    for a language nlibuild has no entry for."""
    from nlibuild.text.lang import primary_language

    return EXPECTED_SCRIPTS.get(primary_language(lang))


@cache
def _outside(scripts: tuple[str, ...]) -> regex.Pattern[str]:
    """One character of a script other than `scripts` (and not Common or Inherited)."""
    allowed = "".join(rf"\p{{Script={s}}}" for s in scripts)
    return regex.compile(rf"[^{_SHARED}{allowed}]")


_SCRIPTED = regex.compile(rf"[^{_SHARED}]")


@cache
def _of_script(script: str) -> regex.Pattern[str]:
    return regex.compile(rf"\p{{Script={script}}}")


@dataclass(frozen=True)
class ScriptShare:
    """How a text's characters of some script divide: `scripted` characters belong to a
    script (not Common or Inherited), `outside` of them to none of the expected ones."""

    scripted: int
    outside: int

    @property
    def outside_share(self) -> float:
        return self.outside / self.scripted if self.scripted else 0.0


def script_share(text: str, scripts: tuple[str, ...]) -> ScriptShare:
    """Characters of `text` in a script, and how many of them are outside `scripts`."""
    return ScriptShare(scripted=scripted_chars(text), outside=len(_outside(scripts).findall(text)))


def mostly_outside(text: str, scripts: tuple[str, ...], share: float) -> bool:
    """Whether more than `share` of `text`'s characters of a script are outside `scripts`.
    Most texts hold none: one search settles them (half a million units a language)."""
    if _outside(scripts).search(text) is None:
        return False
    return script_share(text, scripts).outside_share > share


def scripted_chars(text: str) -> int:
    """Characters of `text` that belong to a script (letters and the marks of a script)."""
    return len(_SCRIPTED.findall(text))


def main_script(text: str) -> str | None:
    """The script most of `text`'s characters are in, among those of EXPECTED_SCRIPTS (None
    when none of them holds any)."""
    counts = {s: len(_of_script(s).findall(text)) for s in _NAMED_SCRIPTS}
    script, n = max(counts.items(), key=lambda item: item[1])
    return script if n else None
