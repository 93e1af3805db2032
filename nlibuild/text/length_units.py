"""Lengths in the units the papers report them in, for `stats --table lengths`.

- Space-delimited languages: tokens split at punctuation, as XNLI's Table 2 counts them
  (Conneau et al. 2018; "Average number of tokens per sentence", tokenised text). sacrebleu's
  international tokeniser (`intl`, mteval-v14's rules: punctuation and symbols split off)
  reproduces it: on myXNLI's copy of the XNLI English dev and test premises 21.5 tokens
  (paper 21.7) and hypotheses 10.8 (paper 10.7), where its `13a` tokeniser gives 20.5 and
  10.4 and a whitespace split 18.2 and 9.3.
- Chinese and Korean: characters other than white space, OCNLI's unit (Hu et al. 2020, 3.1:
  premises of 8 to 50 characters); the other checks of nlibuild count them so too.
- Thai, Japanese, Burmese: words as ICU's word break iterator finds them (dictionary-based
  for these scripts), punctuation counted as a token as in the intl split, through PyICU
  (the `segment` extra: it needs ICU's development files to build). Without PyICU they are
  counted in characters, and the unit says so.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from nlibuild.text.lang import char_length, primary_language

INTL_TOKENS = "tokens (intl)"
CHARACTERS = "chars"
ICU_WORDS = "words (ICU)"
CHARACTERS_WITHOUT_ICU = "chars (no PyICU)"

ICU_WORD_LANGS: frozenset[str] = frozenset({"th", "ja", "my"})
"""Languages written without spaces between words whose lengths need a word segmenter."""

CHARACTER_LANGS: frozenset[str] = frozenset({"zh", "ko"})
"""Languages counted in characters (OCNLI's unit for Chinese)."""


@functools.cache
def _intl_tokenizer() -> Callable[[str], str]:
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

    tokenizer: Callable[[str], str] = TokenizerV14International()  # type: ignore[no-untyped-call]
    return tokenizer


def intl_token_length(text: str) -> int:
    """Tokens of `text` as sacrebleu's `intl` tokeniser splits it (XNLI Table 2's unit)."""
    return len(_intl_tokenizer()(text).split())


@functools.cache
def icu_word_breaker(lang: str) -> Any | None:
    """ICU's word break iterator for `lang`, or None without PyICU."""
    try:
        import icu
    except ImportError:
        return None
    return icu.BreakIterator.createWordInstance(icu.Locale(lang))


def icu_word_length(text: str, breaker: Any) -> int:
    """Segments between ICU word boundaries that hold something other than white space."""
    breaker.setText(text)
    start, count = breaker.first(), 0
    for end in breaker:
        if text[start:end].strip():
            count += 1
        start = end
    return count


def paper_unit(lang: str) -> str:
    """The unit `paper_length` counts `lang` in."""
    primary = primary_language(lang)
    if primary in CHARACTER_LANGS:
        return CHARACTERS
    if primary in ICU_WORD_LANGS:
        return ICU_WORDS if icu_word_breaker(primary) is not None else CHARACTERS_WITHOUT_ICU
    return INTL_TOKENS


def paper_length(text: str, lang: str) -> int:
    """The length of `text` in `paper_unit(lang)`."""
    primary = primary_language(lang)
    if primary in CHARACTER_LANGS:
        return char_length(text)
    if primary in ICU_WORD_LANGS:
        breaker = icu_word_breaker(primary)
        return char_length(text) if breaker is None else icu_word_length(text, breaker)
    return intl_token_length(text)
