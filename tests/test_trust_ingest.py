"""`ingest --clean none` stores each sentence as the source has it.

Without a cleaning rule nothing was cut out of a text, so no gap was left to close and no
white space to tidy: a sentence is stored byte for byte, only cut at its sentence ends and
stripped of the white space at its two ends (the lines of a txt paragraph are joined, as
the txt format reads them). Deduplication, lengths and the premises' sampling keys still
compare normalised texts (NFC, single spaces, no space between two CJK characters).
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path

import pytest
from conftest import new_store, ok, query, run_cli, write_jsonl

from nlibuild.stages.ingest import SentenceSplitter
from nlibuild.text.cleaning import Cleaner
from nlibuild.text.lang import canonical_text, text_key, text_keys


def pool_texts(db: Path) -> list[str]:
    return [text for (text,) in query(db, "SELECT text FROM sentences ORDER BY pk")]


def ingest_zh_txt(tmp_path: Path, text: str, *args: str) -> Path:
    source = tmp_path / "source.txt"
    source.write_text(text, encoding="utf-8")
    db = new_store(tmp_path / "zh.db", "--lang", "zh")
    ok("--db", db, "ingest", source, "--genre", "news", "--clean", "none", *args)
    return db


# --- the sentence as it stands --------------------------------------------------------


@pytest.mark.parametrize("parallel", [False, True], ids=["one-thread", "reader-thread"])
def test_a_space_between_chinese_characters_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool
) -> None:
    if parallel:  # the reader thread, which inputs of a megabyte or more take
        monkeypatch.setattr("nlibuild.stages.ingest.PARALLEL_MIN_BYTES", 0)
    db = ingest_zh_txt(tmp_path, "他 说了。我们走吧。\n")
    assert pool_texts(db) == ["他 说了。", "我们走吧。"]


def test_an_ideographic_space_and_other_white_space_inside_a_sentence_are_kept(
    tmp_path: Path,
) -> None:
    db = ingest_zh_txt(tmp_path, "\u3000\u3000他\u3000说了。我们  走\t吧。 \n")
    # The paragraph's indent and the white space between sentences go; inside, nothing.
    assert pool_texts(db) == ["他\u3000说了。", "我们  走\t吧。"]


def test_a_json_record_is_kept_as_it_stands(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "Café")
    records = [{"text": " 他 说了。\n我们走吧。 "}, {"text": f"{decomposed}  的\u3000咖啡"}]
    source = write_jsonl(tmp_path / "premises.jsonl", records)
    db = new_store(tmp_path / "zh.db", "--lang", "zh")
    ok("--db", db, "ingest", source, "--genre", "news", "--clean", "none")
    assert pool_texts(db) == ["他 说了。\n我们走吧。", f"{decomposed}  的\u3000咖啡"]


def test_keys_and_lengths_are_those_of_the_normalised_text(tmp_path: Path) -> None:
    db = ingest_zh_txt(tmp_path, "他 说了。\n\n他说了。\n\n他\u3000说 了。\n")
    # One sentence three ways: the first as written, the others duplicates of it.
    rows = query(db, "SELECT text, key, chars, tokens, length FROM sentences")
    assert rows == [("他 说了。", text_key("他说了。"), 4, 1, 4)]


def test_a_sampled_premise_keeps_its_space_and_is_not_sampled_again(tmp_path: Path) -> None:
    db = ingest_zh_txt(tmp_path, "他 说了这件事。\n")
    ok("--db", db, "sample", "--genre", "news", "--n", "1", "--min-len", "1", "--seed", "1")
    assert query(db, "SELECT text FROM premises") == [("他 说了这件事。",)]
    # The premise's keys, taken from its stored text, rule its pool sentence out.
    (key,) = query(db, "SELECT key FROM sentences")[0]
    assert key in text_keys("他 说了这件事。", "zh")
    again = run_cli("--db", db, "sample", "--genre", "news", "--n", "1", "--min-len", "1")
    assert again.exit_code == 1, again.output


def test_cleaning_rules_still_close_the_gaps_they_leave(tmp_path: Path) -> None:
    # Callhome and --strip replace markup with a space: there the gaps are theirs to close.
    db = ingest_zh_txt(tmp_path, "B：好的{laugh}我知道。\n", "--strip", r"\{laugh\}")
    assert pool_texts(db) == ["B：好的我知道。"]
    callhome = tmp_path / "callhome"
    callhome.mkdir()
    source = callhome / "phone.txt"
    source.write_text("B：好的 {laugh} 我 知道。\n", encoding="utf-8")
    db = new_store(callhome / "zh.db", "--lang", "zh")
    ok("--db", db, "ingest", source, "--genre", "phone", "--clean", "callhome")
    assert pool_texts(db) == ["好的我知道。"]


def test_canonical_text_is_what_keys_compare() -> None:
    assert canonical_text("他\u3000说 了。", "zh") == "他说了。"
    assert canonical_text(" Cafe\u0301  au\tlait ", "fr") == "Café au lait"
    assert canonical_text("中文 text 中文", "zh") == "中文 text 中文"


# --- differential: every stored sentence is in the source ------------------------------

# Chinese and English pieces, sentence ends, and the white space and composed/decomposed
# forms that normalisation would change.
ATOMS = [
    "他", "说", "了", "我们", "走", "吧", "。", "！", "？", "；", "」", "“", "”", "，",
    " ", "  ", "\u3000", "\t", "\xa0", "\u2009", "Cafe\u0301", "Café", "word", "A", ".",
    "3.5", "e\u0301", "ｔｅｘｔ",
]  # fmt: skip


def random_texts(rng: random.Random, count: int) -> list[str]:
    """`count` texts of random atoms, none blank (a blank jsonl field is refused)."""
    texts: list[str] = []
    while len(texts) < count:
        text = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 30)))
        if not text.isspace():
            texts.append(text)
    return texts


@pytest.mark.parametrize("lang", ["zh", "ja", "en"])
def test_every_stored_sentence_is_a_substring_of_its_source(tmp_path: Path, lang: str) -> None:
    rng = random.Random(lang)
    texts = random_texts(rng, 400)
    lines = tmp_path / "lines.txt"
    lines.write_text("".join(f"{text}\n" for text in texts), encoding="utf-8")
    records = write_jsonl(tmp_path / "records.jsonl", [{"text": text} for text in texts])
    for name, source, args in (
        ("lines", lines, ("--paragraph", "line")),
        ("records", records, ()),
    ):
        db = new_store(tmp_path / f"{name}.db", "--lang", lang)
        ok("--db", db, "ingest", source, "--genre", "g", "--clean", "none", *args)
        stored = pool_texts(db)
        assert stored
        for sentence in stored:
            assert sentence == sentence.strip()
            assert any(sentence in text for text in texts), (name, sentence)
        # Every sentence of the source is there, as written, unless a duplicate by key.
        keys = {text_key(canonical_text(sentence, lang)) for sentence in stored}
        assert len(keys) == len(stored)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_bulk_and_text_by_text_store_the_same_verbatim_sentences(lang: str) -> None:
    rng = random.Random(f"verbatim-{lang}")
    splitter = SentenceSplitter(lang, Cleaner.build("none"))
    for _ in range(100):
        texts = random_texts(rng, rng.randint(1, 12))
        for split in (True, False):
            bulk = splitter.columns(texts, split)
            exact = splitter.columns_text_by_text(texts, split)
            assert bulk.texts == exact.texts, json.dumps(texts)
            assert bulk.keys.tolist() == exact.keys.tolist()
            assert (bulk.chars, bulk.tokens, bulk.empty) == (exact.chars, exact.tokens, exact.empty)
            joined = [text.replace("\n", "" if lang == "zh" else " ") for text in texts]
            for sentence, item in zip(bulk.texts, bulk.items.tolist(), strict=True):
                assert sentence in joined[item]
