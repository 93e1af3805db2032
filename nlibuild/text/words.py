"""Words of a text: the segmentation that word rules (the negator check) match against.

Chinese is cut by jieba's dictionary; Japanese, Thai and Burmese have no segmenter shipped
here, so each of their characters is a word of its own (a rule over them matches wherever
its characters occur); every other language is cut at spaces and punctuation by
`tokenise`. Text is case-folded and the curly apostrophe made straight first.
"""

from __future__ import annotations

import logging
import re
from functools import cache, lru_cache
from typing import Any

from nlibuild.text.lang import SCRIPTIO_CONTINUA_LANGS, primary_language

# A word: letters, digits and marks with inner apostrophes (overlap.WORD_PATTERN); any other
# character that is not white space is a token of its own, so that punctuation parts words
# ("no, one" is not "no one") without gluing to them ("(not)").
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*|\S")

# English clitics written onto the word before them (Penn Treebank tokenisation splits them
# off): "nobody's" is "nobody" + "'s". "n't" stays part of its word (don't, isn't), which
# the lexicon's word ending `*n't` matches; written apart ("do n't") it is a word itself.
_CLITIC_LANGS: dict[str, re.Pattern[str]] = {"en": re.compile(r"^(.+?)('(?:s|re|ve|ll|d|m))$")}


def fold(text: str) -> str:
    """The form words are compared in: case-folded, with ’ as '."""
    return text.casefold().replace("’", "'")


@cache
def jieba_module() -> Any:
    """jieba, loaded once and quietly (it logs the dictionary it builds otherwise)."""
    import jieba  # imported here: loading its dictionary takes about a second

    jieba.setLogLevel(logging.WARNING)
    return jieba


def load_segmenter(lang: str) -> None:
    """Load `lang`'s segmenter now (jieba builds its dictionary in about a second), so that
    the first text cut later does not wait for it; nothing for other languages."""
    if is_segmented_by_jieba(lang):
        jieba_module().initialize()


def is_segmented_by_jieba(lang: str) -> bool:
    return primary_language(lang) == "zh"


def is_cut_by_character(lang: str) -> bool:
    """Written without spaces and without a segmenter here: every character is a word."""
    return primary_language(lang) in SCRIPTIO_CONTINUA_LANGS and not is_segmented_by_jieba(lang)


def segment(folded: str, lang: str) -> tuple[str, ...]:
    """The words of an already folded text, in order, punctuation included: jieba's (no
    spaces), characters, or `tokenise`'s."""
    if is_segmented_by_jieba(lang):
        return _jieba_words(folded)
    if is_cut_by_character(lang):
        return tuple(folded)
    return tokenise(folded, primary_language(lang))


@lru_cache(maxsize=1 << 16)  # a corpus repeats hypotheses (tables run over every pair)
def _jieba_words(folded: str) -> tuple[str, ...]:
    # Dictionary words only: jieba's HMM joins characters its dictionary lacks (traditional
    # characters among them) into new words, and so glues a negator to its neighbours
    # (稅不會 as one word).
    return tuple(w for w in jieba_module().cut(folded, HMM=False) if not w.isspace())


def tokenise(folded: str, lang: str) -> tuple[str, ...]:
    """Words and punctuation of a space-delimited language, English clitics split off."""
    tokens = _TOKEN.findall(folded)
    clitic = _CLITIC_LANGS.get(lang)
    if clitic is None or "'" not in folded:
        return tuple(tokens)
    split: list[str] = []
    for token in tokens:
        parts = clitic.match(token) if "'" in token else None
        split.extend(parts.groups() if parts else (token,))
    return tuple(split)
