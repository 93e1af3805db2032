"""Overlap of a hypothesis with its premise: the units compared (words, or characters for
the languages written without spaces, OCNLI 3.2; jieba's words for Chinese when asked), the
shares of them a hypothesis and a premise have in common, and where the shared units stand
in the text as typed, for the writing page to highlight them. Apart from `lang.py` because
it cuts Chinese with jieba (`words.py`), which itself builds on `lang.py`."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from nlibuild.models import DEFAULT_OVERLAP_UNITS, OverlapMeasure, OverlapUnits
from nlibuild.text.lang import length_unit, primary_language
from nlibuild.text.words import jieba_module

# --- hypothesis rules: overlap with the premise (negators.py has the negators) ----------

WORD_PATTERN = r"[^\W_]+(?:['’][^\W_]+)*"
"""A word: letters, digits and marks with inner apostrophes; the underscore is punctuation."""
_WORD = re.compile(WORD_PATTERN)


def counts_characters(lang: str, units: OverlapUnits = DEFAULT_OVERLAP_UNITS) -> bool:
    """Whether overlap in `lang` counts characters: the character-unit languages do unless
    `units` asks for words and the language can be cut into words here (Chinese by jieba,
    Korean at its spaces)."""
    if length_unit(lang) != "chars":
        return False
    return units is OverlapUnits.CHARACTERS or primary_language(lang) not in {"zh", "ko"}


def overlap_unit_name(lang: str, units: OverlapUnits = DEFAULT_OVERLAP_UNITS) -> str:
    """What overlap counts in `lang`, as a page names it: `characters` or `words`."""
    return "characters" if counts_characters(lang, units) else "words"


SPACED_WITH_PARTICLES: frozenset[str] = frozenset({"ko"})
"""Languages counted in characters for their length (OCNLI's unit) but written with spaces
between words that carry their particles (Korean 학교에, 학교가): most characters of a
hypothesis recur in its premise in other words, so characters say little of copying. The
corpus tables count their overlap in words at the spaces (KLUE-NLI's dev entailments: 78%
over a 70% limit in characters, 21% in words)."""


def table_overlap_units(lang: str, units: OverlapUnits) -> OverlapUnits:
    """The units `stats --table subsets` and `cues` (and the report), `elicit import`'s
    overlap rule and the writing page count overlap of `lang` in: words for
    `SPACED_WITH_PARTICLES`, else the preset's `[elicit] overlap_units`."""
    return OverlapUnits.WORDS if primary_language(lang) in SPACED_WITH_PARTICLES else units


def overlap_units(text: str, lang: str, units: OverlapUnits = DEFAULT_OVERLAP_UNITS) -> list[str]:
    """The units overlap is counted in: case-folded words (letters, digits, inner
    apostrophes; for Chinese jieba's words), or the letters and digits one by one
    (`counts_characters`). Punctuation and spaces never count: a shared final 。 is not
    overlap."""
    folded = text.casefold().replace("’", "'")
    if counts_characters(lang, units):
        return [c for c in folded if unicodedata.category(c)[0] in "LMN"]
    if primary_language(lang) == "zh":
        return [word for word, _, _ in _jieba_units(folded)]
    return _WORD.findall(folded)


@functools.lru_cache(maxsize=1 << 14)  # a premise is counted against each of its hypotheses
def _jieba_units(folded: str) -> tuple[tuple[str, int, int], ...]:
    """jieba's dictionary words of a folded Chinese text that hold a letter or digit, with
    their [start, end); without its HMM, as the negator rule cuts (text/words.py)."""
    return tuple(
        (word, start, end)
        for word, start, end in jieba_module().tokenize(folded, HMM=False)
        if any(unicodedata.category(c)[0] in "LMN" for c in word)
    )


def overlap_ratio(hypothesis: str, premise: str, lang: str) -> float:
    """The share of the hypothesis's units that also occur in the premise, as multisets:
    a word twice in the hypothesis and once in the premise counts once. 0 for a hypothesis
    without units. OCNLI 3.2 told writers no hypothesis may overlap more than 70%."""
    return overlap_shares(hypothesis, premise, lang)[0]


def overlap_shares(
    hypothesis: str, premise: str, lang: str, units: OverlapUnits = DEFAULT_OVERLAP_UNITS
) -> tuple[float, float]:
    """The units the two texts share (as multisets), as a share of the hypothesis's units
    and as a share of the premise's; 0 for a text without units."""
    hypothesis_units = Counter(overlap_units(hypothesis, lang, units))
    premise_units = Counter(overlap_units(premise, lang, units))
    shared = sum((hypothesis_units & premise_units).values())
    return (
        shared / hypothesis_units.total() if hypothesis_units else 0.0,
        shared / premise_units.total() if premise_units else 0.0,
    )


def overlap_share(
    hypothesis: str,
    premise: str,
    lang: str,
    measure: OverlapMeasure,
    units: OverlapUnits = DEFAULT_OVERLAP_UNITS,
) -> float:
    """The share the overlap rule compares with its limit, under `measure`; for BOTH the
    smaller share, so that it is over the limit only when both shares are."""
    of_hypothesis, of_premise = overlap_shares(hypothesis, premise, lang, units)
    if measure is OverlapMeasure.HYPOTHESIS:
        return of_hypothesis
    if measure is OverlapMeasure.PREMISE:
        return of_premise
    return min(of_hypothesis, of_premise)


@dataclass(frozen=True)
class UnitSpan:
    """One overlap unit of a text (`overlap_units`'s form) and where it stands in the text
    as given: [start, end) in code points."""

    unit: str
    start: int
    end: int


def overlap_unit_spans(
    text: str, lang: str, units: OverlapUnits = DEFAULT_OVERLAP_UNITS
) -> list[UnitSpan]:
    """`overlap_units(text, lang, units)` with each unit's place in `text`: the same units
    in the same order (case folding maps each character on its own, so the folded text is
    cut as `overlap_units` cuts it and each folded character traced back to its source)."""
    pieces = [char.casefold() for char in text]
    origin = [i for i, piece in enumerate(pieces) for _ in piece]
    folded = "".join(pieces).replace("’", "'")
    if counts_characters(lang, units):
        return [
            UnitSpan(char, origin[at], origin[at] + 1)
            for at, char in enumerate(folded)
            if unicodedata.category(char)[0] in "LMN"
        ]
    if primary_language(lang) == "zh":
        found = _jieba_units(folded)
        return [UnitSpan(word, origin[start], origin[end - 1] + 1) for word, start, end in found]
    return [
        UnitSpan(m.group(), origin[m.start()], origin[m.end() - 1] + 1)
        for m in _WORD.finditer(folded)
    ]


def shared_unit_spans(
    hypothesis: str, premise: str, lang: str, units: OverlapUnits = DEFAULT_OVERLAP_UNITS
) -> list[UnitSpan]:
    """The hypothesis's units that count as overlap with the premise, in order: as
    multisets, so a unit twice in the hypothesis and once in the premise is shared once
    (its first occurrence), as `overlap_shares` counts it."""
    left = Counter(overlap_units(premise, lang, units))
    shared = []
    for span in overlap_unit_spans(hypothesis, lang, units):
        if left[span.unit] > 0:
            left[span.unit] -= 1
            shared.append(span)
    return shared
