"""Premise sampling on real data: Parallel UD (en, de, zh; news and wiki) as a sentence
pool, myXNLI dev as a pool of released premises and as a corpus to stay disjoint from.

Expected numbers are worked out from the fixture files themselves, not from nlibuild.
Ingest, sample and the premises table run through the Python API; one sample keeps the
CLI's printed line.
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, MYXNLI, ok, query, read_tsv, refused, requires_fixtures

import nlibuild
from nlibuild.text.lang import split_sentences

PUD = FIXTURES / "ud_pud"
MYXNLI_DEV = MYXNLI / "my.genre.dev.tsv"
GENRE_FROM: dict[str, Any] = {"genre_from": "^([nw])", "genre_map": (("n", "news"), ("w", "wiki"))}
"""`--genre-from '^([nw])' --genre-map n=news,w=wiki`: PUD's sent_id prefix as the genre."""
XNLI_GENRES = {
    "facetoface", "fiction", "government", "letters", "nineeleven", "oup", "slate",
    "telephone", "travel", "verbatim",
}  # fmt: skip


# --- helpers ----------------------------------------------------------------------------


def measure(text: str, lang: str) -> int:
    """Characters other than white space for zh/my, whitespace tokens otherwise."""
    return len("".join(text.split())) if lang in ("zh", "my") else len(text.split())


def pud_texts(lang: str) -> dict[str, list[str]]:
    """The `# text =` sentences of a PUD file by genre (sent_id n... news, w... wiki)."""
    by_genre: dict[str, list[str]] = defaultdict(list)
    sent_id = ""
    path = PUD / f"{lang}_pud-ud-test.conllu"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# sent_id = "):
            sent_id = line.removeprefix("# sent_id = ").strip()
        elif line.startswith("# text = "):
            genre = {"n": "news", "w": "wiki"}[sent_id[0]]
            by_genre[genre].append(line.removeprefix("# text = ").strip())
    return by_genre


def myxnli_rows() -> list[dict[str, str]]:
    return read_tsv(MYXNLI_DEV)


def folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def ingest_pud(db: Path, lang: str) -> None:
    path = PUD / f"{lang}_pud-ud-test.conllu"
    nlibuild.open(db).ingest(paths=[path], lang=lang, **GENRE_FROM)


def premises_table(db: Path) -> list[dict[str, Any]]:
    """The rows of `stats --table premises`."""
    return nlibuild.open(db).stats("premises").to_dicts()


# --- Parallel UD -------------------------------------------------------------------------


@requires_fixtures
@pytest.mark.parametrize(("lang", "unit"), [("en", "tokens"), ("de", "tokens"), ("zh", "chars")])
def test_pud_pool_is_500_news_and_500_wiki_and_lengths_are_in_the_languages_unit(
    tmp_path: Path, lang: str, unit: str
) -> None:
    db = nlibuild.create(tmp_path / f"{lang}.db", lang=lang).path
    ingest_pud(db, lang)
    texts = pud_texts(lang)
    assert {g: len(t) for g, t in texts.items()} == {"news": 500, "wiki": 500}

    assert query(db, "SELECT genre, count(*) FROM sentences GROUP BY genre ORDER BY genre") == [
        ("news", 500),
        ("wiki", 500),
    ]
    rows = premises_table(db)
    assert [(r["genre"], r["lang"], r["unit"], r["pool"]) for r in rows] == [
        ("news", lang, unit, 500),
        ("wiki", lang, unit, 500),
    ]
    for row in rows:
        in_range = sum(1 for t in texts[row["genre"]] if 8 <= measure(t, lang) <= 50)
        assert row["qualifying"] == in_range

    nlibuild.open(db).sample(n=100, all_genres=True, min_len=8, max_len=50, seed=5)
    premises = query(db, "SELECT genre, text, length FROM premises")
    assert Counter(g for g, _, _ in premises) == {"news": 100, "wiki": 100}
    for genre, text, length in premises:
        assert text in texts[genre]
        assert length == measure(text, lang), text
        assert 8 <= length <= 50, text


@requires_fixtures
def test_one_pool_of_three_languages_measures_each_in_its_own_unit(tmp_path: Path) -> None:
    corpus = nlibuild.create(tmp_path / "pud.db")
    db = corpus.path
    for lang in ("en", "de", "zh"):
        ingest_pud(db, lang)
    assert [(r["genre"], r["lang"], r["unit"], r["pool"]) for r in premises_table(db)] == [
        ("news", "de", "tokens", 500),
        ("news", "en", "tokens", 500),
        ("news", "zh", "chars", 500),
        ("wiki", "de", "tokens", 500),
        ("wiki", "en", "tokens", 500),
        ("wiki", "zh", "chars", 500),
    ]
    corpus.sample(n=150, all_genres=True, min_len=8, max_len=50, lang="zh")
    premises = query(db, "SELECT lang, text, length FROM premises")
    assert len(premises) == 300
    assert {lang for lang, _, _ in premises} == {"zh"}
    for _, text, length in premises:
        assert length == measure(text, "zh") and 8 <= length <= 50, text


# --- myXNLI -------------------------------------------------------------------------------


@requires_fixtures
def test_myxnli_premises_enter_the_pool_once_and_sample_per_genre(tmp_path: Path) -> None:
    rows = myxnli_rows()
    assert len(rows) == 2490
    premises_by_genre: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        premises_by_genre[row["genre"]].add(row["sentence1_en"].strip())
    # Each premise has three hypotheses: 830 distinct premises, 83 per genre.
    assert {g: len(p) for g, p in premises_by_genre.items()} == dict.fromkeys(XNLI_GENRES, 83)

    db = nlibuild.create(tmp_path / "xnli.db").path
    nlibuild.open(db).ingest(paths=[MYXNLI_DEV], format="tsv", field="sentence1_en",
                             genre_field="genre", lang="en")  # fmt: skip
    pool = dict(query(db, "SELECT genre, count(*) FROM sentences GROUP BY genre"))
    # A tsv record is one pool entry, kept whole: the repeated premises (three rows each)
    # are stored once, so deduplication leaves the 830 premises, 83 per genre.
    assert pool == dict.fromkeys(XNLI_GENRES, 83)

    # sample's printed line, as the CLI gives it
    result = ok("--db", db, "sample", "--per-genre", "20", "--min-len", "1", "--max-len", "200")
    assert "Sampled 200 premises" in result
    sampled = query(db, "SELECT genre, text FROM premises")
    assert len(sampled) == 200
    assert Counter(g for g, _ in sampled) == dict.fromkeys(XNLI_GENRES, 20)
    assert len({folded(t) for _, t in sampled}) == 200


@requires_fixtures
def test_sampling_with_myxnli_excluded_takes_none_of_its_sentences(tmp_path: Path) -> None:
    rows = myxnli_rows()
    released = {folded(row[c]) for row in rows for c in ("sentence1_en", "sentence2_en")}
    released |= {
        folded(s)
        for row in rows
        for c in ("sentence1_en", "sentence2_en")
        for s in split_sentences(row[c], "en")
    }
    corpus = nlibuild.create(tmp_path / "fresh.db")
    db = corpus.path
    ingest_pud(db, "en")
    # The released premises and hypotheses are in the news pool too, so that only the
    # exclusion keeps them out of the sample.
    for field in ("sentence1_en", "sentence2_en"):
        corpus.ingest(paths=[MYXNLI_DEV], format="tsv", field=field, genre="news")
    pud_news = [t for t in pud_texts("en")["news"] if folded(t) not in released]
    news_pool = query(db, "SELECT count(*) FROM sentences WHERE genre = 'news'")[0][0]
    assert news_pool > len(pud_news) == 500

    news = {"genres": ("news",), "min_len": 1, "max_len": 200, "exclude": (MYXNLI_DEV,)}
    refused(db, lambda corpus: corpus.sample(n=501, **news), "only 500 sentences qualify")
    assert query(db, "SELECT count(*) FROM premises")[0][0] == 0

    corpus.sample(n=500, **news)
    texts = [t for (t,) in query(db, "SELECT text FROM premises")]
    assert len(texts) == 500
    assert not {folded(t) for t in texts} & released
    assert sorted(texts) == sorted(pud_news)


# --- Burmese ------------------------------------------------------------------------------


@requires_fixtures
def test_burmese_premises_are_measured_in_characters(tmp_path: Path) -> None:
    rows = myxnli_rows()
    translations: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        translations[row["sentence1_en"]].add(row["sentence1_my"])
    # Every English premise has one Burmese translation, repeated on its three rows.
    assert len(translations) == 830
    assert all(len(t) == 1 for t in translations.values())

    db = nlibuild.create(tmp_path / "my.db", lang="my").path
    nlibuild.open(db).ingest(paths=[MYXNLI_DEV], format="tsv", field="sentence1_my",
                             genre_field="genre", lang="my")  # fmt: skip
    stats = premises_table(db)
    assert {r["genre"] for r in stats} == XNLI_GENRES
    assert {(r["lang"], r["unit"]) for r in stats} == {("my", "chars")}
    sources = {t.strip() for ts in translations.values() for t in ts}
    for text, chars, length in query(db, "SELECT text, chars, length FROM sentences"):
        # Stored as the file has it (some translations are not in NFC); lengths count the
        # characters of its NFC form, as deduplication compares it.
        assert text in sources, text
        assert length == chars == measure(unicodedata.normalize("NFC", text), "my"), text
    # One entry per distinct translation: records are kept whole, not split.
    assert sum(r["pool"] for r in stats) == 830
