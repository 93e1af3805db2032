"""Negators of a language, matched against the words of a segmentation (`words.segment`).

OCNLI 3.2's MULTI_CONSTRAINT protocol allowed "only one out of the three contradictions" of
a premise "to contain a negator"; the elicitation check, the cue and subset tables and the
artifact stage count negators with this module. A negator found inside another word is a
wrong result (非 in 南非 'South Africa', 别 in 判别 'discern', 否 in 能否 'whether'), so
entries match words, never parts of words, with one exception for languages whose
segmenter joins a negator to the verb it negates (see `NegatorLexicon`), and one rule for
Chinese words that hold a negator inside (see `is_potential_negative`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

from nlibuild.errors import InputError
from nlibuild.formats.input_files import read_utf8_text
from nlibuild.text.lang import RESOURCES, SCRIPTIO_CONTINUA_LANGS, primary_language
from nlibuild.text.words import fold, is_segmented_by_jieba, segment

_NEGATOR_ENTRY = re.compile(r"^(!|\*)?([^\W\d_]|['’-])+( ([^\W\d_]|['’-])+)*$")

# The Chinese potential form (the "potential complement" of Li & Thompson 1981, Mandarin
# Chinese; 可能补语 in 刘月华 et al. 2001, 实用现代汉语语法): a verb with its result or
# direction complement and 不 between them says the result cannot come about (看不见 'cannot
# see', 买不起 'cannot afford', 来不及 'too late to'). jieba's dictionary keeps hundreds of
# these whole, so their 不 never starts a word. The complements below are the result and
# direction morphemes that make the form, traditional forms beside simplified. 断 is left
# out: 接连不断, 源源不断 'continuously' are idioms that do not negate, and 折不断 is rare.
POTENTIAL_NEGATOR = "不"
POTENTIAL_COMPLEMENTS = frozenset(
    "见懂起到了住动下上开出来去进回过清完成及着透掉好惯够准定通醒饱稳倒垮破脱尽得消"
    "見動開來進過著慣夠準飽穩脫盡"
)

# (entry, is it an exception), longest first and an exception before a negator of the same
# length, so that the first entry that fits is the one that decides.
_Candidates = tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class NegatorLexicon:
    """Negators of one language, with exceptions: phrases that hold a negator but do not
    negate (English "not only"). Read from resources/negators/<lang>.txt and any extra
    files given; see that file for the format.

    Entries match whole words or runs of whole words of the text's segmentation, longest
    first, so that an exception wins over the negator inside it but hides nothing beside
    it. A `*` entry matches the end of a longer word (don't). Languages written without
    spaces are matched on their joined words: an entry must start where a word starts (so
    非 never matches in 南非) but may end inside a word, as jieba's dictionary joins a
    negator to what it negates (没来, 别去, 不吃); an exception must cover whole words or
    the start of one word (不管是谁 holds the exception 不管是). In Chinese a word of
    jieba's in the potential form (看不见, `is_potential_negative`) is a negator too, found
    as the whole word, unless an exception names it (了不起 'amazing', 对不起 'sorry').
    """

    lang: str
    negators: frozenset[str]
    suffixes: frozenset[str]
    exceptions: frozenset[str]
    sources: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not (self.negators or self.suffixes)

    @property
    def _joins_words(self) -> bool:
        return primary_language(self.lang) in SCRIPTIO_CONTINUA_LANGS

    @property
    def _finds_potential_forms(self) -> bool:
        return is_segmented_by_jieba(self.lang)

    @functools.cached_property
    def _candidates(self) -> dict[str, _Candidates]:
        """Entries by their first word (spaced languages) or first character (joined)."""
        entries = [(e, False) for e in self.negators] + [(e, True) for e in self.exceptions]
        if self._joins_words:
            entries = [(e.replace(" ", ""), is_exception) for e, is_exception in entries]
        by_first: dict[str, list[tuple[str, bool]]] = {}
        for entry, is_exception in entries:
            first = entry[0] if self._joins_words else entry.split(" ")[0]
            by_first.setdefault(first, []).append((entry, is_exception))
        return {
            first: tuple(sorted(group, key=lambda c: (-len(c[0].split(" ")), -len(c[0]), not c[1])))
            for first, group in by_first.items()
        }

    @functools.cached_property
    def _prefilter(self) -> re.Pattern[str] | None:
        """A text without any negator's first word among its characters has no negator: it
        is not segmented at all (most hypotheses of a corpus)."""
        if self.empty:
            return None
        pieces = {e.split(" ")[0] for e in self.negators} | set(self.suffixes)
        if self._joins_words:
            pieces = {e.replace(" ", "") for e in self.negators} | set(self.suffixes)
        if self._finds_potential_forms:
            pieces.add(POTENTIAL_NEGATOR)
        return re.compile("|".join(map(re.escape, sorted(pieces, key=lambda p: (-len(p), p)))))

    def find(self, text: str) -> list[str]:
        """The negators in `text`, in order (as the lexicon writes them, case-folded; a word
        matched by a `*` ending as written)."""
        return [entry for entry, _, _ in self._matches(fold(text))[1]]

    def find_spans(self, text: str) -> list[NegatorSpan]:
        """The negators of `find`, each with where it stands in `text` as given (offsets
        of Python's str, end exclusive): what a page highlights while a writer types."""
        folded_of = _folded_offsets(text)
        folded, matches = self._matches(fold(text))
        if not matches:
            return []
        assert len(folded) == len(folded_of)  # fold() works character by character
        return [
            NegatorSpan(entry, folded_of[start], folded_of[end - 1] + 1)
            for entry, start, end in matches
        ]

    def negated(self, text: str) -> bool:
        return bool(self.find(text))

    def _matches(self, folded: str) -> tuple[str, list[tuple[str, int, int]]]:
        """(entry, start, end) of each negator, as offsets into the folded text."""
        prefilter = self._prefilter
        if prefilter is None or not prefilter.search(folded):
            return folded, []
        words = segment(folded, self.lang)
        starts = _word_offsets(folded, words)
        if self._joins_words:
            return folded, self._find_in_joined(words, starts)
        return folded, self._find_in_spaced(words, starts)

    def _ends_in(self, word: str) -> bool:
        return any(word.endswith(s) and len(word) > len(s) for s in self.suffixes)

    def _find_in_spaced(
        self, words: Sequence[str], starts: Sequence[int]
    ) -> list[tuple[str, int, int]]:
        found = []
        i = 0
        while i < len(words):
            width, is_exception, match = 1, False, ""
            for entry, exception in self._candidates.get(words[i], ()):
                parts = entry.split(" ")
                if tuple(words[i : i + len(parts)]) == tuple(parts):
                    width, is_exception, match = len(parts), exception, entry
                    break
            if not match and self._ends_in(words[i]):
                match = words[i]
            if match and not is_exception:
                last = i + width - 1
                found.append((match, starts[i], starts[last] + len(words[last])))
            i += width
        return found

    def _find_in_joined(
        self, words: Sequence[str], word_starts: Sequence[int]
    ) -> list[tuple[str, int, int]]:
        text = "".join(words)
        # Where each character of the joined words stands in the folded text (the spaces
        # jieba drops are not in `text`).
        folded_at = [at + j for word, at in zip(words, word_starts, strict=True)
                     for j in range(len(word))]  # fmt: skip
        starts, ends, offset = [], set(), 0
        for word in words:
            starts.append(offset)
            offset += len(word)
            ends.add(offset)
        found: list[tuple[str, int, int]] = []
        done = 0  # where the last entry matched ends: no entry starts inside it
        for word, start in zip(words, starts, strict=True):
            if start < done:
                continue
            if self._finds_potential_forms and is_necessity_frame(word):
                done = start + len(word)
                continue
            for entry, is_exception in self._candidates.get(text[start], ()):
                end = start + len(entry)
                if not text.startswith(entry, start):
                    continue
                if is_exception and end not in ends and end > start + len(word):
                    continue  # an exception ending inside a later word is not that word
                if not is_exception:
                    found.append((entry, folded_at[start], folded_at[end - 1] + 1))
                done = end
                break
            else:
                potential = self._finds_potential_forms and is_potential_negative(word)
                if potential or self._ends_in(word):
                    end = start + len(word)
                    found.append((word, folded_at[start], folded_at[end - 1] + 1))
        return found


def is_potential_negative(word: str) -> bool:
    """A word of jieba's in the negative potential form: one verb character, 不, and a
    complement (看不见, 听不懂, 说不清楚, 想不起来). Not an A-not-A question (是不是, 动不动
    'at every turn'), and not 不 deeper inside a word: four-character idioms with 不 in
    third place mostly do not negate (坚持不懈 'persistent', 川流不息 'ceaseless'), and the
    ones that do are listed in the lexicon (一动不动, 一言不发)."""
    return (
        len(word) >= 3
        and word[1] == POTENTIAL_NEGATOR
        and word[2] in POTENTIAL_COMPLEMENTS
        and word[0] != word[2]
    )


def is_necessity_frame(word: str) -> bool:
    """A word of jieba's in the frame 非…不可 'must' (非去不可 'must go', 非你不可 'it has to
    be you'): two negators that together assert, as English "cannot but"; jieba's
    dictionary holds about a hundred of them."""
    return len(word) >= 4 and word.startswith("非") and word.endswith("不可")


@dataclass(frozen=True)
class NegatorSpan:
    """A negator found in a text: the lexicon's entry and its place, [start, end)."""

    negator: str
    start: int
    end: int


def _word_offsets(folded: str, words: Sequence[str]) -> list[int]:
    """Where each word of a segmentation starts in the text it was cut from (the
    segmenters return pieces of the text in order, dropping only white space)."""
    starts, at = [], 0
    for word in words:
        at = folded.index(word, at)
        starts.append(at)
        at += len(word)
    return starts


def _folded_offsets(text: str) -> list[int]:
    """For each character of `fold(text)`, the index of the character of `text` it came
    from (case folding may turn one character into two: ß is ss)."""
    return [i for i, char in enumerate(text) for _ in fold(char)]


def negator_lexicon(lang: str, extra_files: tuple[Path, ...] = ()) -> NegatorLexicon:
    """The built-in lexicon of `lang` (empty when there is none) plus `extra_files`.

    A line that is not an entry, or an exception that contains no negator, is an
    `InputError` naming the file and line.
    """
    return _negator_lexicon(primary_language(lang), tuple(p.resolve() for p in extra_files))


def _lexicon_lines(path: Path | Traversable) -> list[str]:
    if isinstance(path, Path):
        return read_utf8_text(path, "negator file").splitlines()
    # A built-in lexicon inside an installed archive: shipped, not user input.
    return path.read_text(encoding="utf-8").splitlines()


@cache
def _negator_lexicon(lang: str, extra_files: tuple[Path, ...]) -> NegatorLexicon:
    built_in = RESOURCES / "negators" / f"{lang}.txt"
    paths: list[Path | Traversable] = [built_in] if built_in.is_file() else []
    paths += extra_files
    negators: set[str] = set()
    suffixes: set[str] = set()
    exceptions: dict[str, tuple[Path | Traversable, int]] = {}
    for path in paths:
        for number, line in enumerate(_lexicon_lines(path), 1):
            entry = " ".join(fold(line.split("#", 1)[0]).split())
            if not entry:
                continue
            if not _NEGATOR_ENTRY.match(entry) or not any(c.isalpha() for c in entry):
                raise InputError(
                    str(path),
                    f"{line.strip()!r} is not a negator entry: write one word or phrase of "
                    "letters per line, `*` first for a word ending, `!` first for an exception",
                    number,
                )
            if entry.startswith("!"):
                exceptions[entry[1:]] = (path, number)
            elif entry.startswith("*"):
                suffixes.add(entry[1:])
            else:
                negators.add(entry)
    lexicon = NegatorLexicon(
        lang,
        frozenset(negators),
        frozenset(suffixes),
        frozenset(exceptions),
        tuple(str(p) for p in paths),
    )
    probe = NegatorLexicon(lang, lexicon.negators, lexicon.suffixes, frozenset(), ())
    for exception, (path, number) in exceptions.items():
        if not probe.find(exception):
            raise InputError(
                str(path),
                f"exception {exception!r} contains none of the negators, so it excepts nothing; "
                "remove it or add the negator it contains",
                number,
            )
    return lexicon
