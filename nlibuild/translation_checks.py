"""Checks of imported translations, per unit (a premise `p:<id>` or a hypothesis `h:<id>`).

What went wrong in translated NLI data: untranslated or empty rows, text left in the Latin
script (OCNLI section 2 found that 11.6% of XNLI's Chinese dev pairs contain more than 10
Roman letters), broken (far too short or long) sentences, and rows that lost their place.
Each check names a unit and says what it found; `translate import` stores them per language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from nlibuild.lang import primary_language

NON_LATIN_LANGS: frozenset[str] = frozenset({"zh", "ja", "ko", "th", "my", "ar", "hi"})
"""Target languages written in another script: Latin letters there are worth a look."""

MAX_ROMAN_LETTERS = 10
"""OCNLI's flag: more than 10 Roman letters in a sentence of a non-Latin-script language."""

MAX_LATIN_SHARE = 0.5
"""A translation into a non-Latin script whose letters are mostly Latin is suspicious."""

CHARS_PER_ENGLISH_CHAR: dict[str, float] = {"zh": 0.3, "ja": 0.4, "ko": 0.45}
"""Rough characters of a language per character of the same text in English (other
languages ~1): the length ratio band is scaled by it, so Chinese is not 'too short'."""

LENGTH_BAND = (0.4, 2.5)
"""The accepted ratio of translation to source length, after scaling by script."""

MIN_SOURCE_CHARS = 15
"""Shorter sources are not checked for length: a ratio of tiny numbers says little."""

_ROMAN = re.compile(r"[A-Za-z]")

CORPUS_CHECKS = ("same_as_premise", "duplicate")
"""The checks `corpus_checks` makes: they depend on other units, so each import redoes them."""


@dataclass(frozen=True)
class Check:
    unit_id: str
    check: str
    detail: str


def _letters(text: str) -> int:
    return sum(map(str.isalpha, text))


def _chars(text: str) -> int:
    return len("".join(text.split()))


def unit_checks(unit_id: str, source: str, source_lang: str, text: str, lang: str) -> list[Check]:
    """The checks of one translated unit (empty, untranslated, script, length)."""
    if not text.strip():
        return [Check(unit_id, "empty", "the translation is empty")]
    found = []
    target = primary_language(lang)
    same = " ".join(text.split()).casefold() == " ".join(source.split()).casefold()
    if same and target != primary_language(source_lang) and _letters(source):
        found.append(Check(unit_id, "untranslated", "the translation is the source text"))
    if target in NON_LATIN_LANGS:
        roman = len(_ROMAN.findall(text))
        if roman > MAX_ROMAN_LETTERS:
            found.append(Check(unit_id, "roman_letters", f"{roman} Roman letters (over 10)"))
        letters = _letters(text) if roman else 0  # no Roman letter: no share to check
        if letters and roman / letters > MAX_LATIN_SHARE:
            found.append(
                Check(unit_id, "latin_script", f"{roman / letters:.0%} of the letters are Latin")
            )
    source_chars = _chars(source)
    if source_chars >= MIN_SOURCE_CHARS:
        scale = CHARS_PER_ENGLISH_CHAR.get(target, 1.0) / CHARS_PER_ENGLISH_CHAR.get(
            primary_language(source_lang), 1.0
        )
        ratio = _chars(text) / source_chars
        low, high = LENGTH_BAND[0] * scale, LENGTH_BAND[1] * scale
        if not low <= ratio <= high:
            found.append(
                Check(
                    unit_id,
                    "length_ratio",
                    f"{ratio:.2f} times the source's characters (expected {low:.2f}-{high:.2f})",
                )
            )
    return found


def corpus_checks(
    translations: Mapping[str, str], sources: Mapping[str, str], premise_of: Mapping[str, str]
) -> list[Check]:
    """Checks across units of one language: a hypothesis translated exactly like its
    premise (when the sources differ), and one translation given to different sources."""
    found = []
    plain = {unit_id: " ".join(text.split()) for unit_id, text in translations.items()}
    for unit_id, text in plain.items():
        premise = premise_of.get(unit_id)
        if premise is None or premise not in plain:
            continue
        if text == plain[premise] and sources.get(unit_id) != sources.get(premise):
            found.append(
                Check(unit_id, "same_as_premise", f"translated exactly like its premise {premise}")
            )
    by_text: dict[str, list[str]] = {}
    for unit_id, text in plain.items():
        if text:
            by_text.setdefault(text, []).append(unit_id)
    for units in by_text.values():
        if len(units) == 1:
            continue
        distinct_sources = {" ".join(sources.get(u, "").split()) for u in units}
        if len(distinct_sources) > 1:
            for unit_id in units:
                others = ", ".join(u for u in sorted(units) if u != unit_id)[:200]
                found.append(Check(unit_id, "duplicate", f"the same translation as {others}"))
    return found
