"""`stats --table lengths`: XNLI's Table 2 from the store, per language: the mean premise and
hypothesis length in the unit the papers count (tokens split at punctuation as XNLI's Table 2,
which sacrebleu's intl tokeniser reproduces; characters for zh as OCNLI; ICU words for
th/ja/my, or characters saying so without PyICU), for the pairs' own language and for each
translation; each premise counts once.

The stores are built and the table read through the Python API (`corpus.stats`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, read_jsonl, read_tsv, requires_fixtures, write_jsonl

import nlibuild
from nlibuild.text.length_units import icu_word_breaker, paper_length, paper_unit

try:
    import icu  # noqa: F401

    HAS_ICU = True
except ImportError:
    HAS_ICU = False
requires_icu = pytest.mark.skipif(not HAS_ICU, reason="PyICU is not installed (the segment extra)")


def lengths(db: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = nlibuild.open(db).stats("lengths").to_dicts()
    return {(r["lang"], r["kind"]): r for r in rows}


def test_means_count_each_premise_once_in_each_languages_unit(db: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "pairs.jsonl"
    records = [
        {"premise_id": "p1", "premise": "one two three four", "hypothesis": "one two",
         "labels": ["entailment"]},
        {"premise_id": "p1", "premise": "one two three four", "hypothesis": "three",
         "labels": ["neutral"]},
        {"premise_id": "p2", "premise": "five six", "hypothesis": "five six seven",
         "labels": ["contradiction"]},
    ]  # fmt: skip
    write_jsonl(corpus, records)
    store = nlibuild.open(db)
    store.import_corpus(path=corpus, format="jsonl")
    units = tmp_path / "zh.jsonl"
    store.translate_export(lang="zh", out=units)
    # By source text: the pairs have no IDs of their own, so theirs are derived from content.
    chinese = {"one two three four": "一二三四五", "five six": "五六七", "one two": "一二",
               "three": "三", "five six seven": "五六七八"}  # fmt: skip
    write_jsonl(units, [r | {"text": chinese[r["source"]]} for r in read_jsonl(units)])
    store.translate_import(path=units, lang="zh")
    table = lengths(db)
    source, zh = table[("en", "source")], table[("zh", "human")]
    assert (source["unit"], source["premises"], source["premise_mean"]) == ("tokens (intl)", 2, 3.0)
    assert (source["hypotheses"], source["hypothesis_mean"]) == (3, 2.0)
    assert (zh["unit"], zh["premises"], zh["premise_mean"]) == ("chars", 2, 4.0)
    assert zh["hypotheses"] == 3 and zh["hypothesis_mean"] == pytest.approx(7 / 3)


@requires_fixtures
def test_myxnli_lengths_per_language(db: Path) -> None:
    path = FIXTURES / "myxnli" / "my.genre.dev.tsv"
    corpus = nlibuild.open(db)
    corpus.import_corpus(path=path, format="xnli", lang="en", label_order="e,n,c")
    print(corpus.stats("lengths"))
    table = lengths(db)
    english, burmese = table[("en", "source")], table[("my", "human")]
    assert english["premises"] == burmese["premises"] == 830
    assert english["hypotheses"] == burmese["hypotheses"] == 2490
    # XNLI Table 2 reports English dev premises of ~20 tokens and hypotheses of ~10.
    assert 15 < english["premise_mean"] < 25 and 7 < english["hypothesis_mean"] < 13
    if HAS_ICU:  # Burmese puts spaces between phrases, not words: ICU finds the words
        assert burmese["unit"] == "words (ICU)"
        assert burmese["premise_mean"] == pytest.approx(29.55, abs=0.01)
        assert burmese["hypothesis_mean"] == pytest.approx(16.11, abs=0.01)
    else:
        assert burmese["unit"] == "chars (no PyICU)"
        assert burmese["premise_mean"] > 3 * english["premise_mean"]


XNLI_TABLE_2_ENGLISH = (21.7, 10.7)
"""Conneau et al. 2018, Table 2: average tokens per English premise and hypothesis."""


@requires_fixtures
def test_english_lengths_match_xnli_table_2_within_a_fifth_of_a_token(db: Path) -> None:
    path = FIXTURES / "myxnli" / "my.genre.test.tsv"
    nlibuild.open(db).import_corpus(path=path, format="xnli", lang="en", label_order="e,n,c")
    english = lengths(db)[("en", "source")]
    assert english["unit"] == "tokens (intl)"
    assert (english["premises"], english["hypotheses"]) == (1670, 5010)
    premise, hypothesis = XNLI_TABLE_2_ENGLISH
    print(f"\nmyXNLI en test: premise {english['premise_mean']:.2f} (XNLI {premise}), "
          f"hypothesis {english['hypothesis_mean']:.2f} (XNLI {hypothesis})")  # fmt: skip
    assert english["premise_mean"] == pytest.approx(premise, abs=0.2)
    assert english["hypothesis_mean"] == pytest.approx(hypothesis, abs=0.2)
    # The choice of tokeniser matters: a whitespace split is 3 tokens short a premise.
    premises = list(dict.fromkeys(row["sentence1_en"] for row in read_tsv(path)))
    spaced = sum(len(p.split()) for p in premises) / len(premises)
    assert english["premise_mean"] - spaced > 3


def test_punctuation_is_a_token_and_chinese_is_counted_in_characters() -> None:
    assert paper_unit("en") == paper_unit("sw") == "tokens (intl)"
    assert paper_length("Hello, world! It's 3.5 km.", "en") == 10
    assert paper_unit("zh-Hans") == "chars"
    assert paper_length("他说：“我回来了。”", "zh") == 10


@requires_icu
def test_thai_japanese_and_burmese_are_counted_in_icu_words() -> None:
    assert {paper_unit(lang) for lang in ("th", "ja", "my")} == {"words (ICU)"}
    assert paper_length("สวัสดีครับ ผมชื่อสมชาย", "th") == 5  # สวัสดี ครับ ผม ชื่อ สมชาย
    assert paper_length("私は学生です。", "ja") == 5  # 私 は 学生 です 。
    assert paper_length("ကျွန်တော်ပြန်ရောက်ပြီ", "my") == 4  # ကျွန်တော် ပြန် ရောက် ပြီ


def test_without_pyicu_burmese_is_counted_in_characters_and_the_unit_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "icu", None)  # import icu raises ImportError
    icu_word_breaker.cache_clear()
    try:
        assert paper_unit("my") == "chars (no PyICU)"
        assert paper_length("ကျွန်တော် ပြန်", "my") == len("ကျွန်တော်ပြန်")
    finally:
        icu_word_breaker.cache_clear()
