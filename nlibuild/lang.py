"""Per-language units: sentence splitting, tokens, length unit, normalised text keys.

Chinese, Japanese, Korean, Thai and Burmese are written without spaces between words, so
their length unit is the character (OCNLI section 2.1 keeps premises of 8 to 50
characters); the other languages count tokens (XNLI Table 2 reports tokens).

Sentence splitting is rule-based and fast (ingest streams gigabytes): for the CJK scripts a
sentence ends at 。！？；… (and their half-width forms), with closing quotes and brackets
kept with their sentence; for space-delimited languages at . ! ? … followed by space, except
after a known abbreviation (a per-language list in resources/abbreviations/, which teams can
extend), a single-letter initial, or inside a number (3.5 never splits: no space follows).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import cache
from pathlib import Path

CHARACTER_UNIT_LANGS: frozenset[str] = frozenset({"zh", "ja", "ko", "th", "my"})
"""Languages whose length unit is the character (configurable per call with a unit)."""

SCRIPTIO_CONTINUA_LANGS: frozenset[str] = frozenset({"zh", "ja", "th", "my"})
"""Languages that do not put spaces between sentences, so sentence ends need no space."""

RESOURCES = Path(__file__).resolve().parent / "resources"

# Closing quotes and brackets that stay with the sentence they close.
_CLOSERS = "\"'”’」』）)］]》〉»›"
_CJK_END = re.compile(rf"[。！？；!?;…]+[{re.escape(_CLOSERS)}]*")
_SPACED_END = re.compile(rf"(?:\.\.\.|[.!?…])+[{re.escape(_CLOSERS)}]*(?=\s)")
_OPENERS = "\"'“‘(["
_SPACE_RUN = re.compile(r"\s+")
_TOKEN = re.compile(r"\w+(?:['’\-]\w+)*|[^\w\s]")
_STARTS_LOWER = re.compile(r"\s*[\"'“‘(\[]*[a-zà-ÿ]")


def primary_language(lang: str) -> str:
    """`zh` for `zh`, `zh-Hant`, `ZH_cn`: the part that decides units and rules."""
    return lang.replace("_", "-").split("-")[0].lower()


def length_unit(lang: str) -> str:
    """`chars` or `tokens`: the unit in which lengths of this language are counted."""
    return "chars" if primary_language(lang) in CHARACTER_UNIT_LANGS else "tokens"


def char_length(text: str) -> int:
    """Characters that are not white space (OCNLI counts Chinese characters and punctuation)."""
    return len("".join(text.split()))


def tokens(text: str) -> list[str]:
    """Words (letters and digits, with inner apostrophes and hyphens) and punctuation marks."""
    return _TOKEN.findall(text)


def token_length(text: str) -> int:
    return len(_TOKEN.findall(text))


def text_length(text: str, lang: str) -> int:
    """Length of `text` in its language's unit (non-space characters, or tokens)."""
    if length_unit(lang) == "chars":
        return char_length(text)
    return token_length(text)


def normalise_text(text: str) -> str:
    """NFC, with every run of white space (newlines, tabs, ideographic spaces) one space."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return _SPACE_RUN.sub(" ", text).strip()


def text_key(text: str) -> int:
    """A 63-bit hash of a normalised text, case-folded: equal keys mean the same sentence.

    63 bits keep every key a non-negative SQLite integer, so that a seeded order can be
    computed in SQL without overflow (see Store.sample_sentences).
    """
    digest = hashlib.blake2b(text.casefold().encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def text_keys(text: str, lang: str) -> set[int]:
    """The keys a text rules out of sampling: its own, and each of its sentences' (a
    released premise can be several sentences, any of which a pool may hold alone)."""
    keys = {text_key(normalise_text(text))}
    keys.update(text_key(normalise_text(s)) for s in split_sentences(text, lang))
    return keys


@cache
def abbreviations(lang: str) -> frozenset[str]:
    """Lower-cased abbreviations (without their final period) after which a period does not
    end a sentence: resources/abbreviations/<lang>.txt, one per line, `#` comments."""
    path = RESOURCES / "abbreviations" / f"{primary_language(lang)}.txt"
    if not path.is_file():
        return frozenset()
    words = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        word = line.split("#", 1)[0].strip()
        if word:
            words.add(word.lower().rstrip("."))
    return frozenset(words)


def split_sentences(text: str, lang: str) -> list[str]:
    """The sentences of a paragraph, in order, with their own punctuation kept.

    Text without a sentence end is one sentence. White space is not normalised here.
    """
    if primary_language(lang) in SCRIPTIO_CONTINUA_LANGS:
        return _split_at(text, [m.end() for m in _CJK_END.finditer(text)])
    known = abbreviations(lang)
    cuts = []
    for match in _SPACED_END.finditer(text):
        if match.group().startswith(".") and _is_abbreviation(text, match.start(), known):
            continue
        if _STARTS_LOWER.match(text, match.end()):
            continue  # '"Why?" she asked', "... and so on": a lower-case start continues
        cuts.append(match.end())
    return _split_at(text, cuts)


def _is_abbreviation(text: str, end: int, known: frozenset[str]) -> bool:
    """Whether the word that ends at `end` (just before a period) is an abbreviation."""
    word = text[text.rfind(" ", 0, end) + 1 : end].lstrip(_OPENERS).lower()
    if not word:
        return False
    if len(word) == 1 and word.isalpha():
        return True  # an initial: "J. R. Carver"
    return word in known or word.rstrip(".") in known or "." in word.strip(".")


def _split_at(text: str, cuts: list[int]) -> list[str]:
    pieces = []
    start = 0
    for cut in [*cuts, len(text)]:
        piece = text[start:cut].strip()
        if piece:
            pieces.append(piece)
        start = cut
    return pieces
