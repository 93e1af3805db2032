"""The bulk sentence splitting of `ingest` (polars over a whole batch) against the text-by-text
path it must equal: the same sentences, keys, lengths, order and empty counts."""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

from nlibuild.stages.ingest import SentenceColumns, SentenceSplitter
from nlibuild.text.cleaning import Cleaner
from nlibuild.text.lang import WHITE_SPACE, bulk_sentence_ends, text_key, text_key_array

# What sentence ends, abbreviations, initials, white space, case and normalisation hinge on.
ATOMS = [
    ".", ". ", "!", "?", "…", "? ", '" ', "”", "’", ")", "」", "。", "！", "；", " ", "  ", "\n",
    "\t", "\u3000", "\xa0", "\x1c", '"', "“", "‘", "(", "[", "a", "b", "Z", "K", "é", "É",
    "e\u0301", "ä", "ſ", "ı", "\u212a", "2", "_", "中", "文", "Dr", "dr", "mr", "Mrs", "etc",
    "Inc", "vs", "u", "mär", "St", "ca", "Jan", "word", "Word", "x2", "J", "ß", "ǅ", "Σ", "³",
]  # fmt: skip


def _same(bulk: SentenceColumns, exact: SentenceColumns) -> bool:
    return (
        bulk.texts == exact.texts
        and np.array_equal(bulk.keys, exact.keys)
        and bulk.chars == exact.chars
        and bulk.tokens == exact.tokens
        and np.array_equal(bulk.items, exact.items)
        and bulk.empty == exact.empty
    )


@pytest.mark.parametrize("lang", ["en", "de", "zh", "fr"])
@pytest.mark.parametrize("ascii_only", [False, True])
def test_bulk_columns_equal_text_by_text(lang: str, ascii_only: bool) -> None:
    atoms = [atom for atom in ATOMS if atom.isascii() or not ascii_only]
    rng = random.Random(f"{lang}{ascii_only}")
    for preset in ("none", "callhome"):
        splitter = SentenceSplitter(lang, Cleaner.build(preset))
        for _ in range(150):
            texts = [
                "".join(rng.choice(atoms) for _ in range(rng.randint(0, 40)))
                for _ in range(rng.randint(1, 20))
            ]
            cleaned = [splitter.cleaner.clean(text) for text in texts]
            for split in (True, False):
                bulk = splitter.columns(texts, split)
                assert _same(bulk, splitter.columns_text_by_text(cleaned, split)), texts


def test_a_text_holding_a_break_character_goes_text_by_text() -> None:
    splitter = SentenceSplitter("en", Cleaner.build("none"))
    texts = ["One.\x00Two. Three.", "Four.\x01 Five."]
    assert _same(splitter.columns(texts, True), splitter.columns_text_by_text(texts, True))


def test_white_space_is_what_python_splits_at() -> None:
    python = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    assert set(WHITE_SPACE) == python


def test_text_key_array_equals_text_key() -> None:
    texts = ["Straße", "STRASSE", "ǅemal", "", "a\x00b", "中文。"]
    assert text_key_array(texts).tolist() == [text_key(text) for text in texts]


@pytest.mark.parametrize(
    ("words", "bulk"),
    [({"mr", "mär"}, True), ({"ſt"}, False), ({"z.b"}, False), ({"st"}, True)],
)
def test_a_bulk_rule_only_where_ascii_words_decide_abbreviations(
    monkeypatch: pytest.MonkeyPatch, words: set[str], bulk: bool
) -> None:
    # The long s matches an s in Python's case-insensitive regex; a word with a period
    # inside is more than the word before the final period.
    monkeypatch.setattr("nlibuild.text.lang.abbreviations", lambda lang: frozenset(words))
    bulk_sentence_ends.cache_clear()
    try:
        assert (bulk_sentence_ends("xx") is not None) is bulk
    finally:
        bulk_sentence_ends.cache_clear()


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Dr.\t Smith came.\u3000 He left.", ["Dr.\t Smith came.", "He left."]),
        ('"Why?"\xa0 she asked.  Then  nothing.', ['"Why?"\xa0 she asked.', "Then  nothing."]),
        ("J.\u2009R. wrote it.", ["J.\u2009R. wrote it."]),
    ],
)
def test_a_sentence_end_taken_back_keeps_its_white_space(text: str, sentences: list[str]) -> None:
    # The bulk rule marks every candidate end and then takes some back; without cleaning
    # the text is stored as given, so the white space it took back must be the source's.
    splitter = SentenceSplitter("en", Cleaner.build("none"))
    assert bulk_sentence_ends("en") is not None
    assert splitter.columns([text], split=True).texts == sentences
    assert splitter.columns_text_by_text([text], split=True).texts == sentences
