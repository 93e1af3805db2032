"""Per-language units: sentence splitting, tokens, length unit, normalised text keys.

Chinese, Japanese, Korean, Thai and Burmese are written without spaces between words, so
their length unit is the character (OCNLI section 3.1 keeps premises of 8 to 50
characters); the other languages count tokens (XNLI Table 2 reports tokens).

Sentence splitting is rule-based and fast (ingest streams gigabytes): for the CJK scripts a
sentence ends at 。！？；… (and their half-width forms; Burmese ။), with closing quotes and
brackets kept with their sentence; for space-delimited languages at . ! ? … followed by
space, except after a known abbreviation (a per-language list in resources/abbreviations/,
which teams can extend), a single-letter initial, or inside a number (3.5 never splits: no
space follows).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

import numpy as np
import numpy.typing as npt

CHARACTER_UNIT_LANGS: frozenset[str] = frozenset({"zh", "ja", "ko", "th", "my"})
"""Languages whose length unit is the character (configurable per call with a unit)."""

SCRIPTIO_CONTINUA_LANGS: frozenset[str] = frozenset({"zh", "ja", "th", "my"})
"""Languages that do not put spaces between sentences, so sentence ends need no space."""

# Read through importlib.resources so an installed wheel finds its own copy.
RESOURCES: Traversable = files("nlibuild") / "resources"

# Closing quotes and brackets that stay with the sentence they close.
_CLOSERS = "\"'”’」』）)］]》〉»›"
_CJK_END_MARKS = "。！？；!?;…။"
_CJK_END = re.compile(rf"([{_CJK_END_MARKS}]+[{re.escape(_CLOSERS)}]*)")
_SPACED_END_MARKS = ".!?…"
# Han, kana, CJK punctuation and full-width forms; Thai; Myanmar.
_CONTINUA_CHAR = (
    "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u0e00-\u0e7f\u1000-\u109f"
)
_CONTINUA_GAP = re.compile(rf"(?<=[{_CONTINUA_CHAR}]) +(?=[{_CONTINUA_CHAR}])")
_OPENERS = "\"'“‘(["


@functools.cache  # called per unit on imports of millions of units, with a handful of tags
def primary_language(lang: str) -> str:
    """`zh` for `zh`, `zh-Hant`, `ZH_cn`: the part that decides units and rules."""
    return lang.replace("_", "-").split("-")[0].lower()


def length_unit(lang: str) -> str:
    """`chars` or `tokens`: the unit in which lengths of this language are counted."""
    return "chars" if primary_language(lang) in CHARACTER_UNIT_LANGS else "tokens"


def char_length(text: str) -> int:
    """Characters that are not white space (OCNLI counts Chinese characters and punctuation)."""
    return len("".join(text.split()))


def token_length(text: str) -> int:
    """Whitespace-separated tokens: the length unit of space-delimited languages.

    Punctuation stays with its word ("world!" is one token), as in a whitespace split of
    the text.
    """
    return len(text.split())


def text_length(text: str, lang: str) -> int:
    """Length of `text` in its language's unit (non-space characters, or tokens)."""
    if length_unit(lang) == "chars":
        return char_length(text)
    return token_length(text)


WHITE_SPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Every character `str.isspace` holds white space, and so every one `str.split()` cuts
at: for regexes of other engines (polars' \\s lacks \\x1c-\\x1f)."""


def normalise_text(text: str) -> str:
    """NFC, with every run of white space (newlines, tabs, ideographic spaces) one space."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def close_gaps(text: str) -> str:
    """Remove spaces between two characters of a script written without them (what is left
    where markup was cut out of Chinese text); a space next to a Latin word stays."""
    return _CONTINUA_GAP.sub("", text) if " " in text else text


def canonical_text(text: str, lang: str) -> str:
    """The form in which two texts are compared: `normalise_text`, and for scripts written
    without spaces `close_gaps` too, so that "他 说了" and "他说了" are one sentence.
    Ingest takes a sentence's key and lengths over it; the text it stores is another
    matter (verbatim under `--clean none`)."""
    text = normalise_text(text)
    if primary_language(lang) in SCRIPTIO_CONTINUA_LANGS:
        text = close_gaps(text)
    return text


def text_key(text: str) -> int:
    """A 63-bit hash of a normalised text, case-folded: equal keys mean the same sentence.

    63 bits keep every key a non-negative SQLite integer, so that a seeded order can be
    computed in SQL without overflow (see queries.pool.sample_sentences).
    """
    digest = hashlib.blake2b(text.casefold().encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def text_key_array(texts: Sequence[str]) -> npt.NDArray[np.int64]:
    """`text_key` of each text, as an array: one casefold and one encode for the batch
    instead of one a text (the hashing itself stays per text)."""
    if not texts:
        return np.zeros(0, dtype=np.int64)
    # Case folding maps each character on its own, so folding the joined texts and cutting
    # them apart again gives each text's folding; a text holding the NUL itself cannot be
    # cut apart again, so that batch goes text by text.
    folded = "\x00".join(texts).casefold().encode("utf-8").split(b"\x00")
    if len(folded) != len(texts):
        return np.fromiter(map(text_key, texts), dtype=np.int64, count=len(texts))
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(text, digest_size=8).digest() for text in folded])
    return (np.frombuffer(digests, dtype=">u8") >> 1).astype(np.int64)


def text_keys(text: str, lang: str) -> set[int]:
    """The keys a text rules out of sampling: its own, and each of its sentences' (a
    released premise can be several sentences, any of which a pool may hold alone). Keys
    are taken over `canonical_text`, as ingest takes a pool sentence's, so that a premise
    stored as its source wrote it still rules out its pool sentence."""
    keys = {text_key(canonical_text(text, lang))}
    keys.update(text_key(canonical_text(s, lang)) for s in split_sentences(text, lang))
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

    Text without a sentence end is one sentence. White space inside is not normalised.
    """
    parts = _sentence_end(primary_language(lang)).split(text)
    # split() alternates text and the captured sentence end: text, end, text, end, text.
    sentences = [(parts[i] + parts[i + 1]).strip() for i in range(0, len(parts) - 1, 2)]
    sentences.append(parts[-1].strip())
    return [sentence for sentence in sentences if sentence]


SENTENCE_BREAK = "\x00"
"""What `mark_sentence_ends` puts after each sentence end: a character that text does not
hold (readers check) and that no sentence-end rule matches or looks at."""


def mark_sentence_ends(text: str, lang: str) -> str:
    """`text` with SENTENCE_BREAK after every sentence end, in place of the white space
    that follows it: `split_sentences` without the cutting, so that many paragraphs can be
    marked in one call and cut apart in bulk. Cut at SENTENCE_BREAK and stripped, the
    pieces are those of `split_sentences` plus blank ones."""
    parts = _sentence_end(primary_language(lang)).split(text)
    # Cheaper than sub() with a template, which Python 3.11 expands in Python per match.
    parts[1::2] = [end + SENTENCE_BREAK for end in parts[1::2]]
    return "".join(parts)


def _sentence_end(lang: str) -> re.Pattern[str]:
    return _CJK_END if lang in SCRIPTIO_CONTINUA_LANGS else _spaced_sentence_end(lang)


def rust_class(chars: str) -> str:
    """The inside of a character class that holds exactly `chars`, in the syntax of polars'
    regex engine (Rust's regex crate)."""
    return "".join(f"\\x{{{ord(char):x}}}" for char in chars)


@dataclass(frozen=True)
class BulkSentenceEnds:
    """A language's sentence-end rule as steps of polars' regex engine, which has no
    look-around: applied in order to a column of paragraphs they mark the sentence ends that
    `mark_sentence_ends` marks, except in paragraphs that match `defer`, which need Python.

    1. `candidate` -> `"${1}" + SENTENCE_BREAK + "${2}"`: every run of end marks (and
       closers) that could end a sentence; for spaced languages one followed by white space
       (group 2, empty for the others). The white space stays, after the break: where step
       3 or 4 takes the break back, the text is as it was (`--clean none` stores it so),
       and where it stays, the white space is at the start of the next sentence, which is
       stripped.
    2. `defer`: a candidate after a single period whose word Python's \\w and \\b may judge
       otherwise than ASCII does (a non-ASCII character in it or just before it).
    3. `lower` -> `"${1}"`: no sentence end before a word in lower case.
    4. `abbreviation` -> `"${1}.${2}"`: no sentence end after a known abbreviation or an
       initial. Its ASCII word boundary is Python's \\b wherever step 2 did not defer.
    """

    candidate: str
    defer: str | None = None
    lower: str | None = None
    abbreviation: str | None = None


@cache
def bulk_sentence_ends(lang: str) -> BulkSentenceEnds | None:
    """The bulk form of `lang`'s sentence-end rule; None where an abbreviation is not one
    word, or could match ASCII letters that are not its own (Python's case-insensitive
    match takes the long s for an s), so that words of ASCII alone cannot decide."""
    closers = f"[{rust_class(_CLOSERS)}]*"
    lang = primary_language(lang)
    if lang in SCRIPTIO_CONTINUA_LANGS:
        return BulkSentenceEnds(f"([{rust_class(_CJK_END_MARKS)}]+{closers})()")
    ascii_entries = []
    for word in sorted(abbreviations(lang), key=lambda word: (-len(word), word)):
        if not re.fullmatch(r"\w+", word):
            return None
        if word.isascii():
            ascii_entries.append("".join(f"[{c.upper()}{c.lower()}]" for c in word))
        elif any(_matches_ascii(char) for char in word if not char.isascii()):
            return None
    words = "|".join([*ascii_entries, "[A-Za-z]"])
    marked = rust_class(SENTENCE_BREAK)
    white_space = rust_class(WHITE_SPACE)
    return BulkSentenceEnds(
        candidate=f"([{rust_class(_SPACED_END_MARKS)}]+{closers})([{white_space}]+)",
        defer=f"[^\\x00-\\x7f][A-Za-z0-9_]*\\.{closers}{marked}",
        lower=f"{marked}([{white_space}]+[{rust_class(_OPENERS)}]*[a-z\\x{{e0}}-\\x{{ff}}])",
        abbreviation=f"(?-u:\\b)({words})\\.({closers}){marked}",
    )


def _matches_ascii(char: str) -> bool:
    """Whether Python's case-insensitive regex match takes an ASCII letter for `char`."""
    pattern = re.compile(re.escape(char), re.IGNORECASE)
    return any(pattern.fullmatch(letter) for letter in "abcdefghijklmnopqrstuvwxyz")


@cache
def _spaced_sentence_end(lang: str) -> re.Pattern[str]:
    """One regex for the language: a run of . ! ? … with closing quotes, then white space,
    unless a known abbreviation or a single-letter initial (J. R., U.S., e.g.) comes just
    before, or the next word starts in lower case ('"Why?" she asked', 'etc. and')."""
    by_width: dict[int, list[str]] = {}
    for word in sorted(abbreviations(lang)):
        by_width.setdefault(len(word), []).append(re.escape(word))
    # The regex starts with the end mark, so that the engine jumps from one to the next;
    # look-behinds (fixed width: one per abbreviation length) then check the word before
    # a period.
    not_abbreviation = "".join(
        rf"(?<!\b(?i:{'|'.join(words)})\.)" for _, words in sorted(by_width.items())
    )
    not_initial = r"(?<!\b[^\W\d_]\.)"
    return re.compile(
        rf"([.!?…]{not_abbreviation}{not_initial}[.!?…]*[{re.escape(_CLOSERS)}]*)"
        rf"\s++(?![{re.escape(_OPENERS)}]*[a-zà-ÿ])"
    )
